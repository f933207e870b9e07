//! Salt's `highstate` outputter, the default for state runs: one block per
//! state (ID, Function, Name, Result, Comment, Started, Duration, Changes
//! through the nested outputter), then the Summary. Honours
//! `state_output` (full/terse/mixed/changes/filter and their `_id` forms),
//! `state_verbose`, `state_output_profile`, `state_output_pct`,
//! `state_output_diff` and `state_tabular: True`.

pub use super::options::HighstateOptions;
use super::{nested, python_splitlines, Lines, OutputOptions};
use crate::py::float_repr as python_float_repr;
use crate::{Map, Value};

/// ANSI codes as Salt's `get_colors` makes them.
struct Colors {
    red: &'static str,
    light_red: &'static str,
    green: &'static str,
    cyan: &'static str,
    light_yellow: &'static str,
    endc: &'static str,
}

const ON: Colors = Colors {
    red: "\x1b[0;31m",
    light_red: "\x1b[0;1;31m",
    green: "\x1b[0;32m",
    cyan: "\x1b[0;36m",
    light_yellow: "\x1b[0;1;33m",
    endc: "\x1b[0;0m",
};

const OFF: Colors = Colors {
    red: "",
    light_red: "",
    green: "",
    cyan: "",
    light_yellow: "",
    endc: "",
};

/// The text for `data` (the `{minion_id: ret}` wrapper); `None` where
/// Salt's outputter would raise and salt-call falls back to `nested`.
pub fn output(data: &Value, opts: &OutputOptions) -> Option<String> {
    output_at(data, opts, 1)
}

/// [`output`] at a nesting depth: an orchestration step that ran another
/// orchestration (`salt.runner state.orchestrate`) prints its hosts one
/// level in.
fn output_at(data: &Value, opts: &OutputOptions, indent_level: usize) -> Option<String> {
    let data = unwrap_envelope(data);
    let hosts = match data {
        // Salt hands these back as they are (its output() is recursive).
        Value::Int(_) | Value::Bool(_) | Value::Str(_) => return Some(data.to_python_str()),
        Value::Null => return Some("None".into()),
        other => other.as_map()?,
    };
    // The orchestrate runner's return carries its retcode beside the
    // master minion's states: not a host.
    let masters = hosts.keys().filter(|k| k.ends_with("_master")).count();
    let orchestrator = hosts.contains_key("retcode") && masters == 1;
    let mut out = String::new();
    let mut n = 0;
    for (host, hostdata) in hosts {
        if orchestrator && host == "retcode" {
            continue;
        }
        let (text, _) = format_host(host, hostdata, opts, indent_level)?;
        if n > 0 {
            out.push('\n');
        }
        out.push_str(&text);
        n += 1;
    }
    Some(out)
}

/// The data inside a runner's or a job lookup's envelope: `return`, then
/// the orchestrate runner's `data`, then a `jobs.lookup_jid` answer's one
/// job (`{id: {jid, fun, return: {data: ...}}}`).
fn unwrap_envelope(data: &Value) -> &Value {
    let mut data = data;
    if let Some(inner) = data.as_map().and_then(|m| m.get("return")) {
        data = inner;
    }
    if let Some(inner) = data.as_map().and_then(|m| m.get("data")) {
        data = inner;
    }
    if let Some(m) = data.as_map().filter(|m| m.len() == 1) {
        if let Some(Value::Map(job)) = m.values().next() {
            if job.contains_key("jid") && job.contains_key("fun") {
                let ret = job.get("return").and_then(Value::as_map);
                if let Some(inner) = ret.and_then(|r| r.get("data")) {
                    data = inner;
                } else if ret.is_some() {
                    // Salt's `.get("data", data)` on the job's return.
                    return data;
                }
            }
        }
    }
    data
}

/// Python's `str.strip()`.
fn py_strip(s: &str) -> &str {
    s.trim_matches(super::python_is_space)
}

