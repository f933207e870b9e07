//! Salt's default `nested` outputter: mappings as `key:` lines with values
//! indented four more, a `----------` line opening every mapping below the
//! top, `- item` for scalars in lists and `|_` before a container in a list.

use super::{is_ordered, python_splitlines, Lines, OutputOptions};
use crate::value::python_float_repr;
use crate::Value;

/// ANSI codes as Salt's `salt.utils.color.get_colors` makes them.
struct Colors {
    light_yellow: &'static str,
    green: &'static str,
    cyan: &'static str,
    red: &'static str,
    endc: &'static str,
}

const COLORS_ON: Colors = Colors {
    light_yellow: "\x1b[0;1;33m",
    green: "\x1b[0;32m",
    cyan: "\x1b[0;36m",
    red: "\x1b[0;31m",
    endc: "\x1b[0;0m",
};

const COLORS_OFF: Colors = Colors {
    light_yellow: "",
    green: "",
    cyan: "",
    red: "",
    endc: "",
};

struct Nest<'a> {
    colors: &'a Colors,
    opts: &'a OutputOptions,
    lines: Lines,
}

impl Nest<'_> {
    fn push(&mut self, indent: usize, color: &str, msg: &str, prefix: &str, suffix: &str) {
        let endc = self.colors.endc;
        let out = self.lines.next_line();
        out.extend(std::iter::repeat_n(' ', indent));
        out.push_str(color);
        out.push_str(prefix);
        out.push_str(msg);
        out.push_str(endc);
        out.push_str(suffix);
    }

    /// Key and container colour: cyan (green for list markers), red for
    /// everything when the call failed.
    fn struct_color(&self, normal: &'static str) -> &'static str {
        if self.opts.retcode != 0 {
            self.colors.red
        } else {
            normal
        }
    }

    /// A string's lines (Python's `splitlines`), the first after `prefix`
    /// and the rest under it.
    fn string(&mut self, s: &str, indent: usize, prefix: &str) {
        let green = self.colors.green;
        // The common case, one line with nothing to replace, borrows.
        if !s.contains(|c: char| c == '\x1b' || crate::py::is_line_break(c)) {
            if !s.is_empty() {
                self.push(indent, green, s, prefix, "");
            }
            return;
        }
        let blank = " ".repeat(prefix.chars().count());
        for (n, line) in python_splitlines(s).into_iter().enumerate() {
            let p = if n == 0 { prefix } else { blank.as_str() };
            // Salt replaces ESC so data cannot drive the terminal.
            let line = line.replace('\x1b', "?");
            self.push(indent, green, &line, p, "");
        }
    }

    fn display(&mut self, v: &Value, indent: usize, prefix: &str, depth: isize) {
        match v {
            Value::Null => self.push(indent, self.colors.light_yellow, "None", prefix, ""),
            Value::Bool(b) => {
                let s = if *b { "True" } else { "False" };
                self.push(indent, self.colors.light_yellow, s, prefix, "");
            }
            Value::Int(i) => {
                self.push(indent, self.colors.light_yellow, &i.to_string(), prefix, "");
            }
            Value::Float(f) => {
                let s = python_float_repr(*f);
                self.push(indent, self.colors.light_yellow, &s, prefix, "");
            }
            Value::Str(s) => self.string(s, indent, prefix),
            Value::List(items) => {
                let color = self.struct_color(self.colors.green);
                for item in items {
                    match item {
                        Value::List(_) | Value::Map(_) => {
                            self.push(indent, color, "|_", "", "");
                            let p = if matches!(item, Value::Map(_)) {
                                ""
                            } else {
                                "- "
                            };
                            self.display(item, indent + 2, p, depth + 1);
                        }
                        scalar => self.display(scalar, indent, "- ", depth + 1),
                    }
                }
            }
            Value::Map(m) => {
                let color = self.struct_color(self.colors.cyan);
                if indent != 0 {
                    self.push(indent, color, "----------", "", "");
                }
                if is_ordered(self.opts, depth) {
                    for (key, val) in m {
                        self.push(indent, color, key, prefix, ":");
                        self.display(val, indent + 4, "", depth + 1);
                    }
                } else {
                    let mut entries: Vec<(&String, &Value)> = m.iter().collect();
                    entries.sort_by(|a, b| a.0.cmp(b.0));
                    for (key, val) in entries {
                        self.push(indent, color, key, prefix, ":");
                        self.display(val, indent + 4, "", depth + 1);
                    }
                }
            }
        }
    }
}

