//! Salt's `state` runners: the orchestrate runner (`state.orchestrate`,
//! its names `state.orch` and `state.sls`, `orchestrate_single`,
//! `orchestrate_high`, `orchestrate_show_sls`), run by
//! [`crate::orchestrate`]; and `state.event`, the master's events as they come, read
//! from the event socket in `sock_dir` (only the master's user may open
//! it), printed one per line as `tag<TAB>data-as-JSON` (`pretty=True`:
//! keys sorted, indented by 4), until `count` matched (never, by default).

use super::runner::{Answer, Runner, RunnerError};
use crate::daemon::events::client::Listener;
use crate::daemon::MasterConfig;
use crate::orchestrate::run;
use crate::orchestrate::{OrchestrateError, Orchestration};
use brine_compile::matcher::glob::expr_match;
use brine_core::args::CallArgs;
use brine_core::sig;
use brine_core::Value;
use brine_runtime::modules::Params;
use std::io::Write;

/// The orchestrate runner's parameters (Salt's `state.orchestrate`).
const ORCHESTRATE_SIG: brine_core::signature::Signature = sig!(
    mods,
    saltenv = "base",
    test = null,
    exclude = null,
    pillar = null,
    pillarenv = null,
    pillar_enc = null,
    orchestration_jid = null
);

const ORCHESTRATE_DOC: &str = "Run the orchestration SLS MODS on the master: its \
salt.state, salt.function, salt.runner and salt.wheel steps in requisite order, as the \
master's own minion (<host>_master) runs them. TEST=True says what would run; PILLAR \
(a dict) is the orchestration's pillar override; SALTENV and PILLARENV choose the trees. \
Exits 1 when a step failed.\n\n    brine-run state.orchestrate deploy\n    \
brine-run state.orchestrate deploy test=True pillar='{version: 2}'";

const SHOW_SLS_SIG: brine_core::signature::Signature = sig!(
    mods,
    saltenv = "base",
    test = null,
    queue = false,
    pillar = null,
    pillarenv = null,
    pillar_enc = null
);

pub(super) const FUNCTIONS: &[Runner] = &[
    Runner {
        name: "orch",
        sig: ORCHESTRATE_SIG,
        doc: ORCHESTRATE_DOC,
        run: |config, p| Box::pin(orchestrate(config, p)),
    },
    Runner {
        name: "orch_show_sls",
        sig: SHOW_SLS_SIG,
        doc: "state.orchestrate_show_sls.",
        run: |config, p| Box::pin(show_sls(config, p)),
    },
    Runner {
        name: "orchestrate",
        sig: ORCHESTRATE_SIG,
        doc: ORCHESTRATE_DOC,
        run: |config, p| Box::pin(orchestrate(config, p)),
    },
    Runner {
        name: "orchestrate_high",
        sig: sig!(data, test = null, queue = false, pillar = null, **kwargs),
        doc: "Run orchestration high data DATA ({id: {salt.state: [{tgt: ...}, {sls: \
...}]}}) on the master, as state.orchestrate runs an SLS.",
        run: |config, p| Box::pin(high(config, p)),
    },
    Runner {
        name: "orchestrate_show_sls",
        sig: SHOW_SLS_SIG,
        doc: "The orchestration SLS MODS as the master's own minion renders it (its \
high data), without running it.",
        run: |config, p| Box::pin(show_sls(config, p)),
    },
    Runner {
        name: "orchestrate_single",
        sig: sig!(
            fun,
            name,
            test = null,
            queue = false,
            pillar = null,
            **kwargs
        ),
        doc: "Run one orchestration step, FUN (salt.function, salt.wheel...) on NAME \
with the other keyword arguments, on the master.\n\n    brine-run \
state.orchestrate_single fun=salt.wheel name=key.list_all",
        run: |config, p| Box::pin(single(config, p)),
    },
    Runner {
        name: "sls",
        sig: ORCHESTRATE_SIG,
        doc: ORCHESTRATE_DOC,
        run: |config, p| Box::pin(orchestrate(config, p)),
    },
    Runner {
        name: "event",
        sig: sig!(
            tagmatch = "*",
            count = -1,
            quiet = false,
            sock_dir = null,
            pretty = false,
            node = "master"
        ),
        doc: "Print the master's events as they come, TAGMATCH (a glob, else a regular \
expression) selecting them: `tag<TAB>data` as JSON (PRETTY: sorted and indented), until \
COUNT matched; QUIET prints nothing.",
        run: |config, p| Box::pin(event(config, p)),
    },
];

