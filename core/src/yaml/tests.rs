//! The loader and dumper checked against what Salt 3007.8 answered.

use super::error::MAX_DEPTH;
use super::*;
use crate::value::{python_float_repr, Map};
use crate::Value;

/// The same canonical text `gen.py` prints for Salt's answer.
fn canon(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => python_float_repr(*f),
        Value::Str(s) => serde_json::to_string(s).unwrap(),
        Value::List(l) => format!("[{}]", l.iter().map(canon).collect::<Vec<_>>().join(",")),
        Value::Map(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}:{}", serde_json::to_string(k).unwrap(), canon(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
    }
}

fn load_canon(yaml: &str) -> String {
    match load(yaml) {
        Ok(v) => canon(&v),
        Err(e) => panic!("{yaml:?} failed to load: {e}"),
    }
}

fn load_err(yaml: &str) -> YamlError {
    match load(yaml) {
        Ok(v) => panic!("{yaml:?} loaded as {}", canon(&v)),
        Err(e) => e,
    }
}

/// The conformance case `pillar-yaml11-scalars` (copied here so the
/// test stands alone): scalars.sls and what `salt-call pillar.items`
/// answered for it (expected/00.json).
#[test]
fn conformance_pillar_yaml11_scalars() {
    let sls = r#"b_yes: yes
b_no: no
b_on: on
b_off: off
b_true: True
s_quoted_yes: 'yes'
mode_octal: 0644
mode_plain: 644
mode_str: '0644'
hex: 0x1F
flt: 1.5
exp: 1e3
nul: ~
empty:
date: 2024-01-02
ver: 1.10
anchors:
  base: &base {a: 1, b: 2}
  derived:
    <<: *base
    b: 3
multi: |
  line one
  line two
folded: >
  folded
  text
"#;
    let expected: serde_json::Value = serde_json::from_str(
            r#"{"b_yes": true, "b_no": false, "b_on": true, "b_off": false, "b_true": true, "s_quoted_yes": "yes", "mode_octal": 644, "mode_plain": 644, "mode_str": "0644", "hex": 31, "flt": 1.5, "exp": "1e3", "nul": null, "empty": null, "date": "2024-01-02", "ver": 1.1, "anchors": {"base": {"a": 1, "b": 2}, "derived": {"a": 1, "b": 3}}, "multi": "line one\nline two\n", "folded": "folded text\n"}"#,
        )
        .unwrap();
    let got = load(sls).unwrap();
    assert_eq!(got.to_json(), expected);
    // File order, as Salt's OrderedDict keeps it.
    let keys: Vec<&String> = got.as_map().unwrap().keys().collect();
    let want: Vec<&String> = expected.as_object().unwrap().keys().collect();
    assert_eq!(keys, want);
}

/// Decode the dump corpus encoding (floats as `{"f": repr}`).
fn dec(j: &serde_json::Value) -> Value {
    match j {
        serde_json::Value::Object(o) if o.len() == 1 && o.contains_key("f") => {
            let r = o["f"].as_str().unwrap();
            Value::Float(match r {
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                "nan" => f64::NAN,
                r => r.parse().unwrap(),
            })
        }
        serde_json::Value::Object(o) => {
            Value::Map(o.iter().map(|(k, v)| (k.clone(), dec(v))).collect())
        }
        serde_json::Value::Array(a) => Value::List(a.iter().map(dec).collect()),
        other => Value::from_json(other),
    }
}

/// A small deterministic generator, so the fuzz test is repeatable.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const FUZZ_SEED_DOCS: &[&str] = &[
    "a: 1\nb: [1, 2, {c: d}]\nc: {e: 'f', g: \"h\\n\"}\n",
    "base: &b {x: 1, y: [1, 2]}\nd:\n  <<: *b\n  z: !!str 3\n- x\n",
    "k: |\n  text\n   more\nj: >-\n  folded\n  text\n? complex\n: value\n",
    "- a\n- - b\n  - c\n- {d: e, f: [g, h]}\n- 'i''j'\n- \"k\\tl\"\n- &m n\n- *m\n",
    "%YAML 1.1\n---\n!!map {a: !!seq [!!int 1, !foo x], ? [y]: z}\n...\n",
    "a:\tb\n\tc: d\n&x: 1\n*y: 2\n<<: [*x]\n=: 3\n",
];

#[test]
fn never_panics_on_broken_input() {
    let mut rng = Lcg(42);
    let alphabet: Vec<char> = "-:?[]{},&*!|>'\"%@`#\n \t\r\\~<=.0a1é\u{85}\u{FEFF}\u{2028}"
        .chars()
        .collect();
    for doc in FUZZ_SEED_DOCS {
        let chars: Vec<char> = doc.chars().collect();
        // Every truncation.
        for cut in 0..=chars.len() {
            let text: String = chars[..cut].iter().collect();
            let _ = load(&text);
        }
        // Random insertions, deletions and replacements.
        for _ in 0..3000 {
            let mut c = chars.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(c.len() + 1);
                let ch = alphabet[rng.below(alphabet.len())];
                match rng.below(3) {
                    0 => c.insert(at, ch),
                    1 if at < c.len() => {
                        c.remove(at);
                    }
                    _ if at < c.len() => c[at] = ch,
                    _ => c.push(ch),
                }
            }
            let text: String = c.into_iter().collect();
            if let Ok(v) = load(&text) {
                let _ = dump(&v);
                let _ = dump_flow(&v);
            }
        }
    }
    // Pure noise.
    for _ in 0..3000 {
        let len = rng.below(40);
        let text: String = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        let _ = load(&text);
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for text in [
        "[".repeat(100_000),
        "{".repeat(100_000),
        format!("{}1{}", "[".repeat(5_000), "]".repeat(5_000)),
        format!("{}x", "- ".repeat(2_000)),
        (0..2_000)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
            .collect::<String>(),
    ] {
        let e = load(&text).unwrap_err();
        assert!(e.line >= 1 && e.column >= 1, "{e:?}");
    }
    // Just inside the limit: loads, dumps and drops within 1 MiB of
    // stack, even unoptimised.
    let worker = std::thread::Builder::new().stack_size(1 << 20);
    let done = worker
        .spawn(|| {
            for ok in [
                format!("{}1", "- ".repeat(MAX_DEPTH)),
                (0..MAX_DEPTH)
                    .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
                    .collect::<String>(),
                format!("{}1{}", "[".repeat(250), "]".repeat(250)),
            ] {
                let v = load(&ok).unwrap();
                assert!(!dump(&v).is_empty());
                assert!(!dump_flow(&v).is_empty());
                let _ = v.to_json();
            }
        })
        .unwrap()
        .join();
    assert!(done.is_ok());
}

#[test]
fn alias_bombs_and_recursion_are_errors() {
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        bomb.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    let e = load(&bomb).unwrap_err();
    assert_eq!(e.message, "aliases expand to too many values");
    for text in ["a: &a [*a]", "a: &a {b: *a}", "a: &a {b: [1, {c: *a}]}"] {
        let e = load(text).unwrap_err();
        assert_eq!(e.message, "found unconstructable recursive node", "{text}");
    }
}

#[test]
fn loads_like_salt() {
    for (yaml, want) in SALT_LOADS {
        match (load(yaml), want) {
            (Ok(v), Some(w)) => assert_eq!(canon(&v), *w, "{yaml:?}"),
            (Err(_), None) => {}
            (got, want) => panic!("{yaml:?}: Salt gave {want:?}, we gave {got:?}"),
        }
    }
}

#[test]
fn dumps_like_salt() {
    for (value, block, flow) in SALT_DUMPS {
        let v = dec(&serde_json::from_str(value).unwrap());
        assert_eq!(dump(&v), *block, "block {value}");
        assert_eq!(dump_flow(&v), *flow, "flow {value}");
        // The `yaml` Jinja filter is the flow text, stripped.
        assert_eq!(format_yaml(&v, true), flow.trim(), "|yaml {value}");
        assert_eq!(format_yaml(&v, false), block.trim(), "|yaml(False) {value}");
    }
}

#[test]
fn jinja_quote_filters_like_salt() {
    for (text, dq, sq, enc) in SALT_QUOTES {
        assert_eq!(yaml_dquote(text), *dq, "{text:?}");
        assert_eq!(yaml_squote(text), *sq, "{text:?}");
        let v = Value::Str(text.to_string());
        assert_eq!(yaml_encode(&v).ok().as_deref(), *enc, "{text:?}");
    }
    // Salt's docs example for `{{ data|yaml }}`.
    let data = load("{foo: true, bar: 42, baz: [1, 2, 3], qux: 2.0}").unwrap();
    assert_eq!(
        format_yaml(&data, true),
        "{bar: 42, baz: [1, 2, 3], foo: true, qux: 2.0}"
    );
    assert_eq!(
        format_yaml(&data, false),
        "bar: 42\nbaz:\n- 1\n- 2\n- 3\nfoo: true\nqux: 2.0"
    );
    // yaml_encode takes scalars only; yaml_dquote takes Python's str().
    assert_eq!(yaml_encode(&Value::Bool(true)).unwrap(), "true");
    assert_eq!(yaml_encode(&Value::Null).unwrap(), "null");
    assert_eq!(yaml_encode(&Value::Float(1e17)).unwrap(), "1.0e+17");
    assert_eq!(
        yaml_encode(&Value::List(vec![])).unwrap_err().to_string(),
        "yaml_encode() only works with YAML scalar data; failed for <class 'list'>"
    );
    assert_eq!(yaml_dquote(&Value::Bool(true).to_python_str()), "\"True\"");
    assert_eq!(yaml_squote(&Value::Null.to_python_str()), "'None'");
}

/// `salt-call --local --out yaml pillar.items` on a tree holding this
/// SLS printed exactly `want`.
#[test]
fn salt_call_out_yaml() {
    let sls = "zeta: 1\nalpha: 2\nstrs:\n  - 'yes'\n  - '0644'\n  - ''\n  - '1e3'\n  - '~'\n  - '2024-01-02'\n  - 'a: b'\n  - ' lead'\n  - \"multi\\nline\\n\"\n  - \"tab\\there\"\n  - \"é unicode 😀\"\n  - \"quote's\"\n  - '<<'\n  - y\n  - long words long words long words long words long words long words long words long words\nnums: [1, -2, 1.5, 0.1, 100000000000000000000.0, .inf, .nan, 3.0, 1.0e-5, 0644, 0x1F, 1:20]\nempty_map: {}\nempty_list: []\nnested:\n  - a: 1\n    b: [1, 2]\n  - - x\n    - y\n  - {}\nnul: ~\nbools: [yes, off]\n'key with: colon': v\n? |\n  multi\n  line key\n: v\n\"80\": str80\n";
    let want = "local:\n  '80': str80\n  alpha: 2\n  bools:\n  - true\n  - false\n  empty_list: []\n  empty_map: {}\n  'key with: colon': v\n  ? 'multi\n\n    line key\n\n    '\n  : v\n  nested:\n  - a: 1\n    b:\n    - 1\n    - 2\n  - - x\n    - y\n  - {}\n  nul: null\n  nums:\n  - 1\n  - -2\n  - 1.5\n  - 0.1\n  - 1.0e+20\n  - .inf\n  - .nan\n  - 3.0\n  - 1.0e-05\n  - 644\n  - 31\n  - 80\n  strs:\n  - 'yes'\n  - '0644'\n  - ''\n  - 1e3\n  - '~'\n  - '2024-01-02'\n  - 'a: b'\n  - ' lead'\n  - 'multi\n\n    line\n\n    '\n  - \"tab\\there\"\n  - \"é unicode \\U0001F600\"\n  - quote's\n  - '<<'\n  - y\n  - long words long words long words long words long words long words long words long\n    words\n  zeta: 1\n";
    let mut ret = Map::default();
    ret.insert("local".into(), load(sls).unwrap());
    assert_eq!(dump(&Value::Map(ret)), want);
}

#[test]
fn dump_keeps_order_when_asked() {
    let v = load("b: 1\na: {d: 2, c: 3}").unwrap();
    let opts = DumpOptions {
        flow_style: false,
        sort_keys: false,
    };
    assert_eq!(dump_with(&v, &opts), "b: 1\na:\n  d: 2\n  c: 3\n");
    assert_eq!(dump(&v), "a:\n  c: 3\n  d: 2\nb: 1\n");
}

#[test]
fn empty_documents_are_null() {
    for text in [
        "",
        "\n\n",
        "# only a comment\n",
        "---",
        "--- \n...\n",
        "%YAML 1.1\n---\n",
    ] {
        assert_eq!(load(text).unwrap(), Value::Null, "{text:?}");
    }
}

