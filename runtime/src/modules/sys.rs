//! Salt's `sys` module: what the registry holds, answered from its table.

use super::function::{sig, CallError, Ctx, Function, Signature};
use super::params::{into_string, Params};
use brine_compile::matcher::glob::fnmatch;
use brine_compile::minion_data::Returned;
use brine_core::{Map, Value};
use brine_states::modules::MODULES as STATE_MODULES;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "argspec",
        sig!(module = ""),
        "The argument specification of the functions named, as Salt's loader reports \
them: for each function its `args` (names, in order), `defaults` (the values of the \
last ones), `varargs` and `kwargs` (true when it takes *args / **kwargs; else None). \
Give one module (sys, not matching sysctl), one function (pkg.install) or a glob \
(pkg.*); nothing named gives nothing.\n\n    brine-call sys.argspec pkg.install\n    \
brine-call sys.argspec sys\n    brine-call sys.argspec 'pkg.*'",
        argspec,
    ),
    Function::reads(
        "doc",
        sig!(*args),
        "The docstrings of the functions named, as a dict: a module name gives all its \
functions, a glob (pillar.*) those matching; nothing named gives every function.\n\n    \
brine-call sys.doc pillar.get\n    brine-call sys.doc test",
        doc,
    ),
    Function::reads(
        "list_functions",
        sig!(*args, **kwargs),
        "The functions (module.function) of the modules named, sorted; a glob (pillar.g*) \
selects functions by name; nothing named lists every function.\n\n    \
brine-call sys.list_functions\n    brine-call sys.list_functions sys",
        list_functions,
    ),
    Function::reads(
        "list_modules",
        sig!(*args),
        "The names of the execution modules, sorted; globs (st*) select among them.\n\n    \
brine-call sys.list_modules",
        list_modules,
    ),
    Function::reads(
        "list_state_functions",
        sig!(*args, **kwargs),
        "The state functions (module.function) brine has, sorted: a module name gives \
its functions, a glob or dotted name (file.m*) selects by function name; nothing named \
lists all.\n\n    brine-call sys.list_state_functions file",
        list_state_functions,
    ),
    Function::reads(
        "list_state_modules",
        sig!(*args),
        "The names of the state modules brine has, sorted; globs (f*) select among \
them.\n\n    brine-call sys.list_state_modules",
        list_state_modules,
    ),
    Function::reads(
        "state_doc",
        sig!(*args),
        "The docstrings of the state modules and functions named, as a dict: a module \
name gives the module's and all its functions', a function its own and its module's, a \
glob (file.*) those matching; nothing named gives all.\n\n    \
brine-call sys.state_doc file.managed\n    brine-call sys.state_doc service",
        state_doc,
    ),
];

/// Every state function (module.function) with its doc and its module's
/// doc, sorted.
fn state_functions() -> Vec<(String, &'static str, &'static str)> {
    let mut out: Vec<_> = STATE_MODULES
        .iter()
        .flat_map(|m| {
            m.functions
                .iter()
                .map(move |f| (format!("{}.{}", m.name, f.name), f.doc, m.doc))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn list_state_modules<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let pats = patterns(&mut p);
    p.finish()?;
    let mut names: Vec<String> = state_functions()
        .into_iter()
        .filter(|(n, _, _)| {
            let module = n.split('.').next().unwrap_or_default();
            pats.is_empty()
                || pats.iter().any(|pat| {
                    if pat.contains('*') {
                        fnmatch(n, pat)
                    } else {
                        module == pat
                    }
                })
        })
        .map(|(n, _, _)| n.split('.').next().unwrap_or_default().to_string())
        .collect();
    names.dedup();
    Ok(Returned::New(strings(names)))
}

fn list_state_functions<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let pats = patterns(&mut p);
    // Salt takes (and ignores) stray keyword arguments here.
    p.open_kwargs = true;
    p.finish()?;
    let names = state_functions()
        .into_iter()
        .map(|(n, _, _)| n)
        .filter(|n| {
            pats.is_empty()
                || pats.iter().any(|pat| {
                    if pat.contains('*') || pat.contains('.') {
                        fnmatch(n, pat)
                    } else {
                        in_module(n, pat)
                    }
                })
        });
    Ok(Returned::New(strings(names)))
}

fn state_doc<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let pats = patterns(&mut p);
    p.finish()?;
    let mut docs = Map::default();
    for (name, doc, module_doc) in state_functions() {
        let module = name.split('.').next().unwrap_or_default().to_string();
        let hit = pats.is_empty()
            || pats.iter().any(|pat| {
                if pat.contains('*') {
                    fnmatch(&name, pat)
                } else {
                    pat.is_empty()
                        || name == *pat
                        || in_module(&name, pat.strip_suffix('.').unwrap_or(pat))
                }
            });
        if hit {
            if !docs.contains_key(&module) {
                docs.insert(module, Value::from(module_doc));
            }
            docs.insert(name, Value::from(doc));
        }
    }
    Ok(Returned::New(Value::Map(docs)))
}

fn strings(names: impl IntoIterator<Item = String>) -> Value {
    Value::List(names.into_iter().map(Value::Str).collect())
}

/// The patterns asked for, as strings.
fn patterns(p: &mut Params) -> Vec<String> {
    p.rest().iter().map(Value::to_python_str).collect()
}

fn list_modules<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let pats = patterns(&mut p);
    p.finish()?;
    // A pattern with `*` is matched against function names (`s*` finds
    // `state.apply`, so `state`); anything else must be a module's name.
    let mut names: Vec<String> = cx
        .all()
        .into_iter()
        .filter(|(n, _)| {
            let module = n.split('.').next().unwrap_or_default();
            pats.is_empty()
                || pats.iter().any(|pat| {
                    if pat.contains('*') {
                        fnmatch(n, pat)
                    } else {
                        module == pat
                    }
                })
        })
        .map(|(n, _)| n.split('.').next().unwrap_or_default().to_string())
        .collect();
    names.dedup();
    Ok(Returned::New(strings(names)))
}

