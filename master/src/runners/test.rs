//! Salt's `test` runner: `test.arg` (and `raw_arg`) hand their arguments
//! back, `test.sleep` waits; reactions and orchestrations use them to see
//! what they were given.

use super::runner::{Answer, Runner, RunnerError};
use crate::daemon::MasterConfig;
use brine_core::sig;
use brine_core::{Map, Value};
use brine_runtime::modules::Params;
use std::time::Duration;

/// Longest `test.sleep`: a day.
const MAX_SLEEP_SECONDS: u64 = 86_400;

pub(super) const FUNCTIONS: &[Runner] = &[
    Runner {
        name: "arg",
        sig: sig!(*args, **kwargs),
        doc: "The positional and keyword arguments given, as {args, kwargs}.",
        run: |config, p| Box::pin(async move { arg(config, p) }),
    },
    Runner {
        name: "metasyntactic",
        sig: sig!(locality = "us"),
        doc: "Common placeholder names of LOCALITY (us or uk); None for another.",
        run: |config, p| Box::pin(async move { metasyntactic(config, p) }),
    },
    Runner {
        name: "raw_arg",
        sig: sig!(*args, **kwargs),
        doc: "The arguments given, unparsed, as {args, kwargs}.",
        run: |config, p| Box::pin(async move { arg(config, p) }),
    },
    Runner {
        name: "sleep",
        sig: sig!(s_time = 10),
        doc: "Print S_TIME, sleep S_TIME seconds, then answer True.",
        run: |config, p| Box::pin(async move { sleep(config, p).await }),
    },
    Runner {
        name: "stdout_print",
        sig: sig!(),
        doc: "Print 'foo', answer 'bar' (what a runner printing as it runs looks like).",
        run: |config, p| Box::pin(async move { stdout_print(config, p) }),
    },
];

/// Placeholder names, by locality (the lists of Salt's runner).
const METASYNTACTIC_US: &[&str] = &[
    "foo", "bar", "baz", "qux", "quux", "quuz", "corge", "grault", "garply", "waldo", "fred",
    "plugh", "xyzzy", "thud",
];
const METASYNTACTIC_UK: &[&str] = &["wibble", "wobble", "wubble", "flob"];

fn metasyntactic(_config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let locality = p
        .take("locality")
        .map_or_else(|| "us".to_string(), |v| v.to_python_str());
    p.finish()?;
    let names = match locality.as_str() {
        "us" => METASYNTACTIC_US,
        "uk" => METASYNTACTIC_UK,
        _ => return Ok(Answer::data(Value::Null)),
    };
    Ok(Answer::data(Value::List(
        names.iter().map(|n| Value::from(*n)).collect(),
    )))
}

fn stdout_print(_config: &MasterConfig, p: Params) -> Result<Answer, RunnerError> {
    p.finish()?;
    println!("foo");
    Ok(Answer::data(Value::from("bar")))
}

fn arg(_config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let args = p.rest();
    let kwargs: Map = p
        .kwargs_with_pub("test.arg")
        .into_iter()
        .filter(|(k, _)| !k.starts_with("__"))
        .collect();
    p.finish()?;
    let mut out = Map::default();
    out.insert("args".into(), Value::List(args));
    out.insert("kwargs".into(), Value::Map(kwargs));
    Ok(Answer::data(Value::Map(out)))
}

async fn sleep(_config: &MasterConfig, mut p: Params) -> Result<Answer, RunnerError> {
    let secs = match p.take("s_time") {
        Some(Value::Int(i)) => u64::try_from(i).ok(),
        Some(Value::Float(f)) if f >= 0.0 => Some(f as u64),
        Some(Value::Str(s)) => s.trim().parse().ok(),
        None => Some(10),
        _ => None,
    };
    p.finish()?;
    let Some(secs) = secs else {
        return Err(RunnerError::InvalidArguments(
            "s_time must be a number of seconds".into(),
        ));
    };
    // Salt's runner prints how long it sleeps.
    println!("{secs}");
    tokio::time::sleep(Duration::from_secs(secs.min(MAX_SLEEP_SECONDS))).await;
    Ok(Answer::data(Value::Bool(true)))
}
