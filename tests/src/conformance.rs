//! The conformance runner: the same rules as `shared/conformance/run.py`
//! (local and daemon modes), in Rust, so that `cargo test` checks
//! conformance with no Python. A case folder holds `case.yaml` (id, grains, config, commands),
//! `file_roots/<env>/`, `pillar_roots/<env>/` and `expected/NN.json`.

use brine_core::yaml;
use brine_core::{Map, Value};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One command's outcome.
#[derive(Debug)]
pub struct Outcome {
    pub case: String,
    pub index: usize,
    pub command: String,
    /// `None` when it passed, else the first difference.
    pub failure: Option<String>,
}

/// A case as `case.yaml` describes it.
struct Case {
    dir: PathBuf,
    name: String,
    id: String,
    grains: Value,
    config: Map,
    commands: Vec<String>,
    /// `masks:` — (regex, replacement) applied to every string of both
    /// answers before comparing (a time stamp a formula prints).
    masks: Vec<(regex::Regex, String)>,
    /// `masks:` entries with `key:` — the value of every such key, of any
    /// type, replaced on both sides (an inode, a ctime).
    key_masks: Vec<(String, String)>,
}

impl Case {
    /// The case folder as an absolute path (`@CASE@`).
    fn abs_dir(&self) -> String {
        std::fs::canonicalize(&self.dir)
            .unwrap_or_else(|_| self.dir.clone())
            .display()
            .to_string()
    }
}

fn load_case(dir: &Path) -> Result<Case, String> {
    let text = std::fs::read_to_string(dir.join("case.yaml")).map_err(|e| e.to_string())?;
    let spec = yaml::load(&text).map_err(|e| format!("case.yaml: {e}"))?;
    let commands = spec
        .get("commands")
        .and_then(Value::as_list)
        .ok_or("case.yaml: no commands")?
        .iter()
        .map(Value::to_python_str)
        .collect();
    Ok(Case {
        dir: dir.to_path_buf(),
        name: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        id: spec
            .get("id")
            .map(Value::to_python_str)
            .unwrap_or_else(|| "minion1".into()),
        grains: spec.get("grains").cloned().unwrap_or_else(Value::new_map),
        config: spec
            .get("config")
            .and_then(Value::as_map)
            .cloned()
            .unwrap_or_default(),
        commands,
        masks: masks(&spec)?,
        key_masks: key_masks(&spec),
    })
}

fn key_masks(spec: &Value) -> Vec<(String, String)> {
    let Some(list) = spec.get("masks").and_then(Value::as_list) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|m| {
            let key = m.get("key")?.to_python_str();
            let to = m
                .get("replace")
                .map(Value::to_python_str)
                .unwrap_or_default();
            Some((key, to))
        })
        .collect()
}

