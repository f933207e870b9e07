//! Python's `str` for templates: `%` formatting, `str.format()` with its
//! format specs, and the `str` methods minijinja-contrib's pycompat lacks
//! or gets wrong for Salt. Both the filters (`|format`) and the method
//! callback (`'{}'.format(x)`) use them.

use super::convert::{self, py_repr, py_str};
use super::pyargs::{bind, invalid, split, str_arg};
use minijinja::value::{Value as MjValue, ValueKind};
use minijinja::Error;

/// A number for arithmetic: `bool` counts as 0/1, as in Python.
pub(crate) fn number_f64(v: &MjValue) -> Result<f64, Error> {
    if v.kind() == ValueKind::Bool {
        return Ok(if v.is_true() { 1.0 } else { 0.0 });
    }
    f64::try_from(v.clone()).map_err(|_| invalid(format!("not a number: {}", py_repr(v))))
}

/// Python `%` formatting (`'%s-%05.1f' | format(a, b)`), with `str()` and
/// `repr()` of values as Python gives them.
pub(crate) fn percent_format(fmt: &str, args: &[MjValue]) -> Result<String, Error> {
    let (pos, kw) = split(args);
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    let mut next_arg = 0usize;
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // %(name)
        let mut named: Option<String> = None;
        if chars.peek() == Some(&'(') {
            chars.next();
            named = Some(chars.by_ref().take_while(|&x| x != ')').collect());
        }
        let mut spec = FormatSpec::default();
        while let Some(&f) = chars.peek() {
            match f {
                '-' => spec.align = Some('<'),
                '+' => spec.sign = Some('+'),
                ' ' => spec.sign = Some(' '),
                '0' => spec.zero = true,
                '#' => spec.alt = true,
                _ => break,
            }
            chars.next();
        }
        let mut width = String::new();
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            width.push(d);
            chars.next();
        }
        spec.width = width.parse().ok();
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut prec = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                prec.push(d);
                chars.next();
            }
            spec.precision = Some(prec.parse().unwrap_or(0));
        }
        let Some(conv) = chars.next() else {
            return Err(invalid("ValueError: incomplete format"));
        };
        if conv == '%' {
            out.push('%');
            continue;
        }
        let arg = match &named {
            Some(name) => kw
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, x)| x.clone())
                .or_else(|| {
                    pos.first()
                        .and_then(|m| m.get_item(&MjValue::from(name.as_str())).ok())
                })
                .filter(|x| !x.is_undefined())
                .ok_or_else(|| invalid(format!("KeyError: '{name}'")))?,
            None => {
                let a = pos
                    .get(next_arg)
                    .cloned()
                    .ok_or_else(|| invalid("TypeError: not enough arguments for format string"))?;
                next_arg += 1;
                a
            }
        };
        spec.kind = Some(conv);
        out.push_str(&spec.apply(&arg)?);
    }
    Ok(out)
}

/// The parts of a Python format spec that Salt trees use.
#[derive(Default)]
pub(crate) struct FormatSpec {
    pub fill: Option<char>,
    pub align: Option<char>,
    pub sign: Option<char>,
    pub alt: bool,
    pub zero: bool,
    pub width: Option<usize>,
    pub precision: Option<usize>,
    pub kind: Option<char>,
}

