//! Salt's `pkg` module, the part templates call: installed versions, read
//! through the same package providers (dpkg, rpm) the `pkg` states use.

use super::params::Params;
use super::{CallError, Ctx, Function};
use crate::state::modules::pkg::provider_from;
use brine_compile::matcher::glob::fnmatch;
use brine_compile::minion_data::functions::Returned;
use brine_core::{Map, Value};

pub(super) const FUNCTIONS: &[Function] = &[Function::reads(
    "version",
    "The installed version of each NAME ('' when it is not installed): one \
string for one name, else a mapping by name; a NAME with '*' matches \
installed packages. VERSIONS_AS_LIST=True lists every installed version.\n\n    \
brine-call pkg.version openssl\n    brine-call pkg.version 'python3*'",
    version,
)];

fn version<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let names: Vec<String> = p.rest().iter().map(Value::to_python_str).collect();
    let as_list = p.take("versions_as_list").is_some_and(|v| v.is_truthy());
    p.finish()?;
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let mut glob = false;
    if !names.is_empty() {
        let provider =
            provider_from(cx.grains, cx.opts).map_err(|e| CallError::Failed(e.to_string()))?;
        let installed = provider
            .list_pkgs()
            .map_err(|e| CallError::Failed(e.to_string()))?
            .current();
        for name in &names {
            if name.contains('*') {
                glob = true;
                found.extend(
                    installed
                        .iter()
                        .filter(|(pkg, _)| fnmatch(pkg, name))
                        .map(|(pkg, v)| (pkg.clone(), v.clone())),
                );
            } else {
                found.push((
                    name.clone(),
                    installed.get(name).cloned().unwrap_or_default(),
                ));
            }
        }
    }
    let shown = |versions: Vec<String>| {
        if as_list {
            Value::List(versions.into_iter().map(Value::Str).collect())
        } else {
            Value::Str(versions.join(","))
        }
    };
    if found.len() == 1 && !glob {
        let (_, versions) = found.remove(0);
        return Ok(Returned::New(shown(versions)));
    }
    let mut out = Map::new();
    for (name, versions) in found {
        out.insert(name, shown(versions));
    }
    Ok(Returned::New(Value::Map(out)))
}