/// Salt strips escape sequences from error text and host names.
fn strip_esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            // Salt's pattern: ESC [ then digits and semicolons, then one letter.
            while let Some(&n) = chars.peek() {
                chars.next();
                if !(n.is_ascii_digit() || n == ';') {
                    break;
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// A result value as Salt counts and prints it.
#[derive(Debug, Clone, PartialEq)]
enum ResultKey {
    True,
    False,
    None,
    Other(String),
}

impl ResultKey {
    fn of(v: &Value) -> ResultKey {
        match v {
            Value::Bool(true) => ResultKey::True,
            Value::Bool(false) => ResultKey::False,
            Value::Null => ResultKey::None,
            other => ResultKey::Other(other.to_python_repr()),
        }
    }
    fn text(v: &Value) -> String {
        v.to_python_str()
    }
}

/// Counts per result, in the order Salt's dict sees them.
#[derive(Default)]
struct Counts {
    entries: Vec<(ResultKey, i64)>,
    warnings: Option<i64>,
}

impl Counts {
    fn add(&mut self, k: ResultKey) {
        match self.entries.iter_mut().find(|(e, _)| *e == k) {
            Some((_, n)) => *n += 1,
            None => self.entries.push((k, 1)),
        }
    }
    fn get(&self, k: &ResultKey) -> i64 {
        self.entries
            .iter()
            .find(|(e, _)| e == k)
            .map_or(0, |(_, n)| *n)
    }
    fn all(&self) -> impl Iterator<Item = i64> + '_ {
        self.entries.iter().map(|(_, n)| *n).chain(self.warnings)
    }
}

fn as_float(v: Option<&Value>) -> f64 {
    match v {
        Some(Value::Float(f)) => *f,
        Some(Value::Int(i)) => *i as f64,
        Some(Value::Bool(b)) => *b as i64 as f64,
        Some(Value::Str(s)) => {
            let s = s.split(" ms").next().unwrap_or("");
            s.trim().parse().unwrap_or(0.0)
        }
        _ => 0.0,
    }
}

/// Python's `str()` of a duration as Salt prints it (`0.377`).
fn duration_text(v: &Value) -> String {
    match v {
        Value::Float(f) => python_float_repr(*f),
        other => other.to_python_str(),
    }
}

/// `textwrap.fill(text, 80, initial/subsequent indent 14)` then
/// `lstrip()`: words on whitespace, lines up to 80 columns.
fn wrap_warnings(text: &str) -> String {
    let indent = " ".repeat(14);
    let mut lines: Vec<String> = Vec::new();
    let mut cur = indent.clone();
    for word in text.split_whitespace() {
        let empty = cur.len() == indent.len();
        if !empty && cur.chars().count() + 1 + word.chars().count() > 80 {
            lines.push(std::mem::replace(&mut cur, indent.clone()));
        }
        if cur.len() != indent.len() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if cur.len() != indent.len() || lines.is_empty() {
        lines.push(cur);
    }
    lines.join("\n").trim_start().to_string()
}

/// One host's block, and whether any of its states changed something
/// (Salt's `_format_host`).
fn format_host(
    host: &str,
    data: &Value,
    opts: &OutputOptions,
    indent_level: usize,
) -> Option<(String, bool)> {
    let hs = &opts.highstate;
    let c = if opts.color { &ON } else { &OFF };
    let mut hcolor = c.green;
    let mut hstrs = Lines::default();
    // What goes above the states (Salt inserts it at the top).
    let mut preface: Vec<String> = Vec::new();
    let mut nchanges: i64 = 0;
    match data {
        // A bool is an int to Python.
        Value::Int(_) | Value::Bool(_) => {
            // saltmod's data for a minion that failed: a change to Salt.
            nchanges = 1;
            hstrs.line(format_args!(
                "{}    {}{}",
                hcolor,
                data.to_python_str(),
                c.endc
            ));
            hcolor = c.cyan;
        }
        Value::Str(s) => {
            // Data in this form comes from saltmod.function: a change.
            nchanges = 1;
            for line in python_splitlines(s) {
                hstrs.line(format_args!("{}    {line}{}", hcolor, c.endc));
            }
            hcolor = c.cyan;
        }
        Value::List(errors) => {
            hcolor = c.light_red;
            hstrs.line(format_args!(
                "    {hcolor}Data failed to compile:{}",
                c.endc
            ));
            for err in errors {
                let err = strip_esc(&err.to_python_str());
                hstrs.line(format_args!("{hcolor}----------\n    {err}{}", c.endc));
            }
        }
        Value::Map(states) => {
            let mut counts = Counts::default();
            let mut rdurations: Vec<f64> = Vec::new();
            let mut order: Vec<(&String, &Map)> = Vec::new();
            for (tname, info) in states {
                if let Value::Map(info) = info {
                    if tname != "changes" && !info.is_empty() && !info.contains_key("__run_num__") {
                        preface.insert(0, pformat(&Value::Map(info.clone())));
                        preface.insert(
                            0,
                            "The State execution failed to record the order in which all \
                             states were executed. The state return missing data is:"
                                .into(),
                        );
                    }
                    if info.contains_key("result") {
                        order.push((tname, info));
                    }
                }
            }
            let run_num = |m: &Map| as_float(m.get("__run_num__"));
            order.sort_by(|a, b| {
                run_num(a.1)
                    .partial_cmp(&run_num(b.1))
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            let mode = hs.state_output.to_lowercase();
            for (tname, ret) in order {
                let result = ret.get("result").unwrap_or(&Value::Null);
                let rkey = ResultKey::of(result);
                counts.add(rkey.clone());
                rdurations.push(as_float(ret.get("duration")));
                // Salt raises (and salt-call falls back to nested) on a
                // return without changes or comment.
                let changes = ret.get("changes")?;
                let orchestration = matches!(
                    ret.get("name").and_then(Value::as_str),
                    Some("state.orch" | "state.orchestrate" | "state.sls")
                );
                let (schanged, ctext) = if orchestration {
                    // A step that ran an orchestration: its hosts one level in.
                    let nested = output_at(changes, opts, indent_level + 1)?;
                    let pad = " ".repeat(14 * indent_level);
                    let text = format!("\n{nested}")
                        .split('\n')
                        .map(|l| format!("{pad}{l}"))
                        .collect::<Vec<_>>()
                        .join("\n");
                    (true, text)
                } else {
                    format_changes(changes, opts)?
                };
                if schanged {
                    nchanges += 1;
                }
                let truthy = result.is_truthy();
                if hs.state_output_diff && truthy && !schanged {
                    continue;
                }
                if !hs.state_verbose && truthy && !schanged {
                    continue;
                }
                let mut tcolor = c.green;
                if schanged {
                    tcolor = c.cyan;
                }
                if rkey == ResultKey::False {
                    hcolor = c.red;
                    tcolor = c.red;
                }
                if rkey == ResultKey::None {
                    hcolor = c.light_yellow;
                    tcolor = c.light_yellow;
                }
                let mut comps: Vec<&str> = tname.split("_|-").collect();
                if comps.len() < 4 {
                    return None;
                }
                if mode.ends_with("_id") {
                    comps[2] = comps[1];
                }
                let terse = if mode.starts_with("filter") {
                    let text = ResultKey::text(result);
                    if hs.terse.contains(&text) {
                        true
                    } else if hs.exclude.contains(&text) {
                        continue;
                    } else {
                        false
                    }
                } else {
                    mode.starts_with("terse")
                        || (mode.starts_with("mixed") && rkey != ResultKey::False)
                        || (mode.starts_with("changes") && truthy && !schanged)
                };
                if terse {
                    hstrs.push(&format_terse(tcolor, &comps, ret, c, hs));
                    continue;
                }
                let comment_v = ret.get("comment")?;
                let mut comment =
                    py_strip(&comment_v.to_python_str()).replace('\n', &format!("\n{:14}", ""));
                match ret.get("data") {
                    None => {}
                    Some(Value::List(items)) => {
                        for item in items {
                            comment = format!("{comment} {}", item.to_python_str());
                        }
                    }
                    Some(Value::Map(m)) => {
                        for (k, v) in m {
                            comment = format!("{comment}\n\t\t{k}: {}", v.to_python_str());
                        }
                    }
                    Some(other) => comment = format!("{comment} {}", other.to_python_str()),
                }
                let endc = c.endc;
                hstrs.line(format_args!("{tcolor}----------{endc}"));
                hstrs.line(format_args!("    {tcolor}      ID: {}{endc}", comps[1]));
                hstrs.line(format_args!(
                    "    {tcolor}Function: {}.{}{endc}",
                    comps[0], comps[3]
                ));
                if comps[1] != comps[2] {
                    hstrs.line(format_args!("    {tcolor}    Name: {}{endc}", comps[2]));
                }
                hstrs.line(format_args!(
                    "    {tcolor}  Result: {}{endc}",
                    ResultKey::text(result)
                ));
                hstrs.line(format_args!("    {tcolor} Comment: {comment}{endc}"));
                if hs.state_output_profile && ret.contains_key("start_time") {
                    let start = ret.get("start_time").map(Value::to_python_str);
                    let dur = match ret.get("duration") {
                        None => String::new(),
                        Some(Value::Str(d)) if d.is_empty() => String::new(),
                        Some(d) => format!("{} ms", duration_text(d)),
                    };
                    hstrs.line(format_args!(
                        "    {tcolor} Started: {}{endc}",
                        start.unwrap_or_default()
                    ));
                    hstrs.line(format_args!("    {tcolor}Duration: {dur}{endc}"));
                }
                hstrs.line(format_args!("{tcolor}     Changes:   {ctext}{endc}"));
                if let Some(w) = ret.get("warnings") {
                    counts.warnings = Some(counts.warnings.unwrap_or(0) + 1);
                    let text = match w {
                        Value::List(l) => l
                            .iter()
                            .map(Value::to_python_str)
                            .collect::<Vec<_>>()
                            .join("\n"),
                        other => other.to_python_str(),
                    };
                    hstrs.line(format_args!(
                        "   {} Warnings: {}{endc}",
                        c.light_red,
                        wrap_warnings(&text)
                    ));
                }
            }
            summary(host, &counts, nchanges, &rdurations, c, hs, &mut hstrs);
        }
        _ => {}
    }
    let host = strip_esc(host);
    let mut head = format!("{hcolor}{host}:{}", c.endc);
    for line in preface {
        head.push('\n');
        head.push_str(&line);
    }
    if !hstrs.is_empty() {
        head.push('\n');
    }
    let mut text = hstrs.into_text();
    text.insert_str(0, &head);
    Some((text, nchanges > 0))
}

/// The Summary block.
fn summary(
    host: &str,
    counts: &Counts,
    nchanges: i64,
    rdurations: &[f64],
    c: &Colors,
    hs: &HighstateOptions,
    hstrs: &mut Lines,
) {
    let endc = c.endc;
    let count_max_len = counts.all().map(|n| n.to_string().len()).max().unwrap_or(0);
    // The longest label, "Succeeded".
    let line_max_len = 9 + count_max_len + 2;
    let rule = "-".repeat(line_max_len);
    hstrs.line(format_args!("{}\nSummary for {host}\n{rule}{endc}", c.cyan));
    let counted = |label: &str, count: String| {
        let width = line_max_len.saturating_sub(label.len() + 2);
        format!("{label}: {count:>width$}")
    };
    let none = counts.get(&ResultKey::None);
    let mut changestats = Vec::new();
    if none > 0 {
        changestats.push(format!("{}unchanged={none}{endc}", c.light_yellow));
    }
    if nchanges > 0 {
        changestats.push(format!("{}changed={nchanges}{endc}", c.green));
    }
    let changestats = if changestats.is_empty() {
        String::new()
    } else {
        format!(" ({})", changestats.join(", "))
    };
    let succeeded = counts.get(&ResultKey::True) + none;
    hstrs.line(format_args!(
        "{}{}{endc}{changestats}",
        c.green,
        counted("Succeeded", succeeded.to_string())
    ));
    let failed = counts.get(&ResultKey::False);
    let fcolor = if failed > 0 { c.red } else { c.cyan };
    hstrs.line(format_args!(
        "{fcolor}{}{endc}",
        counted("Failed", failed.to_string())
    ));
    let warnings = counts.warnings.unwrap_or(0);
    let total = counts.all().sum::<i64>() - warnings;
    if hs.state_output_pct && total > 0 {
        let pct = |n: i64| {
            let v = ((n as f64 / total as f64) * 100.0 * 100.0).round() / 100.0;
            python_float_repr(v)
        };
        hstrs.line(format_args!(
            "{}{}{endc}",
            c.green,
            counted("Success %", pct(succeeded))
        ));
        hstrs.line(format_args!(
            "{fcolor}{}{endc}",
            counted("Failure %", pct(failed))
        ));
    }
    if warnings > 0 {
        hstrs.line(format_args!(
            "{}{}{endc}",
            c.light_red,
            counted("Warnings", warnings.to_string())
        ));
    }
    let width = line_max_len.saturating_sub(7);
    hstrs.line(format_args!(
        "{}{rule}\nTotal states run: {total:>width$}{endc}",
        c.cyan
    ));
    if hs.state_output_profile {
        // Python's sum() of nothing is 0 (Rust's f64 sum starts at -0.0).
        let mut sum: f64 = rdurations.iter().fold(0.0, |a, b| a + b);
        let mut unit = "ms";
        if sum > 999.0 {
            sum /= 1000.0;
            unit = "s";
        }
        let width = line_max_len.saturating_sub(5);
        hstrs.line(format_args!(
            "{}Total run time: {:>width$} {unit}{endc}",
            c.cyan,
            format!("{sum:.3}")
        ));
    }
}

/// Python's `repr` with dict keys sorted (what `pprint` prints on one
/// line).
fn sorted_repr(v: &Value) -> String {
    match v {
        Value::Map(m) => {
            let mut items: Vec<(&String, &Value)> = m.iter().collect();
            items.sort_by(|a, b| a.0.cmp(b.0));
            let parts: Vec<String> = items
                .iter()
                .map(|(k, v)| format!("{}: {}", crate::value::python_str_repr(k), sorted_repr(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::List(l) => {
            let parts: Vec<String> = l.iter().map(sorted_repr).collect();
            format!("[{}]", parts.join(", "))
        }
        other => other.to_python_repr(),
    }
}

/// Python's `pprint.pformat(v)` (width 80, dict keys sorted).
fn pformat(v: &Value) -> String {
    let mut out = String::new();
    pp(v, &mut out, 0, 0, 0);
    out
}

/// `PrettyPrinter._format`: the one-line repr when it fits, else the
/// container split over lines.
fn pp(v: &Value, out: &mut String, indent: usize, allowance: usize, level: usize) {
    const WIDTH: usize = 80;
    let rep = sorted_repr(v);
    if rep.chars().count() <= WIDTH.saturating_sub(indent + allowance) {
        out.push_str(&rep);
        return;
    }
    match v {
        Value::Map(m) if !m.is_empty() => {
            out.push('{');
            let mut items: Vec<(&String, &Value)> = m.iter().collect();
            items.sort_by(|a, b| a.0.cmp(b.0));
            let indent = indent + 1;
            let last = items.len() - 1;
            for (i, (k, val)) in items.into_iter().enumerate() {
                let krep = crate::value::python_str_repr(k);
                out.push_str(&krep);
                out.push_str(": ");
                let allow = if i == last { allowance + 1 } else { 1 };
                pp(
                    val,
                    out,
                    indent + krep.chars().count() + 2,
                    allow,
                    level + 1,
                );
                if i != last {
                    out.push_str(",\n");
                    out.push_str(&" ".repeat(indent));
                }
            }
            out.push('}');
        }
        Value::List(l) if !l.is_empty() => {
            out.push('[');
            let indent = indent + 1;
            let last = l.len() - 1;
            for (i, item) in l.iter().enumerate() {
                let allow = if i == last { allowance + 1 } else { 1 };
                pp(item, out, indent, allow, level + 1);
                if i != last {
                    out.push_str(",\n");
                    out.push_str(&" ".repeat(indent));
                }
            }
            out.push(']');
        }
        Value::Str(s) if !s.is_empty() => pp_str(s, out, indent, allowance, level + 1),
        _ => out.push_str(&rep),
    }
}

/// `PrettyPrinter._pprint_str`: a long string as adjacent literals split
/// after whitespace (in parentheses at the top level).
fn pp_str(s: &str, out: &mut String, indent: usize, allowance: usize, level: usize) {
    const WIDTH: usize = 80;
    let repr = crate::value::python_str_repr;
    let (indent, allowance) = if level == 1 {
        (indent + 1, allowance + 1)
    } else {
        (indent, allowance)
    };
    let max_width = WIDTH.saturating_sub(indent);
    let mut chunks: Vec<String> = Vec::new();
    let lines = split_keep_ends(s);
    let n = lines.len();
    for (i, line) in lines.iter().enumerate() {
        let rep = repr(line);
        let max1 = if i == n - 1 {
            max_width.saturating_sub(allowance)
        } else {
            max_width
        };
        if rep.chars().count() <= max1 {
            chunks.push(rep);
            continue;
        }
        // Alternating runs of non-space then space characters.
        let mut parts: Vec<String> = Vec::new();
        let mut cur = String::new();
        let mut in_space = false;
        for c in line.chars() {
            let sp = c.is_whitespace();
            if !sp && in_space {
                parts.push(std::mem::take(&mut cur));
            }
            in_space = sp;
            cur.push(c);
        }
        if !cur.is_empty() {
            parts.push(cur);
        }
        let mut current = String::new();
        let np = parts.len();
        for (j, part) in parts.iter().enumerate() {
            let candidate = format!("{current}{part}");
            let max2 = if j == np - 1 && i == n - 1 {
                max_width.saturating_sub(allowance)
            } else {
                max_width
            };
            if repr(&candidate).chars().count() > max2 {
                if !current.is_empty() {
                    chunks.push(repr(&current));
                }
                current = part.clone();
            } else {
                current = candidate;
            }
        }
        if !current.is_empty() {
            chunks.push(repr(&current));
        }
    }
    if chunks.len() == 1 {
        out.push_str(&chunks[0]);
        return;
    }
    if level == 1 {
        out.push('(');
    }
    for (i, c) in chunks.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
        }
        out.push_str(c);
    }
    if level == 1 {
        out.push(')');
    }
}

/// Python's `str.splitlines(True)`, for `\n`-separated text.
fn split_keep_ends(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if c == '\n' {
            out.push(&s[start..=i]);
            start = i + 1;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// `_format_changes`: nothing for no changes, else the nested outputter
/// at indent 14 on its own lines.
fn format_changes(changes: &Value, opts: &OutputOptions) -> Option<(bool, String)> {
    if !changes.is_truthy() {
        return Some((false, String::new()));
    }
    if !matches!(changes, Value::Map(_)) {
        return Some((
            true,
            format!("Invalid Changes data: {}", changes.to_python_str()),
        ));
    }
    // The states a step ran on minions (`salt.state` in an
    // orchestration): each minion's block, 14 columns in.
    if let (Some(Value::Map(hosts)), Some("highstate")) = (
        changes.get("ret"),
        changes.get("out").and_then(Value::as_str),
    ) {
        let mut text = String::new();
        let mut changed = false;
        for (host, hostdata) in hosts {
            let (s, c) = format_host(host, hostdata, opts, 1)?;
            text.push('\n');
            let lines: Vec<String> = python_splitlines(&s)
                .into_iter()
                .map(|l| format!("{:14}{l}", ""))
                .collect();
            text.push_str(&lines.join("\n"));
            changed |= c;
        }
        return Some((changed, text));
    }
    let inner = OutputOptions {
        color: opts.color,
        nested_indent: 14,
        ..OutputOptions::default()
    };
    let text = nested::output(changes, &inner);
    let text = text.trim_end_matches(super::python_is_space);
    Some((true, format!("\n{text}")))
}

/// `_format_terse`: one line per state.
fn format_terse(
    tcolor: &str,
    comps: &[&str],
    ret: &Map,
    c: &Colors,
    hs: &HighstateOptions,
) -> String {
    let result = ret.get("result").unwrap_or(&Value::Null);
    let mut state = "Clean";
    if ret.get("changes").is_some_and(Value::is_truthy) {
        state = "Changed";
    }
    match result {
        Value::Bool(false) => state = "Failed",
        Value::Null => state = "Differs",
        _ => {}
    }
    let warnings = ret.get("warnings").map(|w| match w {
        Value::List(l) => l
            .iter()
            .map(Value::to_python_str)
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_python_str(),
    });
    let profile = hs.state_output_profile && ret.contains_key("start_time");
    let start = ret
        .get("start_time")
        .map(Value::to_python_str)
        .unwrap_or_default();
    let dur = ret.get("duration").map(duration_text).unwrap_or_default();
    let (name, module, fun) = (comps[2], comps[0], comps[comps.len() - 1]);
    let mut out = String::new();
    if hs.state_tabular {
        if let Some(w) = &warnings {
            out.push_str(&format!("{}Warnings:\n{w}{}\n", c.light_red, c.endc));
        }
        out.push_str(tcolor);
        if profile {
            out.push_str(&format!("{start} [{dur:>7} ms] "));
        }
        out.push_str(&format!(
            "{module:>10}.{fun:<10} {state:7}   Name: {name}{}",
            c.endc
        ));
    } else {
        if let Some(w) = &warnings {
            out.push_str(&format!("{}Warnings:\n{w}{}", c.light_red, c.endc));
        }
        out.push_str(&format!(
            " {tcolor} Name: {name} - Function: {module}.{fun} - Result: {state}"
        ));
        if profile {
            out.push_str(&format!(" - Started: {start} - Duration: {dur} ms"));
        }
        out.push_str(c.endc);
    }
    out
}

#[cfg(test)]
mod tests {
    //! Each `testdata/highstate/NAME.json` is a salt-call `--out json`
    //! state run; `NAME.MODE.txt` is what Salt's own highstate outputter
    //! prints for exactly that data with the options of `MODE`.

    use super::super::{render_with, OutputOptions};
    use super::HighstateOptions;
    use crate::Value;
    use std::path::Path;

    fn read(name: &str) -> String {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/output/testdata/highstate")
            .join(name);
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p:?}: {e}"))
    }

    fn check(data: &str, mode: &str, color: bool, hs: HighstateOptions) {
        let j: serde_json::Value =
            serde_json::from_str(&read(&format!("{data}.json"))).unwrap_or_default();
        let ret = Value::from_json(&j)
            .get("local")
            .cloned()
            .unwrap_or_default();
        let opts = OutputOptions {
            color,
            highstate: hs,
            ..OutputOptions::default()
        };
        let got = render_with("highstate", "local", &ret, &opts).unwrap_or_default();
        let want = read(&format!("{data}.{mode}.txt"));
        if got != want {
            for (n, (g, w)) in got.lines().zip(want.lines()).enumerate() {
                assert_eq!(g, w, "{data}.{mode}: line {}", n + 1);
            }
            assert_eq!(got, want, "{data}.{mode}");
        }
    }

    fn with(f: impl FnOnce(&mut HighstateOptions)) -> HighstateOptions {
        let mut h = HighstateOptions::default();
        f(&mut h);
        h
    }

    #[test]
    fn pformat_like_python() {
        let j: serde_json::Value = serde_json::from_str(
            r#"{"result": false, "name": "later", "changes": {},
                "comment": "An exception occurred in this state: 'Changes' should be a dictionary."}"#,
        )
        .unwrap_or_default();
        // pprint.pformat of the same dict, Python 3.11.
        assert_eq!(
            super::pformat(&Value::from_json(&j)),
            "{'changes': {},\n 'comment': \"An exception occurred in this state: 'Changes' should be a \"\n            'dictionary.',\n 'name': 'later',\n 'result': False}"
        );
        assert_eq!(super::pformat(&Value::Str("short".into())), "'short'");
    }

    #[test]
    fn full_output_like_salt() {
        check("mix", "full", false, HighstateOptions::default());
        check("lis", "full", false, HighstateOptions::default());
        check("pre", "full", false, HighstateOptions::default());
        check("tmt", "full", false, HighstateOptions::default());
        check("err", "full", false, HighstateOptions::default());
        check("mix", "color", true, HighstateOptions::default());
    }

    #[test]
    fn state_output_modes_like_salt() {
        check(
            "mix",
            "terse",
            false,
            with(|h| h.state_output = "terse".into()),
        );
        check(
            "mix",
            "mixed_id",
            false,
            with(|h| h.state_output = "mixed_id".into()),
        );
        check(
            "mix",
            "changes",
            false,
            with(|h| h.state_output = "changes".into()),
        );
        check("mix", "quiet", false, with(|h| h.state_verbose = false));
        check(
            "mix",
            "tabular",
            false,
            with(|h| {
                h.state_tabular = true;
                h.state_output = "terse".into();
            }),
        );
        check(
            "mix",
            "pct",
            false,
            with(|h| {
                h.state_output_pct = true;
                h.state_output_profile = false;
            }),
        );
        check(
            "mix",
            "filter",
            false,
            with(|h| {
                h.state_output = "filter".into();
                h.exclude = vec!["True".into()];
                h.terse = vec!["None".into()];
            }),
        );
    }
}
