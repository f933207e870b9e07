//! Salt's own answers for Jinja templates: `salt_cases.rs` holds templates
//! and the exact output (or error line) Salt 3007.8's jinja renderer gave
//! for them with [`FIXTURE`] as grains, pillar and opts (regenerate with
//! `salt_cases_gen.py`), and [`run`] renders them through brine.
//!
//! Cases that call `salt[...]` need execution functions, which compile does
//! not have: compile's tests run the others, and brine-runtime's tests run
//! them all through its module registry (feature `salt-cases`).

use super::TemplateContext;
use crate::minion_data::Functions;
use crate::MinionData;
use brine_core::Value;
use std::path::PathBuf;
use std::sync::Arc;

#[path = "salt_cases.rs"]
mod salt_cases;

/// Every recorded case.
pub fn all() -> &'static [Case] {
    salt_cases::CASES
}

/// One template rendered by Salt.
pub struct Case {
    pub name: &'static str,
    pub src: &'static str,
    pub sls: &'static str,
    /// Template file relative to the roots (the files are written there).
    pub tplfile: Option<&'static str>,
    /// A template path given as-is (no file behind it).
    pub tplpath: Option<&'static str>,
    pub files: &'static [(&'static str, &'static str)],
    /// JSON object laid over the fixture's opts.
    pub opts: &'static str,
    /// Salt's output, or the line its error named.
    pub expect: Result<&'static str, Option<usize>>,
}

impl Case {
    /// Does the template (or a file it imports) call an execution function?
    pub fn calls_salt(&self) -> bool {
        let calls = |t: &str| t.contains("salt[") || t.contains("salt.");
        calls(self.src) || self.files.iter().any(|(_, t)| calls(t))
    }
}

/// The grains, pillar and opts every case was rendered with.
pub const FIXTURE: &str = r#"{
 "grains": {"id": "m1", "os": "Debian", "os_family": "Debian", "roles": ["web", "db"], "deep": {"x": {"y": 1}}, "num": 3, "ipv4": ["127.0.0.1", "10.0.0.5"], "shared": "from-grains"},
 "pillar": {"app": {"port": 8080, "name": "web", "enabled": true, "tags": ["a", "b"], "nested": {"k": "v"}}, "empty": {}, "none": null, "flt": 1.5, "users": {"alice": {"uid": 1000}, "bob": {"uid": 1001}}, "shared": "from-pillar", "text": "Hello World", "quote": "it's"},
 "opts": {"id": "m1", "myopt": 5, "shared": "from-opts"}
}"#;

/// The fixture minion, calling `functions`.
pub fn minion(functions: Functions) -> Arc<MinionData> {
    let fx = serde_json::from_str(FIXTURE)
        .map(|j| Value::from_json(&j))
        .unwrap_or_default();
    let part = |k: &str| fx.get(k).cloned().unwrap_or_else(Value::new_map);
    Arc::new(MinionData {
        id: "m1".into(),
        grains: part("grains"),
        pillar: part("pillar"),
        opts: part("opts"),
        functions,
    })
}

/// A scratch directory for one case, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> std::io::Result<Scratch> {
        let dir = std::env::temp_dir().join(format!(
            "brine-jinja-{}-{:?}-{name}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }

    fn write(&self, rel: &str, text: &str) -> std::io::Result<()> {
        let p = self.0.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(p, text)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Render the cases `which` selects with `functions` behind `salt`; returns
/// how many ran and a description of each that differs from Salt.
pub fn run(functions: &Functions, which: impl Fn(&Case) -> bool) -> (usize, Vec<String>) {
    run_with(functions, which, false)
}

/// Panic naming every case of a [`run`] that differs from Salt, unless
/// fewer than `at_least` ran; returns how many ran.
pub fn assert_as_salt((ran, failures): (usize, Vec<String>), at_least: usize) -> usize {
    assert!(ran >= at_least, "only {ran} cases ran");
    assert!(
        failures.is_empty(),
        "{} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    ran
}

/// [`run`], each case rendered twice through a kept compiled template
/// ([`super::keep_compiled_templates`]): both renders must answer as Salt.
pub fn run_kept(functions: &Functions, which: impl Fn(&Case) -> bool) -> (usize, Vec<String>) {
    run_with(functions, which, true)
}

fn run_with(
    functions: &Functions,
    which: impl Fn(&Case) -> bool,
    keep: bool,
) -> (usize, Vec<String>) {
    let minion = minion(functions.clone());
    let mut failures = Vec::new();
    let mut ran = 0;
    for c in all().iter().filter(|c| which(c)) {
        ran += 1;
        if let Err(e) = run_one(c, &minion, keep) {
            failures.push(e);
        }
    }
    (ran, failures)
}

fn run_one(c: &Case, minion: &Arc<MinionData>, keep: bool) -> Result<(), String> {
    let scratch = Scratch::new(c.name).map_err(|e| format!("{}: scratch dir: {e}", c.name))?;
    for (rel, text) in c.files {
        scratch
            .write(rel, text)
            .map_err(|e| format!("{}: writing {rel}: {e}", c.name))?;
    }
    let tplpath = match (c.tplfile, c.tplpath) {
        (Some(f), _) => Some(scratch.0.join(f).to_string_lossy().into_owned()),
        (None, p) => p.map(String::from),
    };
    let overlay = serde_json::from_str(c.opts)
        .map(|j| Value::from_json(&j))
        .map_err(|e| format!("{}: opts: {e}", c.name))?;
    let case_minion = match overlay.as_map() {
        Some(m) if !m.is_empty() => {
            let mut md = (**minion).clone();
            if let Some(opts) = md.opts.as_map_mut() {
                opts.extend(m.clone());
            }
            Arc::new(md)
        }
        _ => minion.clone(),
    };
    let ctx = TemplateContext {
        minion: case_minion,
        saltenv: "base".into(),
        sls: Some(c.sls.into()),
        tplpath,
        search_paths: vec![scratch.0.clone()],
        ..Default::default()
    };
    let renders = if keep { 2 } else { 1 };
    for _ in 0..renders {
        check(c, super::render_with(c.name, c.src, &ctx, keep))?;
    }
    Ok(())
}

fn check(c: &Case, got: Result<String, super::JinjaError>) -> Result<(), String> {
    match (&got, &c.expect) {
        (Ok(out), Ok(want)) if out == want => Ok(()),
        (Err(e), Err(line)) if line.is_none() || e.line == *line => Ok(()),
        _ => Err(format!(
            "{}:\n  salt:  {:?}\n  brine: {:?}",
            c.name,
            c.expect,
            got.as_ref().map_err(|e| (e.line, e.message.clone()))
        )),
    }
}
