//! Salt's `mine` module: the answers of functions a minion runs, kept where
//! other minions' templates read them. A minion of a master keeps them in
//! the master's store (through [`crate::context::RemoteMaster::mine`]); a
//! masterless one in its datastore (`cachedir/datastore`, key
//! `mine_cache`), as Salt's `data` module keeps them.

use super::function::{sig, CallError, Ctx, Function};
use super::params::Params;
use crate::context::{CompileSource, Minion};
use brine_compile::matcher;
use brine_compile::minion_data::Returned;
use brine_compile::request::{mine_get_functions, MineOp, MINE_ACL_DATA, MINE_ACL_ID};
use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use std::path::{Path, PathBuf};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::minion(
        "delete",
        sig!(fun),
        "Drop FUN's entry from this minion's mine.\n\n    brine '*' mine.delete network.ip_addrs",
        delete,
    ),
    Function::minion(
        "flush",
        sig!(),
        "Drop every entry of this minion's mine.\n\n    brine '*' mine.flush",
        flush,
    ),
    Function::reads(
        "get",
        sig!(tgt, fun, tgt_type = "glob", exclude_minion = false),
        "The mine entries FUN (a name, a comma list or a list) of the minions TGT \
(TGT_TYPE, default glob) selects, by minion id (by function, then minion, for \
several). Entries sent with allow_tgt only reach the minions it names.\n\n    \
brine '*' mine.get '*' network.ip_addrs\n    brine '*' mine.get 'roles:web' test.ping grain",
        get,
    ),
    Function::minion(
        "send",
        sig!(name, *args, **kwargs),
        "Run NAME (or mine_function=) with the other arguments and keep its answer in \
the mine as NAME (allow_tgt/allow_tgt_type: only those minions may read it). False when \
the function fails.\n\n    brine '*' mine.send network.ip_addrs interface=eth0\n    \
brine '*' mine.send eth0_ips mine_function=network.ip_addrs interface=eth0",
        send,
    ),
    Function::minion(
        "update",
        sig!(clear = false, mine_functions = null),
        "Run the functions of mine_functions (the minion config merged with the \
pillar, or the MINE_FUNCTIONS given) and keep their answers in the mine; CLEAR \
replaces what was kept. A function that is missing or fails is left out (logged).\n\n    \
brine '*' mine.update",
        update,
    ),
    Function::reads(
        "valid",
        sig!(),
        "The mine_functions this minion would run, as {alias: {function: args}} or \
{function: args}; None when there are none.\n\n    brine '*' mine.valid",
        valid,
    ),
];

/// Salt's `config.merge('mine_functions')`: the minion config's entries
/// over the master's (`pillar['master']`) over the pillar's.
fn configured(opts: &Map, pillar: &Map) -> Option<Map> {
    let layers = [
        opts.get("mine_functions"),
        pillar
            .get("master")
            .and_then(Value::as_map)
            .and_then(|m| m.get("mine_functions")),
        pillar.get("mine_functions"),
    ];
    let mut out: Option<Map> = None;
    for layer in layers.into_iter().flatten() {
        let Value::Map(m) = layer else { continue };
        out = Some(match out {
            None => m.clone(),
            Some(higher) => {
                let mut lower = m.clone();
                lower.extend(higher);
                lower
            }
        });
    }
    out.filter(|m| !m.is_empty())
}

/// One `mine_functions` entry (Salt's `parse_function_definition`): the
/// function (when aliased), its arguments and the minion-side ACL.
struct Definition {
    function: Option<String>,
    args: Vec<Value>,
    kwargs: Map,
    allow_tgt: Option<Value>,
    allow_tgt_type: Option<Value>,
}

fn parse_definition(def: &Value) -> Definition {
    let mut args = Vec::new();
    let mut kwargs = Map::default();
    match def {
        Value::Map(m) => kwargs = m.clone(),
        Value::List(l) => {
            for item in l {
                match item {
                    Value::Map(m) => kwargs.extend(m.clone()),
                    other => args.push(other.clone()),
                }
            }
        }
        _ => {}
    }
    let function = kwargs
        .shift_remove("mine_function")
        .map(|v| v.to_python_str());
    let truthy = |v: Option<Value>| v.filter(Value::is_truthy);
    Definition {
        function,
        args,
        allow_tgt: truthy(kwargs.shift_remove("allow_tgt")),
        allow_tgt_type: truthy(kwargs.shift_remove("allow_tgt_type")),
        kwargs,
    }
}

