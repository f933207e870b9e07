//! SaltGUI (erwindon/SaltGUI, a static web app) served by `brine-api`
//! from `rest_cherrypy: app/static` and driven in headless Chromium
//! through Debian's chromedriver: log in (`file` eauth), list the
//! minions, run `test.ping` from the command box, open the job; a
//! screenshot of each is kept in `target/saltgui-screenshots/`.
//!
//! SaltGUI's code is not in this repository (and CI cannot download it),
//! so this test is ignored unless run by hand:
//! `BRINE_SALTGUI=/path/to/SaltGUI/saltgui cargo test -p brine-tests
//! --test api_saltgui_browser -- --ignored` (needs `apt install chromium
//! chromium-driver`). What SaltGUI asks of the API is checked in every
//! run by `api_saltgui.rs`, against salt-api's recorded answers.

use brine_tests::daemon::{free_port, MasterConf};
use brine_tests::webdriver::Browser;
use std::path::PathBuf;
use std::time::Duration;

fn shots() -> PathBuf {
    let d = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../target/saltgui-screenshots"
    ));
    std::fs::create_dir_all(&d).expect("screenshot folder");
    d
}

fn keep(b: &Browser, name: &str) {
    let png = b.screenshot().expect("screenshot");
    assert!(png.starts_with(b"\x89PNG"), "{name}: not a PNG");
    std::fs::write(shots().join(name), png).expect("write screenshot");
}

#[test]
#[ignore = "needs SaltGUI (BRINE_SALTGUI) and Chromium; see the module doc"]
fn saltgui_logs_in_lists_minions_runs_and_opens_a_job() {
    let gui = PathBuf::from(
        std::env::var_os("BRINE_SALTGUI")
            .expect("BRINE_SALTGUI names SaltGUI's saltgui/ folder (with index.html and static/)"),
    );
    let port = free_port();
    let users = tempfile::NamedTempFile::new().expect("users file");
    std::fs::write(users.path(), "admin:s3cret\n").expect("users");
    let conf = MasterConf::new(&format!(
        "external_auth:\n  file:\n    ^filename: {}\n    admin: ['.*', '@runner', '@wheel', '@jobs']\n\
         netapi_enable_clients: [local, local_async, runner, runner_async, wheel, wheel_async]\n\
         rest_cherrypy: {{port: {port}, host: 127.0.0.1, disable_ssl: True, \
         app: {}, static: {}, static_path: /static}}\n",
        users.path().display(),
        gui.join("index.html").display(),
        gui.join("static").display()
    ));
    let _master = conf.start();
    conf.write_minion_conf("web1", "grains:\n  roles: [web]\n");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let _api = conf.start_api(port);
    let b = Browser::start().expect("browser");
    let long = Duration::from_secs(30);
    let page = |b: &Browser| {
        b.script("return document.body.innerText.slice(0, 2000)")
            .unwrap_or_default()
    };

    // Log in.
    b.goto(&format!("http://127.0.0.1:{port}/")).expect("open");
    let user = b.wait_for("#username", long).expect("login form");
    b.type_into(&user, "admin").expect("type user");
    let pw = b.find("#password").expect("password field");
    b.type_into(&pw, "s3cret").expect("type password");
    b.script(
        "const s = document.querySelector('#login-panel select');\
         s.value = 'file'; s.dispatchEvent(new Event('change')); return s.value",
    )
    .expect("eauth file");
    keep(&b, "1-login.png");
    let go = b.find("#login-button").expect("login button");
    b.click(&go).expect("log in");

    // The minions page lists web1.
    let row = b
        .wait_for("#page-minions #minions-table tbody tr#md2ViMQ", long)
        .unwrap_or_else(|e| panic!("{e}\n{}\n{}", page(&b), conf.dir.path().display()));
    b.wait_text("#page-minions #minions-table", "web1", long)
        .expect("web1 listed");
    let _ = row;
    assert!(b.url().expect("url").contains("minions"));
    std::thread::sleep(Duration::from_secs(2));
    keep(&b, "2-minions.png");

    // test.ping from the command box.
    let open = b.find("#button-manual-run").expect("command box button");
    b.click(&open).expect("open the command box");
    let target = b.wait_for("#target", long).expect("target field");
    b.type_into(&target, "web1").expect("target");
    let command = b.find("#command").expect("command field");
    b.type_into(&command, "test.ping").expect("command");
    let run = b.find("#run-command").expect("run button");
    b.click(&run).expect("run");
    let out = b
        .wait_text("#popup-output", "web1", long)
        .unwrap_or_else(|e| panic!("{e}\n{}", page(&b)));
    assert!(out.contains("true"), "{out}");
    keep(&b, "3-test-ping.png");
    let close = b.find("#cmd-close-button").expect("close");
    b.click(&close).expect("close the command box");

    // Open the job from the minions page's recent jobs.
    // Its function's text: the row's middle is the status, whose click
    // only refreshes it.
    let job = b
        .wait_for("#page-minions #jobs-table tr[id^='j'] div.function", long)
        .unwrap_or_else(|e| panic!("{e}\n{}", page(&b)));
    b.click(&job).expect("open the job");
    b.wait_text("#page-job", "web1", long)
        .unwrap_or_else(|e| panic!("{e}\n{}", page(&b)));
    b.wait_text("#page-job", "test.ping", long)
        .expect("the job's function");
    std::thread::sleep(Duration::from_secs(1));
    keep(&b, "4-job.png");
}
