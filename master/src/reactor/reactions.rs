//! One reactor SLS rendered into reactions: each ID holds one
//! `<client>.<function>` (`local.cmd.run`, `runner.test.arg`) with its
//! arguments as a list of one-key mappings, in Salt 3007's syntax: `tgt`,
//! `tgt_type`, and `args` (a mapping item is a keyword argument, anything
//! else a positional one), or the older `arg` (positional) and `kwarg`.

use crate::daemon::MasterConfig;
use brine_compile::minion_data::Functions;
use brine_compile::render::jinja::{self, TemplateContext};
use brine_compile::MinionData;
use brine_core::{Map, Value};
use std::path::Path;
use std::sync::Arc;

/// Which client carries a reaction out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// A job published to minions (Salt's LocalClient).
    Local,
    /// A runner, on the master.
    Runner,
    /// A wheel function (key management), on the master.
    Wheel,
    /// A function run on a masterless minion's own reactor: logged, a
    /// master has none.
    Caller,
}

/// One reaction to carry out.
#[derive(Debug, Clone, PartialEq)]
pub struct Reaction {
    /// Its ID in the SLS.
    pub id: String,
    /// The tag that started it.
    pub tag: String,
    pub client: Client,
    /// The function (`cmd.run`).
    pub fun: String,
    /// Local reactions: the target and its type.
    pub tgt: Value,
    pub tgt_type: String,
    pub arg: Vec<Value>,
    pub kwarg: Map,
}

/// Why a reactor SLS gave no reactions.
#[derive(Debug, thiserror::Error)]
pub enum ReactionError {
    #[error("cannot read the reactor SLS {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("rendering the reactor SLS {path} for {tag} failed: {message}")]
    Render {
        path: String,
        tag: String,
        message: String,
    },
    #[error("the reactor SLS {path} rendered for {tag}: {message}")]
    Shape {
        path: String,
        tag: String,
        message: String,
    },
}

/// Render `path` for the event `tag`/`data` (its `salt[...]` calling
/// `functions`); its reactions, in order.
pub fn render(
    config: &MasterConfig,
    functions: &Functions,
    path: &Path,
    tag: &str,
    data: &Value,
) -> Result<Vec<Reaction>, ReactionError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ReactionError::Read {
        path: shown.clone(),
        source,
    })?;
    let id = config
        .opts
        .get("id")
        .map(Value::to_python_str)
        .unwrap_or_default();
    let ctx = TemplateContext {
        minion: Arc::new(MinionData {
            id,
            grains: Value::new_map(),
            pillar: Value::new_map(),
            opts: Value::Map(config.opts.clone()),
            functions: functions.clone(),
        }),
        saltenv: "base".into(),
        tplpath: Some(shown.clone()),
        search_paths: path.parent().map(Path::to_path_buf).into_iter().collect(),
        extra: vec![
            ("tag".into(), Value::Str(tag.into())),
            ("data".into(), data.clone()),
        ],
        ..Default::default()
    };
    let render_err = |message: String| ReactionError::Render {
        path: shown.clone(),
        tag: tag.into(),
        message,
    };
    let rendered = jinja::render(&shown, &text, &ctx).map_err(|e| render_err(e.to_string()))?;
    let high = brine_core::yaml::load(&rendered).map_err(|e| render_err(e.to_string()))?;
    parse(&high, tag).map_err(|message| ReactionError::Shape {
        path: shown,
        tag: tag.into(),
        message,
    })
}