/// A keyword argument given (not None).
fn given(p: &mut Params, key: &str) -> Option<Value> {
    p.take(key).filter(|v| !v.is_null())
}

/// The orchestration's job id: the runner job's, as brine-run hands it
/// on, else a new one.
fn orchestration_jid(p: &mut Params) -> String {
    given(p, "orchestration_jid")
        .map(|v| v.to_python_str())
        .unwrap_or_else(|| brine_host::time::jid(brine_host::time::now_micros(), false))
}

/// Run `orch` on a blocking thread (the state engine is synchronous).
async fn on_master(
    config: &MasterConfig,
    orch: Orchestration,
) -> Result<(String, Value), RunnerError> {
    let config = config.clone();
    tokio::task::spawn_blocking(move || orch.run(&config))
        .await
        .map_err(|e| RunnerError::Failed(format!("the orchestration stopped: {e}")))?
        .map_err(orchestrate_error)
}

fn orchestrate_error(e: OrchestrateError) -> RunnerError {
    match e {
        OrchestrateError::PillarNotDict => RunnerError::InvalidArguments(e.to_string()),
        OrchestrateError::Function(f) => RunnerError::from(f),
    }
}

fn kwargs(pairs: Vec<(&str, Option<Value>)>) -> brine_core::Map {
    pairs
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k.to_string(), v)))
        .collect()
}

async fn orchestrate(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let mods = p.require("mods")?;
    let saltenv = given(&mut p, "saltenv");
    let test = p.take("test").unwrap_or(Value::Null);
    let exclude = p.take("exclude").unwrap_or(Value::Null);
    let pillar = given(&mut p, "pillar");
    let pillarenv = given(&mut p, "pillarenv");
    let pillar_enc = given(&mut p, "pillar_enc");
    let jid = orchestration_jid(&mut p);
    p.finish()?;
    Orchestration::check_pillar(pillar.as_ref()).map_err(orchestrate_error)?;
    let call = CallArgs {
        args: vec![mods, test, exclude],
        kwargs: kwargs(vec![
            ("pillar", pillar),
            ("saltenv", saltenv),
            ("pillarenv", pillarenv),
            ("pillar_enc", pillar_enc),
            ("__pub_jid", Some(Value::Str(jid.clone()))),
            ("orchestration_jid", Some(Value::Str(jid.clone()))),
        ]),
    };
    let orch = Orchestration {
        jid,
        user: "root".into(),
        fun: "state.sls",
        call,
    };
    let (id, running) = on_master(config, orch).await?;
    Ok(Answer::Data {
        data: run::answer(id, running),
        outputter: Some("highstate".into()),
        progress: None,
        ordered_from: None,
    })
}

async fn show_sls(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let mods = p.require("mods")?;
    let saltenv = given(&mut p, "saltenv");
    let test = p.take("test").unwrap_or(Value::Null);
    let queue = p.take("queue").unwrap_or(Value::Bool(false));
    let pillar = given(&mut p, "pillar");
    let pillarenv = given(&mut p, "pillarenv");
    let pillar_enc = given(&mut p, "pillar_enc");
    p.finish()?;
    Orchestration::check_pillar(pillar.as_ref()).map_err(orchestrate_error)?;
    let call = CallArgs {
        args: vec![mods, test, queue],
        kwargs: kwargs(vec![
            ("pillar", pillar),
            ("pillarenv", pillarenv),
            ("pillar_enc", pillar_enc),
            ("saltenv", saltenv),
        ]),
    };
    let orch = Orchestration {
        jid: brine_host::time::jid(brine_host::time::now_micros(), false),
        user: "root".into(),
        fun: "state.show_sls",
        call,
    };
    let (id, ret) = on_master(config, orch).await?;
    let mut m = brine_core::Map::default();
    m.insert(id, ret);
    // High data: in the order the SLS gave it (the answer is printed
    // whole, so its first level is depth -1).
    Ok(Answer::Data {
        data: Value::Map(m),
        outputter: None,
        progress: None,
        ordered_from: Some(0),
    })
}

async fn single(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let fun = p.require("fun")?;
    let name = p.require("name")?;
    one_off(config, p, "state.single", vec![fun, name]).await
}