/// An entry with its ACL (Salt's `wrap_acl_structure`).
fn wrap_acl(data: Value, allow_tgt: Option<Value>, allow_tgt_type: Option<Value>) -> Value {
    let mut m = Map::default();
    m.insert(MINE_ACL_DATA.into(), data);
    m.insert(MINE_ACL_ID.into(), Value::Int(1));
    if let Some(t) = allow_tgt {
        m.insert("allow_tgt".into(), t);
        if let Some(tt) = allow_tgt_type {
            m.insert("allow_tgt_type".into(), tt);
        }
    }
    Value::Map(m)
}

/// Run `fun` as the minion; `None` (logged, as Salt logs it) when it is
/// missing or fails.
fn call(m: &mut Minion, fun: &str, args: Vec<Value>, kwargs: Map) -> Option<Value> {
    let registry = m.registry?;
    if (registry.signature)(fun).is_none() {
        tracing::error!("Function {fun} in mine_functions not available");
        return None;
    }
    match (registry.call)(m, fun, CallArgs { args, kwargs }) {
        Ok(v) => Some(v),
        Err(e) => {
            tracing::error!("Function {fun} in mine.send failed to execute: {e}");
            None
        }
    }
}

fn update(m: &mut Minion, mut p: Params) -> Result<super::function::Return, CallError> {
    let clear = p.take("clear").is_some_and(|v| v.is_truthy());
    let given = p.take("mine_functions").filter(Value::is_truthy);
    p.finish()?;
    let functions = match given {
        None => match configured(&m.opts, &m.pillar) {
            Some(f) => f,
            None => return Ok(Value::Null.into()),
        },
        Some(Value::List(l)) => l
            .into_iter()
            .map(|f| (f.to_python_str(), Value::Map(Map::default())))
            .collect(),
        Some(Value::Map(f)) => f,
        Some(_) => return Ok(Value::Null.into()),
    };
    let mut data = Map::default();
    for (alias, def) in &functions {
        let d = parse_definition(def);
        let fun = d.function.clone().unwrap_or_else(|| alias.clone());
        let Some(res) = call(m, &fun, d.args, d.kwargs) else {
            continue;
        };
        let entry = match d.allow_tgt {
            Some(t) => wrap_acl(res, Some(t), d.allow_tgt_type),
            None => res,
        };
        data.insert(alias.clone(), entry);
    }
    store(m, data, clear).map(Into::into)
}

fn send(m: &mut Minion, mut p: Params) -> Result<super::function::Return, CallError> {
    let name = p.require_str("name")?;
    let args = p.rest();
    let mut kwargs = std::mem::take(&mut p.kwargs);
    p.open_kwargs = true;
    p.finish()?;
    let fun = kwargs
        .shift_remove("mine_function")
        .map_or_else(|| name.clone(), |v| v.to_python_str());
    let allow_tgt = kwargs.shift_remove("allow_tgt").filter(Value::is_truthy);
    let allow_tgt_type = kwargs.shift_remove("allow_tgt_type");
    let Some(res) = call(m, &fun, args, kwargs) else {
        return Ok(Value::Bool(false).into());
    };
    let entry = match allow_tgt {
        Some(t) => wrap_acl(res, Some(t), allow_tgt_type.filter(Value::is_truthy)),
        None => res,
    };
    let mut data = Map::default();
    data.insert(name, entry);
    store(m, data, false).map(Into::into)
}

fn delete(m: &mut Minion, mut p: Params) -> Result<super::function::Return, CallError> {
    let fun = p.require_str("fun")?;
    p.finish()?;
    match &m.source {
        CompileSource::Master(master) => {
            remote_done(master.mine(MineOp::Delete { fun })).map(Into::into)
        }
        CompileSource::Local => {
            let mut data = Datastore::of(&m.opts).mine()?;
            data.shift_remove(&fun);
            Datastore::of(&m.opts).set_mine(data).map(Into::into)
        }
    }
}

