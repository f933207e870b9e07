//! The recordings of a real Salt 3007.8 fleet under `tests/recorded/`
//! (see `tests/recorded/fleet/README.md`) and what replaying one needs:
//! the recording itself, a file of its tree with `@TMP@` made ours, a
//! minion configured as the recorded one against our master, and the
//! `cat` steps that compare a file's content.

use crate::daemon::{spawn_logged, MasterConf, MasterProc};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

/// `tests/recorded/<rel>`, parsed.
pub fn load(rel: &str) -> Json {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("recorded")
        .join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The recorded tree's text at `key`, `@TMP@` made `tmp`.
pub fn tree(rec: &Json, key: &str, tmp: &Path) -> String {
    rec["tree"][key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} in the recording"))
        .replace("@TMP@", &tmp.display().to_string())
}

/// Write minion `id`'s recorded config into `<conf's folder>/etc-<id>`,
/// its ports and root made ours, logging at info; the folder.
pub fn minion_conf(conf: &MasterConf, rec: &Json, id: &str) -> PathBuf {
    let tmp = conf.dir.path();
    let dir = tmp.join(format!("etc-{id}"));
    std::fs::create_dir_all(&dir).expect("minion config folder");
    let text = tree(rec, &format!("@TMP@/etc-{id}/minion"), tmp)
        .replace("@PUB@", &conf.publish_port.to_string())
        .replace("@RET@", &conf.ret_port.to_string())
        .replace("log_level: warning", "log_level: info")
        .replace("user: root\n", "");
    std::fs::write(dir.join("minion"), text).expect("minion config");
    dir
}

/// Minion `id` as recorded, running (logging to `<id>.log`).
pub fn start_minion(conf: &MasterConf, rec: &Json, id: &str) -> MasterProc {
    let dir = minion_conf(conf, rec, id);
    MasterProc::of(spawn_logged(
        "brine-minion",
        &dir,
        &conf.dir.path().join(format!("{id}.log")),
    ))
}

/// A step's command line, `@TMP@` made `tmp`.
pub fn argv(step: &Json, tmp: &Path) -> Vec<String> {
    let t = tmp.display().to_string();
    step["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .map(|a| a.as_str().unwrap_or_default().replace("@TMP@", &t))
        .collect()
}

/// A `cat FILE` step: how the file differs from what Salt's showed, if it
/// does.
pub fn cat_differs(step: &Json, argv: &[String]) -> Option<String> {
    let got = std::fs::read_to_string(argv.get(1)?).unwrap_or_default();
    let want = step["stdout"].as_str().unwrap_or_default();
    (got != want).then(|| format!("--- salt\n{want}--- brine\n{got}"))
}