/// The reactions of rendered data.
pub fn parse(high: &Value, tag: &str) -> Result<Vec<Reaction>, String> {
    let high = match high {
        Value::Null => return Ok(Vec::new()),
        Value::Map(m) => m,
        other => return Err(format!("not a mapping: {}", other.to_python_str())),
    };
    let mut out = Vec::new();
    for (id, body) in high {
        let Value::Map(body) = body else {
            return Err(format!("{id}: not a mapping"));
        };
        for (full, params) in body {
            let (client, fun) = full
                .split_once('.')
                .ok_or_else(|| format!("{id}: {full} names no client"))?;
            let client = match client {
                "local" => Client::Local,
                "runner" => Client::Runner,
                "wheel" => Client::Wheel,
                "caller" => Client::Caller,
                other => return Err(format!("{id}: unknown client {other}")),
            };
            let mut given = Map::default();
            match params {
                Value::List(items) => {
                    for item in items {
                        if let Value::Map(m) = item {
                            given.extend(m.clone());
                        }
                    }
                }
                Value::Map(m) => given.extend(m.clone()),
                Value::Null => {}
                other => {
                    return Err(format!(
                        "{id}: arguments are not a list: {}",
                        other.to_python_str()
                    ))
                }
            }
            out.push(reaction(id, tag, client, fun, given));
        }
    }
    Ok(out)
}

fn reaction(id: &str, tag: &str, client: Client, fun: &str, mut given: Map) -> Reaction {
    let tgt = given.shift_remove("tgt").unwrap_or(Value::Null);
    let tgt_type = given
        .shift_remove("tgt_type")
        .or_else(|| given.shift_remove("expr_form"))
        .map_or_else(|| "glob".to_string(), |v| v.to_python_str());
    let mut arg = Vec::new();
    let mut kwarg = Map::default();
    match given.shift_remove("args") {
        // A caller's `args` that is not a list of mappings is the older
        // syntax: every item positional (Salt's reactor says so).
        Some(Value::List(items))
            if client == Client::Caller && !items.iter().all(|i| matches!(i, Value::Map(_))) =>
        {
            arg.extend(items)
        }
        Some(Value::List(items)) => {
            for item in items {
                match item {
                    Value::Map(m) => kwarg.extend(m),
                    other => arg.push(other),
                }
            }
        }
        Some(Value::Map(m)) => kwarg.extend(m),
        Some(other) => arg.push(other),
        None => {}
    }
    if let Some(v) = given.shift_remove("arg") {
        match v {
            Value::List(l) => arg.extend(l),
            other => arg.push(other),
        }
    }
    if let Some(Value::Map(m)) = given.shift_remove("kwarg") {
        kwarg.extend(m);
    }
    // What is left (`timeout`, `ret`...) travels as keyword arguments of
    // runners and is ignored by jobs.
    if client == Client::Runner {
        kwarg.extend(given);
    }
    Reaction {
        id: id.to_string(),
        tag: tag.to_string(),
        client,
        fun: fun.to_string(),
        tgt,
        tgt_type,
        arg,
        kwarg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn salt_3007_syntax_and_the_older_one() {
        let high = Value::from_json(&json!({
            "cmd": {"local.cmd.run": [
                {"tgt": "web1"},
                {"args": [{"cmd": "echo hi"}, {"python_shell": true}]}
            ]},
            "old": {"local.test.arg": [
                {"tgt": "G@roles:web"}, {"tgt_type": "compound"},
                {"arg": [1, 2]}, {"kwarg": {"a": "b"}}
            ]},
            "run": {"runner.test.arg": [{"args": [{"a": 5}, {"tag": "my/t"}]}]},
            "wheel": {"wheel.key.list_all": []}
        }));
        let r = parse(&high, "my/t").unwrap();
        assert_eq!(r.len(), 4);
        assert_eq!(r[0].client, Client::Local);
        assert_eq!(r[0].fun, "cmd.run");
        assert_eq!(r[0].tgt, Value::Str("web1".into()));
        assert!(r[0].arg.is_empty());
        assert_eq!(
            Value::Map(r[0].kwarg.clone()).to_json(),
            json!({"cmd": "echo hi", "python_shell": true})
        );
        assert_eq!(r[1].tgt_type, "compound");
        assert_eq!(r[1].arg, vec![Value::Int(1), Value::Int(2)]);
        assert_eq!(r[2].client, Client::Runner);
        assert_eq!(
            Value::Map(r[2].kwarg.clone()).to_json(),
            json!({"a": 5, "tag": "my/t"})
        );
        assert_eq!(r[3].client, Client::Wheel);
        assert!(parse(&Value::from_json(&json!({"x": {"nodot": []}})), "t").is_err());
    }
}
