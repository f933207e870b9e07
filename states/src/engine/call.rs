//! One state function call: Salt's `State.verify_data` and `State.call`
//! (argument binding checks, `unless`/`onlyif`/`creates`, `check_cmd`,
//! `retry`, test mode for prereqs, `__run_num__` and timing).

use super::checks;
use super::chunk::RuntimeError;
use super::clock::Started;
use crate::modules;
use crate::{StateCall, StateContext, StateFunction, StateReturn};
use brine_compile::matcher::glob::fnmatch;
use brine_compile::state::vocabulary::is_internal_keyword;
use brine_core::{Map, Value};

/// What [`call`] produced.
pub struct Called {
    pub ret: Map,
    /// Salt clears `__prereq__` on the chunk after a test-mode prereq call
    /// (but not when the chunk failed verification).
    pub reset_prereq: bool,
}

/// Which of the keys every call asks a chunk about it holds, from one pass
/// over its keys (a dozen): asking the map for each of them, most absent,
/// was a hashed lookup apiece, a tenth of a fleet swarm's run.
#[derive(Default)]
struct Holds {
    state: bool,
    fun: bool,
    name: bool,
    umask: bool,
    watch: bool,
    require: bool,
    unless: bool,
    onlyif: bool,
    creates: bool,
    parallel: bool,
    dunder_umask: bool,
    check_cmd: bool,
    retry: bool,
}

impl Holds {
    fn of(low: &Map) -> Holds {
        let mut h = Holds::default();
        for key in low.keys() {
            let flag = match key.as_str() {
                "state" => &mut h.state,
                "fun" => &mut h.fun,
                "name" => &mut h.name,
                "umask" => &mut h.umask,
                "watch" => &mut h.watch,
                "require" => &mut h.require,
                "unless" => &mut h.unless,
                "onlyif" => &mut h.onlyif,
                "creates" => &mut h.creates,
                "parallel" => &mut h.parallel,
                "__umask__" => &mut h.dunder_umask,
                "check_cmd" => &mut h.check_cmd,
                "retry" => &mut h.retry,
                _ => continue,
            };
            *flag = true;
        }
        h
    }
}

/// Salt's `State.verify_data`: what is wrong with a low chunk before it
/// can be called (empty when nothing). May rewrite the chunk as Salt does:
/// `umask` becomes `__umask__`, `watch` becomes `require` for modules
/// without `mod_watch`.
pub fn verify_data(low: &mut Map) -> Vec<String> {
    let holds = Holds::of(low);
    let mut errors = Vec::new();
    for (key, held) in [
        ("state", holds.state),
        ("fun", holds.fun),
        ("name", holds.name),
    ] {
        if !held {
            errors.push(format!("Missing \"{key}\" data"));
        }
    }
    if let Some(name) = low.get("name") {
        if name.is_truthy() && !matches!(name, Value::Str(_)) {
            let sls = match low.get("__sls__") {
                Some(s) => format!("in SLS '{}' ", s.to_python_str()),
                None => String::new(),
            };
            errors.push(format!(
                "ID '{}' {sls}is not formed as a string, but is a {}",
                name.to_python_str(),
                name.type_name()
            ));
        }
    }
    if let Some(umask) = holds.umask.then(|| low.shift_remove("umask")).flatten() {
        match parse_octal(&umask.to_python_str()) {
            Some(m) => {
                low.insert("__umask__".into(), Value::Int(m));
            }
            None => errors.push(format!("Invalid umask: {}", umask.to_python_str())),
        }
    }
    if !errors.is_empty() {
        return errors;
    }
    let mod_watch = {
        let (state, fun) = (text(low.get("state")), text(low.get("fun")));
        match find(&state, &fun) {
            None => {
                let full = format!("{state}.{fun}");
                match low.get("__sls__") {
                    Some(sls) => {
                        errors.push(format!(
                            "State '{full}' was not found in SLS '{}'",
                            sls.to_python_str()
                        ));
                        errors.push(format!("Reason: '{full}' is not available."));
                    }
                    None => errors.push(format!("Specified state '{full}' was not found")),
                }
            }
            Some(f) => {
                for p in f.sig.required() {
                    if !low.contains_key(*p) {
                        errors.push(format!("Missing parameter {p} for state {state}.{fun}"));
                    }
                }
            }
        }
        holds.watch && has_mod_watch(&state)
    };
    // A state requiring itself would loop; Salt reports it here.
    let mut reqdec = "";
    if holds.require {
        reqdec = "require";
    }
    if holds.watch {
        if !mod_watch {
            match (low.shift_remove("watch"), low.get_mut("require")) {
                (Some(Value::List(w)), Some(Value::List(r))) => r.extend(w),
                (Some(w), None) => {
                    low.insert("require".into(), w);
                }
                (Some(w), Some(_)) => {
                    low.insert("watch".into(), w);
                }
                (None, _) => {}
            }
            reqdec = "require";
        } else {
            reqdec = "watch";
        }
    }
    if !reqdec.is_empty() {
        let state = text(low.get("state"));
        let name = low.get("name").and_then(Value::as_str).unwrap_or("");
        let id = low.get("__id__").and_then(Value::as_str).unwrap_or("");
        for req in low.get(reqdec).and_then(Value::as_list).unwrap_or(&[]) {
            let Value::Map(m) = req else { continue };
            let Some((first, Value::Str(target))) = m.iter().next() else {
                continue;
            };
            if *first == *state && (fnmatch(name, target) || fnmatch(id, target)) {
                errors.push(format!(
                    "Recursive require detected in SLS {} for require {} in ID {}",
                    low.get("__sls__")
                        .map(Value::to_python_str)
                        .unwrap_or("None".into()),
                    req.to_python_repr(),
                    low.get("__id__")
                        .map(Value::to_python_str)
                        .unwrap_or("None".into()),
                ));
            }
        }
    }
    errors
}

