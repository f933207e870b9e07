//! Python's `difflib.unified_diff`, line for line: Salt prints its diffs
//! with it, and a different (even if equally valid) diff algorithm would
//! put hunks in other places. This is the same `SequenceMatcher` algorithm
//! (longest matching block first, recursing on both sides, "popular" lines
//! ignored as anchors once `b` has 200 lines or more), written anew.

use std::collections::HashMap;
use std::hash::Hash;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Equal,
    Replace,
    Delete,
    Insert,
}

type Opcode = (Tag, usize, usize, usize, usize);

struct Matcher<'a, T> {
    a: &'a [T],
    b: &'a [T],
    /// Where each (non-popular) element of `b` occurs, ascending.
    b2j: HashMap<&'a T, Vec<usize>>,
}

impl<'a, T: Eq + Hash> Matcher<'a, T> {
    fn new(a: &'a [T], b: &'a [T]) -> Self {
        let mut b2j: HashMap<&T, Vec<usize>> = HashMap::new();
        for (j, elt) in b.iter().enumerate() {
            b2j.entry(elt).or_default().push(j);
        }
        // The "autojunk" heuristic: in long sequences, elements making up
        // more than 1% of `b` are not used to anchor matches.
        let n = b.len();
        if n >= 200 {
            let ntest = n / 100 + 1;
            b2j.retain(|_, idxs| idxs.len() <= ntest);
        }
        Matcher { a, b, b2j }
    }

    fn find_longest_match(
        &self,
        alo: usize,
        ahi: usize,
        blo: usize,
        bhi: usize,
    ) -> (usize, usize, usize) {
        let (a, b) = (self.a, self.b);
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
        let mut j2len: HashMap<usize, usize> = HashMap::new();
        for (i, ai) in a.iter().enumerate().take(ahi).skip(alo) {
            let mut newj2len = HashMap::new();
            if let Some(js) = self.b2j.get(ai) {
                for &j in js {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = j
                        .checked_sub(1)
                        .and_then(|p| j2len.get(&p))
                        .copied()
                        .unwrap_or(0)
                        + 1;
                    newj2len.insert(j, k);
                    if k > bestsize {
                        besti = i + 1 - k;
                        bestj = j + 1 - k;
                        bestsize = k;
                    }
                }
            }
            j2len = newj2len;
        }
        // Extend the match over equal neighbours (popular elements included:
        // they are not junk, only not used as anchors).
        while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi
            && bestj + bestsize < bhi
            && a[besti + bestsize] == b[bestj + bestsize]
        {
            bestsize += 1;
        }
        (besti, bestj, bestsize)
    }

    fn matching_blocks(&self) -> Vec<(usize, usize, usize)> {
        let (la, lb) = (self.a.len(), self.b.len());
        let mut queue = vec![(0, la, 0, lb)];
        let mut blocks = Vec::new();
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let (i, j, k) = self.find_longest_match(alo, ahi, blo, bhi);
            if k > 0 {
                blocks.push((i, j, k));
                if alo < i && blo < j {
                    queue.push((alo, i, blo, j));
                }
                if i + k < ahi && j + k < bhi {
                    queue.push((i + k, ahi, j + k, bhi));
                }
            }
        }
        blocks.sort_unstable();
        let mut out = Vec::new();
        let (mut i1, mut j1, mut k1) = (0, 0, 0);
        for (i2, j2, k2) in blocks {
            if i1 + k1 == i2 && j1 + k1 == j2 {
                k1 += k2;
            } else {
                if k1 > 0 {
                    out.push((i1, j1, k1));
                }
                (i1, j1, k1) = (i2, j2, k2);
            }
        }
        if k1 > 0 {
            out.push((i1, j1, k1));
        }
        out.push((la, lb, 0));
        out
    }

    fn opcodes(&self) -> Vec<Opcode> {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        for (ai, bj, size) in self.matching_blocks() {
            let tag = if i < ai && j < bj {
                Some(Tag::Replace)
            } else if i < ai {
                Some(Tag::Delete)
            } else if j < bj {
                Some(Tag::Insert)
            } else {
                None
            };
            if let Some(tag) = tag {
                out.push((tag, i, ai, j, bj));
            }
            i = ai + size;
            j = bj + size;
            if size > 0 {
                out.push((Tag::Equal, ai, i, bj, j));
            }
        }
        out
    }

    fn grouped_opcodes(&self, n: usize) -> Vec<Vec<Opcode>> {
        let mut codes = self.opcodes();
        if codes.is_empty() {
            codes.push((Tag::Equal, 0, 1, 0, 1));
        }
        if let Some(first) = codes.first_mut() {
            if first.0 == Tag::Equal {
                let (t, i1, i2, j1, j2) = *first;
                *first = (
                    t,
                    i1.max(i2.saturating_sub(n)),
                    i2,
                    j1.max(j2.saturating_sub(n)),
                    j2,
                );
            }
        }
        if let Some(last) = codes.last_mut() {
            if last.0 == Tag::Equal {
                let (t, i1, i2, j1, j2) = *last;
                *last = (t, i1, i2.min(i1 + n), j1, j2.min(j1 + n));
            }
        }
        let nn = n + n;
        let mut groups = Vec::new();
        let mut group = Vec::new();
        for (tag, mut i1, i2, mut j1, j2) in codes {
            if tag == Tag::Equal && i2 - i1 > nn {
                group.push((tag, i1, i2.min(i1 + n), j1, j2.min(j1 + n)));
                groups.push(std::mem::take(&mut group));
                i1 = i1.max(i2.saturating_sub(n));
                j1 = j1.max(j2.saturating_sub(n));
            }
            group.push((tag, i1, i2, j1, j2));
        }
        let only_equal = group.len() == 1 && group[0].0 == Tag::Equal;
        if !group.is_empty() && !only_equal {
            groups.push(group);
        }
        groups
    }
}

