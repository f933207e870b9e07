//! The conformance runner: the same rules as `shared/conformance/run.py`
//! (local mode), in Rust, so that `cargo test` checks conformance with no
//! Python. A case folder holds `case.yaml` (id, grains, config, commands),
//! `file_roots/<env>/`, `pillar_roots/<env>/` and `expected/NN.json`.

use brine_master::render::yaml;
use brine_protocol::{Map, Value};
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
    })
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
    let mut out = serde_json::Map::new();
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
    match v {
        Json::String(s) => Json::String(s.replace("@TMP@", tmp).replace("@CASE@", case)),
        Json::Array(a) => Json::Array(a.iter().map(|x| subst(x, tmp, case)).collect()),
        Json::Object(o) => Json::Object(
            o.iter()
                .map(|(k, x)| {
                    (
                        k.replace("@TMP@", tmp).replace("@CASE@", case),
                        subst(x, tmp, case),
                    )
                })
                .collect(),
        ),
        other => other.clone(),
    }
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
        Json::String(s) => Json::String(s.replace(tmp, "@TMP@")),
        other => other.clone(),
    }
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
        (a, b) => Some(format!("{path}: expected {a}, got {b}")),
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
    let case_s = std::fs::canonicalize(&case.dir)
        .unwrap_or_else(|_| case.dir.clone())
        .display()
        .to_string();
    let setup = (|| -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(tmp.join("work"))?;
        std::fs::create_dir_all(tmp.join("etc"))?;
        let mut cfg = serde_json::Map::new();
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
        cfg.insert("file_roots".into(), roots(&case.dir, "file_roots", &tmp));
        cfg.insert(
            "pillar_roots".into(),
            roots(&case.dir, "pillar_roots", &tmp),
        );
        cfg.insert("grains".into(), case.grains.to_json());
        for (k, v) in &case.config {
            cfg.insert(k.clone(), v.to_json());
        }
        let cfg = subst(&Json::Object(cfg), &tmp_s, &case_s);
        // JSON is YAML: the minion config loader reads it as such.
        std::fs::write(tmp.join("etc/minion"), serde_json::to_string_pretty(&cfg)?)?;
        Ok(tmp.join("etc"))
    })();
    let confdir = match setup {
        Ok(c) => c,
        Err(e) => {
            return vec![Outcome {
                case: case.name,
                index: 0,
                command: String::new(),
                failure: Some(format!("setup failed: {e}")),
            }]
        }
    };

    let mut outcomes = Vec::new();
    for (i, cmd) in case.commands.iter().enumerate() {
        if !check(cmd) {
            let words = shell_words::split(&cmd.replace("@TMP@", &tmp_s)).unwrap_or_default();
            // Unchecked: its answer does not matter, only its effects.
            let _ = Command::new(brine_call)
                .arg("-c")
                .arg(&confdir)
                .args(["--local", "--out", "json"])
                .args(&words)
                .output();
            continue;
        }
        let failure = run_command(&case, i, cmd, brine_call, &confdir, &tmp_s).err();
        outcomes.push(Outcome {
            case: case.name.clone(),
            index: i,
            command: cmd.clone(),
            failure,
        });
    }
    outcomes
}

fn run_command(
    case: &Case,
    i: usize,
    cmd: &str,
    brine_call: &Path,
    confdir: &Path,
    tmp: &str,
) -> Result<(), String> {
    let exp_path = case.dir.join(format!("expected/{i:02}.json"));
    let exp: Json = serde_json::from_str(
        &std::fs::read_to_string(&exp_path).map_err(|e| format!("{}: {e}", exp_path.display()))?,
    )
    .map_err(|e| format!("{}: {e}", exp_path.display()))?;
    let words = shell_words::split(&cmd.replace("@TMP@", tmp)).map_err(|e| e.to_string())?;
    let out = Command::new(brine_call)
        .arg("-c")
        .arg(confdir)
        .args(["--local", "--out", "json"])
        .args(&words)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", brine_call.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let got: Json = serde_json::from_str(&stdout).map_err(|e| {
        format!(
            "no JSON answer ({e}); stdout: {:.200}; stderr: {:.300}",
            stdout,
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let got = normalize(got.get("local").unwrap_or(&Json::Null), tmp);
    if let Some(d) = diff(&exp["return"], &got, "$") {
        return Err(d);
    }
    if cmd.starts_with("state.") {
        let salt_ok = exp["retcode"].as_i64() == Some(0);
        let ours = out.status.code().unwrap_or(-1);
        if salt_ok != (ours == 0) {
            return Err(format!("exit code {ours}, Salt's was {}", exp["retcode"]));
        }
    }
    Ok(())
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
    fn normalize_drops_volatile_keys() {
        let v = normalize(&json!({"x": {"duration": 1, "name": "/t/a"}}), "/t");
        assert_eq!(v, json!({"x": {"name": "@TMP@/a"}}));
    }
}
