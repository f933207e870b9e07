//! Python-style argument binding for functions, filters and methods that take
//! positional and keyword arguments (`salt['pillar.get']('k', default={})`).

use minijinja::value::{Kwargs, Value as MjValue};
use minijinja::{Error, ErrorKind};

/// Split a call's arguments into positional ones and keyword ones (minijinja
/// passes keywords as a trailing `Kwargs` value).
pub(crate) fn split(args: &[MjValue]) -> (Vec<MjValue>, Vec<(String, MjValue)>) {
    if let Some((last, rest)) = args.split_last() {
        if last.is_kwargs() {
            if let Ok(kw) = Kwargs::try_from(last.clone()) {
                let pairs = kw
                    .args()
                    .map(|k| (k.to_string(), kw.peek::<MjValue>(k).unwrap_or_default()))
                    .collect();
                return (rest.to_vec(), pairs);
            }
        }
    }
    (args.to_vec(), Vec::new())
}

/// Bind `args` to the parameters `params` of the function `fname` the way
/// Python does: positionals first, then keywords; the first `required`
/// parameters must be given. Returns one slot per parameter.
pub(crate) fn bind(
    fname: &str,
    args: &[MjValue],
    params: &[&str],
    required: usize,
) -> Result<Vec<Option<MjValue>>, Error> {
    let (pos, kw) = split(args);
    if pos.len() > params.len() {
        return Err(invalid(format!(
            "{fname}() takes at most {} positional arguments but {} were given",
            params.len(),
            pos.len()
        )));
    }
    let mut slots: Vec<Option<MjValue>> = vec![None; params.len()];
    for (slot, v) in slots.iter_mut().zip(pos) {
        *slot = Some(v);
    }
    for (k, v) in kw {
        let Some(i) = params.iter().position(|p| *p == k) else {
            return Err(invalid(format!(
                "{fname}() got an unexpected keyword argument '{k}'"
            )));
        };
        if slots[i].is_some() {
            return Err(invalid(format!(
                "{fname}() got multiple values for argument '{k}'"
            )));
        }
        slots[i] = Some(v);
    }
    if let Some(missing) = params
        .iter()
        .take(required)
        .zip(&slots)
        .find(|(_, s)| s.is_none())
    {
        return Err(invalid(format!(
            "{fname}() missing required argument: '{}'",
            missing.0
        )));
    }
    Ok(slots)
}

pub(crate) fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, msg.into())
}

/// A string argument, or a clear error naming the function and parameter.
pub(crate) fn str_arg<'a>(fname: &str, param: &str, v: &'a MjValue) -> Result<&'a str, Error> {
    v.as_str().ok_or_else(|| {
        invalid(format!(
            "{fname}(): '{param}' must be a string, got {}",
            v.kind()
        ))
    })
}
