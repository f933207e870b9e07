//! Replaying the orchestration recordings (`tests/recorded/orch/`, a real
//! Salt 3007.8 master with web1, web2, db1 and a stopped gone1) against a
//! brine fleet: the fleet as recorded, and what makes two runs' outputs
//! comparable — times, durations, pids, job ids and stamps masked, the
//! order minions answered in taken out (Salt prints them as they arrive).

use crate::daemon::{MasterConf, MasterProc};
use crate::recorded;
use regex::Regex;
use serde_json::Value as Json;
use std::sync::LazyLock;

/// A recorded scenario's fleet, running: its master (config and tree as
/// recorded, `id: vm_master` as Salt named its master minion) and the
/// minions it names.
pub struct Fleet {
    pub conf: MasterConf,
    pub master: MasterProc,
    pub minions: Vec<(String, MasterProc)>,
}

impl Fleet {
    /// The fleet of `rec` with `ids` running; the master's recorded
    /// `timeout` made `waits` seconds (and `gather_job_timeout` half).
    pub fn start(rec: &Json, ids: &[&str], waits: u32) -> Fleet {
        let conf = MasterConf::new("");
        let tmp = conf.dir.path().to_path_buf();
        let tree = rec["tree"].as_object().expect("tree");
        for (key, text) in tree {
            let Some(rel) = key.strip_prefix("@TMP@/") else {
                continue;
            };
            if !rel.starts_with("srv") {
                continue;
            }
            let p = tmp.join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(
                &p,
                text.as_str()
                    .unwrap_or_default()
                    .replace("@TMP@", &tmp.display().to_string()),
            )
            .expect("write");
        }
        // The recorded master's config, ours in ports and folders; shorter
        // waits for a minion that does not answer (the answers do not
        // depend on them), and Salt's name for its master minion.
        let recorded = recorded::tree(rec, "@TMP@/etc/master", &tmp)
            .replace("@PUB@", &conf.publish_port.to_string())
            .replace("@RET@", &conf.ret_port.to_string())
            .replace("log_level: warning", "log_level: info")
            .replace("user: root\n", "")
            .replace("timeout: 10\n", &format!("timeout: {waits}\n"))
            .replace(
                "gather_job_timeout: 5\n",
                &format!("gather_job_timeout: {}\n", waits.div_ceil(2)),
            );
        std::fs::write(
            conf.conf_dir().join("master"),
            format!("{recorded}id: vm_master\n"),
        )
        .expect("master config");
        let master = conf.start();
        let minions = ids
            .iter()
            .map(|id| (id.to_string(), recorded::start_minion(&conf, rec, id)))
            .collect();
        for id in ids {
            conf.accept_and_ping(id);
        }
        Fleet {
            conf,
            master,
            minions,
        }
    }

    /// Start minions `ids` as recorded, their keys left pending, and
    /// wait until the master holds them.
    pub fn start_unaccepted(&mut self, rec: &Json, ids: &[&str]) {
        for id in ids {
            self.minions
                .push((id.to_string(), recorded::start_minion(&self.conf, rec, id)));
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::time::Instant::now() < deadline {
            let out = self.conf.cli("brine-key", &["-l", "unaccepted"]);
            let text = String::from_utf8_lossy(&out.stdout);
            if ids.iter().all(|id| text.lines().any(|l| l.trim() == *id)) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("minions {ids:?} never asked for their keys to be accepted");
    }

    /// Stop minion `id` (its key stays accepted).
    pub fn stop_minion(&mut self, id: &str) {
        if let Some((_, m)) = self.minions.iter_mut().find(|(i, _)| i == id) {
            m.stop();
        }
    }

    /// The logs of the master and every minion, for a failure's report.
    pub fn logs(&self) -> String {
        let mut s = self.conf.log();
        for (id, _) in &self.minions {
            s.push_str(&format!("--- {id}\n"));
            s.push_str(
                &std::fs::read_to_string(self.conf.dir.path().join(format!("{id}.log")))
                    .unwrap_or_default(),
            );
        }
        s
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        for (_, m) in &mut self.minions {
            m.stop();
        }
        self.master.stop();
    }
}

static JID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b20\d{18}\b").expect("regex"));

/// A key's fingerprint: each run makes its own keys.
static FINGERPRINT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[0-9a-f]{2}(?::[0-9a-f]{2}){15,}\b").expect("regex"));

/// Is `key` a runner's name (`state.orchestrate`)?
fn runner_name(key: &str) -> bool {
    const MODULES: &[&str] = &[
        "cache",
        "event",
        "fileserver",
        "jobs",
        "manage",
        "mine",
        "pillar",
        "state",
        "test",
    ];
    key.split_once('.').is_some_and(|(m, f)| {
        MODULES.contains(&m)
            && !f.is_empty()
            && f.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
    })
}

/// A JSON answer with what differs between two runs taken out: times,
/// durations, pids, stamps and job ids; `tmp` written `@TMP@`. Runners'
/// documentation (what salt-run lists for a call it refuses) is each
/// tool's own words: compared by name only.
pub fn normalize_json(v: &Json, tmp: &str) -> Json {
    if let Json::Object(m) = v {
        if !m.is_empty() && m.iter().all(|(k, v)| runner_name(k) && v.is_string()) {
            return Json::Object(
                m.keys()
                    .map(|k| (k.clone(), Json::String("<doc>".into())))
                    .collect(),
            );
        }
    }
    match v {
        Json::Object(m) => Json::Object(
            m.iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "start_time" | "duration" | "pid" | "_stamp" | "StartTime"
                    )
                })
                .map(|(k, v)| {
                    // A key pair made by key.gen_accept: RSA PEM for Salt,
                    // brine's key files for brine.
                    if matches!(k.as_str(), "pub" | "priv") && v.is_string() {
                        return (k.clone(), Json::String("<key>".into()));
                    }
                    // The working folder the minion was started in.
                    if k == "cwd" && v.is_string() {
                        return (k.clone(), Json::String("<cwd>".into()));
                    }
                    (mask_text(k, tmp), normalize_json(v, tmp))
                })
                .collect(),
        ),
        Json::Array(a) => Json::Array(a.iter().map(|x| normalize_json(x, tmp)).collect()),
        Json::String(s) => Json::String(mask_text(&last_of_traceback(s), tmp)),
        other => other.clone(),
    }
}

