//! Salt's `sys` module: what the registry holds, answered from its table.

use super::params::Params;
use super::{all, CallError, Ctx, Function};
use crate::state::modules::docs::DOCS;
use brine_compile::matcher::glob::fnmatch;
use brine_compile::minion_data::functions::Returned;
use brine_core::{Map, Value};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "doc",
        "The docstrings of the functions named, as a dict: a module name gives all its \
functions, a glob (pillar.*) those matching; nothing named gives every function.\n\n    \
brine-call sys.doc pillar.get\n    brine-call sys.doc test",
        doc,
    ),
    Function::reads(
        "list_functions",
        "The functions (module.function) of the modules named, sorted; a glob (pillar.g*) \
selects functions by name; nothing named lists every function.\n\n    \
brine-call sys.list_functions\n    brine-call sys.list_functions sys",
        list_functions,
    ),
    Function::reads(
        "list_modules",
        "The names of the execution modules, sorted; globs (st*) select among them.\n\n    \
brine-call sys.list_modules",
        list_modules,
    ),
    Function::reads(
        "list_state_functions",
        "The state functions (module.function) brine has, sorted: a module name gives \
its functions, a glob or dotted name (file.m*) selects by function name; nothing named \
lists all.\n\n    brine-call sys.list_state_functions file",
        list_state_functions,
    ),
    Function::reads(
        "list_state_modules",
        "The names of the state modules brine has, sorted; globs (f*) select among \
them.\n\n    brine-call sys.list_state_modules",
        list_state_modules,
    ),
    Function::reads(
        "state_doc",
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
    let mut out: Vec<_> = DOCS
        .iter()
        .flat_map(|m| {
            m.functions
                .iter()
                .map(move |(f, doc)| (format!("{}.{f}", m.name), *doc, m.doc))
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
    let mut docs = Map::new();
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

fn list_modules<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let pats = patterns(&mut p);
    p.finish()?;
    // A pattern with `*` is matched against function names (`s*` finds
    // `state.apply`, so `state`); anything else must be a module's name.
    let mut names: Vec<String> = all()
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

fn list_functions<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
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
    let names = all()
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| pats.is_empty() || pats.iter().any(|pat| selects(pat, n)));
    Ok(Returned::New(strings(names)))
}

fn doc<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
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
    let docs: Map = all()
        .into_iter()
        .filter(|(n, _)| pats.is_empty() || pats.iter().any(|pat| selects(pat, n)))
        .map(|(n, f)| (n, Value::Str(f.doc.to_string())))
        .collect();
    Ok(Returned::New(Value::Map(docs)))
}

/// Is `name` (module.function) a function of `module`?
fn in_module(name: &str, module: &str) -> bool {
    name.strip_prefix(module)
        .is_some_and(|rest| rest.starts_with('.'))
}
