//! Salt's own REST client, `pepper` (salt-pepper from PyPI), against
//! `brine-api`: login by eauth, the `local` (`test.ping`, `state.apply
//! test=True`), `local_async`, `runner` and `wheel` clients, and a call outside the user's permissions refused.
//! `scripts/test` installs pepper under `target/pepper`; `BRINE_PEPPER`
//! names another.

use brine_tests::daemon::{free_port, MasterConf, MasterProc};
use std::path::PathBuf;
use std::process::{Command, Output};

/// The pepper to run, and the PYTHONPATH it needs.
fn pepper() -> (PathBuf, Option<PathBuf>) {
    if let Some(p) = std::env::var_os("BRINE_PEPPER") {
        return (PathBuf::from(p), None);
    }
    let target = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/pepper"));
    let bin = target.join("bin/pepper");
    if bin.exists() {
        return (bin, Some(target));
    }
    let on_path = std::env::var_os("PATH").map(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("pepper"))
            .find(|c| c.exists())
    });
    match on_path.flatten() {
        Some(p) => (p, None),
        None => panic!(
            "pepper is not installed: run the tests with scripts/test (which installs it under \
             target/pepper), or set BRINE_PEPPER"
        ),
    }
}

fn run_pepper(url: &str, user: &str, args: &[&str]) -> Output {
    let (bin, path) = pepper();
    let home = tempfile::tempdir().expect("home");
    // pip --target's script runs under python3 with its folder on the
    // path; another pepper by its own interpreter line.
    let mut c = match &path {
        Some(_) => {
            let mut c = Command::new("python3");
            c.arg(&bin);
            c
        }
        None => Command::new(&bin),
    };
    c.args(["--out", "json"])
        .args(args)
        .env("HOME", home.path())
        .env("SALTAPI_URL", url)
        .env("SALTAPI_USER", user)
        .env("SALTAPI_PASS", "x")
        .env("SALTAPI_EAUTH", "auto");
    if let Some(p) = path {
        c.env("PYTHONPATH", p);
    }
    c.output().expect("run pepper")
}

/// What pepper printed: with Salt's outputters importable it prints each
/// answer's data, without them the whole `{"return": [data]}`.
fn json(out: &Output) -> serde_json::Value {
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "pepper printed no JSON: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    match j.get("return") {
        Some(r) => r[0].clone(),
        None => j,
    }
}

/// A minion's value in pepper's answer: pepper asks for Salt's full
/// return (`{jid, ret, retcode}`) for the `local` clients.
fn ret_of(out: &Output, id: &str) -> serde_json::Value {
    let v = json(out)[id].clone();
    match v.get("ret") {
        Some(r) if v.get("retcode").is_some() => r.clone(),
        _ => v,
    }
}

/// A master, web1 and brine-api with `rest` as its `rest_cherrypy`
/// options (port and host added).
fn site(rest: &str) -> (MasterConf, Vec<MasterProc>, u16) {
    let port = free_port();
    let conf = MasterConf::new(&format!(
        "external_auth:\n  auto:\n    admin: ['.*', '@runner', '@wheel', '@jobs']\n    \
         limited: ['test.*']\n\
         netapi_enable_clients: [local, local_async, runner, wheel]\n\
         rest_cherrypy: {{port: {port}, host: 127.0.0.1, {rest}}}\n"
    ));
    conf.serve_base_files(&[
        ("top.sls", "base:\n  '*':\n    - motd\n"),
        (
            "motd.sls",
            "/tmp/brine-pepper-motd-never-written:\n  file.managed:\n    - contents: hi\n",
        ),
    ]);
    let master = conf.start();
    conf.write_minion_conf("web1", "");
    let minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let api = conf.start_api(port);
    (conf, vec![api, minion, master], port)
}

/// Over TLS (`ssl_crt`, `ssl_key`; a self-signed certificate made with
/// openssl): pepper logs in and runs a job; plain HTTP on that port gets
/// no answer.
#[test]
fn pepper_over_tls() {
    let certs = tempfile::tempdir().expect("certs");
    let (crt, key) = brine_tests::http::self_signed(certs.path());
    let (_conf, _procs, port) = site(&format!(
        "ssl_crt: {}, ssl_key: {}",
        crt.display(),
        key.display()
    ));
    let url = format!("https://127.0.0.1:{port}");
    let out = run_pepper(&url, "admin", &["--ignore-ssl-errors", "*", "test.ping"]);
    assert_eq!(ret_of(&out, "web1"), true, "{out:?}");
    // The server speaks TLS with that certificate.
    let shown = Command::new("openssl")
        .args(["s_client", "-connect", &format!("127.0.0.1:{port}")])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("openssl s_client");
    let text = String::from_utf8_lossy(&shown.stdout).replace(' ', "");
    assert!(text.contains("subject=CN=127.0.0.1"), "{text}");
    let plain = brine_tests::http::request(
        std::net::SocketAddr::from(([127, 0, 0, 1], port)),
        "GET",
        "/",
        &[],
        b"",
    );
    assert!(plain.is_err() || plain.is_ok_and(|a| a.status != 200));
}

#[test]
fn pepper_talks_to_brine_api() {
    let (_conf, _procs, port) = site("disable_ssl: True");
    let url = format!("http://127.0.0.1:{port}");

    let out = run_pepper(&url, "admin", &["*", "test.ping"]);
    assert_eq!(ret_of(&out, "web1"), true, "{out:?}");
    let out = run_pepper(&url, "admin", &["web1", "test.echo", "hello"]);
    assert_eq!(ret_of(&out, "web1"), "hello");
    for (args, want) in [
        (&["--client", "runner", "manage.up"][..], "web1"),
        (&["--client", "wheel", "key.list_all"][..], "web1"),
        (&["--client", "local_async", "*", "test.ping"][..], "jid"),
    ] {
        let out = run_pepper(&url, "admin", args);
        let text = String::from_utf8_lossy(&out.stdout);
        eprintln!("pepper {args:?}: {text}");
        assert!(
            out.status.success() && text.contains(want),
            "{args:?}: {out:?}"
        );
    }
    // A highstate with test=True: the file it would write, not written.
    let out = run_pepper(&url, "admin", &["web1", "state.apply", "test=True"]);
    let states = ret_of(&out, "web1");
    let file = states
        .as_object()
        .and_then(|m| m.values().next())
        .cloned()
        .unwrap_or_default();
    assert_eq!(file["result"], serde_json::Value::Null, "{out:?}");
    assert!(
        file["comment"]
            .as_str()
            .is_some_and(|c| c.contains("is set to be changed")),
        "{out:?}"
    );
    assert!(!std::path::Path::new("/tmp/brine-pepper-motd-never-written").exists());
    // Within the user's permissions, and outside them.
    let out = run_pepper(&url, "limited", &["*", "test.ping"]);
    assert_eq!(ret_of(&out, "web1"), true);
    let out = run_pepper(&url, "limited", &["*", "cmd.run", "id"]);
    assert!(!out.status.success(), "{out:?}");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("Authentication denied"), "{said}");
}
