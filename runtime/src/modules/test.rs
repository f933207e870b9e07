//! Salt's `test` module: is the minion there, does it hear what it is told,
//! and the small tools operators use to try the plumbing (arguments as the
//! minion received them, retcodes, exceptions, slow calls).

use super::function::{params_of, sig, CallError, Ctx, Daemon, Function, Return};
use super::params::Params;
use brine_compile::minion_data::Returned;
use brine_core::{Map, Value};
use brine_states::modules::file::fsutil::hash_hex;
use std::time::{Duration, Instant};

/// The Salt release whose behaviour brine follows.
const SALT_COMPAT: &str = "3007.8";

const VERSIONS_REPORT: &str = "brine's versions as a text report: brine itself, the Salt \
release it answers like, the components brine is built from (brine is one Rust program: \
there is no Python and no Python library to report) and the system.\n\n    \
brine '*' test.versions_report";

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "arg",
        sig!(*args, **kwargs),
        "Hand back the positional and keyword arguments as the minion received them, \
as {args, kwargs}; kwargs include the publish metadata (__pub_*).\n\n    \
brine '*' test.arg 1 two key=value",
        arg,
    ),
    Function::reads(
        "arg_type",
        sig!(*args, **kwargs),
        "The Python type names of the arguments received, as {args, kwargs}: \
\"<class 'int'>\", \"<class 'str'>\" ...\n\n    brine '*' test.arg_type 1 one",
        arg_type,
    ),
    Function::reads(
        "arg_clean",
        sig!(*args, **kwargs),
        "test.arg without the publish metadata: {args, kwargs} as given.\n\n    \
brine '*' test.arg_clean 1 two key=value",
        |_, mut p| {
            let args = p.rest();
            let kwargs = std::mem::take(&mut p.kwargs);
            p.open_kwargs = true;
            p.finish()?;
            let mut m = Map::default();
            m.insert("args".into(), Value::List(args));
            m.insert("kwargs".into(), Value::Map(kwargs));
            Ok(Returned::New(Value::Map(m)))
        },
    ),
    Function::reads(
        "arg_repr",
        sig!(*args, **kwargs),
        "The arguments received as Python would print them: {args: repr of the tuple, \
kwargs: repr of the dict, publish metadata included}.\n\n    \
brine '*' test.arg_repr 1 two key=value",
        arg_repr,
    ),
    Function::reads(
        "assertion",
        sig!(assertion),
        "Answer None when ASSERTION is true; fail (an AssertionError) when it is \
false.\n\n    brine '*' test.assertion False",
        |_, mut p| {
            let a = p.require("assertion")?;
            p.finish()?;
            if a.is_truthy() {
                Ok(Returned::New(Value::Null))
            } else {
                Err(CallError::Failed("AssertionError".into()))
            }
        },
    ),
    Function::reads(
        "collatz",
        sig!(start),
        "The Collatz sequence from START down to (not including) 1, and the seconds it \
took, as [steps, seconds]; halved values are floats, as Python's division gives them.\n\n    \
brine '*' test.collatz 3",
        collatz,
    ),
    Function::reads(
        "conf_test",
        sig!(),
        "The option test.foo as config.option finds it ('unconfigured' by default): to \
see that configuration reaches the minion.\n\n    brine '*' test.conf_test",
        |cx, p| {
            p.finish()?;
            let ask = brine_core::args::CallArgs {
                args: vec![Value::from("test.foo")],
                kwargs: Map::default(),
            };
            super::config::option(cx, params_of(super::config::FUNCTIONS, "option", ask))
        },
    ),
    Function::reads(
        "echo",
        sig!(text),
        "Send a string back unchanged.\n\n    brine-call test.echo 'hello world'",
        echo,
    ),
    Function::acts(
        "exception",
        sig!(message = "Test Exception"),
        "Fail on purpose with MESSAGE (default 'Test Exception'), as a function raising \
an exception fails: no return, a non-zero exit.\n\n    brine '*' test.exception 'oops'",
        exception,
    ),
    Function::reads(
        "false",
        sig!(),
        "Answer False, always.\n\n    brine-call test.false",
        |_, p| answer(p, false),
    ),
    Function::reads(
        "fib",
        sig!(num),
        "The NUM-th Fibonacci number and the seconds it took to compute, as [number, \
seconds].\n\n    brine '*' test.fib 30",
        fib,
    ),
    Function::reads(
        "get_opts",
        sig!(),
        "The minion's configuration (opts), as config.items.\n\n    \
brine '*' test.get_opts",
        |cx, p| {
            p.finish()?;
            Ok(Returned::New(Value::Map(cx.opts.clone())))
        },
    ),
    Function::reads(
        "kwarg",
        sig!(**kwargs),
        "Hand back the keyword arguments received (publish metadata __pub_* \
included).\n\n    brine '*' test.kwarg a=1 b=2",
        kwarg,
    ),
    Function::reads(
        "outputter",
        sig!(data),
        "Hand back DATA unchanged, to see how an outputter prints it.\n\n    \
brine '*' test.outputter foobar --out yaml",
        |_, mut p| {
            let data = p.require("data")?;
            p.finish()?;
            Ok(Returned::New(data))
        },
    ),
    Function::reads(
        "ping",
        sig!(),
        "Answer True: the minion is up and runs functions.\n\n    brine '*' test.ping",
        |_, p| answer(p, true),
    ),
    Function::reads(
        "random_hash",
        sig!(size = 9999999999, hash_type = null),
        "The hash (HASH_TYPE, default the minion's hash_type, sha256) of a random number \
between 0 and SIZE (default 9999999999), as hex.\n\n    brine '*' test.random_hash\n    \
brine '*' test.random_hash hash_type=md5",
        random_hash,
    ),
    Function::acts(
        "retcode",
        sig!(code = 42),
        "Answer True and exit with CODE (default 42): to try how retcodes travel.\n\n    \
brine '*' test.retcode 3",
        retcode,
    ),
    Function::acts(
        "sleep",
        sig!(length),
        "Sleep LENGTH seconds, then answer True.\n\n    brine '*' test.sleep 20",
        sleep,
    )
    .in_daemon(Daemon::Sleep),
    Function::reads(
        "stack",
        sig!(),
        "The call stack of the thread running this function, as text (brine's own \
frames: there is no Python stack).\n\n    brine '*' test.stack",
        |_, p| {
            p.finish()?;
            Ok(Returned::New(Value::Str(
                std::backtrace::Backtrace::force_capture().to_string(),
            )))
        },
    ),
    Function::reads(
        "true",
        sig!(),
        "Answer True, always.\n\n    brine-call test.true",
        |_, p| answer(p, true),
    ),
    Function::reads(
        "tty",
        sig!(*args, **kwargs),
        "An old name: writing to a terminal is cmd.tty's; answers that it moved.\n\n    \
brine '*' test.tty tty0 'hello'",
        |_, mut p| {
            p.rest();
            p.open_kwargs = true;
            p.finish()?;
            Ok(Returned::New(Value::from(
                "ERROR: This function has been moved to cmd.tty",
            )))
        },
    ),
    Function::reads(
        "version",
        sig!(),
        "brine's version (brine answers like Salt 3007.8; test.versions_report says \
both).\n\n    brine '*' test.version",
        |_, p| {
            p.finish()?;
            Ok(Returned::New(Value::from(env!("CARGO_PKG_VERSION"))))
        },
    ),
    Function::reads("versions", sig!(), VERSIONS_REPORT, versions_report),
    Function::reads(
        "versions_information",
        sig!(),
        "brine's versions as a dict of sections (brine, Salt compatibility, components, \
system); see test.versions_report.\n\n    brine '*' test.versions_information",
        |cx, p| {
            p.finish()?;
            Ok(Returned::New(Value::Map(versions_information(cx))))
        },
    ),
    Function::reads("versions_report", sig!(), VERSIONS_REPORT, versions_report),
];