fn flush(m: &mut Minion, p: Params) -> Result<super::function::Return, CallError> {
    p.finish()?;
    match &m.source {
        CompileSource::Master(master) => remote_done(master.mine(MineOp::Flush)).map(Into::into),
        CompileSource::Local => Datastore::of(&m.opts)
            .set_mine(Map::default())
            .map(Into::into),
    }
}

/// Keep `data` in the mine (Salt's `_mine_store`): True when kept.
fn store(m: &Minion, data: Map, clear: bool) -> Result<Value, CallError> {
    match &m.source {
        CompileSource::Master(master) => remote_done(master.mine(MineOp::Store { data, clear })),
        CompileSource::Local => {
            let ds = Datastore::of(&m.opts);
            let mut kept = if clear { Map::default() } else { ds.mine()? };
            kept.extend(data);
            ds.set_mine(kept)
        }
    }
}

/// The master's answer to a store, delete or flush: True.
fn remote_done(r: Result<Value, crate::context::RemoteError>) -> Result<Value, CallError> {
    r.map(|_| Value::Bool(true))
        .map_err(|e| CallError::Failed(e.to_string()))
}

fn get<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let tgt = p.require("tgt")?;
    let fun = p.require("fun")?;
    let tgt_type = p
        .take("tgt_type")
        .map_or_else(|| "glob".to_string(), |v| v.to_python_str());
    let exclude = p.take("exclude_minion").is_some_and(|v| v.is_truthy());
    p.finish()?;
    if let Some(CompileSource::Master(master)) = cx.running().map(|m| &m.source) {
        let mut ret = master
            .mine(MineOp::Get { tgt, fun, tgt_type })
            .map_err(|e| CallError::Failed(e.to_string()))?;
        if exclude {
            if let Value::Map(m) = &mut ret {
                m.shift_remove(cx.id);
            }
        }
        return Ok(Returned::New(ret));
    }
    local_get(cx, &tgt, &fun, &tgt_type).map(Returned::New)
}

/// Salt's masterless `mine.get`: this minion's own entries, when `tgt`
/// selects it.
fn local_get(cx: &Ctx<'_>, tgt: &Value, fun: &Value, tgt_type: &str) -> Result<Value, CallError> {
    let empty = Ok(Value::Map(Map::default()));
    let minion = cx.minion_data();
    let selected = match matcher::matches(tgt_type, &tgt.to_python_str(), &minion) {
        Ok(b) => b,
        Err(e) => {
            tracing::debug!("mine.get: {e}");
            false
        }
    };
    if !selected {
        return empty;
    }
    let data = Datastore::of(cx.opts).mine()?;
    let Some((functions, by_function)) = mine_get_functions(fun) else {
        return empty;
    };
    let mut ret = Map::default();
    for f in functions {
        let Some(entry) = data.get(&f) else { continue };
        let res = match entry {
            Value::Map(m) if m.contains_key(MINE_ACL_ID) => {
                m.get(MINE_ACL_DATA).cloned().unwrap_or(Value::Null)
            }
            other => other.clone(),
        };
        if by_function {
            let mut inner = Map::default();
            inner.insert(cx.id.to_string(), res);
            match ret.get_mut(&f) {
                Some(Value::Map(m)) => m.extend(inner),
                _ => {
                    ret.insert(f, Value::Map(inner));
                }
            }
        } else {
            ret.insert(cx.id.to_string(), res);
        }
    }
    Ok(Value::Map(ret))
}

fn valid<'c>(cx: &Ctx<'c>, p: Params) -> Result<Returned<'c>, CallError> {
    p.finish()?;
    let Some(functions) = configured(cx.opts, cx.pillar) else {
        return Ok(Returned::New(Value::Null));
    };
    let known = |f: &str| cx.all().iter().any(|(name, _)| name == f);
    let mut out = Map::default();
    for (alias, def) in &functions {
        let d = parse_definition(def);
        let fun = d.function.clone().unwrap_or_else(|| alias.clone());
        if !known(&fun) {
            tracing::error!("Function {fun} in mine_functions not available");
            continue;
        }
        let entry = match d.function {
            Some(f) => {
                let mut args = d.args;
                args.extend(d.kwargs.into_iter().map(|(k, v)| {
                    let mut m = Map::default();
                    m.insert(k, v);
                    Value::Map(m)
                }));
                let mut m = Map::default();
                m.insert(f, Value::List(args));
                Value::Map(m)
            }
            None => def.clone(),
        };
        out.insert(alias.clone(), entry);
    }
    Ok(Returned::New(Value::Map(out)))
}