/// Python's `_format_range_unified`.
fn format_range(start: usize, stop: usize) -> String {
    let mut beginning = start + 1;
    let length = stop - start;
    if length == 1 {
        return beginning.to_string();
    }
    if length == 0 {
        beginning -= 1;
    }
    format!("{beginning},{length}")
}

/// The lines `difflib.unified_diff(a, b, lineterm=lineterm)` yields (empty
/// file names and dates, 3 lines of context). Lines of `a`/`b` are used as
/// given (with or without their newline), like Python does.
pub fn unified_diff(a: &[&str], b: &[&str], lineterm: &str) -> Vec<String> {
    let m = Matcher::new(a, b);
    let mut out = Vec::new();
    for (n, group) in m.grouped_opcodes(3).iter().enumerate() {
        if n == 0 {
            out.push(format!("--- {lineterm}"));
            out.push(format!("+++ {lineterm}"));
        }
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        out.push(format!(
            "@@ -{} +{} @@{lineterm}",
            format_range(first.1, last.2),
            format_range(first.3, last.4)
        ));
        for &(tag, i1, i2, j1, j2) in group {
            if tag == Tag::Equal {
                out.extend(a[i1..i2].iter().map(|l| format!(" {l}")));
                continue;
            }
            if matches!(tag, Tag::Replace | Tag::Delete) {
                out.extend(a[i1..i2].iter().map(|l| format!("-{l}")));
            }
            if matches!(tag, Tag::Replace | Tag::Insert) {
                out.extend(b[j1..j2].iter().map(|l| format!("+{l}")));
            }
        }
    }
    out
}

/// Python's `bytes.readlines()` / `splitlines(True)` on `\n` only: each line
/// keeps its newline; a last line without one is kept too.
pub fn split_keep_newline(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in data.iter().enumerate() {
        if c == b'\n' {
            out.push(&data[start..=i]);
            start = i + 1;
        }
    }
    if start < data.len() {
        out.push(&data[start..]);
    }
    out
}