/// The nested outputter's text for `data` (the `{minion_id: ret}` wrapper).
pub fn output(data: &Value, opts: &OutputOptions) -> String {
    let colors = if opts.color { &COLORS_ON } else { &COLORS_OFF };
    let mut nest = Nest {
        colors,
        opts,
        lines: Lines::default(),
    };
    nest.display(data, opts.nested_indent, "", -1);
    nest.lines.into_text()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{pillar_opts, tricky};
    use super::super::{render_with, OutputOptions};
    use crate::{Map, Value};

    /// `salt-call --local --out nested pillar.items` on the tricky pillar
    /// (Salt 3007.8), less the `80: int key` entry brine cannot type.
    const SALT_NESTED: &str = "local:
    ----------
    a key with spaces:
        v
    alpha:
        ----------
        b_key:
            1
        a_key:
            2
        nested:
            ----------
            deeper:
                ----------
                deepest:
                    - 1
                    - 2
            empty_dict:
                ----------
            empty_list:
    an_int:
        42
    floats:
        - 1.0
        - 0.1
        - 1.5e+20
        - -0.0
        - 3.14159
        - 1e-07
    key:colon:
        v
    lists:
        - scalar
        |_
          - nested
          - list
          |_
            - deeper
        |_
          ----------
          k1:
              v1
          k0:
              v0
        |_
        |_
          ----------
        - None
        |_
          - a
          - b
        |_
          ----------
          multi:
              l1
              l2
    neg:
        -7
    no_bool:
        False
    nothing:
        None
    strings:
        ----------
        plain:
            hello world
        empty:
        looks_int:
            123
        looks_bool:
            yes
        looks_null:
            null
        tilde:
            ~
        looks_float:
            1.0
        quote_single:
            it's
        quote_double:
            say \"hi\"
        both_quotes:
            it's \"x\"
        backslash:
            C:\\path\\to
        tab:
            a\tb
        leading_space:
             lead
        trailing_space:
            trail 
        colon:
            a: b
        dash:
            - x
        star:
            *star
        hash:
            #hash
        at:
            @at
        pct:
            %pct
        unicode:
            héllo wörld ☃
        emoji:
            😀
        esc:
            x?y
        crlf:
            line1
            line2
        multiline:
            first line
              indented second
            
            after blank
        folded_trailing:
            ends with newline
        long:
            this is a rather long string that goes on and on and on past the eighty column limit of yaml
        longword:
            aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
    yes_bool:
        True
    zeta:
        last
";

    #[test]
    fn pillar_matches_real_salt() {
        let out = render_with("nested", "local", &tricky(), &pillar_opts()).unwrap_or_default();
        assert_eq!(out, SALT_NESTED);
    }

    #[test]
    fn plain_dicts_are_sorted_everywhere() {
        // grains.items: every dict is a plain dict, so `b` sorts before `c`
        // at every level (checked with salt-call --out nested grains.items).
        let mut inner = Map::default();
        inner.insert("c".into(), Value::Int(1));
        inner.insert("b".into(), Value::Int(2));
        let mut top = Map::default();
        top.insert("z".into(), Value::Map(inner));
        top.insert("a".into(), Value::List(vec![]));
        let out = render_with(
            "nested",
            "local",
            &Value::Map(top),
            &OutputOptions::default(),
        )
        .unwrap_or_default();
        assert_eq!(
            out,
            "local:\n    ----------\n    a:\n    z:\n        ----------\n        b:\n            2\n        c:\n            1\n"
        );
    }

    /// `salt-call --force-color --out nested test.arg 1 a=b "[1, [2], {x: 1}]"`
    /// (kwargs trimmed to `a`).
    const SALT_COLOR: &str = "\x1b[0;36mlocal\x1b[0;0m:
    \x1b[0;36m----------\x1b[0;0m
    \x1b[0;36margs\x1b[0;0m:
        \x1b[0;1;33m- 1\x1b[0;0m
        \x1b[0;32m|_\x1b[0;0m
          \x1b[0;1;33m- 1\x1b[0;0m
          \x1b[0;32m|_\x1b[0;0m
            \x1b[0;1;33m- 2\x1b[0;0m
          \x1b[0;32m|_\x1b[0;0m
            \x1b[0;36m----------\x1b[0;0m
            \x1b[0;36mx\x1b[0;0m:
                \x1b[0;1;33m1\x1b[0;0m
    \x1b[0;36mkwargs\x1b[0;0m:
        \x1b[0;36m----------\x1b[0;0m
        \x1b[0;36ma\x1b[0;0m:
            \x1b[0;32mb\x1b[0;0m
";

    /// `salt-call --force-color --out nested cmd.run_all "sh -c 'echo out; exit 3'"`
    /// (retcode 3: keys and dashes turn red).
    const SALT_COLOR_FAILED: &str = "\x1b[0;31mlocal\x1b[0;0m:
    \x1b[0;31m----------\x1b[0;0m
    \x1b[0;31mretcode\x1b[0;0m:
        \x1b[0;1;33m3\x1b[0;0m
    \x1b[0;31mstderr\x1b[0;0m:
    \x1b[0;31mstdout\x1b[0;0m:
        \x1b[0;32mout\x1b[0;0m
";

    #[test]
    fn colors_match_real_salt() {
        let ret: serde_json::Value =
            serde_json::from_str(r#"{"args": [1, [1, [2], {"x": 1}]], "kwargs": {"a": "b"}}"#)
                .unwrap_or_default();
        let opts = OutputOptions {
            color: true,
            ..OutputOptions::default()
        };
        let out =
            render_with("nested", "local", &Value::from_json(&ret), &opts).unwrap_or_default();
        assert_eq!(out, SALT_COLOR);

        let ret: serde_json::Value =
            serde_json::from_str(r#"{"retcode": 3, "stderr": "", "stdout": "out"}"#)
                .unwrap_or_default();
        let opts = OutputOptions {
            color: true,
            retcode: 3,
            ..OutputOptions::default()
        };
        let out =
            render_with("nested", "local", &Value::from_json(&ret), &opts).unwrap_or_default();
        assert_eq!(out, SALT_COLOR_FAILED);
    }

    #[test]
    fn scalars_and_indent() {
        let opts = OutputOptions::default();
        let r = |v: Value| render_with("nested", "local", &v, &opts).unwrap_or_default();
        assert_eq!(r(Value::Null), "local:\n    None\n");
        assert_eq!(r(Value::Float(2.0)), "local:\n    2.0\n");
        // An empty string prints no line, and the trailing whitespace goes.
        assert_eq!(r(Value::from("")), "local:\n");
        assert_eq!(r(Value::from("a \n")), "local:\n    a\n");
        let indented = OutputOptions {
            nested_indent: 2,
            ..OutputOptions::default()
        };
        assert_eq!(
            render_with("nested", "local", &Value::from("x"), &indented).unwrap_or_default(),
            "  ----------\n  local:\n      x\n"
        );
    }
}