/// A chunk's string field as Salt's `str()` of it, borrowed when it is
/// a string (always, for a chunk the compiler wrote).
pub(super) fn text(v: Option<&Value>) -> std::borrow::Cow<'_, str> {
    match v {
        Some(Value::Str(s)) => std::borrow::Cow::Borrowed(s),
        Some(other) => std::borrow::Cow::Owned(other.to_python_str()),
        None => std::borrow::Cow::Borrowed(""),
    }
}

/// Whether the state module `state` has `mod_watch` (for it a `watch`
/// fires `mod_watch`; for every other module it is a `require`).
pub fn has_mod_watch(state: &str) -> bool {
    modules::lookup(state).is_some_and(|m| m.has_mod_watch())
}

/// The function `fun` of the state module `state`.
pub(super) fn find(state: &str, fun: &str) -> Option<&'static StateFunction> {
    modules::lookup(state)?.function(fun)
}

/// Python's `int(s, 8)`: optional sign, optional `0o`, digits 0-7 with
/// single underscores between them.
pub(super) fn parse_octal(s: &str) -> Option<i64> {
    let t = s.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let t = t
        .strip_prefix("0o")
        .or_else(|| t.strip_prefix("0O"))
        .map(|r| r.strip_prefix('_').unwrap_or(r))
        .unwrap_or(t);
    if t.is_empty() || t.starts_with('_') || t.ends_with('_') || t.contains("__") {
        return None;
    }
    let mut v: i64 = 0;
    for c in t.chars().filter(|&c| c != '_') {
        let d = c.to_digit(8)?;
        v = v.checked_mul(8)?.checked_add(d as i64)?;
    }
    Some(if neg { -v } else { v })
}