/// Python's `bytes.splitlines(True)`: breaks at `\n`, `\r` and `\r\n`.
pub fn bytes_splitlines_keepends(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < data.len() {
        match data[i] {
            b'\n' => {
                out.push(&data[start..=i]);
                start = i + 1;
            }
            b'\r' => {
                let end = if data.get(i + 1) == Some(&b'\n') {
                    i + 1
                } else {
                    i
                };
                out.push(&data[start..=end]);
                i = end;
                start = end + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < data.len() {
        out.push(&data[start..]);
    }
    out
}

/// Whether `c` ends a line for Python's `str.splitlines`.
fn is_py_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\x0b'
            | '\x0c'
            | '\x1c'
            | '\x1d'
            | '\x1e'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// Python's `str.splitlines()` (line ends dropped).
pub fn str_splitlines(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if is_py_line_break(c) {
            out.push(&s[start..i]);
            let mut end = i + c.len_utf8();
            if c == '\r' {
                if let Some(&(_, '\n')) = chars.peek() {
                    chars.next();
                    end += 1;
                }
            }
            start = end;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// Salt's decoding of a diffed line: UTF-8, else Latin-1.
pub fn decode_line(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_string(),
        Err(_) => b.iter().map(|&c| c as char).collect(),
    }
}

/// Salt's `stringutils.get_diff` of two byte contents split like
/// `readlines()`: the unified diff joined into one string.
pub fn diff_bytes(old: &[u8], new: &[u8]) -> String {
    let a: Vec<String> = split_keep_newline(old)
        .into_iter()
        .map(decode_line)
        .collect();
    let b: Vec<String> = split_keep_newline(new)
        .into_iter()
        .map(decode_line)
        .collect();
    diff_lines(&a, &b)
}

/// `"".join(difflib.unified_diff(a, b))` for lines that keep their ends.
pub fn diff_lines(a: &[String], b: &[String]) -> String {
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let b: Vec<&str> = b.iter().map(String::as_str).collect();
    unified_diff(&a, &b, "\n").concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        split_keep_newline(s.as_bytes())
            .into_iter()
            .map(decode_line)
            .collect()
    }

    // Expected strings below are what Python 3.11's difflib printed.
    #[test]
    fn matches_python_hunks() {
        let old: String = (1..=30).map(|i| format!("line{i}\n")).collect();
        let new: String = (1..=31)
            .filter(|i| *i != 25)
            .map(|i| match i {
                3 | 17 => format!("LINE{i}\n"),
                _ => format!("line{i}\n"),
            })
            .collect();
        assert_eq!(
            diff_lines(&lines(&old), &lines(&new)),
            "--- \n+++ \n@@ -1,6 +1,6 @@\n line1\n line2\n-line3\n+LINE3\n line4\n line5\n line6\n\
             @@ -14,7 +14,7 @@\n line14\n line15\n line16\n-line17\n+LINE17\n line18\n line19\n line20\n\
             @@ -22,9 +22,9 @@\n line22\n line23\n line24\n-line25\n line26\n line27\n line28\n line29\n line30\n+line31\n"
        );
        assert_eq!(
            diff_lines(&lines("a\nb\nc\n"), &lines("a\nc\n")),
            "--- \n+++ \n@@ -1,3 +1,2 @@\n a\n-b\n c\n"
        );
        assert_eq!(
            diff_lines(&lines("one\ntwo"), &lines("one\ntwo\nthree\n")),
            "--- \n+++ \n@@ -1,2 +1,3 @@\n one\n-two+two\n+three\n"
        );
        assert_eq!(diff_lines(&lines("same\n"), &lines("same\n")), "");
        assert_eq!(
            diff_lines(&[], &lines("x\n")),
            "--- \n+++ \n@@ -0,0 +1 @@\n+x\n"
        );
    }

    #[test]
    fn autojunk_on_long_inputs() {
        // 300 lines of which "x" is popular: Python anchors on the unique
        // lines only; checked against difflib's output.
        let a: Vec<String> = (0..300)
            .map(|i| {
                if i % 3 == 0 {
                    format!("u{i}\n")
                } else {
                    "x\n".into()
                }
            })
            .collect();
        let mut b = a.clone();
        b[150] = "changed\n".into();
        b.remove(10);
        let d = diff_lines(&a, &b);
        assert_eq!(
            d,
            "--- \n+++ \n@@ -9,7 +9,6 @@\n x\n u9\n x\n-x\n u12\n x\n x\n@@ -148,7 +147,7 @@\n u147\n x\n x\n-u150\n+changed\n x\n x\n u153\n"
        );
    }

    #[test]
    fn python_splitlines() {
        assert_eq!(
            str_splitlines("a\r\nb\rc\x0bd\u{2028}e\n"),
            vec!["a", "b", "c", "d", "e"]
        );
        assert_eq!(str_splitlines(""), Vec::<&str>::new());
        assert_eq!(str_splitlines("\n"), vec![""]);
        assert_eq!(
            bytes_splitlines_keepends(b"a\r\nb\rc\n\nd"),
            vec![&b"a\r\n"[..], b"b\r", b"c\n", b"\n", b"d"]
        );
    }
}
