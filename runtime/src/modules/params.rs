//! Salt's argument model for execution functions: call arguments bound to a
//! function's parameters ([`Signature`], from its descriptor) the way Python
//! binds them, with Python's wording when they do not fit. Publish metadata
//! (`__pub_*`) is never an argument.

use brine_compile::minion_data::ArgName;
use brine_compile::minion_data::FunctionError as CallError;
use brine_core::args::CallArgs;
use brine_core::signature::Signature;
use brine_core::{Map, Value};
use std::borrow::Cow;

/// The arguments of one call, taken parameter by parameter: by keyword,
/// else at the parameter's position in the signature; what the signature
/// has no room for is an error at [`Params::finish`].
pub struct Params {
    fun: &'static str,
    sig: &'static Signature,
    /// The positional arguments; a taken one is left as `Null` and marked.
    args: Vec<Value>,
    taken: Vec<bool>,
    /// `*args` was taken ([`Params::rest`]).
    rest_taken: bool,
    pub(crate) kwargs: Map,
    /// Accepts **kwargs: unknown keywords are not an error (the
    /// signature's `**kwargs`, or a function that reads them itself).
    pub open_kwargs: bool,
    /// A parameter given by keyword while a positional argument was still
    /// there to bind to it.
    twice: Option<String>,
    /// The call came as a published job (it carried `__pub_jid`), not from
    /// `brine-call` or a template.
    pub published: bool,
    /// Called from Python code (a template's `salt[...]`, a state's
    /// `__salt__`): Python itself binds the arguments there, so its
    /// TypeError wording applies and no publish metadata comes along; from
    /// the command line and jobs, Salt's loader checks keywords first.
    pub from_template: bool,
    /// The publish metadata (`__pub_*`) the call carried, which only
    /// `test.arg` and friends show.
    pub pub_kwargs: Map,
}

impl Params {
    /// `fun` is the function's own name (`get`), as Python's messages say
    /// it; `sig` its parameters.
    pub fn new(fun: &'static str, sig: &'static Signature, a: CallArgs) -> Params {
        let mut kwargs = a.kwargs;
        let published = kwargs.contains_key("__pub_jid");
        let mut pub_kwargs = Map::default();
        kwargs.retain(|k, v| {
            if k.starts_with("__pub_") {
                pub_kwargs.insert(k.clone(), std::mem::take(v));
                false
            } else {
                true
            }
        });
        let taken = vec![false; a.args.len()];
        Params {
            fun,
            sig,
            args: a.args,
            taken,
            rest_taken: false,
            kwargs,
            open_kwargs: sig.kwargs,
            twice: None,
            published,
            pub_kwargs,
            from_template: false,
        }
    }

    /// The parameter `name`, given by keyword or at its position.
    pub fn take(&mut self, name: &str) -> Option<Value> {
        self.take_at(name).map(|(v, _)| v)
    }

    /// [`Params::take`], saying which argument it was.
    pub fn take_at(&mut self, name: &str) -> Option<(Value, ArgName)> {
        let at = self.sig.position(name);
        debug_assert!(
            self.sig.index(name).is_some() || self.sig.kwargs || self.open_kwargs,
            "{}(): '{name}' is not a parameter of its signature",
            self.fun
        );
        if let Some(v) = self.kwargs.shift_remove(name) {
            // Python binds the positional argument there to this parameter
            // too: "got multiple values".
            if at.is_some_and(|i| i < self.args.len()) && self.twice.is_none() {
                self.twice = Some(name.to_string());
            }
            return Some((v, ArgName::Keyword(name.to_string())));
        }
        let i = at?;
        if i >= self.args.len() || self.taken[i] {
            return None;
        }
        self.taken[i] = true;
        Some((std::mem::take(&mut self.args[i]), ArgName::Position(i)))
    }

    /// A required string parameter (anything else as Python's `str()`).
    pub fn require_str(&mut self, name: &str) -> Result<String, CallError> {
        self.require(name).map(into_string)
    }

    /// A required parameter.
    pub fn require(&mut self, name: &str) -> Result<Value, CallError> {
        self.require_at(name).map(|(v, _)| v)
    }

    /// [`Params::require`], saying which argument it was.
    pub fn require_at(&mut self, name: &str) -> Result<(Value, ArgName), CallError> {
        self.take_at(name).ok_or_else(|| {
            CallError::InvalidArguments(format!(
                "{}() missing 1 required positional argument: '{name}'",
                self.fun
            ))
        })
    }