impl FormatSpec {
    /// Parse a `str.format` spec: `[[fill]align][sign][#][0][width][.precision][type]`.
    pub(crate) fn parse(spec: &str) -> Result<FormatSpec, Error> {
        let chars: Vec<char> = spec.chars().collect();
        let mut s = FormatSpec::default();
        let mut i = 0;
        let is_align = |c: char| "<>^=".contains(c);
        if chars.len() >= 2 && is_align(chars[1]) {
            s.fill = Some(chars[0]);
            s.align = Some(chars[1]);
            i = 2;
        } else if chars.first().is_some_and(|&c| is_align(c)) {
            s.align = chars.first().copied();
            i = 1;
        }
        if let Some(&c) = chars.get(i).filter(|c| "+- ".contains(**c)) {
            s.sign = Some(c);
            i += 1;
        }
        if chars.get(i) == Some(&'#') {
            s.alt = true;
            i += 1;
        }
        if chars.get(i) == Some(&'0') {
            s.zero = true;
            i += 1;
        }
        let start = i;
        while chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        if i > start {
            s.width = chars[start..i].iter().collect::<String>().parse().ok();
        }
        if chars.get(i) == Some(&'.') {
            i += 1;
            let start = i;
            while chars.get(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
            s.precision = chars[start..i].iter().collect::<String>().parse().ok();
        }
        s.kind = chars.get(i).copied();
        if i + usize::from(s.kind.is_some()) != chars.len() {
            return Err(invalid(format!(
                "ValueError: Invalid format specifier '{spec}'"
            )));
        }
        Ok(s)
    }

    pub(crate) fn apply(&self, v: &MjValue) -> Result<String, Error> {
        let numeric = |v: &MjValue| -> Result<f64, Error> { number_f64(v) };
        let body = match self.kind {
            None | Some('s') => {
                let s = if self.kind.is_none() && v.is_number() && self.precision.is_some() {
                    format!("{:.*}", self.precision.unwrap_or(6), numeric(v)?)
                } else {
                    py_str(v)
                };
                match (self.precision, self.kind) {
                    (Some(p), Some('s')) => s.chars().take(p).collect(),
                    _ => s,
                }
            }
            Some('r') => py_repr(v),
            Some('d' | 'i' | 'u') => {
                let f = numeric(v)?;
                let i = f.trunc() as i64;
                self.signed(i.to_string(), i < 0)
            }
            Some('f' | 'F') => {
                let f = numeric(v)?;
                self.signed(
                    format!("{:.*}", self.precision.unwrap_or(6), f.abs()),
                    f < 0.0,
                )
            }
            Some('e' | 'E') => {
                let f = numeric(v)?;
                let s = format!("{:.*e}", self.precision.unwrap_or(6), f.abs());
                // Rust writes 1.5e2; Python 1.5e+02.
                let s = match s.split_once('e') {
                    Some((m, e)) => {
                        let n: i32 = e.parse().unwrap_or(0);
                        format!("{m}e{}{:02}", if n < 0 { '-' } else { '+' }, n.abs())
                    }
                    None => s,
                };
                let s = if self.kind == Some('E') {
                    s.to_uppercase()
                } else {
                    s
                };
                self.signed(s, f < 0.0)
            }
            Some('x' | 'X' | 'o') => {
                let i = numeric(v)? as i64;
                let digits = match self.kind {
                    Some('x') => format!("{:x}", i.unsigned_abs()),
                    Some('X') => format!("{:X}", i.unsigned_abs()),
                    _ => format!("{:o}", i.unsigned_abs()),
                };
                let prefix = match (self.alt, self.kind) {
                    (true, Some('x')) => "0x",
                    (true, Some('X')) => "0X",
                    (true, _) => "0o",
                    _ => "",
                };
                self.signed(format!("{prefix}{digits}"), i < 0)
            }
            Some('c') => match v.as_i64().and_then(|i| char::from_u32(i as u32)) {
                Some(c) => c.to_string(),
                None => py_str(v).chars().take(1).collect(),
            },
            Some(other) => {
                return Err(invalid(format!(
                    "ValueError: unsupported format character '{other}'"
                )))
            }
        };
        Ok(self.pad(body, v.is_number() && self.kind != Some('s')))
    }

    fn signed(&self, digits: String, negative: bool) -> String {
        if negative {
            format!("-{}", digits.trim_start_matches('-'))
        } else if let Some(s @ ('+' | ' ')) = self.sign {
            format!("{s}{digits}")
        } else {
            digits
        }
    }

    fn pad(&self, body: String, numeric: bool) -> String {
        let Some(width) = self.width else { return body };
        let len = body.chars().count();
        if len >= width {
            return body;
        }
        let n = width - len;
        if self.zero && numeric && self.align.is_none() {
            let (sign, rest) = match body.chars().next() {
                Some(c @ ('-' | '+' | ' ')) => (c.to_string(), body[c.len_utf8()..].to_string()),
                _ => (String::new(), body.clone()),
            };
            return format!("{sign}{}{rest}", "0".repeat(n));
        }
        let fill = self.fill.unwrap_or(' ').to_string();
        let align = self.align.unwrap_or(if numeric { '>' } else { '<' });
        match align {
            '>' | '=' => format!("{}{body}", fill.repeat(n)),
            '^' => format!("{}{body}{}", fill.repeat(n / 2), fill.repeat(n - n / 2)),
            _ => format!("{body}{}", fill.repeat(n)),
        }
    }
}

/// `str.format(*args, **kwargs)` with `{}`, `{0}`, `{name}`, `{name[key]}`,
/// `{name.attr}`, `!r`/`!s` and format specs.
fn str_format(fmt: &str, args: &[MjValue]) -> Result<String, Error> {
    let (pos, kw) = split(args);
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    let mut auto = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let field: String = chars.by_ref().take_while(|&x| x != '}').collect();
                let (name_part, spec) = field.split_once(':').unwrap_or((&field, ""));
                let (name_part, conv) = match name_part.split_once('!') {
                    Some((n, c)) => (n, Some(c)),
                    None => (name_part, None),
                };
                let head_end = name_part.find(['.', '[']).unwrap_or(name_part.len());
                let (head, rest) = name_part.split_at(head_end);
                let mut value = if head.is_empty() {
                    let v = pos.get(auto).cloned();
                    auto += 1;
                    v
                } else if let Ok(i) = head.parse::<usize>() {
                    pos.get(i).cloned()
                } else {
                    kw.iter().find(|(k, _)| k == head).map(|(_, v)| v.clone())
                }
                .ok_or_else(|| {
                    invalid(format!(
                        "IndexError/KeyError: replacement field '{head}' has no value"
                    ))
                })?;
                // .attr and [key] lookups
                let mut rest = rest;
                while !rest.is_empty() {
                    if let Some(r) = rest.strip_prefix('.') {
                        let end = r.find(['.', '[']).unwrap_or(r.len());
                        value = value.get_attr(&r[..end])?;
                        rest = &r[end..];
                    } else if let Some(r) = rest.strip_prefix('[') {
                        let end = r
                            .find(']')
                            .ok_or_else(|| invalid("ValueError: Missing ']' in format string"))?;
                        let key = &r[..end];
                        let k = key
                            .parse::<i64>()
                            .map(MjValue::from)
                            .unwrap_or_else(|_| MjValue::from(key));
                        value = value.get_item(&k)?;
                        rest = &r[end + 1..];
                    } else {
                        break;
                    }
                }
                let value = match conv {
                    Some("r") => MjValue::from(py_repr(&value)),
                    Some("s") | None => value,
                    Some(other) => {
                        return Err(invalid(format!(
                            "ValueError: Unknown conversion specifier {other}"
                        )))
                    }
                };
                out.push_str(&FormatSpec::parse(spec)?.apply(&value)?);
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

/// Python `str` methods minijinja-contrib's pycompat lacks, or gets wrong
/// for Salt (`format` printing Python values).
pub(crate) fn str_method(
    v: &MjValue,
    method: &str,
    args: &[MjValue],
) -> Result<Option<MjValue>, Error> {
    let s = v.as_str().unwrap_or_default();
    let fname = format!("str.{method}");
    let width_fill = |a: &[Option<MjValue>]| -> Result<(usize, char), Error> {
        let w = a[0]
            .as_ref()
            .and_then(|w| w.as_i64())
            .ok_or_else(|| invalid(format!("{fname}(): width must be an integer")))?;
        let fill = match &a[1] {
            Some(f) => f.as_str().and_then(|f| f.chars().next()).unwrap_or(' '),
            None => ' ',
        };
        Ok((w.max(0) as usize, fill))
    };
    let len = s.chars().count();
    let rv = match method {
        "format" => MjValue::from(str_format(s, args)?),
        "zfill" => {
            let a = bind(&fname, args, &["width"], 1)?;
            let w = a[0].as_ref().and_then(|w| w.as_i64()).unwrap_or(0).max(0) as usize;
            if len >= w {
                MjValue::from(s)
            } else {
                let (sign, rest) = match s.chars().next() {
                    Some(c @ ('-' | '+')) => (c.to_string(), &s[1..]),
                    _ => (String::new(), s),
                };
                MjValue::from(format!("{sign}{}{rest}", "0".repeat(w - len)))
            }
        }
        "ljust" | "rjust" | "center" => {
            let a = bind(&fname, args, &["width", "fillchar"], 1)?;
            let (w, fill) = width_fill(&a)?;
            if len >= w {
                MjValue::from(s)
            } else {
                let n = w - len;
                let f = |k: usize| fill.to_string().repeat(k);
                MjValue::from(match method {
                    "ljust" => format!("{s}{}", f(n)),
                    "rjust" => format!("{}{s}", f(n)),
                    // CPython's rule for where the odd fill char goes.
                    _ => {
                        let left = n / 2 + (n & w & 1);
                        format!("{}{s}{}", f(left), f(n - left))
                    }
                })
            }
        }
        "partition" | "rpartition" => {
            let a = bind(&fname, args, &["sep"], 1)?;
            let sep_v = a[0].clone().unwrap_or_default();
            let sep = str_arg(&fname, "sep", &sep_v)?;
            let found = if method == "partition" {
                s.split_once(sep)
            } else {
                s.rsplit_once(sep)
            };
            let parts = match (found, method) {
                (Some((l, r)), _) => [l, sep, r],
                (None, "partition") => [s, "", ""],
                (None, _) => ["", "", s],
            };
            convert::tuple(parts.iter().map(|p| MjValue::from(*p)).collect())
        }
        "rsplit" => {
            let a = bind(&fname, args, &["sep", "maxsplit"], 0)?;
            let max = a[1].as_ref().and_then(|m| m.as_i64()).unwrap_or(-1);
            let sep = a[0].as_ref().filter(|x| !x.is_none()).map(py_str);
            let mut parts: Vec<String> = match (&sep, max) {
                (Some(sep), m) if m >= 0 => s
                    .rsplitn(m as usize + 1, sep.as_str())
                    .map(String::from)
                    .collect(),
                (Some(sep), _) => s.rsplit(sep.as_str()).map(String::from).collect(),
                (None, m) => {
                    let words: Vec<&str> = s.split_whitespace().collect();
                    if m >= 0 && (m as usize) < words.len().saturating_sub(1) {
                        // Keep the head joined as Python does (approximately:
                        // original spacing inside the head is not kept).
                        let cut = words.len() - m as usize;
                        let mut v: Vec<String> =
                            words[cut..].iter().rev().map(|w| w.to_string()).collect();
                        v.push(words[..cut].join(" "));
                        v
                    } else {
                        words.iter().rev().map(|w| w.to_string()).collect()
                    }
                }
            };
            parts.reverse();
            MjValue::from(parts.into_iter().map(MjValue::from).collect::<Vec<_>>())
        }
        "removeprefix" | "removesuffix" => {
            let a = bind(&fname, args, &["affix"], 1)?;
            let x = a[0].clone().unwrap_or_default();
            let affix = str_arg(&fname, "affix", &x)?;
            MjValue::from(if method == "removeprefix" {
                s.strip_prefix(affix).unwrap_or(s)
            } else {
                s.strip_suffix(affix).unwrap_or(s)
            })
        }
        "index" | "rindex" => {
            let a = bind(&fname, args, &["sub"], 1)?;
            let x = a[0].clone().unwrap_or_default();
            let sub = str_arg(&fname, "sub", &x)?;
            let pos = if method == "index" {
                s.find(sub)
            } else {
                s.rfind(sub)
            };
            match pos {
                Some(p) => MjValue::from(s[..p].chars().count()),
                None => return Err(invalid("ValueError: substring not found")),
            }
        }
        "swapcase" => MjValue::from(
            s.chars()
                .map(|c| {
                    if c.is_uppercase() {
                        c.to_lowercase().to_string()
                    } else {
                        c.to_uppercase().to_string()
                    }
                })
                .collect::<String>(),
        ),
        "casefold" => MjValue::from(s.to_lowercase()),
        _ => return Ok(None),
    };
    Ok(Some(rv))
}