fn answer(p: Params, b: bool) -> Result<Returned<'static>, CallError> {
    p.finish()?;
    Ok(Returned::New(Value::Bool(b)))
}

fn echo<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let text = p.require("text")?;
    p.finish()?;
    Ok(Returned::New(text))
}

fn arg<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let args = p.rest();
    let kwargs = p.kwargs_with_pub("test.arg");
    p.finish()?;
    let mut m = Map::default();
    m.insert("args".into(), Value::List(args));
    m.insert("kwargs".into(), Value::Map(kwargs));
    Ok(Returned::New(Value::Map(m)))
}

fn kwarg<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let kwargs = p.kwargs_with_pub("test.kwarg");
    p.finish()?;
    Ok(Returned::New(Value::Map(kwargs)))
}

fn arg_repr<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let args = p.rest();
    let kwargs = p.kwargs_with_pub("test.arg_repr");
    p.finish()?;
    // A tuple's repr: `()`, `(1,)`, `(1, 2)`.
    let items: Vec<String> = args.iter().map(Value::to_python_repr).collect();
    let tuple = match items.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    };
    let mut m = Map::default();
    m.insert("args".into(), Value::Str(tuple));
    m.insert(
        "kwargs".into(),
        Value::Str(Value::Map(kwargs).to_python_repr()),
    );
    Ok(Returned::New(Value::Map(m)))
}