/// Salt's minion datastore (`data` module): one msgpack mapping in
/// `cachedir/datastore`.
struct Datastore(PathBuf);

impl Datastore {
    fn of(opts: &Map) -> Datastore {
        Datastore(brine_compile::opts::cachedir(opts).join("datastore"))
    }

    fn load(&self) -> Result<Map, CallError> {
        match std::fs::read(&self.0) {
            Ok(bytes) => match rmp_serde::from_slice::<Value>(&bytes) {
                Ok(Value::Map(m)) => Ok(m),
                Ok(_) => Ok(Map::default()),
                Err(e) => Err(CallError::Failed(format!(
                    "{}: not a datastore: {e}",
                    self.0.display()
                ))),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Map::default()),
            Err(e) => Err(CallError::Failed(format!("{}: {e}", self.0.display()))),
        }
    }

    fn mine(&self) -> Result<Map, CallError> {
        Ok(match self.load()?.shift_remove("mine_cache") {
            Some(Value::Map(m)) => m,
            _ => Map::default(),
        })
    }

    /// Keep `mine` as the datastore's `mine_cache`: True.
    fn set_mine(&self, mine: Map) -> Result<Value, CallError> {
        let mut all = self.load()?;
        all.insert("mine_cache".into(), Value::Map(mine));
        let bytes = rmp_serde::to_vec_named(&Value::Map(all))
            .map_err(|e| CallError::Failed(format!("{}: {e}", self.0.display())))?;
        write_atomic(&self.0, &bytes)
            .map_err(|e| CallError::Failed(format!("{}: {e}", self.0.display())))?;
        Ok(Value::Bool(true))
    }
}

/// The datastore written whole (Salt's `data` module rewrites its file).
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    brine_states::modules::file::fsutil::write_atomic(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(j: serde_json::Value) -> Map {
        match Value::from_json(&j) {
            Value::Map(m) => m,
            _ => Map::default(),
        }
    }

    /// The minion config's entries win over the pillar's; the pillar's
    /// come first (Salt's `tmp.update(ret)`).
    #[test]
    fn mine_functions_merge_config_over_pillar() {
        let opts = map(json!({"mine_functions": {"a": [1], "b": []}}));
        let pillar = map(json!({"mine_functions": {"c": [], "a": [2]}}));
        let m = configured(&opts, &pillar).unwrap();
        assert_eq!(Value::Map(m).to_json(), json!({"c": [], "a": [1], "b": []}));
        assert!(configured(&Map::default(), &Map::default()).is_none());
    }

    #[test]
    fn definitions_parse_as_salt_parses_them() {
        let d = parse_definition(&Value::from_json(&json!([
            {"mine_function": "grains.get"}, "roles", {"allow_tgt": "web*"}
        ])));
        assert_eq!(d.function.as_deref(), Some("grains.get"));
        assert_eq!(d.args, vec![Value::Str("roles".into())]);
        assert!(d.kwargs.is_empty());
        assert_eq!(d.allow_tgt, Some(Value::Str("web*".into())));
        let wrapped = wrap_acl(Value::Bool(true), d.allow_tgt, None);
        assert_eq!(
            wrapped.to_json(),
            json!({"__data__": true, "__saltmine_acl__": 1, "allow_tgt": "web*"})
        );
    }

    #[test]
    fn the_datastore_keeps_the_mine_in_msgpack() {
        let td = tempfile::tempdir().unwrap();
        let opts = map(json!({"cachedir": td.path().display().to_string()}));
        let ds = Datastore::of(&opts);
        assert!(ds.mine().unwrap().is_empty());
        ds.set_mine(map(json!({"test.ping": true}))).unwrap();
        assert_eq!(
            Value::Map(Datastore::of(&opts).mine().unwrap()).to_json(),
            json!({"test.ping": true})
        );
        std::fs::write(td.path().join("datastore"), b"\xc1").unwrap();
        let e = Datastore::of(&opts).mine().unwrap_err().to_string();
        assert!(e.contains("datastore"), "{e}");
    }
}
