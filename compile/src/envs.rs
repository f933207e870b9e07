//! The environments a call runs in (`saltenv`, `pillarenv`), resolved once
//! where the call arrives — `brine-call`, a job from the master, a
//! template — with Salt's precedence, and passed down typed. Nothing below
//! derives them again from the options.

use crate::opts;
use brine_core::{Map, Value};

/// A call's environments; `None`: not set (Salt's `None`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Envs {
    pub saltenv: Option<String>,
    pub pillarenv: Option<String>,
}

/// An option or keyword as text (`None` for a missing or null one).
fn text(v: Option<&Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.to_python_str()),
    }
}

impl Envs {
    /// The configured ones (`saltenv`, `pillarenv` in the options): a
    /// minion's start-up pillar.
    pub fn configured(opts: &Map) -> Envs {
        Envs {
            saltenv: text(opts.get("saltenv")),
            pillarenv: text(opts.get("pillarenv")),
        }
    }

    /// A state run's (Salt's `get_sls_opts`): `saltenv=` over the
    /// configured saltenv; `pillarenv=` when given (even empty), else with
    /// `pillarenv_from_saltenv` the run's saltenv, else the configured
    /// pillarenv.
    pub fn of_state_run(opts: &Map, kwargs: &Map) -> Envs {
        let saltenv = if kwargs.contains_key("saltenv") {
            text(kwargs.get("saltenv"))
        } else {
            text(opts.get("saltenv"))
        };
        let pillarenv = if kwargs.contains_key("pillarenv") {
            text(kwargs.get("pillarenv"))
        } else if opts::get_bool(opts, "pillarenv_from_saltenv", false) {
            saltenv.clone()
        } else {
            text(opts.get("pillarenv"))
        };
        Envs {
            saltenv,
            pillarenv: pillarenv.filter(|p| !p.is_empty()),
        }
    }

    /// A pillar function's (Salt's `pillar.items`, `pillar.item`):
    /// `pillarenv=`, else with `pillarenv_from_saltenv` the call's or the
    /// configured saltenv, else the configured pillarenv; `saltenv=` as
    /// given.
    pub fn of_pillar_call(opts: &Map, pillarenv: Option<String>, saltenv: Option<String>) -> Envs {
        let pillarenv = pillarenv.or_else(|| {
            if opts::get_bool(opts, "pillarenv_from_saltenv", false) {
                saltenv.clone().or_else(|| text(opts.get("saltenv")))
            } else {
                text(opts.get("pillarenv"))
            }
        });
        Envs { saltenv, pillarenv }
    }

    /// Write these environments into options, as the templates of the call
    /// see them (`opts['saltenv']`, `opts['pillarenv']`; `None` for unset).
    pub fn write_into(&self, opts: &mut Map) {
        let text = |v: &Option<String>| v.clone().map(Value::Str).unwrap_or(Value::Null);
        opts.insert("saltenv".into(), text(&self.saltenv));
        opts.insert("pillarenv".into(), text(&self.pillarenv));
    }

    /// The saltenv a call is restricted to: the call's, else the
    /// configuration's (an empty one is none).
    pub fn saltenv_or_config(&self, config: &Map) -> Option<String> {
        self.saltenv
            .clone()
            .or_else(|| text(config.get("saltenv")))
            .filter(|s| !s.is_empty())
    }

    /// The pillarenv a compile uses: the call's, else the compiling
    /// configuration's (a master's own `pillarenv`, as Salt's master
    /// compiles with; masterless, the minion's).
    pub fn pillarenv_or_config(&self, config: &Map) -> Option<String> {
        self.pillarenv
            .clone()
            .or_else(|| text(config.get("pillarenv")))
    }
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

    #[test]
    fn state_runs_take_salts_precedence() {
        let o = map(json!({"saltenv": "qa", "pillarenv": "p"}));
        let e = Envs::of_state_run(&o, &map(json!({})));
        assert_eq!(
            (e.saltenv.as_deref(), e.pillarenv.as_deref()),
            (Some("qa"), Some("p"))
        );
        let e = Envs::of_state_run(&o, &map(json!({"saltenv": "dev"})));
        assert_eq!(
            (e.saltenv.as_deref(), e.pillarenv.as_deref()),
            (Some("dev"), Some("p"))
        );
        let e = Envs::of_state_run(&o, &map(json!({"pillarenv": null})));
        assert_eq!(e.pillarenv, None, "given, even empty");
        let e = Envs::of_state_run(&o, &map(json!({"pillarenv": ""})));
        assert_eq!(e.pillarenv, None, "an empty one is none (all environments)");
        let from = map(json!({"saltenv": "qa", "pillarenv_from_saltenv": true}));
        let e = Envs::of_state_run(&from, &map(json!({"saltenv": "dev"})));
        assert_eq!(e.pillarenv.as_deref(), Some("dev"));
        let e = Envs::of_state_run(&from, &map(json!({})));
        assert_eq!(e.pillarenv.as_deref(), Some("qa"));
    }

    #[test]
    fn pillar_calls_and_compiles() {
        let o = map(json!({"saltenv": "qa", "pillarenv": "p"}));
        assert_eq!(
            Envs::of_pillar_call(&o, None, None).pillarenv.as_deref(),
            Some("p")
        );
        let from = map(json!({"saltenv": "qa", "pillarenv_from_saltenv": true}));
        assert_eq!(
            Envs::of_pillar_call(&from, None, Some("dev".into()))
                .pillarenv
                .as_deref(),
            Some("dev")
        );
        assert_eq!(
            Envs::of_pillar_call(&from, None, None).pillarenv.as_deref(),
            Some("qa")
        );
        let none = Envs::default();
        assert_eq!(none.pillarenv_or_config(&o).as_deref(), Some("p"));
    }
}