fn mask_text(s: &str, tmp: &str) -> String {
    let s = if tmp.is_empty() {
        s.to_string()
    } else {
        s.replace(tmp, "@TMP@")
    };
    let s = JID.replace_all(&s, "<jid>");
    let s = FINGERPRINT.replace_all(&s, "<fingerprint>");
    // brine's CLI names its own tools where Salt's names salt-run; Salt's
    // Python function for test.false is `false_` (its __func_alias__).
    // brine's master key is an ed25519 key file, master.key, where Salt's
    // RSA key is master.pem.
    let s = s
        .replace("brine-run jobs.lookup_jid", "salt-run jobs.lookup_jid")
        .replace("false_() takes", "false() takes")
        .replace("master.key", "master.pem");
    let s = LISTS.replace_all(&s, |c: &regex::Captures| {
        let mut ids: Vec<&str> = c[2].split(", ").collect();
        ids.sort_unstable();
        format!("{}{}", &c[1], ids.join(", "))
    });
    // A runner's usage is its documentation: brine's own words.
    match s.find("\n\nUsage:\n") {
        Some(at) if s.contains("Passed invalid arguments: ") => {
            format!("{}\n\nUsage: <the runner's documentation>", &s[..at])
        }
        _ => s.into_owned(),
    }
}

static TIMES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (r"(?m)^(\s*)Started: .*$", "${1}Started: <time>"),
        (r"(?m)^(\s*)Duration: .*$", "${1}Duration: <ms>"),
        (
            r"(?m)^(\s*)Total run time: .*$",
            "${1}Total run time: <total>",
        ),
        (r"(?m)^(\s*pid:\n\s*)\d+$", "${1}<pid>"),
        (r"(?m)^(\s*)_stamp:\n(\s*)\S+$", "${1}_stamp:\n${2}<stamp>"),
        (
            r"(?m)^(\s*)StartTime:\n(\s*)\d{4}, .*$",
            "${1}StartTime:\n${2}<time>",
        ),
        (r"(?m)^(\s*)cwd:\n(\s*)/.*$", "${1}cwd:\n${2}<cwd>"),
        (r"(?m)^(\s*)(start_time|duration):\n\s*\S+\n", ""),
        // The same in a pprint'd return.
        (r"'duration': [\d.]+", "'duration': <ms>"),
        (r"'start_time': '[^']*'", "'start_time': <time>"),
        (r"'pid': \d+", "'pid': <pid>"),
    ]
    .into_iter()
    .map(|(p, r)| (Regex::new(p).expect("regex"), r))
    .collect()
});

static LISTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(Updating |No changes made to |Run failed on minions: |ran on |failed on minions: )([\w-]+(?:\.[\w-]+)*(?:, [\w-]+(?:\.[\w-]+)*)+)")
        .expect("regex")
});

/// A highstate text with what differs between two runs taken out: times,
/// durations, pids and jids masked, the minion lists of comments sorted,
/// and each step's nested minion blocks in id order.
pub fn normalize_text(s: &str, tmp: &str) -> String {
    let mut s = mask_text(&tracebacks_cut(s), tmp);
    for (re, rep) in TIMES.iter() {
        s = re.replace_all(&s, *rep).into_owned();
    }
    sort_host_blocks(&usage_masked(&docs_masked(&s)))
}

/// What differs by nature under a nested key, taken out: a runner's
/// `Usage:` documentation (each tool's own words) and the halves of a key
/// pair key.gen_accept made (each tool its own kind of key).
fn usage_masked(s: &str) -> String {
    let lines: Vec<&str> = s.split('\n').collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        out.push(l.to_string());
        i += 1;
        let what = match l.trim() {
            "Usage:" => "<the runner's documentation>",
            "priv:" | "pub:" => "<key>",
            _ => continue,
        };
        let indent = l.len() - l.trim_start().len();
        out.push(format!("{:indent$}    {what}", ""));
        while i < lines.len() {
            let n = lines[i];
            if !n.trim().is_empty() && n.len() - n.trim_start().len() <= indent {
                break;
            }
            i += 1;
        }
    }
    out.join("\n")
}