/// Salt's own error texts (`str(exc)`), positions included.
#[test]
fn errors_read_like_salt() {
    let cases = [
            ("a: 1\na: 2", "while constructing a mapping\n  in \"<unicode string>\", line 1, column 1\nfound conflicting ID 'a'\n  in \"<unicode string>\", line 2, column 1"),
            ("x:\n  a: 1\n  b: 2\n  a: 3", "while constructing a mapping\n  in \"<unicode string>\", line 2, column 3\nfound conflicting ID 'a'\n  in \"<unicode string>\", line 4, column 3"),
            ("1: a\ntrue: b", "while constructing a mapping\n  in \"<unicode string>\", line 1, column 1\nfound conflicting ID 'True'\n  in \"<unicode string>\", line 2, column 1"),
            ("a: 1\n---\nb: 2", "expected a single document in the stream\n  in \"<unicode string>\", line 1, column 1\nbut found another document\n  in \"<unicode string>\", line 2, column 1"),
            ("a: *nope", "found undefined alias\n  in \"<unicode string>\", line 1, column 4"),
            ("a: &x 1\nb: &x 2", "found duplicate anchor; first occurrence\n  in \"<unicode string>\", line 1, column 4\nsecond occurrence\n  in \"<unicode string>\", line 2, column 4"),
            ("m:\n  <<: 1", "while constructing a mapping\n  in \"<unicode string>\", line 2, column 3\nexpected a mapping or list of mappings for merging, but found scalar\n  in \"<unicode string>\", line 2, column 7"),
            ("m:\n  <<: [1]", "while constructing a mapping\n  in \"<unicode string>\", line 2, column 3\nexpected a mapping for merging, but found scalar\n  in \"<unicode string>\", line 2, column 8"),
            ("b: &x {a: 1, c: 2}\nc: &y {a: 3, d: 4}\nm:\n  <<: [*x, *y]", "while constructing a mapping\n  in \"<unicode string>\", line 4, column 3\nfound conflicting ID 'a'\n  in \"<unicode string>\", line 1, column 8"),
            ("a: !foo 1", "could not determine a constructor for the tag '!foo'\n  in \"<unicode string>\", line 1, column 4"),
            ("a: !!foo 1", "could not determine a constructor for the tag 'tag:yaml.org,2002:foo'\n  in \"<unicode string>\", line 1, column 4"),
            ("a: =", "could not determine a constructor for the tag 'tag:yaml.org,2002:value'\n  in \"<unicode string>\", line 1, column 4"),
            ("a: !!str [1]", "expected a scalar node, but found sequence\n  in \"<unicode string>\", line 1, column 4"),
            ("a: !!map x", "expected a mapping node, but found scalar\n  in \"<unicode string>\", line 1, column 4"),
            ("a: !!seq x", "expected a sequence node, but found scalar\n  in \"<unicode string>\", line 1, column 4"),
            ("a: {b: 1}\n? [1]\n: 2", "while constructing a mapping\n  in \"<unicode string>\", line 1, column 1\nfound unacceptable key\n  in \"<unicode string>\", line 2, column 3"),
        ];
    for (yaml, want) in cases {
        assert_eq!(load_err(yaml).salt_text(), want, "{yaml:?}");
    }
    let e = load_err("a: \u{1}");
    assert_eq!((e.line, e.column, e.kind), (1, 4, YamlErrorKind::Syntax));
    assert_eq!(
        e.message,
        "unacceptable character #x0001: control characters are not allowed"
    );
    // Python errors that are not YAML errors still come back as errors.
    for yaml in [
        "a: 0_",
        "a: 0b_",
        "a: !!int abc",
        "a: !!bool y",
        "a: !!float x",
    ] {
        assert_eq!(load_err(yaml).kind, YamlErrorKind::Value, "{yaml:?}");
    }
    // Syntax errors carry a position.
    let e = load_err("a: [1\nb: 2\n");
    assert_eq!(e.kind, YamlErrorKind::Syntax);
    assert!(e.line >= 1 && e.column >= 1);
}

