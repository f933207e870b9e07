//! Salt's `yaml` outputter: PyYAML `safe_dump(data,
//! default_flow_style=False)` of the `{minion_id: ret}` dict, keys in order.
//! The emitter itself is the shared one in `crate::yaml`.

use super::{OutputError, OutputOptions};
use crate::Value;

/// The yaml outputter's text for `data`. `output_indent` is not honoured
/// (the shared emitter has no indent setting); Salt's default is used.
pub fn output(data: &Value, _opts: &OutputOptions) -> Result<String, OutputError> {
    // Salt's outputter keeps mapping order (unlike `nested`, which sorts
    // plain dicts): checked with real salt-call on the tree of the test below.
    Ok(crate::yaml::dump_with(
        data,
        &crate::yaml::DumpOptions {
            flow_style: false,
            sort_keys: false,
        },
    ))
}

#[cfg(test)]
mod tests {
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