fn list_functions<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let pats = patterns(&mut p);
    // Salt takes (and ignores) stray keyword arguments here.
    p.open_kwargs = true;
    p.finish()?;
    // A pattern with `*` or `.` is matched against function names (so
    // `test.` matches none); anything else names a module (`sys` is not
    // `sysctl`).
    let selects = |pat: &str, name: &str| {
        if pat.contains('*') || pat.contains('.') {
            fnmatch(name, pat)
        } else {
            in_module(name, pat)
        }
    };
    let names = cx
        .all()
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| pats.is_empty() || pats.iter().any(|pat| selects(pat, n)));
    Ok(Returned::New(strings(names)))
}

fn doc<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let pats = patterns(&mut p);
    p.finish()?;
    // A pattern with `*` is matched against function names; else a
    // function's full name, or a module (`sys` or `sys.`; '' is all).
    let selects = |pat: &str, name: &str| {
        if pat.contains('*') {
            fnmatch(name, pat)
        } else {
            name == pat || pat.is_empty() || in_module(name, pat.strip_suffix('.').unwrap_or(pat))
        }
    };
    let docs: Map = cx
        .all()
        .into_iter()
        .filter(|(n, _)| pats.is_empty() || pats.iter().any(|pat| selects(pat, n)))
        .map(|(n, f)| (n, Value::Str(f.doc.to_string())))
        .collect();
    Ok(Returned::New(Value::Map(docs)))
}

fn argspec<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let module = p.take("module").map(into_string).unwrap_or_default();
    p.finish()?;
    // Salt's rule: a `*` or `.` makes a glob over full names; else the
    // module's functions (so nothing named matches nothing).
    let selects = |name: &str| {
        if module.contains('*') || module.contains('.') {
            fnmatch(name, &module)
        } else {
            in_module(name, &module)
        }
    };
    let specs: Map = cx
        .all()
        .into_iter()
        .filter(|(n, _)| selects(n))
        .filter(|(n, _)| !BRINE_ONLY.contains(&n.as_str()))
        .map(|(n, f)| (n, spec_value(&f.sig)))
        .collect();
    Ok(Returned::New(Value::Map(specs)))
}

/// brine's own functions: Salt has no such function, so `sys.argspec`
/// does not list them.
const BRINE_ONLY: &[&str] = &["hiera.lookup"];

/// One function's entry as `sys.argspec` shows it: empty lists and false
/// flags are None.
fn spec_value(s: &Signature) -> Value {
    let or_none = |v: Value, some: bool| if some { v } else { Value::Null };
    let defaults = s.default_values();
    let has_defaults = !defaults.is_empty();
    let defaults = Value::List(defaults);
    let mut m = Map::default();
    m.insert(
        "args".into(),
        or_none(
            strings(s.args.iter().map(|a| a.to_string())),
            !s.args.is_empty(),
        ),
    );
    m.insert("defaults".into(), or_none(defaults, has_defaults));
    m.insert("varargs".into(), or_none(Value::Bool(true), s.varargs));
    m.insert("kwargs".into(), or_none(Value::Bool(true), s.kwargs));
    Value::Map(m)
}

/// Is `name` (module.function) a function of `module`?
fn in_module(name: &str, module: &str) -> bool {
    name.strip_prefix(module)
        .is_some_and(|rest| rest.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::modules::{all, MODULES};

    /// Every function's signature is the one Salt 3007.8's loader reports
    /// (`testdata/argspec.json`, recorded by
    /// `tests/conformance/gen_argspec.py`), and Salt has no function brine
    /// lacks a descriptor for among those recorded.
    #[test]
    fn every_function_has_salts_signature() {
        let recorded: Map = match brine_core::yaml::load(include_str!("testdata/argspec.json")) {
            Ok(Value::Map(m)) => m,
            other => panic!("argspec.json: {other:?}"),
        };
        let names: Vec<String> = all().into_iter().map(|(n, _)| n).collect();
        for (n, f) in all() {
            if BRINE_ONLY.contains(&n.as_str()) {
                continue;
            }
            let salt = recorded.get(&n).unwrap_or_else(|| {
                panic!("{n} has no recorded signature: run tests/conformance/gen_argspec.py")
            });
            assert_eq!(spec_value(&f.sig), spec_of(salt), "{n}");
        }
        for n in recorded.keys() {
            assert!(names.contains(n), "{n} is not registered");
        }
        assert!(MODULES.iter().all(|m| !m.functions.is_empty()));
    }

    /// A recorded entry as `sys.argspec` shows it.
    fn spec_of(salt: &Value) -> Value {
        let get = |k: &str| salt.as_map().and_then(|m| m.get(k)).cloned();
        let mut m = Map::default();
        let args = get("args").unwrap_or(Value::Null);
        let empty = |v: &Value| matches!(v, Value::List(l) if l.is_empty());
        m.insert("args".into(), if empty(&args) { Value::Null } else { args });
        let defaults = get("defaults").unwrap_or(Value::Null);
        m.insert(
            "defaults".into(),
            if empty(&defaults) {
                Value::Null
            } else {
                defaults
            },
        );
        for k in ["varargs", "kwargs"] {
            let on = get(k).is_some_and(|v| v.is_truthy());
            m.insert(k.into(), if on { Value::Bool(true) } else { Value::Null });
        }
        Value::Map(m)
    }
}
