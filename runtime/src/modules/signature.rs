//! A function's parameters as Salt reports them (`sys.argspec`), written
//! in Python's words with [`sig!`]: what binds arguments to parameters
//! (`params`) and what `sys.argspec` answers both read it.

use brine_core::Value;

/// A function's parameters as Python's signature has them: the named
/// parameters in order (those past `positional` are keyword-only: they
/// follow `*args`), the defaults of the last ones, and whether it takes
/// `*args` and `**kwargs`. Written with [`sig!`]; checked against what Salt
/// 3007.8's loader reports (`testdata/argspec.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    pub args: &'static [&'static str],
    /// The defaults of the last parameters, as a JSON list (a trailing
    /// comma allowed: [`sig!`] writes one).
    pub defaults: &'static str,
    /// How many of `args` bind by position.
    pub positional: usize,
    pub varargs: bool,
    pub kwargs: bool,
}

impl Signature {
    /// Where `name` stands among the named parameters.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.args.iter().position(|a| *a == name)
    }

    /// The position a positional argument binds `name` at, if it binds by
    /// position at all.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.index(name).filter(|i| *i < self.positional)
    }

    /// The defaults as values (`[]` when the text does not parse, which a
    /// test rules out for every function).
    pub fn default_values(&self) -> Vec<Value> {
        let text = match self.defaults.strip_suffix(",]") {
            Some(head) => format!("{head}]"),
            None => self.defaults.to_string(),
        };
        match brine_core::yaml::load(&text) {
            Ok(Value::List(l)) => l,
            _ => Vec::new(),
        }
    }
}

/// A [`Signature`] in Python's words: `sig!(key, default = "", *args,
/// delimiter = ":", **kwargs)` is `(key, default="", *args, delimiter=":",
/// **kwargs)`. Defaults are JSON-like tokens (`null`, `true`, `"text"`,
/// `-1`, `[]`).
macro_rules! sig {
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, $ko:tt, $va:tt, $kw:tt;) => {
        $crate::modules::signature::Signature {
            args: &[$($a),*],
            defaults: concat!("[", $($d, ",",)* "]"),
            positional: $n,
            varargs: $va,
            kwargs: $kw,
        }
    };
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, $ko:tt, $va:tt, $kw:tt;
        ** $name:ident $(, $($rest:tt)*)?) => {
        sig!(@go [$($a),*] [$($d),*] $n, $ko, $va, true; $($($rest)*)?)
    };
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, $ko:tt, $va:tt, $kw:tt;
        * $name:ident $(, $($rest:tt)*)?) => {
        sig!(@go [$($a),*] [$($d),*] $n, true, true, $kw; $($($rest)*)?)
    };
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, false, $va:tt, $kw:tt;
        $name:ident = $def:expr $(, $($rest:tt)*)?) => {
        sig!(@go [$($a,)* stringify!($name)] [$($d,)* stringify!($def)] $n + 1, false, $va, $kw;
            $($($rest)*)?)
    };
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, true, $va:tt, $kw:tt;
        $name:ident = $def:expr $(, $($rest:tt)*)?) => {
        sig!(@go [$($a,)* stringify!($name)] [$($d,)* stringify!($def)] $n, true, $va, $kw;
            $($($rest)*)?)
    };
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, false, $va:tt, $kw:tt;
        $name:ident $(, $($rest:tt)*)?) => {
        sig!(@go [$($a,)* stringify!($name)] [$($d),*] $n + 1, false, $va, $kw; $($($rest)*)?)
    };
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, true, $va:tt, $kw:tt;
        $name:ident $(, $($rest:tt)*)?) => {
        sig!(@go [$($a,)* stringify!($name)] [$($d),*] $n, true, $va, $kw; $($($rest)*)?)
    };
    ($($t:tt)*) => { sig!(@go [] [] 0, false, false, false; $($t)*) };
}
pub(crate) use sig;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sig_reads_pythons_signature_shape() {
        const S: Signature = sig!(key, type = "x", match = -1, d = null, e = [], **kwargs);
        assert_eq!(S.args, ["key", "type", "match", "d", "e"]);
        assert_eq!(S.positional, 5);
        assert!(!S.varargs && S.kwargs);
        assert_eq!(
            S.default_values(),
            vec![
                Value::from("x"),
                Value::Int(-1),
                Value::Null,
                Value::List(vec![])
            ]
        );
        const N: Signature = sig!(*args, **kwargs);
        assert!(N.args.is_empty() && N.varargs && N.kwargs);
        assert!(N.default_values().is_empty());
        const K: Signature = sig!(path, *args, default = null, delimiter = ":");
        assert_eq!(K.args, ["path", "default", "delimiter"]);
        assert_eq!((K.positional, K.varargs, K.kwargs), (1, true, false));
        assert_eq!(K.position("path"), Some(0));
        assert_eq!(K.position("default"), None, "keyword-only");
        assert_eq!(K.index("delimiter"), Some(2));
        assert_eq!(K.default_values(), vec![Value::Null, Value::from(":")]);
        const E: Signature = sig!();
        assert!(E.args.is_empty() && !E.varargs && !E.kwargs);
    }
}