#[test]
fn merge_keys_follow_salt() {
    // Merged keys first, the mapping's own keys win and keep their place.
    assert_eq!(
        load_canon("b: &x {a: 1, c: 2}\nc: &y {e: 3, d: 4}\nm:\n  k: 0\n  <<: [*y, *x]\n  c: 9"),
        r#"{"b":{"a":1,"c":2},"c":{"e":3,"d":4},"m":{"a":1,"e":3,"d":4,"k":0,"c":9}}"#
    );
    // Merged keys are dropped by raw text: `"1"` hides a merged `1`.
    assert_eq!(
        load_canon("b: &x {1: 1, c: 2}\nm:\n  \"1\": 0\n  <<: *x"),
        r#"{"b":{"1":1,"c":2},"m":{"c":2,"1":0}}"#
    );
    // Several `<<` keys, nested merges, a mapping merging itself.
    assert_eq!(
        load_canon("b: &x {a: 1}\nm:\n  <<: *x\n  <<: {z: 1}"),
        r#"{"b":{"a":1},"m":{"a":1,"z":1}}"#
    );
    assert_eq!(
        load_canon("base: &b {x: 1, <<: {y: 2}}\nd:\n  <<: *b\n  z: 3"),
        r#"{"base":{"y":2,"x":1},"d":{"y":2,"x":1,"z":3}}"#
    );
    assert_eq!(load_canon("a: &a {<<: *a}"), r#"{"a":{}}"#);
    // `<<` quoted is an ordinary key; `=` as a key is the string "=".
    assert_eq!(
        load_canon("m:\n  '<<': {a: 1}\n=: 2"),
        r#"{"m":{"<<":{"a":1}},"=":2}"#
    );
}

#[test]
fn libyaml_leniencies() {
    // `key:<TAB>value` is accepted, as libyaml does.
    assert_eq!(
        load_canon("a:\t1\nb:\t \tx y\nc: '\t'"),
        r#"{"a":1,"b":"x y","c":"\t"}"#
    );
    // `&name:` anchors an empty key in libyaml (names are [0-9A-Za-z_-]).
    assert_eq!(
        load_canon("- &ref:\n    p: 1\n- &ref2:\n  q: 2\n- *ref"),
        r#"[{"null":{"p":1}},{"null":null,"q":2},null]"#
    );
    let e = load_err("a: &x.y 1");
    assert_eq!(
        e.message,
        "did not find expected alphabetic or numeric character"
    );
    assert_eq!((e.line, e.column), (1, 6));
    // The non-specific tag resolves quoted text like plain text.
    assert_eq!(
        load_canon("a: ! '12'\nb: !\nc: ! ''"),
        r#"{"a":12,"b":"","c":null}"#
    );
}

#[test]
fn big_and_odd_numbers() {
    // Python ints have no size limit; beyond i64 we keep the digits.
    assert_eq!(
        load("a: 99999999999999999999").unwrap().get("a"),
        Some(&Value::Str("99999999999999999999".into()))
    );
    assert_eq!(
        load_canon("a: -9223372036854775808\nb: 1_000\nc: 190:20:30\nd: 0o17"),
        r#"{"a":-9223372036854775808,"b":1000,"c":685230,"d":"0o17"}"#
    );
    assert_eq!(
        load_canon("[.inf, -.Inf, 1:20.5, 1.e+5, 1_0.5_0]"),
        "[inf,-inf,80.5,100000.0,10.5]"
    );
    assert!(matches!(load("a: .NaN").unwrap().get("a"), Some(Value::Float(f)) if f.is_nan()));
}

/// (document, what Salt's loader gave in the canonical form of `canon`,
/// or `None` where Salt raised an error). Generated with real Salt 3007.8.
const SALT_LOADS: &[(&str, Option<&str>)] = &[
        ("a: yes", Some("{\"a\":true}")),
        ("a: Yes", Some("{\"a\":true}")),
        ("a: YES", Some("{\"a\":true}")),
        ("a: yEs", Some("{\"a\":\"yEs\"}")),
        ("a: no", Some("{\"a\":false}")),
        ("a: No", Some("{\"a\":false}")),
        ("a: NO", Some("{\"a\":false}")),
        ("a: true", Some("{\"a\":true}")),
        ("a: True", Some("{\"a\":true}")),
        ("a: TRUE", Some("{\"a\":true}")),
        ("a: tRue", Some("{\"a\":\"tRue\"}")),
        ("a: false", Some("{\"a\":false}")),
        ("a: False", Some("{\"a\":false}")),
        ("a: FALSE", Some("{\"a\":false}")),
        ("a: on", Some("{\"a\":true}")),
        ("a: On", Some("{\"a\":true}")),
        ("a: ON", Some("{\"a\":true}")),
        ("a: off", Some("{\"a\":false}")),
        ("a: Off", Some("{\"a\":false}")),
        ("a: OFF", Some("{\"a\":false}")),
        ("a: y", Some("{\"a\":\"y\"}")),
        ("a: Y", Some("{\"a\":\"Y\"}")),
        ("a: n", Some("{\"a\":\"n\"}")),
        ("a: N", Some("{\"a\":\"N\"}")),
        ("a: ~", Some("{\"a\":null}")),
        ("a: null", Some("{\"a\":null}")),
        ("a: Null", Some("{\"a\":null}")),
        ("a: NULL", Some("{\"a\":null}")),
        ("a: nUll", Some("{\"a\":\"nUll\"}")),
        ("a: ", Some("{\"a\":null}")),
        ("a: 0", Some("{\"a\":0}")),
        ("a: 00", Some("{\"a\":0}")),
        ("a: 000", Some("{\"a\":0}")),
        ("a: 0644", Some("{\"a\":644}")),
        ("a: 0_644", Some("{\"a\":644}")),
        ("a: +0644", Some("{\"a\":420}")),
        ("a: -0644", Some("{\"a\":-420}")),
        ("a: 0o644", Some("{\"a\":\"0o644\"}")),
        ("a: 09", Some("{\"a\":\"09\"}")),
        ("a: 08", Some("{\"a\":\"08\"}")),
        ("a: 0_", None),
        ("a: 1_", Some("{\"a\":1}")),
        ("a: 1__", Some("{\"a\":1}")),
        ("a: 1_000", Some("{\"a\":1000}")),
        ("a: -1_000", Some("{\"a\":-1000}")),
        ("a: +12", Some("{\"a\":12}")),
        ("a: -0", Some("{\"a\":0}")),
        ("a: +0", Some("{\"a\":0}")),
        ("a: 0b101", Some("{\"a\":5}")),
        ("a: 0b", Some("{\"a\":\"0b\"}")),
        ("a: 0b_", None),
        ("a: -0b101", Some("{\"a\":-5}")),
        ("a: 0B101", Some("{\"a\":\"0B101\"}")),
        ("a: 0x1F", Some("{\"a\":31}")),
        ("a: 0x1f", Some("{\"a\":31}")),
        ("a: 0X1F", Some("{\"a\":\"0X1F\"}")),
        ("a: -0x1F", Some("{\"a\":-31}")),
        ("a: 0x_", None),
        ("a: 0xg", Some("{\"a\":\"0xg\"}")),
        ("a: 0x1_F", Some("{\"a\":31}")),
        ("a: 1:20", Some("{\"a\":80}")),
        ("a: 1:70", Some("{\"a\":\"1:70\"}")),
        ("a: 01:20", Some("{\"a\":\"01:20\"}")),
        ("a: 1:20.5", Some("{\"a\":80.5}")),
        ("a: 1:2:3", Some("{\"a\":3723}")),
        ("a: -1:20", Some("{\"a\":-80}")),
        ("a: 0:20", Some("{\"a\":\"0:20\"}")),
        ("a: 1:60", Some("{\"a\":\"1:60\"}")),
        ("a: 1:5:9", Some("{\"a\":3909}")),
        ("a: 190:20:30", Some("{\"a\":685230}")),
        ("a: 1:20:", None),
        ("a: 1::20", Some("{\"a\":\"1::20\"}")),
        ("a: 9223372036854775807", Some("{\"a\":9223372036854775807}")),
        ("a: 0x7FFFFFFFFFFFFFFF", Some("{\"a\":9223372036854775807}")),
        ("a: 1.5", Some("{\"a\":1.5}")),
        ("a: 1.10", Some("{\"a\":1.1}")),
        ("a: 1.", Some("{\"a\":1.0}")),
        ("a: 0.", Some("{\"a\":0.0}")),
        ("a: 00.5", Some("{\"a\":0.5}")),
        ("a: 1.0e3", Some("{\"a\":\"1.0e3\"}")),
        ("a: 1.0e+3", Some("{\"a\":1000.0}")),
        ("a: 1.0E-3", Some("{\"a\":0.001}")),
        ("a: 1.e+5", Some("{\"a\":100000.0}")),
        ("a: 1e3", Some("{\"a\":\"1e3\"}")),
        ("a: 1e+3", Some("{\"a\":\"1e+3\"}")),
        ("a: 1E3", Some("{\"a\":\"1E3\"}")),
        ("a: .5", Some("{\"a\":0.5}")),
        ("a: -.5", Some("{\"a\":\"-.5\"}")),
        ("a: +.5", Some("{\"a\":\"+.5\"}")),
        ("a: .5e+1", Some("{\"a\":5.0}")),
        ("a: ._", Some("{\"a\":\"._\"}")),
        ("a: .", Some("{\"a\":\".\"}")),
        ("a: 1._", Some("{\"a\":1.0}")),
        ("a: 1_.5", Some("{\"a\":1.5}")),
        ("a: 1.2.3", Some("{\"a\":\"1.2.3\"}")),
        ("a: +.inf", Some("{\"a\":inf}")),
        ("a: .inf", Some("{\"a\":inf}")),
        ("a: -.inf", Some("{\"a\":-inf}")),
        ("a: .Inf", Some("{\"a\":inf}")),
        ("a: .INF", Some("{\"a\":inf}")),
        ("a: .iNf", Some("{\"a\":\".iNf\"}")),
        ("a: .nan", Some("{\"a\":nan}")),
        ("a: .NaN", Some("{\"a\":nan}")),
        ("a: .NAN", Some("{\"a\":nan}")),
        ("a: -.nan", Some("{\"a\":\"-.nan\"}")),
        ("a: +.nan", Some("{\"a\":\"+.nan\"}")),
        ("a: inf", Some("{\"a\":\"inf\"}")),
        ("a: nan", Some("{\"a\":\"nan\"}")),
        ("a: 1.5e", Some("{\"a\":\"1.5e\"}")),
        ("a: 1.5e+", Some("{\"a\":\"1.5e+\"}")),
        ("a: 1.5e3", Some("{\"a\":\"1.5e3\"}")),
        ("a: 2024-01-02", Some("{\"a\":\"2024-01-02\"}")),
        ("a: 2024-1-2", Some("{\"a\":\"2024-1-2\"}")),
        ("a: 2024-01-02T10:00:00Z", Some("{\"a\":\"2024-01-02T10:00:00Z\"}")),
        ("a: 2024-01-02 10:00:00", Some("{\"a\":\"2024-01-02 10:00:00\"}")),
        ("a: 2001-12-14t21:59:43.10-05:00", Some("{\"a\":\"2001-12-14t21:59:43.10-05:00\"}")),
        ("a: 2001-12-14 21:59:43.10 -5", Some("{\"a\":\"2001-12-14 21:59:43.10 -5\"}")),
        ("a: 2024-13-45", Some("{\"a\":\"2024-13-45\"}")),
        ("a: <<", None),
        ("a: =", None),
        ("a: !", Some("{\"a\":\"\"}")),
        ("a: &", None),
        ("a: *x", None),
        ("a: -", None),
        ("a: --", Some("{\"a\":\"--\"}")),
        ("a: ---x", Some("{\"a\":\"---x\"}")),
        ("a: - x", None),
        ("a: a: b", None),
        ("a: a:b", Some("{\"a\":\"a:b\"}")),
        ("a: a #b", Some("{\"a\":\"a\"}")),
        ("a: a#b", Some("{\"a\":\"a#b\"}")),
        ("a: @a", None),
        ("a: `a", None),
        ("a: %a", None),
        ("a: a,b", Some("{\"a\":\"a,b\"}")),
        ("a: [a", None),
        ("a: a]", Some("{\"a\":\"a]\"}")),
        ("a: {a}", Some("{\"a\":{\"a\":null}}")),
        ("a: ?", None),
        ("a: ? a", None),
        ("a: :", None),
        ("a: ::", None),
        ("a: -1", Some("{\"a\":-1}")),
        ("a: -a", Some("{\"a\":\"-a\"}")),
        ("a: +a", Some("{\"a\":\"+a\"}")),
        ("a: 0.1.2", Some("{\"a\":\"0.1.2\"}")),
        ("a: 1,000", Some("{\"a\":\"1,000\"}")),
        ("a: 1 000", Some("{\"a\":\"1 000\"}")),
        ("a: 12:30:45", Some("{\"a\":45045}")),
        ("a: 0:0", Some("{\"a\":\"0:0\"}")),
        ("a: foo bar", Some("{\"a\":\"foo bar\"}")),
        ("a:   x", Some("{\"a\":\"x\"}")),
        ("a: x  ", Some("{\"a\":\"x\"}")),
        ("a: é", Some("{\"a\":\"é\"}")),
        ("a: 日本", Some("{\"a\":\"日本\"}")),
        ("a: !!int ''", None),
        ("a: !!int '0'", Some("{\"a\":0}")),
        ("a: !!int '00'", Some("{\"a\":0}")),
        ("a: !!int '000'", Some("{\"a\":0}")),
        ("a: !!int '0644'", Some("{\"a\":644}")),
        ("a: !!int '0_644'", Some("{\"a\":644}")),
        ("a: !!int '+0644'", Some("{\"a\":420}")),
        ("a: !!int '-0644'", Some("{\"a\":-420}")),
        ("a: !!int '0o644'", None),
        ("a: !!int '09'", Some("{\"a\":9}")),
        ("a: !!int '08'", Some("{\"a\":8}")),
        ("a: !!int '0_'", None),
        ("a: !!int '1_'", Some("{\"a\":1}")),
        ("a: !!int '1__'", Some("{\"a\":1}")),
        ("a: !!int '1_000'", Some("{\"a\":1000}")),
        ("a: !!int '-1_000'", Some("{\"a\":-1000}")),
        ("a: !!int '+12'", Some("{\"a\":12}")),
        ("a: !!int '-0'", Some("{\"a\":0}")),
        ("a: !!int '+0'", Some("{\"a\":0}")),
        ("a: !!int '0b101'", Some("{\"a\":5}")),
        ("a: !!int '0b'", None),
        ("a: !!int '0b_'", None),
        ("a: !!int '-0b101'", Some("{\"a\":-5}")),
        ("a: !!int '0B101'", None),
        ("a: !!int '0x1F'", Some("{\"a\":31}")),
        ("a: !!int '0x1f'", Some("{\"a\":31}")),
        ("a: !!int '0X1F'", None),
        ("a: !!int '-0x1F'", Some("{\"a\":-31}")),
        ("a: !!int '0x_'", None),
        ("a: !!int '0xg'", None),
        ("a: !!int '0x1_F'", Some("{\"a\":31}")),
        ("a: !!int '1:20'", Some("{\"a\":80}")),
        ("a: !!int '1:70'", Some("{\"a\":130}")),
        ("a: !!int '01:20'", Some("{\"a\":80}")),
        ("a: !!int '1:20.5'", None),
        ("a: !!int '1:2:3'", Some("{\"a\":3723}")),
        ("a: !!int '-1:20'", Some("{\"a\":-80}")),
        ("a: !!int '0:20'", None),
        ("a: !!int '1:60'", Some("{\"a\":120}")),
        ("a: !!int '1:5:9'", Some("{\"a\":3909}")),
        ("a: !!int '190:20:30'", Some("{\"a\":685230}")),
        ("a: !!int '1:20:'", None),
        ("a: !!int '1::20'", None),
        ("a: !!int '9223372036854775807'", Some("{\"a\":9223372036854775807}")),
        ("a: !!int '0x7FFFFFFFFFFFFFFF'", Some("{\"a\":9223372036854775807}")),
        ("a: !!int '1.5'", None),
        ("a: !!int '1.10'", None),
        ("a: !!int '1.'", None),
        ("a: !!int '0.'", None),
        ("a: !!int '00.5'", None),
        ("a: !!int '1.0e3'", None),
        ("a: !!int '1.0e+3'", None),
        ("a: !!int '1.0E-3'", None),
        ("a: !!int '1.e+5'", None),
        ("a: !!int '1e3'", None),
        ("a: !!int '1e+3'", None),
        ("a: !!int '1E3'", None),
        ("a: !!int '.5'", None),
        ("a: !!int '-.5'", None),
        ("a: !!int '+.5'", None),
        ("a: !!int '.5e+1'", None),
        ("a: !!int '._'", None),
        ("a: !!int '.'", None),
        ("a: !!int '1._'", None),
        ("a: !!int '1_.5'", None),
        ("a: !!int '1.2.3'", None),
        ("a: !!int '+.inf'", None),
        ("a: !!int '.inf'", None),
        ("a: !!int '-.inf'", None),
        ("a: !!int '.Inf'", None),
        ("a: !!int '.INF'", None),
        ("a: !!int '.iNf'", None),
        ("a: !!int '.nan'", None),
        ("a: !!int '.NaN'", None),
        ("a: !!int '.NAN'", None),
        ("a: !!int '-.nan'", None),
        ("a: !!int '+.nan'", None),
        ("a: !!int '1.5e'", None),
        ("a: !!int '1.5e+'", None),
        ("a: !!int '1.5e3'", None),
        ("a: !!int '2024-01-02'", None),
        ("a: !!int '2024-1-2'", None),
        ("a: !!int '2024-01-02T10:00:00Z'", None),
        ("a: !!int '2024-01-02 10:00:00'", None),
        ("a: !!int '2001-12-14t21:59:43.10-05:00'", None),
        ("a: !!int '2001-12-14 21:59:43.10 -5'", None),
        ("a: !!int '2024-13-45'", None),
        ("a: !!int '-'", None),
        ("a: !!int '--'", None),
        ("a: !!int '---x'", None),
        ("a: !!int '- x'", None),
        ("a: !!int '-1'", Some("{\"a\":-1}")),
        ("a: !!int '-a'", None),
        ("a: !!int '+a'", None),
        ("a: !!int '0.1.2'", None),
        ("a: !!int '1,000'", None),
        ("a: !!int '1 000'", None),
        ("a: !!int '12:30:45'", Some("{\"a\":45045}")),
        ("a: !!int '0:0'", None),
        ("a: !!float ''", None),
        ("a: !!float '000'", Some("{\"a\":0.0}")),
        ("a: !!float '+0644'", Some("{\"a\":644.0}")),
        ("a: !!float '09'", Some("{\"a\":9.0}")),
        ("a: !!float '1_'", Some("{\"a\":1.0}")),
        ("a: !!float '-1_000'", Some("{\"a\":-1000.0}")),
        ("a: !!float '+0'", Some("{\"a\":0.0}")),
        ("a: !!float '0b_'", None),
        ("a: !!float '0x1F'", None),
        ("a: !!float '-0x1F'", None),
        ("a: !!float '0x1_F'", None),
        ("a: !!float '01:20'", Some("{\"a\":80.0}")),
        ("a: !!float '-1:20'", Some("{\"a\":-80.0}")),
        ("a: !!float '1:5:9'", Some("{\"a\":3909.0}")),
        ("a: !!float '1::20'", None),
        ("a: !!float '9223372036854775807'", Some("{\"a\":9.223372036854776e+18}")),
        ("a: !!float '1.'", Some("{\"a\":1.0}")),
        ("a: !!float '1.0e3'", Some("{\"a\":1000.0}")),
        ("a: !!float '1.e+5'", Some("{\"a\":100000.0}")),
        ("a: !!float '1E3'", Some("{\"a\":1000.0}")),
        ("a: !!float '+.5'", Some("{\"a\":0.5}")),
        ("a: !!float '.'", None),
        ("a: !!float '1.2.3'", None),
        ("a: !!float '-.inf'", Some("{\"a\":-inf}")),
        ("a: !!float '.iNf'", Some("{\"a\":inf}")),
        ("a: !!float '.NAN'", Some("{\"a\":nan}")),
        ("a: !!float '1.5e'", None),
        ("a: !!float '2024-01-02'", None),
        ("a: !!float '2024-01-02 10:00:00'", None),
        ("a: !!float '2024-13-45'", None),
        ("a: !!float '---x'", None),
        ("a: !!float '-a'", None),
        ("a: !!float '1,000'", None),
        ("a: !!float '0:0'", Some("{\"a\":0.0}")),
        ("a: !!bool 'yes'", Some("{\"a\":true}")),
        ("a: !!bool 'y'", None),
        ("a: !!bool 'TRUE'", Some("{\"a\":true}")),
        ("a: !!bool 'tRue'", Some("{\"a\":true}")),
        ("a: !!bool 'off'", Some("{\"a\":false}")),
        ("a: !!bool ''", None),
        ("a: 'yes'", Some("{\"a\":\"yes\"}")),
        ("a: \"yes\"", Some("{\"a\":\"yes\"}")),
        ("a: !!str yes", Some("{\"a\":\"yes\"}")),
        ("a: ! 'yes'", Some("{\"a\":true}")),
        ("yes: v", Some("{\"true\":\"v\"}")),
        ("a: '0644'", Some("{\"a\":\"0644\"}")),
        ("a: \"0644\"", Some("{\"a\":\"0644\"}")),
        ("a: !!str 0644", Some("{\"a\":\"0644\"}")),
        ("a: ! '0644'", Some("{\"a\":644}")),
        ("0644: v", Some("{\"644\":\"v\"}")),
        ("a: '1.5'", Some("{\"a\":\"1.5\"}")),
        ("a: \"1.5\"", Some("{\"a\":\"1.5\"}")),
        ("a: !!str 1.5", Some("{\"a\":\"1.5\"}")),
        ("a: ! '1.5'", Some("{\"a\":1.5}")),
        ("1.5: v", Some("{\"1.5\":\"v\"}")),
        ("a: '~'", Some("{\"a\":\"~\"}")),
        ("a: \"~\"", Some("{\"a\":\"~\"}")),
        ("a: !!str ~", Some("{\"a\":\"~\"}")),
        ("a: ! '~'", Some("{\"a\":null}")),
        ("~: v", Some("{\"null\":\"v\"}")),
        ("a: ''", Some("{\"a\":\"\"}")),
        ("a: \"\"", Some("{\"a\":\"\"}")),
        ("a: !!str ", Some("{\"a\":\"\"}")),
        ("a: ! ''", Some("{\"a\":null}")),
        ("a: '2024-01-02'", Some("{\"a\":\"2024-01-02\"}")),
        ("a: \"2024-01-02\"", Some("{\"a\":\"2024-01-02\"}")),
        ("a: !!str 2024-01-02", Some("{\"a\":\"2024-01-02\"}")),
        ("a: ! '2024-01-02'", Some("{\"a\":\"2024-01-02\"}")),
        ("2024-01-02: v", Some("{\"2024-01-02\":\"v\"}")),
        ("a: '<<'", Some("{\"a\":\"<<\"}")),
        ("a: \"<<\"", Some("{\"a\":\"<<\"}")),
        ("a: !!str <<", Some("{\"a\":\"<<\"}")),
        ("a: ! '<<'", None),
        ("<<: v", None),
        ("a: '1e3'", Some("{\"a\":\"1e3\"}")),
        ("a: \"1e3\"", Some("{\"a\":\"1e3\"}")),
        ("a: !!str 1e3", Some("{\"a\":\"1e3\"}")),
        ("a: ! '1e3'", Some("{\"a\":\"1e3\"}")),
        ("1e3: v", Some("{\"1e3\":\"v\"}")),
        ("true: v", Some("{\"true\":\"v\"}")),
        ("1:20: v", Some("{\"80\":\"v\"}")),
        ("-0: v", Some("{\"0\":\"v\"}")),
        ("=: v", Some("{\"=\":\"v\"}")),
        ("Off: v", Some("{\"false\":\"v\"}")),
        ("", Some("null")),
        ("# only a comment", Some("null")),
        ("\n\n", Some("null")),
        ("---", Some("null")),
        ("--- ", Some("null")),
        ("---\n...", Some("null")),
        ("a: 1\n...", Some("{\"a\":1}")),
        ("---\na: 1", Some("{\"a\":1}")),
        ("a: 1\n---\nb: 2", None),
        ("---\na: 1\n---", None),
        ("a: 1\n...\n---\nb: 1", None),
        ("a: 1\n...\nb: 1", None),
        ("--- 1", Some("1")),
        ("--- |\n  text\n", Some("\"text\\n\"")),
        ("%YAML 1.1\n---\na: 1", Some("{\"a\":1}")),
        ("%YAML 1.2\n---\na: yes", Some("{\"a\":true}")),
        ("%TAG !e! tag:example.com,2000:\n---\na: !e!x 1", None),
        ("a: 1\na: 2", None),
        ("x:\n  a: 1\n  b: 2\n  a: 3", None),
        ("1: a\ntrue: b", None),
        ("1: a\n1.0: b", None),
        ("0: a\nfalse: b", None),
        ("~: a\nnull: b", None),
        ("a: 1\n'a': 2", None),
        (".nan: a\n.nan: b", None),
        ("1: a\n01: b", None),
        ("a: 1\n\"a\": 2", None),
        ("? [1]\n: 2", None),
        ("? {a: 1}\n: 2", None),
        ("[1]: 2", None),
        ("{a: 1}: 2", None),
        ("? a\n: 1", Some("{\"a\":1}")),
        ("? |\n  block key\n: 1", Some("{\"block key\\n\":1}")),
        ("? - x\n: y", None),
        ("b: &x {a: 1, c: 2}\nc: &y {a: 3, d: 4}\nm:\n  <<: [*x, *y]", None),
        ("b: &x {a: 1, c: 2}\nc: &y {e: 3, d: 4}\nm:\n  k: 0\n  <<: [*y, *x]\n  c: 9", Some("{\"b\":{\"a\":1,\"c\":2},\"c\":{\"e\":3,\"d\":4},\"m\":{\"a\":1,\"e\":3,\"d\":4,\"k\":0,\"c\":9}}")),
        ("b: &x {1: 1, c: 2}\nm:\n  \"1\": 0\n  <<: *x", Some("{\"b\":{\"1\":1,\"c\":2},\"m\":{\"c\":2,\"1\":0}}")),
        ("b: &x {a: 1}\nm:\n  <<: *x\n  <<: {z: 1}", Some("{\"b\":{\"a\":1},\"m\":{\"a\":1,\"z\":1}}")),
        ("b: &x {a: 1}\nm:\n  <<: *x\n  a: 2", Some("{\"b\":{\"a\":1},\"m\":{\"a\":2}}")),
        ("b: &x {a: 1}\nm:\n  a: 2\n  <<: *x", Some("{\"b\":{\"a\":1},\"m\":{\"a\":2}}")),
        ("m:\n  <<: [1]", None),
        ("m:\n  <<: 1", None),
        ("m:\n  <<: [[1]]", None),
        ("m:\n  <<: []", Some("{\"m\":{}}")),
        ("m:\n  <<: {}", Some("{\"m\":{}}")),
        ("m:\n  <<: ~", None),
        ("m:\n  '<<': {a: 1}", Some("{\"m\":{\"<<\":{\"a\":1}}}")),
        ("m:\n  <<: {a: 1}\n  <<: {a: 2}", None),
        ("base: &b {x: 1, <<: {y: 2}}\nd:\n  <<: *b\n  z: 3", Some("{\"base\":{\"y\":2,\"x\":1},\"d\":{\"y\":2,\"x\":1,\"z\":3}}")),
        ("a: &a {b: &b {c: 1}}\nd:\n  <<: *b", Some("{\"a\":{\"b\":{\"c\":1}},\"d\":{\"c\":1}}")),
        ("a: &a [1, 2]\nb: *a", Some("{\"a\":[1,2],\"b\":[1,2]}")),
        ("a: &x 1\nb: *x", Some("{\"a\":1,\"b\":1}")),
        ("a: *nope", None),
        ("a: &a [*a]", None),
        ("a: &a {b: *a}", None),
        ("a: &a {<<: *a}", Some("{\"a\":{}}")),
        ("a: &x 1\na2: &x 2\nb: *x", None),
        ("=: 1", Some("{\"=\":1}")),
        ("b: <<", None),
        ("- <<", None),
        ("- =", None),
        ("{=: 1}", Some("{\"=\":1}")),
        ("[<<]", None),
        ("a: !!merge x", None),
        ("a: !!value x", None),
        ("? =\n: 2", Some("{\"=\":2}")),
        ("a: !!str 1", Some("{\"a\":\"1\"}")),
        ("a: !!int \"12\"", Some("{\"a\":12}")),
        ("a: !!int \"0644\"", Some("{\"a\":644}")),
        ("a: !!int \"1e3\"", None),
        ("a: !!float \"1\"", Some("{\"a\":1.0}")),
        ("a: !!float \"1e3\"", Some("{\"a\":1000.0}")),
        ("a: !!bool \"yes\"", Some("{\"a\":true}")),
        ("a: !!bool \"y\"", None),
        ("a: !!null \"x\"", Some("{\"a\":null}")),
        ("a: !!map {b: 1}", Some("{\"a\":{\"b\":1}}")),
        ("a: !!seq [1]", Some("{\"a\":[1]}")),
        ("a: !!binary aGVsbG8=", Some("{\"a\":\"hello\"}")),
        ("a: !!binary |\n  aGVs\n  bG8=", Some("{\"a\":\"hello\"}")),
        ("a: !foo 1", None),
        ("a: !!foo 1", None),
        ("a: !!omap [a: 1]", None),
        ("a: !!omap {a: 1, b: 2}", Some("{\"a\":{\"a\":1,\"b\":2}}")),
        ("a: !!pairs [a: 1, b: 2]", Some("{\"a\":[[\"a\",1],[\"b\",2]]}")),
        ("a: !!pairs [{a: 1, b: 2}]", None),
        ("a: !!pairs {a: 1}", None),
        ("a: !!python/unicode x", Some("{\"a\":\"x\"}")),
        ("a: !!str [1]", None),
        ("a: !!map x", None),
        ("a: !!seq x", None),
        ("a: !!int [1]", None),
        ("a: ! 12", Some("{\"a\":12}")),
        ("a: ! \"12\"", Some("{\"a\":12}")),
        ("a: ! [1]", Some("{\"a\":[1]}")),
        ("a: ! {b: 1}", Some("{\"a\":{\"b\":1}}")),
        ("a: !<tag:yaml.org,2002:int> \"5\"", Some("{\"a\":5}")),
        ("a: !<!foo> 1", None),
        ("a: !!int", None),
        ("a: !!str", Some("{\"a\":\"\"}")),
        ("a: !!float \".inf\"", Some("{\"a\":inf}")),
        ("a: !!int \"abc\"", None),
        ("a: !!bool \"True\"", Some("{\"a\":true}")),
        ("a: !!timestamp 2024-01-01", Some("{\"a\":\"2024-01-01\"}")),
        ("a: !!timestamp x", Some("{\"a\":\"x\"}")),
        ("a: !!float 1_000.5", Some("{\"a\":1000.5}")),
        ("a: !!int ' 12 '", Some("{\"a\":12}")),
        ("a: !!float ' 1.5 '", Some("{\"a\":1.5}")),
        ("a: !!int '1:x'", None),
        ("a: !!int 0x", None),
        ("a: !!float '-'", None),
        ("a: !!float 'infinity'", Some("{\"a\":inf}")),
        ("a: !!float '+1e5'", Some("{\"a\":100000.0}")),
        ("a: !!float '1,5'", None),
        ("a: !!null", Some("{\"a\":null}")),
        ("a: !!bool", None),
        ("a: !!map", None),
        ("a: !!seq", None),
        ("!!map {a: 1}", Some("{\"a\":1}")),
        ("--- !!str\nfoo", Some("\"foo\"")),
        ("multi: |\n  line one\n  line two\n", Some("{\"multi\":\"line one\\nline two\\n\"}")),
        ("folded: >\n  folded\n  text\n", Some("{\"folded\":\"folded text\\n\"}")),
        ("k: |-\n  x\n", Some("{\"k\":\"x\"}")),
        ("k: |+\n  x\n\n", Some("{\"k\":\"x\\n\\n\"}")),
        ("k: >-\n  a\n  b\n\n  c\n", Some("{\"k\":\"a b\\nc\"}")),
        ("k: |2\n   x\n", Some("{\"k\":\" x\\n\"}")),
        ("k: 'a\n  b'", Some("{\"k\":\"a b\"}")),
        ("k: \"a\\\n  b\"", Some("{\"k\":\"ab\"}")),
        ("k: \"\\t\\n\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\0\\a\\b\\e\\f\\r\\v\\/\\ \"", Some("{\"k\":\"\\t\\nAé😀\u{85} \u{2028}\u{2029}\\u0000\\u0007\\b\\u001b\\f\\r\\u000b/ \"}")),
        ("k: \"\\q\"", None),
        ("k: a\n  b\n  c", Some("{\"k\":\"a b c\"}")),
        ("k: a\n\n  b", Some("{\"k\":\"a\\nb\"}")),
        ("k: 'it''s'", Some("{\"k\":\"it's\"}")),
        ("k: \"dq 'x'\"", Some("{\"k\":\"dq 'x'\"}")),
        ("a:\n  - 1\n  - 2", Some("{\"a\":[1,2]}")),
        ("a:\n- 1\n- 2", Some("{\"a\":[1,2]}")),
        ("- - 1\n  - 2\n- 3", Some("[[1,2],3]")),
        ("- a: 1\n  b: 2\n- c: 3", Some("[{\"a\":1,\"b\":2},{\"c\":3}]")),
        ("a: [1, [2, [3]], {b: c}]", Some("{\"a\":[1,[2,[3]],{\"b\":\"c\"}]}")),
        ("a: {b: {c: {d: 1}}}", Some("{\"a\":{\"b\":{\"c\":{\"d\":1}}}}")),
        ("a: []", Some("{\"a\":[]}")),
        ("a: {}", Some("{\"a\":{}}")),
        ("[]", Some("[]")),
        ("{}", Some("{}")),
        ("- ", Some("[null]")),
        ("-", Some("[null]")),
        ("- \n- x", Some("[null,\"x\"]")),
        ("a:\n  b:\n  c: 1", Some("{\"a\":{\"b\":null,\"c\":1}}")),
        ("a: [1, 2,]", Some("{\"a\":[1,2]}")),
        ("a: {b: 1,}", Some("{\"a\":{\"b\":1}}")),
        ("a: [a: 1, b]", Some("{\"a\":[{\"a\":1},\"b\"]}")),
        ("a: {b, c: 1}", Some("{\"a\":{\"b\":null,\"c\":1}}")),
        ("a: [? x : y]", Some("{\"a\":[{\"x\":\"y\"}]}")),
        ("{a: 1, b: [1, 2], c: {d: e}}", Some("{\"a\":1,\"b\":[1,2],\"c\":{\"d\":\"e\"}}")),
        ("a: b: c", None),
        ("a:\n\tb: 1", None),
        ("a: 1\n\tb: 2", None),
        ("a:\t1", Some("{\"a\":1}")),
        ("a: 1\t", Some("{\"a\":1}")),
        ("a: [1\nb: 2", None),
        ("a: \"abc\n", None),
        ("a: 'abc", None),
        ("a:\n  b: 1\n c: 2", None),
        ("a: @b", None),
        ("a: `b", None),
        ("a: %b", None),
        ("- a\nb: 1", None),
        ("a: 1\n- b", None),
        ("{a: 1", None),
        ("[1, 2", None),
        ("]", None),
        ("}", None),
        ("a: *", None),
        ("a: &x", Some("{\"a\":null}")),
        ("&x a: 1", Some("{\"a\":1}")),
        ("a: 1 # c\nb: 2 #c", Some("{\"a\":1,\"b\":2}")),
        ("a: b #c", Some("{\"a\":\"b\"}")),
        ("a: b#c", Some("{\"a\":\"b#c\"}")),
        ("#!yaml\na: 1", Some("{\"a\":1}")),
        ("a: |\n x\n  y\n", Some("{\"a\":\"x\\n y\\n\"}")),
        ("a: >\n\n  x\n", Some("{\"a\":\"\\nx\\n\"}")),
        ("\u{feff}a: 1", Some("{\"a\":1}")),
        ("a: 1\r\nb: 2\r\n", Some("{\"a\":1,\"b\":2}")),
        ("a: 1\rb: 2", Some("{\"a\":1,\"b\":2}")),
        ("a: \u{1}", None),
        ("a: \u{7f}", None),
        ("a: b\u{0}c", None),
        ("key with spaces: v", Some("{\"key with spaces\":\"v\"}")),
        ("'quoted key': v", Some("{\"quoted key\":\"v\"}")),
        ("\"dq key\": v", Some("{\"dq key\":\"v\"}")),
        ("a b: c d", Some("{\"a b\":\"c d\"}")),
        ("a: - 1", None),
        ("a:- 1", Some("\"a:- 1\"")),
        ("a: ---", Some("{\"a\":\"---\"}")),
        ("a: ...", Some("{\"a\":\"...\"}")),
        ("--- a\n--- b", None),
        ("a: 1\n--- b", None),
        ("a:\n  - b\n  -\n  - c", Some("{\"a\":[\"b\",null,\"c\"]}")),
        ("a: !!str\nb: 1", Some("{\"a\":\"\",\"b\":1}")),
        ("a: &anc\nb: *anc", Some("{\"a\":null,\"b\":null}")),
        ("? \n: x", Some("{\"null\":\"x\"}")),
        ("a:\n  ? b\n  : c", Some("{\"a\":{\"b\":\"c\"}}")),
        ("[a, b]: c", None),
        ("x: [a, b]: c", None),
        ("a: [b]c", None),
        ("a: 1\na: 1\na: 1\n", None),
        ("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", Some("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]")),
        ("- 'a'\n- \"b\"\n- c\n- 'yes'\n- 0644\n- '0644'", Some("[\"a\",\"b\",\"c\",\"yes\",644,\"0644\"]")),
        ("a: !!python/tuple [1, 2]", None),
        ("a: !!python/name:os.system", None),
        ("a: !!python/object:foo {}", None),
        ("a: 1\n# comment\n\n\nb: 2\n...\n# trailing comment\n", Some("{\"a\":1,\"b\":2}")),
    ];

/// (value in the encoding of `dec`, Salt's `safe_dump` text in block
/// style, in flow style). Generated with real Salt 3007.8.
const SALT_DUMPS: &[(&str, &str, &str)] = &[
        ("{\"s\": \"yes\"}", "s: 'yes'\n", "{s: 'yes'}\n"),
        ("{\"s\": \"no\"}", "s: 'no'\n", "{s: 'no'}\n"),
        ("{\"s\": \"on\"}", "s: 'on'\n", "{s: 'on'}\n"),
        ("{\"s\": \"off\"}", "s: 'off'\n", "{s: 'off'}\n"),
        ("{\"s\": \"y\"}", "s: y\n", "{s: y}\n"),
        ("{\"s\": \"n\"}", "s: n\n", "{s: n}\n"),
        ("{\"s\": \"true\"}", "s: 'true'\n", "{s: 'true'}\n"),
        ("{\"s\": \"True\"}", "s: 'True'\n", "{s: 'True'}\n"),
        ("{\"s\": \"null\"}", "s: 'null'\n", "{s: 'null'}\n"),
        ("{\"s\": \"Null\"}", "s: 'Null'\n", "{s: 'Null'}\n"),
        ("{\"s\": \"~\"}", "s: '~'\n", "{s: '~'}\n"),
        ("{\"s\": \"\"}", "s: ''\n", "{s: ''}\n"),
        ("{\"s\": \"0644\"}", "s: '0644'\n", "{s: '0644'}\n"),
        ("{\"s\": \"644\"}", "s: '644'\n", "{s: '644'}\n"),
        ("{\"s\": \"0x1F\"}", "s: '0x1F'\n", "{s: '0x1F'}\n"),
        ("{\"s\": \"1e3\"}", "s: 1e3\n", "{s: 1e3}\n"),
        ("{\"s\": \"1.5\"}", "s: '1.5'\n", "{s: '1.5'}\n"),
        ("{\"s\": \"1.10\"}", "s: '1.10'\n", "{s: '1.10'}\n"),
        ("{\"s\": \".inf\"}", "s: '.inf'\n", "{s: '.inf'}\n"),
        ("{\"s\": \".nan\"}", "s: '.nan'\n", "{s: '.nan'}\n"),
        ("{\"s\": \"-.inf\"}", "s: '-.inf'\n", "{s: '-.inf'}\n"),
        ("{\"s\": \"2024-01-02\"}", "s: '2024-01-02'\n", "{s: '2024-01-02'}\n"),
        ("{\"s\": \"2024-01-02 10:00:00\"}", "s: '2024-01-02 10:00:00'\n", "{s: '2024-01-02 10:00:00'}\n"),
        ("{\"s\": \"1:20\"}", "s: '1:20'\n", "{s: '1:20'}\n"),
        ("{\"s\": \"<<\"}", "s: '<<'\n", "{s: '<<'}\n"),
        ("{\"s\": \"=\"}", "s: '='\n", "{s: '='}\n"),
        ("{\"s\": \"!\"}", "s: '!'\n", "{s: '!'}\n"),
        ("{\"s\": \"&\"}", "s: '&'\n", "{s: '&'}\n"),
        ("{\"s\": \"*\"}", "s: '*'\n", "{s: '*'}\n"),
        ("{\"s\": \"-\"}", "s: '-'\n", "{s: '-'}\n"),
        ("{\"s\": \"--\"}", "s: --\n", "{s: --}\n"),
        ("{\"s\": \"---\"}", "s: '---'\n", "{s: '---'}\n"),
        ("{\"s\": \"--- x\"}", "s: '--- x'\n", "{s: '--- x'}\n"),
        ("{\"s\": \"...\"}", "s: '...'\n", "{s: '...'}\n"),
        ("{\"s\": \"... x\"}", "s: '... x'\n", "{s: '... x'}\n"),
        ("{\"s\": \"- \"}", "s: '- '\n", "{s: '- '}\n"),
        ("{\"s\": \"-a\"}", "s: -a\n", "{s: -a}\n"),
        ("{\"s\": \"- a\"}", "s: '- a'\n", "{s: '- a'}\n"),
        ("{\"s\": \":a\"}", "s: :a\n", "{s: ':a'}\n"),
        ("{\"s\": \"a:\"}", "s: 'a:'\n", "{s: 'a:'}\n"),
        ("{\"s\": \"a: b\"}", "s: 'a: b'\n", "{s: 'a: b'}\n"),
        ("{\"s\": \"a:b\"}", "s: a:b\n", "{s: 'a:b'}\n"),
        ("{\"s\": \"?\"}", "s: '?'\n", "{s: '?'}\n"),
        ("{\"s\": \"? a\"}", "s: '? a'\n", "{s: '? a'}\n"),
        ("{\"s\": \"?a\"}", "s: ?a\n", "{s: '?a'}\n"),
        ("{\"s\": \"#c\"}", "s: '#c'\n", "{s: '#c'}\n"),
        ("{\"s\": \"a #c\"}", "s: 'a #c'\n", "{s: 'a #c'}\n"),
        ("{\"s\": \"a#c\"}", "s: a#c\n", "{s: a#c}\n"),
        ("{\"s\": \"a# c\"}", "s: a# c\n", "{s: a# c}\n"),
        ("{\"s\": \" lead\"}", "s: ' lead'\n", "{s: ' lead'}\n"),
        ("{\"s\": \"trail \"}", "s: 'trail '\n", "{s: 'trail '}\n"),
        ("{\"s\": \"multi\\nline\"}", "s: 'multi\n\n  line'\n", "{s: 'multi\n\n    line'}\n"),
        ("{\"s\": \"multi\\nline\\n\"}", "s: 'multi\n\n  line\n\n  '\n", "{s: 'multi\n\n    line\n\n    '}\n"),
        ("{\"s\": \"\\nlead\"}", "s: '\n\n  lead'\n", "{s: '\n\n    lead'}\n"),
        ("{\"s\": \"a\\n\\nb\"}", "s: 'a\n\n\n  b'\n", "{s: 'a\n\n\n    b'}\n"),
        ("{\"s\": \"a\\n b\"}", "s: \"a\\n b\"\n", "{s: \"a\\n b\"}\n"),
        ("{\"s\": \"a \\nb\"}", "s: \"a \\nb\"\n", "{s: \"a \\nb\"}\n"),
        ("{\"s\": \"tab\\there\"}", "s: \"tab\\there\"\n", "{s: \"tab\\there\"}\n"),
        ("{\"s\": \"\\ttab\"}", "s: \"\\ttab\"\n", "{s: \"\\ttab\"}\n"),
        ("{\"s\": \"é unicode\"}", "s: é unicode\n", "{s: é unicode}\n"),
        ("{\"s\": \"日本語\"}", "s: 日本語\n", "{s: 日本語}\n"),
        ("{\"s\": \"emoji 😀\"}", "s: \"emoji \\U0001F600\"\n", "{s: \"emoji \\U0001F600\"}\n"),
        ("{\"s\": \"@at\"}", "s: '@at'\n", "{s: '@at'}\n"),
        ("{\"s\": \"`bt\"}", "s: '`bt'\n", "{s: '`bt'}\n"),
        ("{\"s\": \"quote's\"}", "s: quote's\n", "{s: quote's}\n"),
        ("{\"s\": \"\\\"dq\\\"\"}", "s: '\"dq\"'\n", "{s: '\"dq\"'}\n"),
        ("{\"s\": \"'sq'\"}", "s: '''sq'''\n", "{s: '''sq'''}\n"),
        ("{\"s\": \"*star\"}", "s: '*star'\n", "{s: '*star'}\n"),
        ("{\"s\": \"&amp\"}", "s: '&amp'\n", "{s: '&amp'}\n"),
        ("{\"s\": \"!bang\"}", "s: '!bang'\n", "{s: '!bang'}\n"),
        ("{\"s\": \"%pct\"}", "s: '%pct'\n", "{s: '%pct'}\n"),
        ("{\"s\": \"{b}\"}", "s: '{b}'\n", "{s: '{b}'}\n"),
        ("{\"s\": \"[b]\"}", "s: '[b]'\n", "{s: '[b]'}\n"),
        ("{\"s\": \"a,b\"}", "s: a,b\n", "{s: 'a,b'}\n"),
        ("{\"s\": \"a[b\"}", "s: a[b\n", "{s: 'a[b'}\n"),
        ("{\"s\": \"a]b\"}", "s: a]b\n", "{s: 'a]b'}\n"),
        ("{\"s\": \"a{b}\"}", "s: a{b}\n", "{s: 'a{b}'}\n"),
        ("{\"s\": \"|pipe\"}", "s: '|pipe'\n", "{s: '|pipe'}\n"),
        ("{\"s\": \">gt\"}", "s: '>gt'\n", "{s: '>gt'}\n"),
        ("{\"s\": \"a|b\"}", "s: a|b\n", "{s: a|b}\n"),
        ("{\"s\": \"a>b\"}", "s: a>b\n", "{s: a>b}\n"),
        ("{\"s\": \"\\\\back\"}", "s: \\back\n", "{s: \\back}\n"),
        ("{\"s\": \"nul\\u0000x\"}", "s: \"nul\\0x\"\n", "{s: \"nul\\0x\"}\n"),
        ("{\"s\": \"bell\\u0007\"}", "s: \"bell\\a\"\n", "{s: \"bell\\a\"}\n"),
        ("{\"s\": \"esc\\u001b\"}", "s: \"esc\\e\"\n", "{s: \"esc\\e\"}\n"),
        ("{\"s\": \"del\u{7f}\"}", "s: \"del\\x7F\"\n", "{s: \"del\\x7F\"}\n"),
        ("{\"s\": \"nel\u{85}x\"}", "s: \"nel\\Nx\"\n", "{s: \"nel\\Nx\"}\n"),
        ("{\"s\": \"nbsp x\"}", "s: nbsp x\n", "{s: nbsp x}\n"),
        ("{\"s\": \"ls\u{2028}x\"}", "s: 'ls\u{2028}  x'\n", "{s: 'ls\u{2028}    x'}\n"),
        ("{\"s\": \"ps\u{2029}x\"}", "s: 'ps\u{2029}  x'\n", "{s: 'ps\u{2029}    x'}\n"),
        ("{\"s\": \"bom\u{feff}x\"}", "s: \"bom\\uFEFFx\"\n", "{s: \"bom\\uFEFFx\"}\n"),
        ("{\"s\": \"cr\\rx\"}", "s: \"cr\\rx\"\n", "{s: \"cr\\rx\"}\n"),
        ("{\"s\": \"crlf\\r\\nx\"}", "s: \"crlf\\r\\nx\"\n", "{s: \"crlf\\r\\nx\"}\n"),
        ("{\"s\": \"\u{85}\"}", "s: \"\\N\"\n", "{s: \"\\N\"}\n"),
        ("{\"s\": \"=x\"}", "s: =x\n", "{s: =x}\n"),
        ("{\"s\": \"<<x\"}", "s: <<x\n", "{s: <<x}\n"),
        ("{\"s\": \"x<<\"}", "s: x<<\n", "{s: x<<}\n"),
        ("{\"s\": \"0\"}", "s: '0'\n", "{s: '0'}\n"),
        ("{\"s\": \"-0\"}", "s: '-0'\n", "{s: '-0'}\n"),
        ("{\"s\": \"+1\"}", "s: '+1'\n", "{s: '+1'}\n"),
        ("{\"s\": \"00\"}", "s: '00'\n", "{s: '00'}\n"),
        ("{\"s\": \"0.\"}", "s: '0.'\n", "{s: '0.'}\n"),
        ("{\"s\": \"._\"}", "s: ._\n", "{s: ._}\n"),
        ("{\"s\": \"1_000\"}", "s: '1_000'\n", "{s: '1_000'}\n"),
        ("{\"s\": \"0b1\"}", "s: '0b1'\n", "{s: '0b1'}\n"),
        ("{\"s\": \"0o7\"}", "s: 0o7\n", "{s: 0o7}\n"),
        ("{\"s\": \"1:70\"}", "s: 1:70\n", "{s: '1:70'}\n"),
        ("{\"s\": \"123456789012345678901234567890\"}", "s: '123456789012345678901234567890'\n", "{s: '123456789012345678901234567890'}\n"),
        ("{\"s\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", "s: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", "{s: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}\n"),
        ("{\"s\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", "s: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", "{s: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}\n"),
        ("{\"s\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", "s: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", "{s: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}\n"),
        ("{\"s\": \"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word \"}", "s: 'word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word '\n", "{s: 'word word word word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word '}\n"),
        ("{\"s\": \"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end\"}", "s: word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word end\n", "{s: word word word word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word end}\n"),
        ("{\"s\": \"longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword \"}", "s: 'longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n  longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n  longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword '\n", "{s: 'longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n    longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n    longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword '}\n"),
        ("{\"s\": \"x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x \"}", "s: 'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x\n  x x x x x x x x x x x '\n", "{s: 'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x\n    x x x x x x x x x x x '}\n"),
        ("{\"s\": \"a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b\"}", "s: a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b\n", "{s: a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b}\n"),
        ("{\"s\": \"spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row \"}", "s: 'spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row\n  spaces   in   a   row spaces   in   a   row '\n", "{s: 'spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row\n    spaces   in   a   row spaces   in   a   row '}\n"),
        ("{\"s\": \"éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé x éééééééééé\"}", "s: éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\n  x éééééééééé\n", "{s: éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\n    x éééééééééé}\n"),
        ("{\"s\": \"quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote \"}", "s: 'quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long''\n  string with quote quoted ''long'' string with quote quoted ''long'' string with\n  quote '\n", "{s: 'quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long''\n    string with quote quoted ''long'' string with quote quoted ''long'' string with\n    quote '}\n"),
        ("{\"s\": \"multi\\nline with 'quote' and word word word word word word word word word word word word word word word word word word word word \"}", "s: 'multi\n\n  line with ''quote'' and word word word word word word word word word word word word\n  word word word word word word word word '\n", "{s: 'multi\n\n    line with ''quote'' and word word word word word word word word word word word\n    word word word word word word word word word '}\n"),
        ("{\"s\": \"dq needed\\tword word word word word word word word word word word word word word word word word word word word word word word word word \"}", "s: \"dq needed\\tword word word word word word word word word word word word word word\n  word word word word word word word word word word word \"\n", "{s: \"dq needed\\tword word word word word word word word word word word word word word\n    word word word word word word word word word word word \"}\n"),
        ("{\"s\": \"trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space  \"}", "s: 'trailing space trailing space trailing space trailing space trailing space trailing\n  space trailing space trailing space trailing space trailing space  '\n", "{s: 'trailing space trailing space trailing space trailing space trailing space trailing\n    space trailing space trailing space trailing space trailing space  '}\n"),
        ("{\"s\": \" leading word word word word word word word word word word word word word word word word word word word word word word word word word \"}", "s: ' leading word word word word word word word word word word word word word word\n  word word word word word word word word word word word '\n", "{s: ' leading word word word word word word word word word word word word word word\n    word word word word word word word word word word word '}\n"),
        ("{\"on\": 1}", "'on': 1\n", "{'on': 1}\n"),
        ("{\"true\": 1}", "'true': 1\n", "{'true': 1}\n"),
        ("{\"~\": 1}", "'~': 1\n", "{'~': 1}\n"),
        ("{\"0x1F\": 1}", "'0x1F': 1\n", "{'0x1F': 1}\n"),
        ("{\".inf\": 1}", "'.inf': 1\n", "{'.inf': 1}\n"),
        ("{\"2024-01-02 10:00:00\": 1}", "'2024-01-02 10:00:00': 1\n", "{'2024-01-02 10:00:00': 1}\n"),
        ("{\"!\": 1}", "'!': 1\n", "{'!': 1}\n"),
        ("{\"--\": 1}", "--: 1\n", "{--: 1}\n"),
        ("{\"... x\": 1}", "'... x': 1\n", "{'... x': 1}\n"),
        ("{\":a\": 1}", ":a: 1\n", "{':a': 1}\n"),
        ("{\"?\": 1}", "'?': 1\n", "{'?': 1}\n"),
        ("{\"a #c\": 1}", "'a #c': 1\n", "{'a #c': 1}\n"),
        ("{\"trail \": 1}", "'trail ': 1\n", "{'trail ': 1}\n"),
        ("{\"a\\n\\nb\": 1}", "? 'a\n\n\n  b'\n: 1\n", "{? 'a\n\n\n    b' : 1}\n"),
        ("{\"\\ttab\": 1}", "\"\\ttab\": 1\n", "{\"\\ttab\": 1}\n"),
        ("{\"@at\": 1}", "'@at': 1\n", "{'@at': 1}\n"),
        ("{\"'sq'\": 1}", "'''sq''': 1\n", "{'''sq''': 1}\n"),
        ("{\"%pct\": 1}", "'%pct': 1\n", "{'%pct': 1}\n"),
        ("{\"a[b\": 1}", "a[b: 1\n", "{'a[b': 1}\n"),
        ("{\">gt\": 1}", "'>gt': 1\n", "{'>gt': 1}\n"),
        ("{\"nul\\u0000x\": 1}", "\"nul\\0x\": 1\n", "{\"nul\\0x\": 1}\n"),
        ("{\"nel\u{85}x\": 1}", "? \"nel\\Nx\"\n: 1\n", "{? \"nel\\Nx\" : 1}\n"),
        ("{\"bom\u{feff}x\": 1}", "\"bom\\uFEFFx\": 1\n", "{\"bom\\uFEFFx\": 1}\n"),
        ("{\"=x\": 1}", "=x: 1\n", "{=x: 1}\n"),
        ("{\"-0\": 1}", "'-0': 1\n", "{'-0': 1}\n"),
        ("{\"._\": 1}", "._: 1\n", "{._: 1}\n"),
        ("{\"1:70\": 1}", "1:70: 1\n", "{'1:70': 1}\n"),
        ("{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": 1}", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: 1\n", "{aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: 1}\n"),
        ("{\"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word \": 1}", "? 'word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word '\n: 1\n", "{? 'word word word word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word ' : 1}\n"),
        ("{\"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end\": 1}", "? word word word word word word word word word word word word word word word word\n  word word word word word word word word word word word word word word end\n: 1\n", "{? word word word word word word word word word word word word word word word word\n    word word word word word word word word word word word word word word end : 1}\n"),
        ("{\"longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword \": 1}", "? 'longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n  longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n  longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword '\n: 1\n", "{? 'longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n    longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword\n    longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword '\n  : 1}\n"),
        ("{\"x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x \": 1}", "'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x ': 1\n", "{'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x ': 1}\n"),
        ("{\"a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b\": 1}", "a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b: 1\n", "{a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b: 1}\n"),
        ("{\"spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row \": 1}", "? 'spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row\n  spaces   in   a   row spaces   in   a   row '\n: 1\n", "{? 'spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row\n    spaces   in   a   row spaces   in   a   row ' : 1}\n"),
        ("{\"éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé x éééééééééé\": 1}", "? éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\n  x éééééééééé\n: 1\n", "{? éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\n    x éééééééééé : 1}\n"),
        ("{\"quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote \": 1}", "? 'quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long''\n  string with quote quoted ''long'' string with quote quoted ''long'' string with\n  quote '\n: 1\n", "{? 'quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long''\n    string with quote quoted ''long'' string with quote quoted ''long'' string with\n    quote ' : 1}\n"),
        ("{\"multi\\nline with 'quote' and word word word word word word word word word word word word word word word word word word word word \": 1}", "? 'multi\n\n  line with ''quote'' and word word word word word word word word word word word word\n  word word word word word word word word '\n: 1\n", "{? 'multi\n\n    line with ''quote'' and word word word word word word word word word word word\n    word word word word word word word word word ' : 1}\n"),
        ("{\"dq needed\\tword word word word word word word word word word word word word word word word word word word word word word word word word \": 1}", "? \"dq needed\\tword word word word word word word word word word word word word word\n  word word word word word word word word word word word \"\n: 1\n", "{? \"dq needed\\tword word word word word word word word word word word word word word\n    word word word word word word word word word word word \" : 1}\n"),
        ("{\"trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space  \": 1}", "? 'trailing space trailing space trailing space trailing space trailing space trailing\n  space trailing space trailing space trailing space trailing space  '\n: 1\n", "{? 'trailing space trailing space trailing space trailing space trailing space trailing\n    space trailing space trailing space trailing space trailing space  ' : 1}\n"),
        ("{\" leading word word word word word word word word word word word word word word word word word word word word word word word word word \": 1}", "? ' leading word word word word word word word word word word word word word word\n  word word word word word word word word word word word '\n: 1\n", "{? ' leading word word word word word word word word word word word word word word\n    word word word word word word word word word word word ' : 1}\n"),
        ("null", "null\n", "null\n"),
        ("true", "true\n", "true\n"),
        ("false", "false\n", "false\n"),
        ("0", "0\n", "0\n"),
        ("1", "1\n", "1\n"),
        ("-1", "-1\n", "-1\n"),
        ("42", "42\n", "42\n"),
        ("4611686018427387904", "4611686018427387904\n", "4611686018427387904\n"),
        ("{\"f\": \"1.5\"}", "1.5\n", "1.5\n"),
        ("{\"f\": \"0.1\"}", "0.1\n", "0.1\n"),
        ("{\"f\": \"1e+16\"}", "1.0e+16\n", "1.0e+16\n"),
        ("{\"f\": \"1e+17\"}", "1.0e+17\n", "1.0e+17\n"),
        ("{\"f\": \"1e-05\"}", "1.0e-05\n", "1.0e-05\n"),
        ("{\"f\": \"1e-07\"}", "1.0e-07\n", "1.0e-07\n"),
        ("{\"f\": \"123456789.123\"}", "123456789.123\n", "123456789.123\n"),
        ("{\"f\": \"inf\"}", ".inf\n", ".inf\n"),
        ("{\"f\": \"-inf\"}", "-.inf\n", "-.inf\n"),
        ("{\"f\": \"nan\"}", ".nan\n", ".nan\n"),
        ("{\"f\": \"-0.0\"}", "-0.0\n", "-0.0\n"),
        ("{\"f\": \"3.0\"}", "3.0\n", "3.0\n"),
        ("{\"f\": \"1e+300\"}", "1.0e+300\n", "1.0e+300\n"),
        ("{\"f\": \"2.5e-300\"}", "2.5e-300\n", "2.5e-300\n"),
        ("{\"f\": \"0.30000000000000004\"}", "0.30000000000000004\n", "0.30000000000000004\n"),
        ("[]", "[]\n", "[]\n"),
        ("{}", "{}\n", "{}\n"),
        ("[[]]", "- []\n", "[[]]\n"),
        ("[{}]", "- {}\n", "[{}]\n"),
        ("{\"a\": []}", "a: []\n", "{a: []}\n"),
        ("{\"a\": {}}", "a: {}\n", "{a: {}}\n"),
        ("{\"a\": [1, 2]}", "a:\n- 1\n- 2\n", "{a: [1, 2]}\n"),
        ("{\"a\": {\"b\": [1, {\"c\": [2, []]}]}}", "a:\n  b:\n  - 1\n  - c:\n    - 2\n    - []\n", "{a: {b: [1, {c: [2, []]}]}}\n"),
        ("[[1, 2], [3, [4, 5]]]", "- - 1\n  - 2\n- - 3\n  - - 4\n    - 5\n", "[[1, 2], [3, [4, 5]]]\n"),
        ("[{\"a\": 1, \"b\": 2}, {\"c\": [1]}]", "- a: 1\n  b: 2\n- c:\n  - 1\n", "[{a: 1, b: 2}, {c: [1]}]\n"),
        ("{\"b\": 1, \"a\": 2, \"C\": 3, \"_\": 4, \"é\": 5, \"1\": 6, \"10\": 7, \"2\": 8}", "'1': 6\n'10': 7\n'2': 8\nC: 3\n_: 4\na: 2\nb: 1\né: 5\n", "{'1': 6, '10': 7, '2': 8, C: 3, _: 4, a: 2, b: 1, é: 5}\n"),
        ("{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\": 1}", "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: 1\n", "{kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk: 1}\n"),
        ("{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\": 1}", "? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n: 1\n", "{? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\n  : 1}\n"),
        ("{\"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkké\": 1}", "? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkké\n: 1\n", "{? kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkké\n  : 1}\n"),
        ("{\"multi\\nkey\": [1, 2]}", "? 'multi\n\n  key'\n: - 1\n  - 2\n", "{? 'multi\n\n    key' : [1, 2]}\n"),
        ("{\"multi\\nkey\": {\"a\": 1}}", "? 'multi\n\n  key'\n: a: 1\n", "{? 'multi\n\n    key' : {a: 1}}\n"),
        ("{\"\": 1}", "'': 1\n", "{'': 1}\n"),
        ("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]", "- 0\n- 1\n- 2\n- 3\n- 4\n- 5\n- 6\n- 7\n- 8\n- 9\n- 10\n- 11\n- 12\n- 13\n- 14\n- 15\n- 16\n- 17\n- 18\n- 19\n- 20\n- 21\n- 22\n- 23\n- 24\n- 25\n- 26\n- 27\n- 28\n- 29\n- 30\n- 31\n- 32\n- 33\n- 34\n- 35\n- 36\n- 37\n- 38\n- 39\n", "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,\n  23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]\n"),
        ("[\"item0\", \"item1\", \"item2\", \"item3\", \"item4\", \"item5\", \"item6\", \"item7\", \"item8\", \"item9\", \"item10\", \"item11\", \"item12\", \"item13\", \"item14\", \"item15\", \"item16\", \"item17\", \"item18\", \"item19\", \"item20\", \"item21\", \"item22\", \"item23\", \"item24\", \"item25\", \"item26\", \"item27\", \"item28\", \"item29\"]", "- item0\n- item1\n- item2\n- item3\n- item4\n- item5\n- item6\n- item7\n- item8\n- item9\n- item10\n- item11\n- item12\n- item13\n- item14\n- item15\n- item16\n- item17\n- item18\n- item19\n- item20\n- item21\n- item22\n- item23\n- item24\n- item25\n- item26\n- item27\n- item28\n- item29\n", "[item0, item1, item2, item3, item4, item5, item6, item7, item8, item9, item10, item11,\n  item12, item13, item14, item15, item16, item17, item18, item19, item20, item21,\n  item22, item23, item24, item25, item26, item27, item28, item29]\n"),
        ("{\"k0\": \"value number 0\", \"k1\": \"value number 1\", \"k2\": \"value number 2\", \"k3\": \"value number 3\", \"k4\": \"value number 4\", \"k5\": \"value number 5\", \"k6\": \"value number 6\", \"k7\": \"value number 7\", \"k8\": \"value number 8\", \"k9\": \"value number 9\", \"k10\": \"value number 10\", \"k11\": \"value number 11\", \"k12\": \"value number 12\", \"k13\": \"value number 13\", \"k14\": \"value number 14\"}", "k0: value number 0\nk1: value number 1\nk10: value number 10\nk11: value number 11\nk12: value number 12\nk13: value number 13\nk14: value number 14\nk2: value number 2\nk3: value number 3\nk4: value number 4\nk5: value number 5\nk6: value number 6\nk7: value number 7\nk8: value number 8\nk9: value number 9\n", "{k0: value number 0, k1: value number 1, k10: value number 10, k11: value number 11,\n  k12: value number 12, k13: value number 13, k14: value number 14, k2: value number\n    2, k3: value number 3, k4: value number 4, k5: value number 5, k6: value number\n    6, k7: value number 7, k8: value number 8, k9: value number 9}\n"),
        ("{\"nested\": {\"list\": [\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\", \"cccccccccccccccccccccccccccccc\", {\"dddddddddddddddddddddddddddddd\": \"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\"}]}}", "nested:\n  list:\n  - aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n  - bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n  - cccccccccccccccccccccccccccccc\n  - dddddddddddddddddddddddddddddd: eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\n", "{nested: {list: [aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, cccccccccccccccccccccccccccccc,\n      {dddddddddddddddddddddddddddddd: eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee}]}}\n"),
        ("{\"deep\": [[[[[\"xxxxxxxxxxxxxxxxxxxx\", \"yyyyyyyyyyyyyyyyyyyy\", \"zzzzzzzzzzzzzzzzzzzz\", \"wwwwwwwwwwwwwwwwwwww\"]]]]]}", "deep:\n- - - - - xxxxxxxxxxxxxxxxxxxx\n        - yyyyyyyyyyyyyyyyyyyy\n        - zzzzzzzzzzzzzzzzzzzz\n        - wwwwwwwwwwwwwwwwwwww\n", "{deep: [[[[[xxxxxxxxxxxxxxxxxxxx, yyyyyyyyyyyyyyyyyyyy, zzzzzzzzzzzzzzzzzzzz, wwwwwwwwwwwwwwwwwwww]]]]]}\n"),
        ("[{\"k\": \"long value long value long value long value long value long value long value long value long value long value long value long value \"}]", "- k: 'long value long value long value long value long value long value long value\n    long value long value long value long value long value '\n", "[{k: 'long value long value long value long value long value long value long value\n      long value long value long value long value long value '}]\n"),
        ("{\"a\": \"x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x \"}", "a: 'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x\n  x x x x x x x x x x x x x x x x x x x x x '\n", "{a: 'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x\n    x x x x x x x x x x x x x x x x x x x x x '}\n"),
        ("[[\"long value long value long value long value long value long value long value long value long value long value long value long value \"]]", "- - 'long value long value long value long value long value long value long value\n    long value long value long value long value long value '\n", "[['long value long value long value long value long value long value long value long\n      value long value long value long value long value ']]\n"),
        ("{\"local\": {\"zeta\": \"last\", \"alpha\": {\"b_key\": 1, \"a_key\": 2}, \"list\": [\"yes\", \"0644\", \"\", null, {\"f\": \"1.5\"}, {\"x\": []}]}}", "local:\n  alpha:\n    a_key: 2\n    b_key: 1\n  list:\n  - 'yes'\n  - '0644'\n  - ''\n  - null\n  - 1.5\n  - x: []\n  zeta: last\n", "{local: {alpha: {a_key: 2, b_key: 1}, list: ['yes', '0644', '', null, 1.5, {x: []}],\n    zeta: last}}\n"),
    ];