    /// Keyword-only parameter.
    pub fn kw(&mut self, name: &str) -> Option<Value> {
        self.kwargs.shift_remove(name)
    }

    /// The positional arguments past the named parameters (`*args`).
    pub fn rest(&mut self) -> Vec<Value> {
        self.rest_taken = true;
        let from = self.sig.positional.min(self.args.len());
        self.taken.truncate(from);
        self.args.split_off(from)
    }

    /// The keyword arguments not taken by name (`**kwargs`), without the
    /// publish metadata.
    pub fn take_kwargs(&mut self) -> Map {
        self.open_kwargs = true;
        std::mem::take(&mut self.kwargs)
    }

    /// The keyword arguments with the publish metadata, as Salt's functions
    /// with `**kwargs` receive them. `brine-call` publishes nothing: it
    /// shows what salt-call adds (fun, pid, jid, tgt); Python code calling
    /// the function (a template, a state) adds nothing.
    pub fn kwargs_with_pub(&mut self, fun: &str) -> Map {
        let mut kw = std::mem::take(&mut self.kwargs);
        self.open_kwargs = true;
        if self.pub_kwargs.is_empty() && !self.from_template {
            kw.insert("__pub_fun".into(), Value::from(fun));
            kw.insert(
                "__pub_pid".into(),
                Value::Int(i64::from(std::process::id())),
            );
            // A job id for a call that came without one, in Salt's form.
            let jid = brine_host::time::jid(brine_host::time::now_micros(), false);
            kw.insert("__pub_jid".into(), Value::Str(jid));
            kw.insert("__pub_tgt".into(), Value::from("salt-call"));
        } else {
            kw.extend(std::mem::take(&mut self.pub_kwargs));
        }
        kw
    }

    /// Fail on arguments the function does not take.
    pub fn finish(self) -> Result<(), CallError> {
        if let Some(name) = &self.twice {
            return Err(CallError::InvalidArguments(format!(
                "{}() got multiple values for argument '{name}'",
                self.fun
            )));
        }
        // A keyword naming a parameter binds to it, taken or not.
        let sig = self.sig;
        let mut unknown = self.kwargs;
        unknown.retain(|k, _| sig.index(k).is_none());
        if let Some(k) = unknown.keys().next().filter(|_| !self.open_kwargs) {
            if !self.from_template {
                return Err(invalid_kwargs(&unknown));
            }
            return Err(CallError::InvalidArguments(format!(
                "{}() got an unexpected keyword argument '{k}'",
                self.fun
            )));
        }
        let given = self.args.len();
        if given > self.sig.positional && !self.rest_taken && !self.sig.varargs {
            // Python's words for it (CPython's too_many_positional).
            let max = self.sig.positional;
            let min = max.saturating_sub(self.sig.ndefaults);
            let takes = if min == max {
                max.to_string()
            } else {
                format!("from {min} to {max}")
            };
            return Err(CallError::InvalidArguments(format!(
                "{}() takes {takes} positional argument{} but {given} {} given",
                self.fun,
                if max == 1 { "" } else { "s" },
                if given == 1 { "was" } else { "were" }
            )));
        }
        Ok(())
    }
}

/// Keywords a function does not take, refused as Salt's loader
/// (`load_args_and_kwargs`) refuses them before the call: a
/// SaltInvocationError naming them all.
pub fn invalid_kwargs(kwargs: &Map) -> CallError {
    let all: Vec<String> = kwargs
        .iter()
        .map(|(k, v)| format!("{k}={}", v.to_python_str()))
        .collect();
    CallError::Invocation(format!(
        "The following keyword arguments are not valid: {}",
        all.join(", ")
    ))
}

/// An optional string parameter (a non-string is shown as Python would).
pub(crate) fn opt_string(v: Option<Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) => None,
        Some(v) => Some(into_string(v)),
    }
}

/// A value as Python's `str()` gives it; a string is moved, not copied.
pub(crate) fn into_string(v: Value) -> String {
    match v {
        Value::Str(s) => s,
        other => other.to_python_str(),
    }
}