const TRACEBACK: &str = "Traceback (most recent call last):";

/// A traceback in a comment or return with its frames taken out (Salt's
/// source lines, of its install): the exception's own line is compared,
/// as the conformance cases compare it.
fn last_of_traceback(s: &str) -> String {
    match s.find(TRACEBACK) {
        Some(at) => {
            let last = s[at..].trim_end().lines().last().unwrap_or_default();
            let end = if s.ends_with('\n') { "\n" } else { "" };
            format!("{}{}{end}", &s[..at], last.trim())
        }
        None => s.to_string(),
    }
}

/// Does `line` read as a Python exception's line (`KeyError: 'x'`)?
fn exception_line(line: &str) -> bool {
    line.split_once(':').is_some_and(|(kind, _)| {
        !kind.is_empty()
            && kind
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
    })
}

/// The highstate or nested text's tracebacks cut to the exception's line.
fn tracebacks_cut(s: &str) -> String {
    let lines: Vec<&str> = s.split('\n').collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let Some(at) = l.find(TRACEBACK) else {
            out.push(l.to_string());
            i += 1;
            continue;
        };
        let indent = l.len() - l.trim_start().len();
        let mut last = "";
        i += 1;
        while i < lines.len() {
            let n = lines[i];
            let ni = n.len() - n.trim_start().len();
            if !n.trim().is_empty() && ni <= indent {
                break;
            }
            if !n.trim().is_empty() {
                last = n.trim();
            }
            i += 1;
        }
        // A nested value's exception line stands where its first line did.
        if !exception_line(last) {
            if let Some(n) = lines.get(i).filter(|n| exception_line(n.trim())) {
                last = n.trim();
                i += 1;
            }
        }
        out.push(format!("{}{last}", &l[..at]));
    }
    out.join("\n")
}

/// A listing of runners' documentation (`name:` then its indented text)
/// with the texts taken out.
fn docs_masked(s: &str) -> String {
    let lines: Vec<&str> = s.split('\n').collect();
    if !lines
        .first()
        .is_some_and(|l| l.strip_suffix(':').is_some_and(runner_name))
    {
        return s.to_string();
    }
    let mut out = Vec::new();
    for l in lines {
        if l.strip_suffix(':').is_some_and(runner_name) {
            out.push(l.to_string());
            out.push("    <doc>".to_string());
        } else if !l.starts_with(' ') && !l.trim().is_empty() {
            out.push(l.to_string());
        }
    }
    out.join("\n")
}

/// Nested minion blocks (`<14 spaces>id:` up to the next one or the end
/// of the step) in id order, at every depth.
fn sort_host_blocks(s: &str) -> String {
    let lines: Vec<&str> = s.split('\n').collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    let host = |l: &str, indent: usize| -> bool {
        l.len() > indent
            && l[..indent].bytes().all(|b| b == b' ')
            && !l[indent..].starts_with(' ')
            && l.ends_with(':')
            && !l[indent..].contains(' ')
            && !l.trim_end().ends_with("----------")
    };
    while i < lines.len() {
        let indent = lines[i].len() - lines[i].trim_start().len();
        if indent >= 14
            && host(lines[i], indent)
            && lines.get(i + 1).is_some_and(|n| n.trim() == "----------")
        {
            // A run of sibling host blocks at this indent.
            let mut blocks: Vec<Vec<&str>> = Vec::new();
            while i < lines.len() && host(lines[i], indent) {
                let mut b = vec![lines[i]];
                i += 1;
                while i < lines.len() {
                    let l = lines[i];
                    let li = l.len() - l.trim_start().len();
                    if (li < indent && !l.trim().is_empty()) || host(l, indent) {
                        break;
                    }
                    b.push(l);
                    i += 1;
                }
                blocks.push(b);
            }
            // Blank lines after the last block belong to what follows.
            let mut trailing = 0;
            if let Some(last) = blocks.last_mut() {
                while last.len() > 1 && last.last().is_some_and(|l| l.is_empty()) {
                    last.pop();
                    trailing += 1;
                }
            }
            blocks.sort_by(|a, b| a[0].cmp(b[0]));
            for b in blocks {
                out.push(b[0].to_string());
                out.push(sort_host_blocks(&b[1..].join("\n")));
            }
            out.extend(std::iter::repeat_n(String::new(), trailing));
            continue;
        }
        out.push(lines[i].to_string());
        i += 1;
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_blocks_sort_by_id() {
        let text = "x:\n              web2:\n              ----------\n                b\n              web1:\n              ----------\n                a\n----------\n";
        let got = normalize_text(text, "");
        assert!(
            got.find("web1:").unwrap() < got.find("web2:").unwrap(),
            "{got}"
        );
        assert_eq!(
            normalize_text("Comment: States ran successfully. Updating web2, web1.", ""),
            "Comment: States ran successfully. Updating web1, web2."
        );
    }
}