/// orchestrate_single and orchestrate_high: the master minion's `fun`
/// with `args`, the call's pillar and other keywords; Salt hands the
/// function test=None and queue=False whatever is given.
async fn one_off(
    config: &MasterConfig,
    mut p: Params,
    fun: &'static str,
    args: Vec<Value>,
) -> Result<Answer, RunnerError> {
    let _test = p.take("test");
    let _queue = p.take("queue");
    let pillar = given(&mut p, "pillar");
    let mut rest = p.kwargs_with_pub(fun);
    rest.retain(|k, _| !k.starts_with("__"));
    Orchestration::check_pillar(pillar.as_ref()).map_err(orchestrate_error)?;
    if let Some(pillar) = pillar {
        rest.insert("pillar".into(), pillar);
    }
    rest.insert("queue".into(), Value::Bool(false));
    let orch = Orchestration {
        jid: brine_host::time::jid(brine_host::time::now_micros(), false),
        user: "root".into(),
        fun,
        call: CallArgs { args, kwargs: rest },
    };
    let (id, running) = on_master(config, orch).await?;
    Ok(progressed(id, running))
}

/// What orchestrate_single and orchestrate_high answer: the master
/// minion's states by its id, after the `progress` event Salt's runners
/// fire with them (`{data, outputter: highstate}`), which salt-run prints
/// first.
fn progressed(id: String, running: Value) -> Answer {
    let mut m = brine_core::Map::default();
    m.insert(id, running);
    let data = Value::Map(m);
    let mut event = brine_core::Map::default();
    event.insert("data".into(), data.clone());
    event.insert("outputter".into(), Value::from("highstate"));
    event.insert(
        "_stamp".into(),
        Value::Str(crate::daemon::events::bus::stamp()),
    );
    let mut shown = brine_core::Map::default();
    shown.insert("suffix".into(), Value::from("progress"));
    shown.insert("event".into(), Value::Map(event));
    Answer::Data {
        data,
        outputter: None,
        progress: Some((Value::Map(shown), "highstate".into())),
        ordered_from: None,
    }
}

async fn high(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let data = p.require("data")?;
    // Salt's orchestrate_high reads DATA's items (and raises on anything
    // else).
    if !matches!(data, Value::Map(_)) {
        return Err(RunnerError::Failed(format!(
            "AttributeError: '{}' object has no attribute 'items'",
            data.type_name()
        )));
    }
    one_off(config, p, "state.high", vec![data]).await
}

async fn event(config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let tagmatch = p
        .take("tagmatch")
        .map_or_else(|| "*".to_string(), |v| v.to_python_str());
    let count = p.take("count").and_then(|v| match v {
        Value::Int(i) => Some(i),
        other => other.to_python_str().parse().ok(),
    });
    let mut left = count.unwrap_or(-1);
    let quiet = p.take("quiet").is_some_and(|v| v.is_truthy());
    let sock_dir = p
        .take("sock_dir")
        .filter(|v| !v.is_null())
        .map_or_else(|| config.sock_dir.clone(), |v| v.to_python_str().into());
    let pretty = p.take("pretty").is_some_and(|v| v.is_truthy());
    p.take("node");
    p.finish()?;
    let max = config.events.max_event_size;
    let listened = tokio::task::spawn_blocking(move || -> Result<(), RunnerError> {
        let mut listener = Listener::open(&sock_dir, max)
            .map_err(|e| RunnerError::Failed(format!("state.event: {e}")))?;
        let stdout = std::io::stdout();
        while left != 0 {
            let Some(ev) = listener
                .next(None)
                .map_err(|e| RunnerError::Failed(format!("state.event: {e}")))?
            else {
                return Err(RunnerError::Failed(
                    "state.event: the master closed the event socket".into(),
                ));
            };
            if !expr_match(&ev.tag, &tagmatch) {
                continue;
            }
            if !quiet {
                let data = brine_core::output::json::dumps(&ev.data, pretty.then_some(4), pretty);
                let mut out = stdout.lock();
                // A closed stdout (a pipe's reader gone) ends the listening.
                if writeln!(out, "{}\t{data}", ev.tag)
                    .and_then(|()| out.flush())
                    .is_err()
                {
                    return Ok(());
                }
            }
            if left > 0 {
                left -= 1;
            }
        }
        Ok(())
    })
    .await
    .map_err(|e| RunnerError::Failed(format!("state.event: {e}")))?;
    listened?;
    Ok(Answer::data(Value::Null))
}

#[cfg(test)]
mod tests {
    use brine_compile::matcher::glob::expr_match;

    #[test]
    fn tags_match_as_salts_expr_match() {
        assert!(expr_match("salt/job/1/new", "*"));
        assert!(expr_match("salt/job/1/new", "salt/job/*/new"));
        assert!(expr_match("my/tag/two", "my/[a-z]+/two"));
        assert!(!expr_match("my/tag/two/x", "my/[a-z]+/two"));
        assert!(!expr_match("other", "my/*"));
        // A pattern that is no regular expression still globs.
        assert!(expr_match("a(b", "a(b"));
    }
}
