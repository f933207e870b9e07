//! Salt's `random` module (`mod_random`): random strings and numbers from
//! the system's randomness, for templates that make passwords and salts.

use super::function::{sig, CallError, Ctx, Function};
use super::params::Params;
use brine_compile::minion_data::Returned;
use brine_core::Value;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::reads(
        "get_str",
        sig!(
            length = 20,
            chars = null,
            lowercase = true,
            uppercase = true,
            digits = true,
            punctuation = true,
            whitespace = false,
            printable = false
        ),
        "A random string of LENGTH characters drawn from CHARS, or from the \
classes asked for (lowercase, uppercase, digits, punctuation; whitespace; \
printable: all of them).\n\n    brine '*' random.get_str 40 punctuation=False",
        get_str,
    ),
    Function::reads(
        "rand_int",
        sig!(start = 1, end = 10, seed = null),
        "A random integer between START and END, both included.\n\n    \
brine '*' random.rand_int 1 100",
        rand_int,
    ),
];

pub(super) fn random_u64() -> Result<u64, CallError> {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b)
        .map_err(|e| CallError::Failed(format!("no randomness available: {e}")))?;
    Ok(u64::from_le_bytes(b))
}

/// Python's `int()` of an argument.
fn int(v: &Value) -> Result<i64, CallError> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(i64::from(*b)),
        other => {
            let text = other.to_python_str();
            text.trim().parse().map_err(|_| {
                CallError::Failed(format!(
                    "invalid literal for int() with base 10: {}",
                    Value::Str(text).to_python_repr()
                ))
            })
        }
    }
}

fn get_str<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let length = int(&p.take("length").unwrap_or(Value::Int(20)))?;
    let chars = p
        .take("chars")
        .filter(Value::is_truthy)
        .map(|v| v.to_python_str());
    let flag = |p: &mut Params, k: &str, d: bool| p.take(k).map_or(d, |v| v.is_truthy());
    let lowercase = flag(&mut p, "lowercase", true);
    let uppercase = flag(&mut p, "uppercase", true);
    let digits = flag(&mut p, "digits", true);
    let punctuation = flag(&mut p, "punctuation", true);
    let whitespace = flag(&mut p, "whitespace", false);
    let printable = flag(&mut p, "printable", false);
    p.finish()?;
    const PUNCT: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    const SPACE: &str = " \t\n\r\x0b\x0c";
    let mut pool = chars.unwrap_or_default();
    if printable {
        pool =
            format!("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ{PUNCT}{SPACE}");
    }
    if pool.is_empty() {
        if lowercase {
            pool.push_str("abcdefghijklmnopqrstuvwxyz");
        }
        if uppercase {
            pool.push_str("ABCDEFGHIJKLMNOPQRSTUVWXYZ");
        }
        if digits {
            pool.push_str("0123456789");
        }
        if punctuation {
            pool.push_str(PUNCT);
        }
        if whitespace {
            pool.push_str(SPACE);
        }
    }
    let pool: Vec<char> = pool.chars().collect();
    if pool.is_empty() {
        return Err(CallError::Failed(
            "Cannot choose from an empty sequence".into(),
        ));
    }
    let mut out = String::new();
    for _ in 0..length.max(0) {
        let i = (random_u64()? % pool.len() as u64) as usize;
        out.push(pool[i]);
    }
    Ok(Returned::New(Value::Str(out)))
}

fn rand_int<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let start = int(&p.take("start").unwrap_or(Value::Int(1)))?;
    let end = int(&p.take("end").unwrap_or(Value::Int(10)))?;
    let _seed = p.take("seed");
    p.finish()?;
    if end < start {
        return Err(CallError::Failed(format!(
            "empty range in randrange({start}, {})",
            end.saturating_add(1)
        )));
    }
    let span = (end - start) as u64 + 1;
    Ok(Returned::New(Value::Int(
        start + (random_u64()? % span) as i64,
    )))
}