/// Every value under one of `masks`' keys replaced by its text.
fn mask_keys(v: &Json, masks: &[(String, String)]) -> Json {
    match v {
        Json::Array(a) => Json::Array(a.iter().map(|x| mask_keys(x, masks)).collect()),
        Json::Object(o) => Json::Object(
            o.iter()
                .map(|(k, x)| {
                    let x = match masks.iter().find(|(key, _)| key == k) {
                        Some((_, to)) => Json::String(to.clone()),
                        None => mask_keys(x, masks),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Masks every case has: a name that does not resolve (a formula's
/// download URL, unreachable from the test host) fails in the host
/// resolver's words — Errno -2 "Name or service not known" with no network
/// at all, -3 "Temporary failure in name resolution" while a resolver is
/// still tried, or no answer before the request's timeout on a loaded
/// host — compared as one text.
fn host_masks() -> Vec<(regex::Regex, String)> {
    vec![(
        regex::Regex::new(
            r"Error: (?:\[Errno -(?:2|3)\] (?:Name or service not known|Temporary failure in name resolution)|Timeout) reading ",
        )
        .unwrap_or_else(|_| unreachable!("a fixed pattern")),
        "Error: <the name does not resolve> reading ".to_string(),
    )]
}

fn masks(spec: &Value) -> Result<Vec<(regex::Regex, String)>, String> {
    let Some(list) = spec.get("masks").and_then(Value::as_list) else {
        return Ok(host_masks());
    };
    let mut out = host_masks();
    let own: Result<Vec<_>, String> = list
        .iter()
        .filter(|m| m.get("key").is_none())
        .map(|m| {
            let re = m.get("regex").map(Value::to_python_str).unwrap_or_default();
            let re = regex::Regex::new(&re).map_err(|e| format!("case.yaml: masks: {e}"))?;
            Ok((
                re,
                m.get("replace")
                    .map(Value::to_python_str)
                    .unwrap_or_default(),
            ))
        })
        .collect();
    out.extend(own?);
    Ok(out)
}

/// Every string (keys too) with `f` applied.
fn map_strings(v: &Json, f: &dyn Fn(&str) -> String) -> Json {
    match v {
        Json::String(s) => Json::String(f(s)),
        Json::Array(a) => Json::Array(a.iter().map(|x| map_strings(x, f)).collect()),
        Json::Object(o) => Json::Object(o.iter().map(|(k, x)| (f(k), map_strings(x, f))).collect()),
        other => other.clone(),
    }
}

/// `{env: [dir]}` for each environment folder under `case/kind`, or an
/// empty `base` root.
fn roots(case: &Path, kind: &str, tmp: &Path) -> Json {
    let base = case.join(kind);
    let mut envs: Vec<String> = std::fs::read_dir(&base)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    envs.sort();
    let mut out = serde_json::Map::default();
    for e in &envs {
        out.insert(
            e.clone(),
            Json::from(vec![base.join(e).display().to_string()]),
        );
    }
    if out.is_empty() {
        out.insert(
            "base".into(),
            Json::from(vec![tmp
                .join(format!("empty_{kind}"))
                .display()
                .to_string()]),
        );
    }
    Json::Object(out)
}

fn subst(v: &Json, tmp: &str, case: &str) -> Json {
    map_strings(v, &|s| s.replace("@TMP@", tmp).replace("@CASE@", case))
}

/// Drop volatile keys and write the scratch path back as `@TMP@`.
pub fn normalize(v: &Json, tmp: &str) -> Json {
    match v {
        Json::Object(o) => Json::Object(
            o.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "start_time" | "duration" | "pid"))
                .map(|(k, x)| (k.replace(tmp, "@TMP@"), normalize(x, tmp)))
                .collect(),
        ),
        Json::Array(a) => Json::Array(a.iter().map(|x| normalize(x, tmp)).collect()),
        Json::String(s) => Json::String(sort_recurse_sections(&sort_failed_requisites(
            &s.replace(tmp, "@TMP@"),
        ))),
        other => other.clone(),
    }
}

/// Salt lists the requisites that failed from a Python `set`, whose order
/// changes with each process's string hashing: "One or more requisite
/// failed: b, a" is compared with its names sorted.
fn sort_failed_requisites(s: &str) -> String {
    const HEAD: &str = "One or more requisite failed: ";
    match s.strip_prefix(HEAD) {
        Some(list) if list.contains(", ") => {
            let mut names: Vec<&str> = list.split(", ").collect();
            names.sort_unstable();
            format!("{HEAD}{}", names.join(", "))
        }
        _ => s.to_string(),
    }
}

/// file.recurse's comment is one `#### PATH ####` section per file, in the
/// order of Python sets (the managed files, directories, symlinks), which
/// changes with each process's string hashing: compared with its sections
/// sorted (each without trailing newlines, joined by a blank line).
fn sort_recurse_sections(s: &str) -> String {
    const SEP: &str = "\n\n#### ";
    if !s.starts_with("#### ") || !s.contains(SEP) {
        return s.to_string();
    }
    let mut parts: Vec<String> = s
        .split(SEP)
        .enumerate()
        .map(|(i, p)| {
            let p = p.trim_end_matches('\n');
            if i == 0 {
                p.to_string()
            } else {
                format!("#### {p}")
            }
        })
        .collect();
    parts.sort_unstable();
    parts.join("\n\n")
}

/// First difference between expected and got: dict key order ignored,
/// list order kept, ints and floats compared by value.
pub fn diff(exp: &Json, got: &Json, path: &str) -> Option<String> {
    match (exp, got) {
        (Json::Object(e), Json::Object(g)) => {
            if let Some(k) = e.keys().find(|k| !g.contains_key(*k)) {
                return Some(format!("{path}: missing key {k:?}"));
            }
            if let Some(k) = g.keys().find(|k| !e.contains_key(*k)) {
                return Some(format!("{path}: unexpected key {k:?}"));
            }
            e.iter()
                .find_map(|(k, v)| diff(v, &g[k], &format!("{path}.{k}")))
        }
        (Json::Array(e), Json::Array(g)) => {
            if e.len() != g.len() {
                return Some(format!(
                    "{path}: expected {} items, got {}: {}",
                    e.len(),
                    g.len(),
                    got
                ));
            }
            e.iter()
                .zip(g)
                .enumerate()
                .find_map(|(i, (a, b))| diff(a, b, &format!("{path}[{i}]")))
        }
        (Json::Number(a), Json::Number(b)) if a.as_f64() == b.as_f64() => None,
        (a, b) if a == b => None,
        // brine's answer first, each cut short: a report line is read
        // cut at a few hundred characters.
        (a, b) => {
            let short = |v: &Json| {
                let s = v.to_string();
                match s.char_indices().nth(400) {
                    Some((i, _)) => format!("{}…", &s[..i]),
                    None => s,
                }
            };
            Some(format!("{path}: got {}, expected {}", short(b), short(a)))
        }
    }
}

/// Run every command of the case in `dir` through `brine-call --local`.
pub fn run_case_local(dir: &Path, brine_call: &Path) -> Vec<Outcome> {
    run_case_local_checking(dir, brine_call, |_| true)
}

/// Run every command of the case in `dir`, but compare only those that
/// `check` accepts; the others still run, unchecked, so that what they do
/// carries over to later commands (run.py's `--only`).
pub fn run_case_local_checking(
    dir: &Path,
    brine_call: &Path,
    check: impl Fn(&str) -> bool,
) -> Vec<Outcome> {
    run_case(dir, check, |case, tmp| {
        Local::start(case, tmp, brine_call).map(|l| Box::new(l) as Box<dyn Runner>)
    })
}

/// Run.py's `--mode daemon`: a brine-master and one brine-minion on
/// 127.0.0.1 (binaries in `bin_dir`), the minion's key accepted, then each
/// command through `brine --out json -t 60 ID ...`.
pub fn run_case_daemon_checking(
    dir: &Path,
    bin_dir: &Path,
    check: impl Fn(&str) -> bool,
) -> Vec<Outcome> {
    run_case(dir, check, |case, tmp| {
        Daemon::start(case, tmp, bin_dir).map(|d| Box::new(d) as Box<dyn Runner>)
    })
}

/// How a case's commands are run.
trait Runner {
    /// Run one command (its words); the process output.
    fn call(&self, words: &[String]) -> Result<std::process::Output, String>;
    /// The minion's answer in the JSON the command printed.
    fn answer<'a>(&self, printed: &'a Json) -> Option<&'a Json>;
    /// Through a master and a minion (answers compared with what a real
    /// Salt pair answered, where that was recorded).
    fn over_the_bus(&self) -> bool {
        false
    }
}

/// `brine-call -c CONF --local --out json`.
struct Local {
    brine_call: PathBuf,
    confdir: PathBuf,
}

impl Local {
    fn start(case: &Case, tmp: &Path, brine_call: &Path) -> Result<Local, String> {
        let tmp_s = tmp.display().to_string();
        let mut cfg = serde_json::Map::default();
        cfg.insert("id".into(), Json::from(case.id.clone()));
        cfg.insert(
            "root_dir".into(),
            Json::from(tmp.join("root").display().to_string()),
        );
        cfg.insert("file_client".into(), Json::from("local"));
        cfg.insert("log_level".into(), Json::from("quiet"));
        cfg.insert(
            "cachedir".into(),
            Json::from(tmp.join("cache").display().to_string()),
        );
        cfg.insert("file_roots".into(), roots(&case.dir, "file_roots", tmp));
        cfg.insert("pillar_roots".into(), roots(&case.dir, "pillar_roots", tmp));
        cfg.insert("grains".into(), case.grains.to_json());
        for (k, v) in &case.config {
            cfg.insert(k.clone(), v.to_json());
        }
        let cfg = subst(&Json::Object(cfg), &tmp_s, &case.abs_dir());
        let etc = tmp.join("etc");
        std::fs::create_dir_all(&etc).map_err(|e| e.to_string())?;
        // JSON is YAML: the config loader reads it as such.
        write_json(&etc.join("minion"), &cfg)?;
        Ok(Local {
            brine_call: brine_call.to_path_buf(),
            confdir: etc,
        })
    }
}

impl Runner for Local {
    fn call(&self, words: &[String]) -> Result<std::process::Output, String> {
        Command::new(&self.brine_call)
            .arg("-c")
            .arg(&self.confdir)
            .args(["--local", "--out", "json"])
            .args(words)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.brine_call.display()))
    }

    fn answer<'a>(&self, printed: &'a Json) -> Option<&'a Json> {
        printed.get("local")
    }
}

