//! Arguments as `salt-call` reads them from the command line: `key=value`
//! tokens are keyword arguments, the rest positional, and each value is
//! loaded as YAML with Salt's `yamlify_arg` rules (`test=True` → true,
//! `'pillar={"a": 1}'` → a dict, `a b` → the string).

use crate::yaml;
use crate::{Map, Value};

/// Positional and keyword arguments of one function call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallArgs {
    pub args: Vec<Value>,
    pub kwargs: Map,
}

/// A job's arguments as Salt's publications carry them (`__pub_arg`,
/// the job cache's `Arguments`, the `salt/job/*/new` event's `arg`): the
/// positional ones, then the keyword arguments as one trailing mapping
/// marked `__kwarg__`.
pub fn salt_arguments(arg: &[Value], kwarg: &Map) -> Vec<Value> {
    let mut out = arg.to_vec();
    if !kwarg.is_empty() {
        let mut kw = Map::default();
        kw.insert("__kwarg__".into(), Value::Bool(true));
        kw.extend(kwarg.iter().map(|(k, v)| (k.clone(), v.clone())));
        out.push(Value::Map(kw));
    }
    out
}

/// Split and load command-line tokens the way Salt's `parse_input` does.
pub fn parse_input(tokens: &[String]) -> CallArgs {
    let mut out = CallArgs::default();
    for tok in tokens {
        match split_kwarg(tok) {
            Some((name, value)) => {
                out.kwargs.insert(name.to_string(), yamlify_arg(value));
            }
            None => out.args.push(yamlify_arg(tok)),
        }
    }
    out
}

/// What a minion does with a published job's arguments, as Salt's
/// `load_args_and_kwargs`: a string argument `name=value` becomes the
/// keyword argument `name` (its value loaded as the command line loads
/// one) when the function takes that name or any keyword; other
/// arguments stay as they came. A job published through salt-api (pepper
/// sends `test=True` as it is typed) runs as one from the CLI.
pub fn published(sig: &crate::signature::Signature, call: CallArgs) -> CallArgs {
    let mut out = CallArgs {
        args: Vec::with_capacity(call.args.len()),
        kwargs: call.kwargs,
    };
    for a in call.args {
        if let Value::Str(s) = &a {
            if let Some((name, value)) = split_kwarg(s) {
                if sig.kwargs || sig.index(name).is_some() {
                    let v = yamlify_arg(value);
                    out.kwargs.insert(name.to_string(), v);
                    continue;
                }
            }
        }
        out.args.push(a);
    }
    out
}

/// `name=value` where name looks like an identifier (`[^\d\W][\w.-]*`) and
/// the `=` is not the start of `==`.
fn split_kwarg(tok: &str) -> Option<(&str, &str)> {
    let eq = tok.find('=')?;
    let (name, rest) = (&tok[..eq], &tok[eq + 1..]);
    if rest.starts_with('=') || name.contains('\n') {
        return None;
    }
    let mut chars = name.chars();
    let first = chars.next()?;
    if !(first.is_alphabetic() || first == '_') {
        return None;
    }
    if !chars.all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '-') {
        return None;
    }
    // Salt's `(.*)$` does not cross a line: a value may end in one
    // newline (which it loses) and hold no other.
    match rest.find('\n') {
        None => Some((name, rest)),
        Some(at) if at + 1 == rest.len() => Some((name, &rest[..at])),
        Some(_) => None,
    }
}

/// Salt's `yamlify_arg`: load a string argument as YAML unless doing so
/// would lose what the user typed.
pub fn yamlify_arg(arg: &str) -> Value {
    let keep = || Value::Str(arg.to_string());
    let trimmed = arg.trim();
    if matches!(trimmed, "" | "---" | "...") {
        return keep();
    }
    if arg.contains('_') && trimmed.chars().all(|c| c.is_ascii_digit() || c == '_') {
        return keep();
    }
    if arg.contains(['\t', '\r', '\n']) {
        return keep();
    }
    if arg.contains('#') {
        return match yaml::load(arg) {
            Ok(Value::Str(_)) | Ok(Value::Null) | Err(_) => keep(),
            Ok(v) => v,
        };
    }
    if arg == "None" {
        return Value::Null;
    }
    let Ok(loaded) = yaml::load(arg) else {
        return keep();
    };
    match loaded {
        Value::Map(_) if !arg.starts_with('{') => keep(),
        Value::List(_) if !arg.starts_with('[') => keep(),
        Value::Str(ref s) if s.is_empty() && (arg == "|" || arg == "!") => keep(),
        Value::Null if trimmed.starts_with('#') || arg == "!" => keep(),
        v => v,
    }
}

/// Salt's `split_input`: a list as it is, else the comma-separated parts of
/// the value's text (`state.sls a,b`, `exclude=x,y`).
pub fn split_input(v: &Value) -> Vec<String> {
    match v {
        Value::List(l) => l.iter().map(Value::to_python_str).collect(),
        other => other
            .to_python_str()
            .split(',')
            .map(|s| s.trim().to_string())
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kwargs_split_like_salt() {
        assert_eq!(
            split_kwarg("pillarenv=testing"),
            Some(("pillarenv", "testing"))
        );
        assert_eq!(split_kwarg("a==b"), None);
        assert_eq!(split_kwarg("1a=b"), None);
        assert_eq!(split_kwarg("a b=c"), None);
        assert_eq!(split_kwarg("x.y-z=1"), Some(("x.y-z", "1")));
        assert_eq!(split_kwarg("plain"), None);
        assert_eq!(split_kwarg("a=b\n"), Some(("a", "b")));
        assert_eq!(split_kwarg("a=b\nc"), None);
    }

    #[test]
    fn digits_with_underscores_stay_strings() {
        assert_eq!(yamlify_arg("1_000"), Value::Str("1_000".into()));
        assert_eq!(yamlify_arg("None"), Value::Null);
        assert_eq!(yamlify_arg(""), Value::Str("".into()));
    }
}

#[cfg(test)]
mod published_tests {
    use super::*;
    use crate::signature::Signature;

    #[test]
    fn string_keyword_arguments_as_a_minion_reads_them() {
        let with_kwargs = Signature {
            args: &["name"],
            defaults: "[]",
            positional: 1,
            ndefaults: 0,
            varargs: false,
            kwargs: true,
        };
        let call = CallArgs {
            args: vec![
                Value::from("test=True"),
                Value::from("echo a=b"),
                Value::from("x==1"),
                Value::Int(3),
            ],
            kwargs: Map::default(),
        };
        let got = published(&with_kwargs, call.clone());
        assert_eq!(got.kwargs.get("test"), Some(&Value::Bool(true)));
        assert_eq!(
            got.args,
            vec![Value::from("echo a=b"), Value::from("x==1"), Value::Int(3)]
        );
        // Without **kwargs, only a name the function takes moves.
        let named_only = Signature {
            kwargs: false,
            ..with_kwargs
        };
        let got = published(&named_only, call);
        assert!(got.kwargs.is_empty());
        assert_eq!(got.args.len(), 4);
    }
}