/// (text, Salt's `yaml_dquote`, `yaml_squote`, `yaml_encode`).
/// Generated with real Salt 3007.8.
const SALT_QUOTES: &[(&str, &str, &str, Option<&str>)] = &[
        ("yes", "\"yes\"", "'yes'", Some("\"yes\"")),
        ("no", "\"no\"", "'no'", Some("\"no\"")),
        ("on", "\"on\"", "'on'", Some("\"on\"")),
        ("off", "\"off\"", "'off'", Some("\"off\"")),
        ("y", "\"y\"", "'y'", Some("\"y\"")),
        ("n", "\"n\"", "'n'", Some("\"n\"")),
        ("true", "\"true\"", "'true'", Some("\"true\"")),
        ("True", "\"True\"", "'True'", Some("\"True\"")),
        ("null", "\"null\"", "'null'", Some("\"null\"")),
        ("Null", "\"Null\"", "'Null'", Some("\"Null\"")),
        ("~", "\"~\"", "'~'", Some("\"~\"")),
        ("", "\"\"", "''", Some("\"\"")),
        ("0644", "\"0644\"", "'0644'", Some("\"0644\"")),
        ("644", "\"644\"", "'644'", Some("\"644\"")),
        ("0x1F", "\"0x1F\"", "'0x1F'", Some("\"0x1F\"")),
        ("1e3", "\"1e3\"", "'1e3'", Some("\"1e3\"")),
        ("1.5", "\"1.5\"", "'1.5'", Some("\"1.5\"")),
        ("1.10", "\"1.10\"", "'1.10'", Some("\"1.10\"")),
        (".inf", "\".inf\"", "'.inf'", Some("\".inf\"")),
        (".nan", "\".nan\"", "'.nan'", Some("\".nan\"")),
        ("-.inf", "\"-.inf\"", "'-.inf'", Some("\"-.inf\"")),
        ("2024-01-02", "\"2024-01-02\"", "'2024-01-02'", Some("\"2024-01-02\"")),
        ("2024-01-02 10:00:00", "\"2024-01-02 10:00:00\"", "'2024-01-02 10:00:00'", Some("\"2024-01-02 10:00:00\"")),
        ("1:20", "\"1:20\"", "'1:20'", Some("\"1:20\"")),
        ("<<", "\"<<\"", "'<<'", Some("\"<<\"")),
        ("=", "\"=\"", "'='", Some("\"=\"")),
        ("!", "\"!\"", "'!'", Some("\"!\"")),
        ("&", "\"&\"", "'&'", Some("\"&\"")),
        ("*", "\"*\"", "'*'", Some("\"*\"")),
        ("-", "\"-\"", "'-'", Some("\"-\"")),
        ("--", "\"--\"", "'--'", Some("\"--\"")),
        ("---", "\"---\"", "'---'", Some("\"---\"")),
        ("--- x", "\"--- x\"", "'--- x'", Some("\"--- x\"")),
        ("...", "\"...\"", "'...'", Some("\"...\"")),
        ("... x", "\"... x\"", "'... x'", Some("\"... x\"")),
        ("- ", "\"- \"", "'- '", Some("\"- \"")),
        ("-a", "\"-a\"", "'-a'", Some("\"-a\"")),
        ("- a", "\"- a\"", "'- a'", Some("\"- a\"")),
        (":a", "\":a\"", "':a'", Some("\":a\"")),
        ("a:", "\"a:\"", "'a:'", Some("\"a:\"")),
        ("a: b", "\"a: b\"", "'a: b'", Some("\"a: b\"")),
        ("a:b", "\"a:b\"", "'a:b'", Some("\"a:b\"")),
        ("?", "\"?\"", "'?'", Some("\"?\"")),
        ("? a", "\"? a\"", "'? a'", Some("\"? a\"")),
        ("?a", "\"?a\"", "'?a'", Some("\"?a\"")),
        ("#c", "\"#c\"", "'#c'", Some("\"#c\"")),
        ("a #c", "\"a #c\"", "'a #c'", Some("\"a #c\"")),
        ("a#c", "\"a#c\"", "'a#c'", Some("\"a#c\"")),
        ("a# c", "\"a# c\"", "'a# c'", Some("\"a# c\"")),
        (" lead", "\" lead\"", "' lead'", Some("\" lead\"")),
        ("trail ", "\"trail \"", "'trail '", Some("\"trail \"")),
        ("multi\nline", "\"multi\\nline\"", "'multi\n\nline'", Some("\"multi\\nline\"")),
        ("multi\nline\n", "\"multi\\nline\\n\"", "'multi\n\nline\n\n'", Some("\"multi\\nline\\n\"")),
        ("\nlead", "\"\\nlead\"", "'\n\nlead'", Some("\"\\nlead\"")),
        ("a\n\nb", "\"a\\n\\nb\"", "'a\n\n\nb'", Some("\"a\\n\\nb\"")),
        ("a\n b", "\"a\\n b\"", "'a\n\n b'", Some("\"a\\n b\"")),
        ("a \nb", "\"a \\nb\"", "'a \n\nb'", Some("\"a \\nb\"")),
        ("tab\there", "\"tab\\there\"", "'tab\there'", Some("\"tab\\there\"")),
        ("\ttab", "\"\\ttab\"", "'\ttab'", Some("\"\\ttab\"")),
        ("é unicode", "\"\\xE9 unicode\"", "'é unicode'", Some("\"\\xE9 unicode\"")),
        ("日本語", "\"\\u65E5\\u672C\\u8A9E\"", "'日本語'", Some("\"\\u65E5\\u672C\\u8A9E\"")),
        ("emoji 😀", "\"emoji \\U0001F600\"", "'emoji 😀'", Some("\"emoji \\U0001F600\"")),
        ("@at", "\"@at\"", "'@at'", Some("\"@at\"")),
        ("`bt", "\"`bt\"", "'`bt'", Some("\"`bt\"")),
        ("quote's", "\"quote's\"", "'quote''s'", Some("\"quote's\"")),
        ("\"dq\"", "\"\\\"dq\\\"\"", "'\"dq\"'", Some("\"\\\"dq\\\"\"")),
        ("'sq'", "\"'sq'\"", "'''sq'''", Some("\"'sq'\"")),
        ("*star", "\"*star\"", "'*star'", Some("\"*star\"")),
        ("&amp", "\"&amp\"", "'&amp'", Some("\"&amp\"")),
        ("!bang", "\"!bang\"", "'!bang'", Some("\"!bang\"")),
        ("%pct", "\"%pct\"", "'%pct'", Some("\"%pct\"")),
        ("{b}", "\"{b}\"", "'{b}'", Some("\"{b}\"")),
        ("[b]", "\"[b]\"", "'[b]'", Some("\"[b]\"")),
        ("a,b", "\"a,b\"", "'a,b'", Some("\"a,b\"")),
        ("a[b", "\"a[b\"", "'a[b'", Some("\"a[b\"")),
        ("a]b", "\"a]b\"", "'a]b'", Some("\"a]b\"")),
        ("a{b}", "\"a{b}\"", "'a{b}'", Some("\"a{b}\"")),
        ("|pipe", "\"|pipe\"", "'|pipe'", Some("\"|pipe\"")),
        (">gt", "\">gt\"", "'>gt'", Some("\">gt\"")),
        ("a|b", "\"a|b\"", "'a|b'", Some("\"a|b\"")),
        ("a>b", "\"a>b\"", "'a>b'", Some("\"a>b\"")),
        ("\\back", "\"\\\\back\"", "'\\back'", Some("\"\\\\back\"")),
        ("nul\u{0}x", "\"nul\\0x\"", "'nul\u{0}x'", Some("\"nul\\0x\"")),
        ("bell\u{7}", "\"bell\\a\"", "'bell\u{7}'", Some("\"bell\\a\"")),
        ("esc\u{1b}", "\"esc\\e\"", "'esc\u{1b}'", Some("\"esc\\e\"")),
        ("del\u{7f}", "\"del\\x7F\"", "'del\u{7f}'", Some("\"del\\x7F\"")),
        ("nel\u{85}x", "\"nel\\Nx\"", "'nel\u{85}x'", Some("\"nel\\Nx\"")),
        ("nbsp x", "\"nbsp\\_x\"", "'nbsp x'", Some("\"nbsp\\_x\"")),
        ("ls\u{2028}x", "\"ls\\Lx\"", "'ls\u{2028}x'", Some("\"ls\\Lx\"")),
        ("ps\u{2029}x", "\"ps\\Px\"", "'ps\u{2029}x'", Some("\"ps\\Px\"")),
        ("bom\u{feff}x", "\"bom\\uFEFFx\"", "'bom\u{feff}x'", Some("\"bom\\uFEFFx\"")),
        ("cr\rx", "\"cr\\rx\"", "'cr\rx'", Some("\"cr\\rx\"")),
        ("crlf\r\nx", "\"crlf\\r\\nx\"", "'crlf\r\n\nx'", Some("\"crlf\\r\\nx\"")),
        ("\u{85}", "\"\\N\"", "'\u{85}'", Some("\"\\N\"")),
        ("=x", "\"=x\"", "'=x'", Some("\"=x\"")),
        ("<<x", "\"<<x\"", "'<<x'", Some("\"<<x\"")),
        ("x<<", "\"x<<\"", "'x<<'", Some("\"x<<\"")),
        ("0", "\"0\"", "'0'", Some("\"0\"")),
        ("-0", "\"-0\"", "'-0'", Some("\"-0\"")),
        ("+1", "\"+1\"", "'+1'", Some("\"+1\"")),
        ("00", "\"00\"", "'00'", Some("\"00\"")),
        ("0.", "\"0.\"", "'0.'", Some("\"0.\"")),
        ("._", "\"._\"", "'._'", Some("\"._\"")),
        ("1_000", "\"1_000\"", "'1_000'", Some("\"1_000\"")),
        ("0b1", "\"0b1\"", "'0b1'", Some("\"0b1\"")),
        ("0o7", "\"0o7\"", "'0o7'", Some("\"0o7\"")),
        ("1:70", "\"1:70\"", "'1:70'", Some("\"1:70\"")),
        ("123456789012345678901234567890", "\"123456789012345678901234567890\"", "'123456789012345678901234567890'", Some("\"123456789012345678901234567890\"")),
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'", Some("\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"")),
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'", Some("\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"")),
        ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"", "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'", Some("\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"")),
        ("word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word ", "\"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word \"", "'word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word '", Some("\"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word \"")),
        ("word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end", "\"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end\"", "'word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end'", Some("\"word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word end\"")),
        ("longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword ", "\"longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword \"", "'longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword '", Some("\"longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword longwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongwordlongword \"")),
        ("x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x ", "\"x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x \"", "'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x '", Some("\"x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x \"")),
        ("a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b", "\"a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b\"", "'a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b'", Some("\"a  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  ba  b\"")),
        ("spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row ", "\"spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row \"", "'spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row '", Some("\"spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row spaces   in   a   row \"")),
        ("éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé x éééééééééé", "\"\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9 x \\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\"", "'éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé x éééééééééé'", Some("\"\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9 x \\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\\xE9\"")),
        ("quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote ", "\"quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote \"", "'quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long'' string with quote quoted ''long'' string with quote '", Some("\"quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote quoted 'long' string with quote \"")),
        ("multi\nline with 'quote' and word word word word word word word word word word word word word word word word word word word word ", "\"multi\\nline with 'quote' and word word word word word word word word word word word word word word word word word word word word \"", "'multi\n\nline with ''quote'' and word word word word word word word word word word word word word word word word word word word word '", Some("\"multi\\nline with 'quote' and word word word word word word word word word word word word word word word word word word word word \"")),
        ("dq needed\tword word word word word word word word word word word word word word word word word word word word word word word word word ", "\"dq needed\\tword word word word word word word word word word word word word word word word word word word word word word word word word \"", "'dq needed\tword word word word word word word word word word word word word word word word word word word word word word word word word '", Some("\"dq needed\\tword word word word word word word word word word word word word word word word word word word word word word word word word \"")),
        ("trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space  ", "\"trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space  \"", "'trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space  '", Some("\"trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space trailing space  \"")),
        (" leading word word word word word word word word word word word word word word word word word word word word word word word word word ", "\" leading word word word word word word word word word word word word word word word word word word word word word word word word word \"", "' leading word word word word word word word word word word word word word word word word word word word word word word word word word '", Some("\" leading word word word word word word word word word word word word word word word word word word word word word word word word word \"")),
    ];

/// PyYAML does not check indentation inside flow collections: Jinja's
/// `yaml` filter wraps a long value at column 80 with continuation lines
/// indented less than the key they belong to (every formula's `_mapdata`
/// does this). The answer is PyYAML's (recorded with Salt 3007.8's).
#[test]
fn flow_lines_indented_less_than_their_key_read_as_pyyaml_reads_them() {
    let text = "top:\n  inner:\n        map: {values: {a: 1,\n    b: [1, 2,\n  3], c: 'x\n y', d: \"p \\\n q\", e: [\n it's, \"#no\", x #c\n ]}}\n        after: [\n  1, 2]\n";
    assert_eq!(
        load_canon(text),
        r##"{"top":{"inner":{"map":{"values":{"a":1,"b":[1,2,3],"c":"x y","d":"p q","e":["it's","#no","x"]}},"after":[1,2]}}}"##
    );
    assert_eq!(
        load_canon("a:\n  b: {c: 1,\nd: 2}\n"),
        r#"{"a":{"b":{"c":1,"d":2}}}"#
    );
    // A flow collection that never closes is still an error.
    assert!(load("a:\n  b: {c: 1,\nd: 2\n").is_err());
}