fn collatz<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let start = py_int(&p.require("start")?)?;
    p.finish()?;
    if start < 1 {
        // Python loops forever here; refuse instead.
        return Err(CallError::Failed(format!(
            "the Collatz sequence needs a start of 1 or more, not {start}"
        )));
    }
    let begin = Instant::now();
    let mut steps = Vec::new();
    // Python's `/` turns the number into a float at the first halving.
    let mut n = Value::Int(start);
    const MAX_STEPS: usize = 100_000;
    loop {
        let x = match n {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
            _ => break,
        };
        if x == 1.0 || steps.len() >= MAX_STEPS {
            break;
        }
        steps.push(n.clone());
        n = if x % 2.0 == 0.0 {
            Value::Float(x / 2.0)
        } else {
            match n {
                Value::Int(i) => i
                    .checked_mul(3)
                    .and_then(|v| v.checked_add(1))
                    .map_or(Value::Float(x * 3.0 + 1.0), Value::Int),
                _ => Value::Float(x * 3.0 + 1.0),
            }
        };
    }
    let took = begin.elapsed().as_secs_f64();
    Ok(Returned::New(Value::List(vec![
        Value::List(steps),
        Value::Float(took),
    ])))
}

/// Python's `str(type(v))`.
fn py_class(v: &Value) -> Value {
    Value::Str(format!("<class '{}'>", v.type_name()))
}

fn arg_type<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let args: Vec<Value> = p.rest().iter().map(py_class).collect();
    let kwargs: Map = p
        .kwargs_with_pub("test.arg_type")
        .iter()
        .map(|(k, v)| (k.clone(), py_class(v)))
        .collect();
    p.finish()?;
    let mut m = Map::default();
    m.insert("args".into(), Value::List(args));
    m.insert("kwargs".into(), Value::Map(kwargs));
    Ok(Returned::New(Value::Map(m)))
}

/// Python's `int(v)`, with its message when `v` is no integer.
fn py_int(v: &Value) -> Result<i64, CallError> {
    let bad = || {
        CallError::Failed(match v {
            Value::Str(s) => format!("invalid literal for int() with base 10: '{s}'"),
            other => format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                other.type_name()
            ),
        })
    };
    match v {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::Float(f) if f.is_finite() => Ok(f.trunc() as i64),
        Value::Str(s) => s.trim().replace('_', "").parse().map_err(|_| bad()),
        _ => Err(bad()),
    }
}

