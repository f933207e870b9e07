//! A Salt function's parameters as Python's signature has them, written
//! in Python's words with [`sig!`](crate::sig): execution functions bind
//! their arguments by it and `sys.argspec` reports it; the state engine
//! checks a state's arguments against it, as Salt's `format_call` does.

use crate::Value;

/// A function's parameters as Python's signature has them: the named
/// parameters in order (those past `positional` are keyword-only: they
/// follow `*args`), the defaults of the last ones, and whether it takes
/// `*args` and `**kwargs`. Written with [`sig!`](crate::sig).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    pub args: &'static [&'static str],
    /// The defaults of the last parameters, as a JSON list (a trailing
    /// comma allowed: [`sig!`] writes one).
    pub defaults: &'static str,
    /// How many of `args` bind by position.
    pub positional: usize,
    /// How many of `args` (the last ones) have a default.
    pub ndefaults: usize,
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

    /// The parameters without a default (a state needs every one).
    pub fn required(&self) -> &'static [&'static str] {
        &self.args[..self.args.len().saturating_sub(self.ndefaults)]
    }

    /// Whether `key` is one of the named parameters.
    pub fn declares(&self, key: &str) -> bool {
        self.index(key).is_some()
    }

    /// The defaults as values (`[]` when the text does not parse, which a
    /// test rules out for every function).
    pub fn default_values(&self) -> Vec<Value> {
        let text = match self.defaults.strip_suffix(",]") {
            Some(head) => format!("{head}]"),
            None => self.defaults.to_string(),
        };
        match crate::yaml::load(&text) {
            Ok(Value::List(l)) => l,
            _ => Vec::new(),
        }
    }
}

/// A [`Signature`] in Python's words: `sig!(key, default = "", *args,
/// delimiter = ":", **kwargs)` is `(key, default="", *args, delimiter=":",
/// **kwargs)`. Defaults are JSON-like tokens (`null`, `true`, `"text"`,
/// `-1`, `[]`).
#[macro_export]
macro_rules! sig {
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, $nd:expr, $ko:tt, $va:tt, $kw:tt;) => {
        $crate::signature::Signature {
            args: &[$($a),*],
            defaults: concat!("[", $($d, ",",)* "]"),
            positional: $n,
            ndefaults: $nd,
            varargs: $va,
            kwargs: $kw,
        }
    };
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, $nd:expr, $ko:tt, $va:tt, $kw:tt;
        ** $name:ident $(, $($rest:tt)*)?) => {
        $crate::sig!(@go [$($a),*] [$($d),*] $n, $nd, $ko, $va, true; $($($rest)*)?)
    };
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, $nd:expr, $ko:tt, $va:tt, $kw:tt;
        * $name:ident $(, $($rest:tt)*)?) => {
        $crate::sig!(@go [$($a),*] [$($d),*] $n, $nd, true, true, $kw; $($($rest)*)?)
    };
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, $nd:expr, false, $va:tt, $kw:tt;
        $name:ident = $def:expr $(, $($rest:tt)*)?) => {
        $crate::sig!(@go [$($a,)* stringify!($name)] [$($d,)* stringify!($def)] $n + 1, $nd + 1,
            false, $va, $kw; $($($rest)*)?)
    };
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, $nd:expr, true, $va:tt, $kw:tt;
        $name:ident = $def:expr $(, $($rest:tt)*)?) => {
        $crate::sig!(@go [$($a,)* stringify!($name)] [$($d,)* stringify!($def)] $n, $nd + 1,
            true, $va, $kw; $($($rest)*)?)
    };
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, $nd:expr, false, $va:tt, $kw:tt;
        $name:ident $(, $($rest:tt)*)?) => {
        $crate::sig!(@go [$($a,)* stringify!($name)] [$($d),*] $n + 1, $nd, false, $va, $kw;
            $($($rest)*)?)
    };
    (@go [$($a:expr),*] [$($d:expr),*] $n:expr, $nd:expr, true, $va:tt, $kw:tt;
        $name:ident $(, $($rest:tt)*)?) => {
        $crate::sig!(@go [$($a,)* stringify!($name)] [$($d),*] $n, $nd, true, $va, $kw;
            $($($rest)*)?)
    };
    ($($t:tt)*) => { $crate::sig!(@go [] [] 0, 0, false, false, false; $($t)*) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sig_reads_pythons_signature_shape() {
        let s: Signature = sig!(key, type = "x", match = -1, d = null, e = [], **kwargs);
        assert_eq!(s.args, ["key", "type", "match", "d", "e"]);
        assert_eq!(s.positional, 5);
        assert!(!s.varargs && s.kwargs);
        assert_eq!(
            s.default_values(),
            vec![
                Value::from("x"),
                Value::Int(-1),
                Value::Null,
                Value::List(vec![])
            ]
        );
        let n: Signature = sig!(*args, **kwargs);
        assert!(n.args.is_empty() && n.varargs && n.kwargs);
        assert!(n.default_values().is_empty());
        let k: Signature = sig!(path, *args, default = null, delimiter = ":");
        assert_eq!(k.args, ["path", "default", "delimiter"]);
        assert_eq!((k.positional, k.varargs, k.kwargs), (1, true, false));
        assert_eq!(k.position("path"), Some(0));
        assert_eq!(k.position("default"), None, "keyword-only");
        assert_eq!(k.index("delimiter"), Some(2));
        assert_eq!(k.default_values(), vec![Value::Null, Value::from(":")]);
        assert_eq!(k.required(), ["path"]);
        assert_eq!(s.required(), ["key"]);
        assert!(k.declares("default") && !k.declares("x"));
        let e: Signature = sig!();
        assert!(e.args.is_empty() && !e.varargs && !e.kwargs);
    }
}
