//! The `salt` CLI's output options through `brine` and real brine daemons
//! on 127.0.0.1 — minion `web1` up, `db1` accepted then stopped — compared
//! with what a real Salt 3007.8 pair printed for the same command lines
//! (`tests/recorded/cli/issue13_output_options.salt.json`, see the README
//! there): `--out-file`, `--out-file-append`, `--out-indent`,
//! `--state-output`, `--state-verbose`, `--hide-timeout`, `--show-jid`,
//! `--summary`, `-p` and `--failhard`; `-p` as Salt draws it with the
//! optional progressbar package (`issue13_progress_bar.salt.json`).
//! Stdout, stderr, the exit code and
//! the `--out-file`'s content must match byte for byte once jids, state
//! start times and durations are put aside, and `salt-run` is read as
//! `brine-run`. Salt's batch mode (`-b`) is not in brine; its steps are
//! recorded but not replayed.

use brine_tests::daemon::{write_tree, MasterConf, MasterProc};
use regex::Regex;
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Steps recorded from Salt that brine does not replay, and why.
const NOT_REPLAYED: [(&str, &str); 7] = [
    // Without progressbar Salt prints nothing and exits at the first
    // return; brine draws the bar as Salt does with it (the pb-* steps).
    ("progress", "recorded without the progressbar package"),
    ("progress-long", "recorded without the progressbar package"),
    ("progress-json", "recorded without the progressbar package"),
    ("failhard-batch", "batch mode (-b) is not in brine"),
    ("failhard-batch-fail", "batch mode (-b) is not in brine"),
    ("failhard-retcode", "recorded to see --failhard ignored"),
    (
        "outfile-nodir",
        "Salt prints a Python traceback; checked apart",
    ),
];

fn recorded(name: &str) -> Vec<Json> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("recorded/cli")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("recorded answers");
    let all: Json = serde_json::from_str(&text).expect("recorded json");
    all.as_array().cloned().expect("a list of steps")
}