fn fib<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let num = py_int(&p.require("num")?)?;
    p.finish()?;
    if num < 0 {
        return Err(CallError::Failed("Negative number is not allowed!".into()));
    }
    let start = Instant::now();
    let (mut prev, mut curr) = (0i64, 1i64);
    let value = if num < 2 {
        num
    } else {
        for _ in 1..num {
            let next = prev.checked_add(curr).ok_or_else(|| {
                CallError::Failed(format!("the {num}-th Fibonacci number is too large"))
            })?;
            prev = curr;
            curr = next;
        }
        curr
    };
    let took = start.elapsed().as_secs_f64();
    Ok(Returned::New(Value::List(vec![
        Value::Int(value),
        Value::Float(took),
    ])))
}

fn exception<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let message = p
        .take("message")
        .map_or_else(|| "Test Exception".to_string(), |m| m.to_python_str());
    p.finish()?;
    Err(CallError::Raised(format!("Exception: {message}")))
}

fn retcode<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let code = p.take("code").unwrap_or(Value::Int(42));
    p.finish()?;
    // Salt stores the code as given; anything not a number still fails.
    let code = match code {
        Value::Int(i) => i32::try_from(i).unwrap_or(1),
        Value::Bool(b) => i32::from(b),
        _ => 1,
    };
    Ok(Return {
        value: Value::Bool(true),
        retcode: code,
    })
}

fn sleep<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Return, CallError> {
    let length = py_int(&p.require("length")?)?;
    p.finish()?;
    if length < 0 {
        return Err(CallError::Failed(
            "sleep length must be non-negative".into(),
        ));
    }
    std::thread::sleep(Duration::from_secs(length.unsigned_abs()));
    Ok(Return::from(Value::Bool(true)))
}

fn random_hash<'c>(cx: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let size = p.take("size").map_or(Ok(9_999_999_999), |v| py_int(&v))?;
    let hash_type = p
        .take("hash_type")
        .filter(Value::is_truthy)
        .or_else(|| cx.opts.get("hash_type").filter(|v| v.is_truthy()).cloned())
        .map_or_else(|| "sha256".to_string(), |v| v.to_python_str());
    p.finish()?;
    if size < 0 {
        return Err(CallError::Failed(format!(
            "empty range in randrange(0, {})",
            size.saturating_add(1)
        )));
    }
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)
        .map_err(|e| CallError::Failed(format!("no randomness available: {e}")))?;
    let span = size.unsigned_abs().saturating_add(1);
    let n = u64::from_le_bytes(bytes) % span;
    hash_hex(&hash_type, n.to_string().as_bytes())
        .map(|h| Returned::New(Value::Str(h)))
        .ok_or_else(|| {
            CallError::Failed(format!("module 'hashlib' has no attribute '{hash_type}'"))
        })
}

/// brine's versions by section, each section name → component → version.
fn versions_information(cx: &Ctx<'_>) -> Map {
    let g = |k: &str| {
        cx.grains
            .get(k)
            .map(Value::to_python_str)
            .unwrap_or_default()
    };
    let section = |pairs: &[(&str, String)]| -> Value {
        Value::Map(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), Value::Str(v.clone())))
                .collect(),
        )
    };
    let mut m = Map::default();
    m.insert(
        "Brine Version".into(),
        section(&[("brine", env!("CARGO_PKG_VERSION").to_string())]),
    );
    m.insert(
        "Salt Compatibility".into(),
        section(&[("Salt", SALT_COMPAT.to_string())]),
    );
    // What brine is made of in place of Salt's Python dependencies.
    m.insert(
        "Components".into(),
        section(&[
            ("Jinja", "minijinja (built in)".to_string()),
            ("YAML", "saphyr-parser (built in)".to_string()),
            ("ZMQ", "zmq.rs (built in)".to_string()),
            ("msgpack", "rmp (built in)".to_string()),
        ]),
    );
    let dist = [g("os").to_lowercase(), g("osrelease"), g("oscodename")]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    m.insert(
        "System Versions".into(),
        section(&[
            ("dist", dist),
            ("machine", g("cpuarch")),
            ("release", g("kernelrelease")),
            ("system", g("kernel")),
        ]),
    );
    m
}