/// Options run.py gives the master; the rest of a case's `config` goes to
/// the minion.
const MASTER_KEYS: &[&str] = &[
    "file_roots",
    "pillar_roots",
    "ext_pillar",
    "pillar_safe_render_error",
    "pillar_opts",
    "nodegroups",
    "pillar_source_merging_strategy",
    "hiera_config",
];

/// A master and a minion process for one case.
struct Daemon {
    bin_dir: PathBuf,
    confdir: PathBuf,
    id: String,
    procs: Vec<std::process::Child>,
}

/// Why a daemon pair did not come up.
enum Started {
    /// The master could not bind a port: worth another try.
    PortTaken(String),
    Failed(String),
}

impl From<String> for Started {
    fn from(e: String) -> Started {
        Started::Failed(e)
    }
}

fn write_json(path: &Path, v: &Json) -> Result<(), String> {
    let text = serde_json::to_string_pretty(v).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

impl Daemon {
    /// Start the pair; a master that could not bind its ports (another
    /// process took a port between [`free_port`] and the bind) is started
    /// again on fresh ones.
    fn start(case: &Case, tmp: &Path, bin_dir: &Path) -> Result<Daemon, String> {
        let mut last = String::new();
        for _ in 0..3 {
            match Daemon::start_once(case, tmp, bin_dir) {
                Err(Started::PortTaken(e)) => last = e,
                Err(Started::Failed(e)) => return Err(e),
                Ok(d) => return Ok(d),
            }
        }
        Err(last)
    }

    fn start_once(case: &Case, tmp: &Path, bin_dir: &Path) -> Result<Daemon, Started> {
        let tmp_s = tmp.display().to_string();
        let case_s = case.abs_dir();
        let (publish, ret) = (crate::daemon::free_port(), crate::daemon::free_port());
        let mut master = serde_json::Map::default();
        master.insert("interface".into(), Json::from("127.0.0.1"));
        master.insert("publish_port".into(), Json::from(publish));
        master.insert("ret_port".into(), Json::from(ret));
        master.insert(
            "root_dir".into(),
            Json::from(tmp.join("mroot").display().to_string()),
        );
        master.insert("log_level".into(), Json::from("warning"));
        master.insert("file_roots".into(), roots(&case.dir, "file_roots", tmp));
        master.insert("pillar_roots".into(), roots(&case.dir, "pillar_roots", tmp));
        let mut minion = serde_json::Map::default();
        minion.insert("id".into(), Json::from(case.id.clone()));
        minion.insert("master".into(), Json::from("127.0.0.1"));
        minion.insert("publish_port".into(), Json::from(publish));
        minion.insert("master_port".into(), Json::from(ret));
        minion.insert(
            "root_dir".into(),
            Json::from(tmp.join("nroot").display().to_string()),
        );
        minion.insert("log_level".into(), Json::from("warning"));
        minion.insert("grains".into(), case.grains.to_json());
        for (k, v) in &case.config {
            let target = if MASTER_KEYS.contains(&k.as_str()) {
                &mut master
            } else {
                &mut minion
            };
            target.insert(k.clone(), v.to_json());
        }
        let confdir = tmp.join("etc");
        std::fs::create_dir_all(&confdir).map_err(|e| e.to_string())?;
        write_json(
            &confdir.join("master"),
            &subst(&Json::Object(master), &tmp_s, &case_s),
        )?;
        write_json(
            &confdir.join("minion"),
            &subst(&Json::Object(minion), &tmp_s, &case_s),
        )?;
        let mut d = Daemon {
            bin_dir: bin_dir.to_path_buf(),
            confdir,
            id: case.id.clone(),
            procs: Vec::new(),
        };
        let log = tmp.join("daemons.log");
        // The minion starts with the master (it retries until the master
        // listens); the master's port check waits for both.
        for name in ["brine-master", "brine-minion"] {
            let out = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&log)
                .map_err(|e| e.to_string())?;
            let err = out.try_clone().map_err(|e| e.to_string())?;
            let child = Command::new(d.bin(name))
                .arg("-c")
                .arg(&d.confdir)
                .stdout(out)
                .stderr(err)
                .spawn()
                .map_err(|e| format!("cannot start {name}: {e}"))?;
            d.procs.push(child);
        }
        // The master exits at once when a port is taken.
        std::thread::sleep(std::time::Duration::from_millis(300));
        if let Some(Ok(Some(_))) = d.procs.first_mut().map(|p| p.try_wait()) {
            let log = std::fs::read_to_string(&log).unwrap_or_default();
            return Err(Started::PortTaken(format!(
                "brine-master did not start: {log:.500}"
            )));
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::time::Instant::now() < deadline {
            let _ = Command::new(d.bin("brine-key"))
                .arg("-c")
                .arg(&d.confdir)
                .args(["-a", &d.id, "-y"])
                .output();
            let ping = Command::new(d.bin("brine"))
                .arg("-c")
                .arg(&d.confdir)
                .args(["--out", "json", "-t", "5", &d.id, "test.ping"])
                .output();
            if let Ok(p) = ping {
                let got: Option<Json> = serde_json::from_slice(&p.stdout).ok();
                if got.as_ref().and_then(|j| j.get(&d.id)) == Some(&Json::Bool(true)) {
                    return Ok(d);
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let log = std::fs::read_to_string(&log).unwrap_or_default();
        Err(Started::Failed(format!(
            "minion {} never answered test.ping; daemons.log: {:.1500}",
            d.id, log
        )))
    }

    fn bin(&self, name: &str) -> PathBuf {
        self.bin_dir.join(name)
    }
}

impl Runner for Daemon {
    fn call(&self, words: &[String]) -> Result<std::process::Output, String> {
        Command::new(self.bin("brine"))
            .arg("-c")
            .arg(&self.confdir)
            .args(["--out", "json", "-t", "60", &self.id])
            .args(words)
            .output()
            .map_err(|e| format!("cannot run brine: {e}"))
    }

    fn answer<'a>(&self, printed: &'a Json) -> Option<&'a Json> {
        printed.get(&self.id)
    }

    fn over_the_bus(&self) -> bool {
        true
    }
}

impl Drop for Daemon {
    /// SIGTERM (minion first), then wait; kill what does not stop.
    fn drop(&mut self) {
        for p in self.procs.iter().rev() {
            let _ = Command::new("kill")
                .args(["-TERM", &p.id().to_string()])
                .status();
        }
        for p in &mut self.procs {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            loop {
                match p.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if std::time::Instant::now() < deadline => {
                        std::thread::sleep(std::time::Duration::from_millis(20))
                    }
                    _ => {
                        let _ = p.kill();
                        let _ = p.wait();
                        break;
                    }
                }
            }
        }
    }
}

fn run_case(
    dir: &Path,
    check: impl Fn(&str) -> bool,
    start: impl FnOnce(&Case, &Path) -> Result<Box<dyn Runner>, String>,
) -> Vec<Outcome> {
    let case = match load_case(dir) {
        Ok(c) => c,
        Err(e) => {
            return vec![Outcome {
                case: dir.display().to_string(),
                index: 0,
                command: String::new(),
                failure: Some(format!("could not load case: {e}")),
            }]
        }
    };
    let scratch = match tempfile::Builder::new().prefix("brine-conf-").tempdir() {
        Ok(t) => t,
        Err(e) => {
            return vec![Outcome {
                case: case.name,
                index: 0,
                command: String::new(),
                failure: Some(format!("no scratch dir: {e}")),
            }]
        }
    };
    let tmp = scratch.path().to_path_buf();
    let tmp_s = tmp.display().to_string();
    let runner = std::fs::create_dir_all(tmp.join("work"))
        .map_err(|e| e.to_string())
        .and_then(|_| start(&case, &tmp));
    let runner = match runner {
        Ok(r) => r,
        Err(e) => {
            // Every checked command fails, as run.py counts them.
            return case
                .commands
                .iter()
                .enumerate()
                .filter(|(_, c)| check(c))
                .map(|(i, c)| Outcome {
                    case: case.name.clone(),
                    index: i,
                    command: c.clone(),
                    failure: Some(format!("could not start: {e}")),
                })
                .collect();
        }
    };

    let mut outcomes = Vec::new();
    for (i, cmd) in case.commands.iter().enumerate() {
        if !check(cmd) {
            let words = shell_words::split(&cmd.replace("@TMP@", &tmp_s)).unwrap_or_default();
            // Unchecked: its answer does not matter, only its effects.
            let _ = runner.call(&words);
            continue;
        }
        let failure = run_command(&case, i, cmd, runner.as_ref(), &tmp_s).err();
        outcomes.push(Outcome {
            case: case.name.clone(),
            index: i,
            command: cmd.clone(),
            failure,
        });
    }
    drop(runner);
    outcomes
}

fn run_command(
    case: &Case,
    i: usize,
    cmd: &str,
    runner: &dyn Runner,
    tmp: &str,
) -> Result<(), String> {
    // Over the bus, what a real salt-master/salt-minion pair answered
    // (expected-daemon/, recorded for the public cases): the pillar is
    // compiled fresh on the master there, with no in-memory pillar merged
    // under it. hiera.lookup is brine's own module (Puppet's answers), so
    // it keeps the local recording, as run.py does.
    let daemon_path = case.dir.join(format!("expected-daemon/{i:02}.json"));
    let exp_path = if runner.over_the_bus() && !cmd.starts_with("hiera.") && daemon_path.exists() {
        daemon_path
    } else {
        case.dir.join(format!("expected/{i:02}.json"))
    };
    let exp: Json = serde_json::from_str(
        &std::fs::read_to_string(&exp_path).map_err(|e| format!("{}: {e}", exp_path.display()))?,
    )
    .map_err(|e| format!("{}: {e}", exp_path.display()))?;
    let words = shell_words::split(&cmd.replace("@TMP@", tmp)).map_err(|e| e.to_string())?;
    let out = runner.call(&words)?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Salt itself crashed here (a traceback, no answer; some public
    // formulas do this): brine must fail too, in its own words.
    let salt_crashed = exp["return"].get("__unparsed_stdout__").is_some()
        || exp["return"]
            .as_str()
            .is_some_and(|s| s.starts_with("The minion function caused an exception"));
    if salt_crashed {
        let answer = serde_json::from_str::<Json>(&stdout)
            .ok()
            .and_then(|p| runner.answer(&p).cloned());
        let reports_error = match &answer {
            None | Some(Json::String(_)) => true,
            Some(Json::Array(items)) => !items.is_empty() && items.iter().all(Json::is_string),
            Some(Json::Object(m)) => m.contains_key("_errors"),
            Some(_) => false,
        };
        if out.status.success() && !reports_error {
            return Err(format!("Salt failed here, brine answered: {stdout:.300}"));
        }
        // An execution function's error is a non-zero exit as well.
        if case.name.starts_with("exec-") && out.status.success() {
            return Err(format!("Salt failed here, brine exited 0: {stdout:.300}"));
        }
        return Ok(());
    }
    let printed: Json = serde_json::from_str(&stdout).map_err(|e| {
        format!(
            "no JSON answer ({e}); stdout: {:.200}; stderr: {:.300}",
            stdout,
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let got = normalize(runner.answer(&printed).unwrap_or(&Json::Null), tmp);
    // The case folder is written `@CASE@` in the recordings.
    let case_dir = case.abs_dir();
    let got = map_strings(&got, &|s| s.replace(&case_dir, "@CASE@"));
    let mask = |s: &str| {
        case.masks.iter().fold(s.to_string(), |s, (re, to)| {
            re.replace_all(&s, to.as_str()).into_owned()
        })
    };
    // Recordings over the bus keep the volatile keys; drop them as from
    // brine's answer.
    let expected = normalize(&exp["return"], tmp);
    let (expected, got) = if case.key_masks.is_empty() {
        (expected, got)
    } else {
        (
            mask_keys(&expected, &case.key_masks),
            mask_keys(&got, &case.key_masks),
        )
    };
    let (exp_return, got) = if case.masks.is_empty() {
        (expected, got)
    } else {
        (map_strings(&expected, &mask), map_strings(&got, &mask))
    };
    // BRINE_CONFORMANCE_DUMP=file keeps brine's last answer (masked) there.
    if let Ok(p) = std::env::var("BRINE_CONFORMANCE_DUMP") {
        let _ = std::fs::write(p, got.to_string());
    }
    if let Some(d) = diff(&exp_return, &got, "$") {
        return Err(d);
    }
    // Execution-module cases record errors on purpose: their exit codes
    // must agree too.
    if cmd.starts_with("state.") || case.name.starts_with("exec-") {
        let salt_ok = exp["retcode"].as_i64() == Some(0);
        let ours = out.status.code().unwrap_or(-1);
        if salt_ok != (ours == 0) {
            return Err(format!("exit code {ours}, Salt's was {}", exp["retcode"]));
        }
    }
    Ok(())
}

/// A family of cases: a case-name prefix and the functions whose answers
/// are checked (empty: all).
pub type Family = (String, Vec<String>);

/// The `FAMILIES` list of a test source (`conformance_local.rs`), read so
/// the daemon-mode test checks exactly what the local one checks: tuples of
/// a prefix string and a list of function strings.
pub fn families_from_source(src: &str) -> Vec<Family> {
    let Some(start) = src.find("const FAMILIES") else {
        return Vec::new();
    };
    let body = &src[start..];
    let body = match body.find('=') {
        Some(i) => &body[i + 1..],
        None => return Vec::new(),
    };
    let mut out: Vec<Family> = Vec::new();
    let mut depth = 0usize;
    let mut chars = body.chars();
    let mut current: Option<Family> = None;
    while let Some(c) = chars.next() {
        match c {
            '(' => {
                depth += 1;
                if depth == 1 {
                    current = Some((String::new(), Vec::new()));
                }
            }
            ')' => {
                if depth == 1 {
                    if let Some(f) = current.take() {
                        out.push(f);
                    }
                }
                depth = depth.saturating_sub(1);
            }
            '"' => {
                let mut text = String::new();
                for c in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                    text.push(c);
                }
                if let Some((prefix, funs)) = current.as_mut() {
                    if prefix.is_empty() {
                        *prefix = text;
                    } else {
                        funs.push(text);
                    }
                }
            }
            ';' if depth == 0 => break,
            _ => {}
        }
    }
    out
}

/// Whether `cmd` of case `name` is checked under `families` (the first
/// family whose prefix names the case applies).
pub fn checked(families: &[Family], name: &str, cmd: &str) -> bool {
    match families.iter().find(|(p, _)| name.starts_with(p.as_str())) {
        Some((_, funs)) => funs.is_empty() || funs.iter().any(|f| cmd.starts_with(f.as_str())),
        None => false,
    }
}

/// Cases that read or change what the whole host shares — the package
/// database (`apt-get update` in the formulas' `pkg` states, which also
/// read services, users and crontabs), root's crontab, users and groups,
/// `/etc` files, the clock's zone — run one after another on one lane;
/// the others (scratch folders only) on a second lane beside it.
fn shares_the_host(name: &str) -> bool {
    const SHARED: &[&str] = &[
        "formula-",
        "exec-cron",
        "exec-host-admin",
        "exec-hosts",
        "exec-mount",
        "exec-pkg",
        "exec-service",
        "exec-sysctl",
        "exec-timezone",
        "exec-user",
    ];
    SHARED.iter().any(|p| name.starts_with(p))
}

/// Run `one` on every case of `dirs` on two lanes ([`shares_the_host`]
/// decides which); the outcomes in `dirs`' order.
pub fn run_lanes(dirs: &[PathBuf], one: impl Fn(&Path) -> Vec<Outcome> + Sync) -> Vec<Outcome> {
    let name = |d: &PathBuf| {
        d.file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    };
    let (shared, own): (Vec<&PathBuf>, Vec<&PathBuf>) =
        dirs.iter().partition(|d| shares_the_host(&name(d)));
    let run = |lane: Vec<&PathBuf>| -> Vec<(String, Vec<Outcome>)> {
        lane.into_iter().map(|d| (name(d), one(d))).collect()
    };
    let (mut a, b) = std::thread::scope(|s| {
        let other = s.spawn(|| run(own));
        let a = run(shared);
        (a, other.join().unwrap_or_default())
    });
    a.extend(b);
    a.sort_by(|x, y| x.0.cmp(&y.0));
    a.into_iter().flat_map(|(_, o)| o).collect()
}

/// Print outcomes the way run.py does and return (passed, failed).
pub fn report(outcomes: &[Outcome]) -> (usize, usize) {
    let (mut passed, mut failed) = (0, 0);
    for o in outcomes {
        match &o.failure {
            None => {
                passed += 1;
                println!("PASS {} #{} {}", o.case, o.index, o.command);
            }
            Some(d) => {
                failed += 1;
                let d: String = d.chars().take(600).collect();
                println!("FAIL {} #{} {}\n     {}", o.case, o.index, o.command, d);
            }
        }
    }
    (passed, failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn diff_ignores_key_order_but_not_list_order() {
        assert_eq!(
            diff(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1}), "$"),
            None
        );
        assert!(diff(&json!([1, 2]), &json!([2, 1]), "$").is_some());
        assert_eq!(diff(&json!(1), &json!(1.0), "$"), None);
        assert!(diff(&json!({"a": 1}), &json!({"a": 1, "b": 0}), "$").is_some());
        assert!(diff(&json!(true), &json!(1), "$").is_some());
    }

    #[test]
    fn families_are_read_from_the_local_test() {
        let src = r#"
/// doc (with "quotes")
const FAMILIES: &[(&str, &[&str])] = &[
    ("pillar-", &[]),
    (
        "state-",
        &["state.show_", "state.apply"],
    ),
];
const OTHER: &[&str] = &["x"];
"#;
        let f = families_from_source(src);
        assert_eq!(
            f,
            vec![
                ("pillar-".to_string(), vec![]),
                (
                    "state-".to_string(),
                    vec!["state.show_".to_string(), "state.apply".to_string()]
                ),
            ]
        );
        assert!(checked(&f, "pillar-envs", "pillar.items"));
        assert!(checked(&f, "state-x", "state.apply foo"));
        assert!(!checked(&f, "state-x", "cmd.run ls"));
        assert!(!checked(&f, "hiera-x", "hiera.lookup a"));
        let real = families_from_source(include_str!("../tests/conformance_local.rs"));
        assert!(real.iter().any(|(p, _)| p == "pillar-"), "{real:?}");
    }

    #[test]
    fn recurse_sections_are_compared_sorted() {
        let a = "#### /d ####\nnew\n\n\n#### /d/a ####\nA\n\n#### /d/b ####\nB";
        let b = "#### /d ####\nnew\n\n\n#### /d/b ####\nB\n\n#### /d/a ####\nA";
        assert_eq!(sort_recurse_sections(a), sort_recurse_sections(b));
        assert_ne!(
            sort_recurse_sections(a),
            sort_recurse_sections("#### /d ####\nnew\n\n\n#### /d/a ####\nA")
        );
        assert_eq!(sort_recurse_sections("#### x ####\ny"), "#### x ####\ny");
    }

    #[test]
    fn normalize_drops_volatile_keys() {
        let v = normalize(&json!({"x": {"duration": 1, "name": "/t/a"}}), "/t");
        assert_eq!(v, json!({"x": {"name": "@TMP@/a"}}));
    }
}