/// Put aside what differs between two runs of the same command.
struct Mask(Vec<(Regex, &'static str)>);

impl Mask {
    fn new() -> Mask {
        let r = |re: &str, to: &'static str| (Regex::new(re).expect("regex"), to);
        Mask(vec![
            r(r"\b\d{20}\b", "JID"),
            r(r"salt-run jobs\.lookup_jid", "brine-run jobs.lookup_jid"),
            r(r"Started: \d\d:\d\d:\d\d\.\d+", "Started: TIME"),
            r(r"Duration: [0-9.]+ ms", "Duration: D ms"),
            r(r"Total run time: +[0-9.]+ ms", "Total run time: T ms"),
            r(r"Elapsed Time: \d+:\d\d:\d\d", "Elapsed Time: 0:00:00"),
            r(r#""start_time": "[^"]*""#, r#""start_time": "TIME""#),
            r(r#""duration": [0-9.e-]+"#, r#""duration": 0"#),
        ])
    }

    fn apply(&self, text: &str) -> String {
        let mut t = text.to_string();
        for (re, to) in &self.0 {
            t = re.replace_all(&t, *to).into_owned();
        }
        t
    }
}

struct Pair {
    conf: MasterConf,
    _tree: tempfile::TempDir,
    _master: MasterProc,
    _web1: MasterProc,
}

/// The tree of the shared CLI harness (`cli-tree`), written here so the
/// test needs nothing outside the repository.
const TREE: [(&str, &str); 5] = [
    ("file_roots/base/top.sls", "base:\n  '*':\n    - web\n"),
    (
        "file_roots/base/web.sls",
        "hello:\n  test.succeed_with_changes: []\n\nquiet:\n  test.succeed_without_changes:\n    \
         - require:\n      - test: hello\n\ntier:\n  test.succeed_without_changes:\n    \
         - name: tier={{ pillar.get('tier', 'none') }}\n",
    ),
    (
        "file_roots/base/fail.sls",
        "broken:\n  test.fail_without_changes: []\n\nafter:\n  test.succeed_without_changes:\n    \
         - require:\n      - test: broken\n\nfine:\n  test.succeed_without_changes: []\n",
    ),
    ("pillar_roots/base/top.sls", "base:\n  '*':\n    - common\n"),
    (
        "pillar_roots/base/common.sls",
        "tier: base\ncolor: blue\nremoveme: present\n",
    ),
];

/// Start the master, web1 (up, grains as in the Salt pair) and db1
/// (accepted, answered, stopped).
fn pair() -> Pair {
    let tree = tempfile::Builder::new()
        .prefix("brine-cli-tree-")
        .tempdir()
        .expect("tree dir");
    write_tree(tree.path(), &TREE);
    let conf = MasterConf::new(&format!(
        "timeout: 2\ngather_job_timeout: 1\nfile_roots:\n  base:\n    - {}\n\
         pillar_roots:\n  base:\n    - {}\n",
        tree.path().join("file_roots/base").display(),
        tree.path().join("pillar_roots/base").display()
    ));
    let master = conf.start();
    conf.write_minion_conf(
        "web1",
        "pillarenv: base\ngrains:\n  os: Debian\n  role: web\n",
    );
    let web1 = conf.start_minion(&[]);
    conf.accept_and_ping("web1");

    conf.add_down_minion("db1");
    Pair {
        conf,
        _tree: tree,
        _master: master,
        _web1: web1,
    }
}

/// One recorded step, ready to run: its command line with `@FILE@`
/// replaced by a file of its own (written first with the recorded
/// `before` content, as the recording script did).
struct Step<'a> {
    rec: &'a Json,
    label: String,
    args: Vec<String>,
    file: Option<PathBuf>,
}

impl<'a> Step<'a> {
    fn new(rec: &'a Json, dir: &Path) -> Step<'a> {
        let label = rec["label"].as_str().unwrap_or_default().to_string();
        let file = dir.join(format!("out-{label}.txt"));
        let argv: Vec<String> = rec["argv"]
            .as_array()
            .into_iter()
            .flatten()
            .skip(1)
            .map(|a| {
                a.as_str()
                    .unwrap_or_default()
                    .replace("@WORK@/out.txt", &file.display().to_string())
            })
            .collect();
        let uses_file = rec.get("file").is_some();
        let _ = std::fs::remove_file(&file);
        if let Some(before) = before_content(&label) {
            std::fs::write(&file, before).expect("before");
        }
        Step {
            rec,
            label,
            args: argv,
            file: uses_file.then_some(file),
        }
    }

    /// `brine -c CONF ARGS...` with the step's environment: `COLUMNS` (the
    /// progress bar's width off a terminal) only when the step set it.
    fn command(&self, conf: &MasterConf) -> Command {
        let mut c = Command::new(brine_tests::bin_dir().join("brine"));
        c.arg("-c")
            .arg(conf.conf_dir())
            .args(&self.args)
            .env_remove("COLUMNS")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in self.rec["env"].as_object().into_iter().flatten() {
            c.env(k, v.as_str().unwrap_or_default());
        }
        c
    }

    fn check(&self, mask: &Mask, out: &Output) {
        let label = &self.label;
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let want = |k: &str| self.rec[k].as_str().unwrap_or_default().to_string();
        assert_eq!(
            mask.apply(&text(&out.stdout)),
            mask.apply(&want("stdout")),
            "{label}: stdout"
        );
        let stderr = text(&out.stderr);
        if label == "indent-bad" {
            // The usage line names the program; the error is optparse's.
            let last = |s: &str| s.lines().last().unwrap_or_default().to_string();
            assert_eq!(
                last(&stderr).replace("brine:", "salt:"),
                last(&want("stderr")),
                "{label}: stderr"
            );
        } else {
            assert_eq!(stderr, want("stderr"), "{label}: stderr");
        }
        assert_eq!(
            i64::from(out.status.code().unwrap_or(-1)),
            self.rec["rc"].as_i64().unwrap_or(-2),
            "{label}: rc"
        );
        if let Some(path) = &self.file {
            let got = std::fs::read_to_string(path).ok();
            let expected = self.rec["file"].as_str().map(|s| mask.apply(s));
            assert_eq!(
                got.as_deref().map(|s| mask.apply(s)),
                expected,
                "{label}: --out-file content"
            );
        }
    }
}

/// What the recording script wrote into the file before the step.
fn before_content(label: &str) -> Option<&'static str> {
    match label {
        "outfile"
        | "outfile-eq-json"
        | "outfile-append"
        | "outfile-append-json"
        | "output-file-alias" => Some("old\n"),
        _ => None,
    }
}

#[test]
fn output_options_answer_as_salt() {
    let mut rec = recorded("issue13_output_options.salt.json");
    rec.extend(recorded("issue13_progress_bar.salt.json"));
    let p = pair();
    let mask = Mask::new();
    let dir = p.conf.dir.path().join("outfiles");
    std::fs::create_dir_all(&dir).expect("outfiles");
    let steps: Vec<Step> = rec
        .iter()
        .map(|r| Step::new(r, &dir))
        .filter(|s| !NOT_REPLAYED.iter().any(|(l, _)| *l == s.label))
        .collect();
    assert!(steps.len() > 70, "{} steps", steps.len());

    // Steps that wait for the down minion run side by side, while the
    // others run one after the other (state runs must not overlap).
    let waits = |s: &Step| s.args.iter().any(|a| a.contains("db1"));
    let mut started = Vec::new();
    for s in steps.iter().filter(|s| waits(s)) {
        started.push((s, s.command(&p.conf).spawn().expect("brine")));
    }
    for s in steps.iter().filter(|s| !waits(s)) {
        s.check(&mask, &s.command(&p.conf).output().expect("brine"));
    }
    for (s, child) in started {
        s.check(&mask, &child.wait_with_output().expect("brine"));
    }

    // A file Salt cannot open: Salt dies with a traceback and exit 1;
    // brine says why and exits 1 too, having printed nothing to stdout.
    let out = p.conf.cli(
        "brine",
        &[
            "--out-file",
            "/nonexistent-dir/x/out.txt",
            "web1",
            "test.ping",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent-dir/x/out.txt"));
}