fn versions_report<'c>(cx: &Ctx<'c>, p: Params) -> Result<Returned<'c>, CallError> {
    p.finish()?;
    let info = versions_information(cx);
    // Names right-aligned to one width across sections, as Salt's report.
    let pad = info
        .values()
        .filter_map(Value::as_map)
        .flat_map(|s| s.keys())
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max("Not Installed".len())
        + 1;
    let mut lines = Vec::new();
    for (section, entries) in &info {
        lines.push(format!("{section}:"));
        let mut names: Vec<(&String, &Value)> = entries
            .as_map()
            .map(|m| m.iter().collect())
            .unwrap_or_default();
        names.sort_by_key(|(k, _)| k.to_lowercase());
        for (name, v) in names {
            lines.push(format!("{name:>pad$}: {}", v.to_python_str()));
        }
        lines.push(" ".into());
    }
    Ok(Returned::New(Value::Str(lines.join("\n"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_as_python_reads_them() {
        assert_eq!(py_int(&Value::from("12")).ok(), Some(12));
        assert_eq!(py_int(&Value::Float(2.9)).ok(), Some(2));
        assert_eq!(
            py_int(&Value::from("x")).unwrap_err().to_string(),
            "invalid literal for int() with base 10: 'x'"
        );
    }

    fn arg_kwargs(kwargs: &[(&str, Value)]) -> Map {
        let call = brine_core::args::CallArgs {
            args: vec![Value::Int(1)],
            kwargs: kwargs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        };
        let p = params_of(FUNCTIONS, "arg", call);
        let cx_opts = Map::default();
        let cx = Ctx {
            id: "m1",
            grains: &cx_opts,
            pillar: &cx_opts,
            opts: &cx_opts,
            caller: super::super::function::Caller::Template(&EMPTY_MINION),
            modules: crate::modules::MODULES,
        };
        let out = arg(&cx, p).expect("test.arg binds anything").into_value();
        out.get("kwargs")
            .and_then(Value::as_map)
            .cloned()
            .unwrap_or_default()
    }

    static EMPTY_MINION: std::sync::LazyLock<brine_compile::MinionData> =
        std::sync::LazyLock::new(|| brine_compile::MinionData {
            id: "m1".into(),
            grains: Value::Null,
            pillar: Value::Null,
            opts: Value::Null,
            functions: super::super::functions(),
        });

    /// brine-call publishes nothing: test.arg shows what salt-call adds;
    /// a job shows the metadata it came with.
    #[test]
    fn arg_shows_the_publish_metadata() {
        let kw = arg_kwargs(&[("a", Value::Int(2))]);
        let keys: Vec<&str> = kw.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["a", "__pub_fun", "__pub_pid", "__pub_jid", "__pub_tgt"]
        );
        assert_eq!(kw.get("__pub_tgt"), Some(&Value::from("salt-call")));
        let kw = arg_kwargs(&[("__pub_jid", Value::from("1")), ("b", Value::Null)]);
        let keys: Vec<&str> = kw.keys().map(String::as_str).collect();
        assert_eq!(keys, ["b", "__pub_jid"]);
    }

    #[test]
    fn jid_has_salts_form() {
        let mut p = FUNCTIONS[0].params(Default::default());
        let kw = p.kwargs_with_pub("test.arg");
        let j = kw["__pub_jid"].to_python_str();
        assert_eq!(j.len(), 20, "{j}");
        assert!(j.chars().all(|c| c.is_ascii_digit()));
    }
}