/// Salt's `format_call` check: a function without `**kwargs` refuses any
/// key it does not declare (internal keys aside).
pub(super) fn check_arguments(
    low: &Map,
    f: &StateFunction,
    state: &str,
    fun: &str,
) -> Result<(), RuntimeError> {
    let sig = &f.sig;
    if sig.kwargs {
        return Ok(());
    }
    let extra: Vec<&str> = low
        .keys()
        .map(String::as_str)
        .filter(|k| !sig.declares(k) && !is_internal_keyword(k))
        .collect();
    match extra.as_slice() {
        [] => Ok(()),
        [one] => Err(RuntimeError::InvalidArguments(format!(
            "'{one}' is an invalid keyword argument for '{state}.{fun}'"
        ))),
        [init @ .., last] => Err(RuntimeError::InvalidArguments(format!(
            "{} and '{last}' are invalid keyword arguments for '{state}.{fun}'",
            init.iter()
                .map(|k| format!("'{k}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// A state function's return as the running dictionary holds it.
pub fn ret_to_map(r: StateReturn) -> Map {
    // Room for the bookkeeping keys the runtime adds (__sls__,
    // __run_num__, start_time, duration, __id__) without regrowing.
    let mut m = Map::with_capacity_and_hasher(9 + r.extra.len(), Default::default());
    m.insert("name".into(), Value::Str(r.name));
    m.insert("changes".into(), Value::Map(r.changes));
    m.insert("result".into(), r.result.map_or(Value::Null, Value::Bool));
    m.insert("comment".into(), Value::Str(r.comment));
    for (k, v) in r.extra {
        m.insert(k, v);
    }
    m
}

/// Salt's `State.call` for one low chunk. `prereq`: Salt's `__prereq__`
/// (a test-mode call whose return goes to `pre`, without bookkeeping).
/// `retries`: which attempt this is (1 for the first).
pub fn call(
    ctx: &StateContext,
    run_num: &mut i64,
    low: &mut Map,
    prereq: bool,
    retries: i64,
) -> Result<Called, RuntimeError> {
    let started = Started::now();
    // Grains a state before this one wrote are seen from here on.
    let current = ctx.current();
    let ctx: &StateContext = &current;
    let errors = verify_data(low);
    let name = || low.get("name").cloned().unwrap_or(Value::Null);
    if !errors.is_empty() {
        let mut ret = Map::default();
        ret.insert("result".into(), Value::Bool(false));
        ret.insert("name".into(), name());
        ret.insert("changes".into(), Value::new_map());
        let comment: String = errors.iter().map(|e| format!("{e}\n")).collect();
        ret.insert("comment".into(), Value::Str(comment));
        ret.insert("__run_num__".into(), Value::Int(*run_num));
        *run_num += 1;
        return Ok(Called {
            ret,
            reset_prereq: false,
        });
    }
    let f = {
        let (state, fun) = (text(low.get("state")), text(low.get("fun")));
        let Some(f) = find(&state, &fun) else {
            // verify_data found it; a lookup cannot fail twice differently.
            return Err(RuntimeError::InvalidArguments(format!(
                "Specified state '{state}.{fun}' was not found"
            )));
        };
        check_arguments(low, f, &state, &fun)?;
        f
    };
    let test = ctx.test || prereq;
    // verify_data's rewrites are done; the call changes nothing until
    // `retry`, read last.
    let holds = Holds::of(low);

    // The `unless` / `onlyif` / `creates` checks answer first: a result
    // other than False is the return and the function is not called.
    // Without them (most states) only the function's return is built.
    let skipped = (holds.unless || holds.onlyif || holds.creates)
        .then(|| {
            let mut ret = Map::default();
            ret.insert("result".into(), Value::Bool(false));
            ret.insert("name".into(), name());
            ret.insert("changes".into(), Value::new_map());
            for (k, v) in checks::run_check(ctx, low) {
                ret.insert(k, v);
            }
            ret
        })
        .filter(|ret| ret.get("result").is_some_and(|r| *r != Value::Bool(false)));
    let mut parallel = false;
    let mut ret = match skipped {
        Some(ret) => ret,
        None => {
            // `parallel: True` runs here, in order: the return is what
            // Salt's separate process would have sent back.
            parallel =
                !prereq && holds.parallel && low.get("parallel").is_some_and(Value::is_truthy);
            let umask = holds
                .dunder_umask
                .then(|| low.get("__umask__").and_then(Value::as_i64))
                .flatten();
            let call = StateCall { low, test, ctx };
            ret_to_map(with_umask(umask, || (f.run)(&call)))
        }
    };
    if holds.check_cmd && !f.sig.declares("check_cmd") {
        for (k, v) in checks::run_check_cmd(ctx, low) {
            ret.insert(k, v);
        }
    }
    if prereq {
        return Ok(Called {
            ret: content_check(ret),
            reset_prereq: true,
        });
    }
    ret.insert(
        "__sls__".into(),
        low.get("__sls__").cloned().unwrap_or(Value::Null),
    );
    ret.insert("__run_num__".into(), Value::Int(*run_num));
    *run_num += 1;
    ret.insert("start_time".into(), Value::Str(started.start_time()));
    ret.insert("duration".into(), Value::Float(started.duration_ms()));
    ret.insert(
        "__id__".into(),
        low.get("__id__").cloned().unwrap_or(Value::Null),
    );
    if parallel {
        ret.insert("__parallel__".into(), Value::Bool(true));
    }
    if holds.retry && !holds.parallel {
        ret = retry(ctx, run_num, low, ret, retries)?;
    }
    Ok(Called {
        ret: content_check(ret),
        reset_prereq: false,
    })
}

/// Salt's `OutputUnifier("content_check")` around `State.call`: a return
/// whose `changes` is not a mapping is replaced, bookkeeping and all, by an
/// exception report. (A state module puts a non-mapping `changes` in
/// `StateReturn::extra` to get there.)
pub(super) fn content_check(ret: Map) -> Map {
    if matches!(ret.get("changes"), Some(Value::Map(_))) {
        return ret;
    }
    let mut bad = Map::default();
    bad.insert("result".into(), Value::Bool(false));
    bad.insert("name".into(), Value::Str("later".into()));
    bad.insert("changes".into(), Value::new_map());
    bad.insert(
        "comment".into(),
        Value::Str("An exception occurred in this state: 'Changes' should be a dictionary.".into()),
    );
    bad
}

/// Run `f` with the process umask set to `mask` (Salt's `set_umask`).
pub(super) fn with_umask<T>(mask: Option<i64>, f: impl FnOnce() -> T) -> T {
    use nix::sys::stat::{umask, Mode};
    let Some(mask) = mask.and_then(|m| nix::libc::mode_t::try_from(m).ok()) else {
        return f();
    };
    let old = umask(Mode::from_bits_truncate(mask));
    let out = f();
    umask(old);
    out
}

/// Salt's `verify_retry_data`: the `retry` option with defaults filled in.
pub(super) struct Retry {
    until: bool,
    attempts: i64,
    interval: i64,
    splay: i64,
}

pub(super) fn verify_retry_data(v: &Value) -> Retry {
    let defaults = Retry {
        until: true,
        attempts: 2,
        interval: 30,
        splay: 0,
    };
    match v {
        Value::Map(m) => {
            // Python's isinstance(x, int) accepts booleans too.
            let int = |k: &str, d: i64| match m.get(k) {
                Some(Value::Int(i)) => *i,
                Some(Value::Bool(b)) => *b as i64,
                _ => d,
            };
            Retry {
                until: match m.get("until") {
                    Some(Value::Bool(b)) => *b,
                    _ => true,
                },
                attempts: int("attempts", 2),
                interval: int("interval", 30),
                splay: int("splay", 0),
            }
        }
        Value::Bool(false) => Retry {
            attempts: 0,
            ..defaults
        },
        _ => defaults,
    }
}

pub(super) fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// The `retry` option: call again (after `interval` seconds, plus up to
/// `splay`) while the result is not `until`, up to `attempts` calls; in
/// test mode only say so in the comment.
pub(super) fn retry(
    ctx: &StateContext,
    run_num: &mut i64,
    low: &mut Map,
    ret: Map,
    retries: i64,
) -> Result<Map, RuntimeError> {
    let spec = low.get("retry").map(verify_retry_data).unwrap_or(Retry {
        until: true,
        attempts: 2,
        interval: 30,
        splay: 0,
    });
    let comment_of = |r: &Map| match r.get("comment") {
        Some(c) if c.is_truthy() => c.to_python_str(),
        _ => String::new(),
    };
    if ctx.test {
        let mut ret = ret;
        let comment = format!(
            "{}  The state would be retried every {} seconds (with a splay of up to {} seconds) \
             a maximum of {} times or until a result of {} is returned",
            comment_of(&ret),
            spec.interval,
            spec.splay,
            spec.attempts,
            py_bool(spec.until)
        );
        ret.insert("comment".into(), Value::Str(comment));
        return Ok(ret);
    }
    let result = ret.get("result").cloned().unwrap_or(Value::Null);
    if result == Value::Bool(spec.until) || spec.attempts <= retries {
        return Ok(ret);
    }
    let mut interval = spec.interval;
    if spec.splay != 0 {
        interval += crate::random::below(spec.splay + 1);
    }
    std::thread::sleep(std::time::Duration::from_secs(interval.max(0) as u64));
    let orig = ret;
    let mut ret = call(ctx, run_num, low, false, retries + 1)?.ret;
    let comment =
        format!(
        "Attempt {retries}: Returned a result of \"{}\", with the following comment: \"{}\"\n{}",
        result.to_python_str(),
        orig.get("comment").map(Value::to_python_str).unwrap_or_default(),
        comment_of(&ret)
    );
    ret.insert("comment".into(), Value::Str(comment));
    let dur = |r: &Map| match r.get("duration") {
        Some(Value::Float(f)) => *f,
        Some(Value::Int(i)) => *i as f64,
        _ => 0.0,
    };
    let total = dur(&ret) + dur(&orig) + (interval * 1000) as f64;
    ret.insert("duration".into(), Value::Float(total));
    if retries == 1 {
        if let Some(st) = orig.get("start_time") {
            ret.insert("start_time".into(), st.clone());
        }
    }
    Ok(ret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn octal_like_python() {
        assert_eq!(parse_octal("022"), Some(18));
        assert_eq!(parse_octal("0o22"), Some(18));
        assert_eq!(parse_octal(" 7_7 "), Some(63));
        assert_eq!(parse_octal("0999"), None);
        assert_eq!(parse_octal("True"), None);
        assert_eq!(parse_octal(""), None);
    }

    #[test]
    fn holds_reads_each_key_from_the_one_pass() {
        let keys = [
            "state",
            "fun",
            "name",
            "umask",
            "watch",
            "require",
            "unless",
            "onlyif",
            "creates",
            "parallel",
            "__umask__",
            "check_cmd",
            "retry",
        ];
        let flags = |h: &Holds| {
            [
                h.state,
                h.fun,
                h.name,
                h.umask,
                h.watch,
                h.require,
                h.unless,
                h.onlyif,
                h.creates,
                h.parallel,
                h.dunder_umask,
                h.check_cmd,
                h.retry,
            ]
        };
        // Each key alone sets its own flag and no other; keys the calls
        // do not ask about (and near misses) set none.
        for (i, key) in keys.iter().enumerate() {
            let mut low = Map::default();
            low.insert((*key).into(), Value::Null);
            low.insert("__id__".into(), Value::Null);
            low.insert("watch_in".into(), Value::Null);
            let want: Vec<bool> = (0..keys.len()).map(|j| j == i).collect();
            assert_eq!(flags(&Holds::of(&low)).to_vec(), want, "{key}");
        }
        let all: Map = keys.iter().map(|k| ((*k).into(), Value::Null)).collect();
        assert!(flags(&Holds::of(&all)).iter().all(|f| *f));
    }

    #[test]
    pub(super) fn retry_defaults() {
        let r = verify_retry_data(&Value::Bool(true));
        assert_eq!((r.until, r.attempts, r.interval, r.splay), (true, 2, 30, 0));
        let r = verify_retry_data(&Value::Bool(false));
        assert_eq!(r.attempts, 0);
        let mut m = Map::default();
        m.insert("attempts".into(), Value::Int(5));
        m.insert("interval".into(), Value::Str("x".into()));
        m.insert("until".into(), Value::Bool(false));
        let r = verify_retry_data(&Value::Map(m));
        assert_eq!((r.until, r.attempts, r.interval), (false, 5, 30));
    }
}