/// A `delimiter` parameter: `:` unless given.
pub(crate) fn delimiter(v: Option<Value>) -> Cow<'static, str> {
    opt_string(v).map_or(Cow::Borrowed(":"), Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use brine_core::sig;

    /// `get(key, default=None, merge=None)`.
    static GET: Signature = sig!(key, default = null, merge = null);
    /// `get(key)`.
    static ONE: Signature = sig!(key);

    fn params(args: &[&str], kwargs: &[(&str, &str)]) -> Params {
        let mut p = cli_params(args, kwargs);
        p.from_template = true;
        p
    }

    fn with_sig(sig: &'static Signature, args: &[&str], kwargs: &[(&str, &str)]) -> Params {
        let mut p = Params::new(
            "get",
            sig,
            CallArgs {
                args: args.iter().map(|a| Value::from(*a)).collect(),
                kwargs: kwargs
                    .iter()
                    .map(|(k, v)| (k.to_string(), Value::from(*v)))
                    .collect(),
            },
        );
        p.from_template = true;
        p
    }

    fn cli_params(args: &[&str], kwargs: &[(&str, &str)]) -> Params {
        Params::new(
            "get",
            &GET,
            CallArgs {
                args: args.iter().map(|a| Value::from(*a)).collect(),
                kwargs: kwargs
                    .iter()
                    .map(|(k, v)| (k.to_string(), Value::from(*v)))
                    .collect(),
            },
        )
    }

    #[test]
    fn binds_like_python_and_words_errors_like_it() {
        // (signature, args, kwargs, parameters taken, error from finish)
        type Case<'a> = (
            &'static Signature,
            &'a [&'a str],
            &'a [(&'a str, &'a str)],
            &'a [&'a str],
            &'a str,
        );
        let cases: &[Case] = &[
            (&GET, &["a", "b"], &[], &["key", "default"], ""),
            (&GET, &["a"], &[("default", "b")], &["key", "default"], ""),
            // A parameter the function never asks for still binds.
            (&GET, &["a", "b", "c"], &[], &["key"], ""),
            (&ONE, &[], &[("__pub_jid", "1"), ("key", "a")], &["key"], ""),
            (
                &ONE,
                &["a", "b"],
                &[],
                &["key"],
                "get() takes 1 positional argument but 2 were given",
            ),
            (
                &ONE,
                &["a"],
                &[("nope", "1")],
                &["key"],
                "get() got an unexpected keyword argument 'nope'",
            ),
            (
                &ONE,
                &["a"],
                &[("key", "b")],
                &["key"],
                "get() got multiple values for argument 'key'",
            ),
        ];
        for (sig, args, kwargs, names, want) in cases {
            let mut p = with_sig(sig, args, kwargs);
            for n in *names {
                p.take(n);
            }
            let got = p.finish().err().map(|e| e.to_string()).unwrap_or_default();
            let want = if want.is_empty() {
                String::new()
            } else {
                format!("Passed invalid arguments: {want}")
            };
            assert_eq!(got, want, "{args:?} {kwargs:?}");
        }
        let mut p = params(&[], &[]);
        assert_eq!(
            p.require("key").unwrap_err().to_string(),
            "Passed invalid arguments: get() missing 1 required positional argument: 'key'"
        );
    }

    #[test]
    fn cli_keywords_are_checked_as_salts_loader_does() {
        let mut p = cli_params(&["a"], &[("nope", "1"), ("bad", "x")]);
        p.take("key");
        assert_eq!(
            p.finish().unwrap_err(),
            CallError::Invocation(
                "The following keyword arguments are not valid: nope=1, bad=x".into()
            )
        );
    }

    #[test]
    fn positions_come_from_the_signature_not_the_order_taken() {
        let mut p = params(&["k", "d", "m"], &[]);
        assert_eq!(p.take("merge"), Some(Value::from("m")));
        assert_eq!(p.take("key"), Some(Value::from("k")));
        assert_eq!(p.take("key"), None, "taken once");
        assert_eq!(p.take("default"), Some(Value::from("d")));
        p.finish().unwrap();
    }

    #[test]
    fn says_which_argument_was_taken() {
        let mut p = params(&["k", "d"], &[("merge", "1")]);
        assert_eq!(p.take_at("key").map(|x| x.1), Some(ArgName::Position(0)));
        assert_eq!(
            p.take_at("merge").map(|x| x.1),
            Some(ArgName::Keyword("merge".into()))
        );
    }
}
