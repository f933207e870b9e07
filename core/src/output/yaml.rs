//! Salt's `yaml` outputter: PyYAML `safe_dump(data,
//! default_flow_style=False)` of the `{minion_id: ret}` dict, keys in order.
//! The emitter itself is the shared one in `crate::yaml`.

use super::{OutputError, OutputIndent, OutputOptions};
use crate::Value;

/// The yaml outputter's text for `data`. `output_indent` as Salt reads it:
/// a number from 0 up is the indent in block style, a negative number
/// means flow style (everything on one line); unset or `pretty`, Salt's
/// default (block style, indent 2).
pub fn output(data: &Value, opts: &OutputOptions) -> Result<String, OutputError> {
    // Salt's outputter keeps mapping order (unlike `nested`, which sorts
    // plain dicts): checked with real salt-call on the tree of the test below.
    let (flow_style, indent) = match opts.output_indent {
        OutputIndent::Spaces(n) if n < 0 => (true, 0),
        OutputIndent::Spaces(n) => (false, n),
        OutputIndent::Unset | OutputIndent::Pretty => (false, 2),
    };
    Ok(crate::yaml::dump_indented(
        data,
        &crate::yaml::DumpOptions {
            flow_style,
            sort_keys: false,
        },
        indent,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::{render_with, OutputIndent, OutputOptions};
    use crate::Value;

    /// `salt --out yaml --out-indent N web1 grains.item os role` (3007.8).
    #[test]
    fn output_indent_as_salt() {
        let mut m = crate::Map::default();
        m.insert("os".into(), "Debian".into());
        m.insert("role".into(), Value::List(vec!["web".into()]));
        let v = Value::Map(m);
        let with = |n| OutputOptions {
            output_indent: OutputIndent::Spaces(n),
            ..OutputOptions::default()
        };
        let r = |o: &OutputOptions| render_with("yaml", "web1", &v, o).unwrap_or_default();
        assert_eq!(r(&with(4)), "web1:\n    os: Debian\n    role:\n    - web\n");
        assert_eq!(r(&with(-1)), "{web1: {os: Debian, role: [web]}}\n");
        // libyaml keeps 2 for an indent outside 2..=9.
        assert_eq!(r(&with(0)), r(&OutputOptions::default()));
        assert_eq!(r(&with(0)), "web1:\n  os: Debian\n  role:\n  - web\n");
    }

    /// `salt-call --local --out yaml pillar.items` on the tricky pillar
    /// (Salt 3007.8), less the entries brine cannot type.
    pub(crate) const SALT_YAML: &str = r##"local:
  zeta: last
  alpha:
    b_key: 1
    a_key: 2
    nested:
      deeper:
        deepest:
        - 1
        - 2
      empty_dict: {}
      empty_list: []
  nothing: null
  yes_bool: true
  no_bool: false
  an_int: 42
  neg: -7
  floats:
  - 1.0
  - 0.1
  - 1.5e+20
  - -0.0
  - 3.14159
  - 1.0e-07
  strings:
    plain: hello world
    empty: ''
    looks_int: '123'
    looks_bool: 'yes'
    looks_null: 'null'
    tilde: '~'
    looks_float: '1.0'
    quote_single: it's
    quote_double: say "hi"
    both_quotes: it's "x"
    backslash: C:\path\to
    tab: "a\tb"
    leading_space: ' lead'
    trailing_space: 'trail '
    colon: 'a: b'
    dash: '- x'
    star: '*star'
    hash: '#hash'
    at: '@at'
    pct: '%pct'
    unicode: héllo wörld ☃
    emoji: "\U0001F600"
    esc: "x\ey"
    crlf: "line1\r\nline2"
    multiline: "first line\n  indented second\n\nafter blank\n"
    folded_trailing: 'ends with newline

      '
    long: this is a rather long string that goes on and on and on past the eighty
      column limit of yaml
    longword: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
  lists:
  - scalar
  - - nested
    - list
    - - deeper
  - k1: v1
    k0: v0
  - []
  - {}
  - null
  - - a
    - b
  - multi: 'l1

      l2

      '
  a key with spaces: v
  key:colon: v
"##;

    #[test]
    fn pillar_matches_real_salt() {
        use super::super::render_with;
        use super::super::tests::{pillar_opts, tricky};
        let out = render_with("yaml", "local", &tricky(), &pillar_opts()).unwrap_or_default();
        assert_eq!(out, SALT_YAML);
    }
}
