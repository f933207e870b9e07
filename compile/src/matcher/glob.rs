//! Python's `fnmatch.fnmatch` (POSIX: case-sensitive), as the glob matcher and
//! subdict_match use it. Written as a small token matcher instead of a regex:
//! every token consumes exactly one character except `*`, so a greedy match
//! with backtracking to the last `*` is exact and linear in practice.
//!
//! Bracket expressions follow CPython 3.11's `fnmatch.translate` to the
//! letter, quirks included: `[!x]` negates, `[^x]` is the two literals `^`
//! and `x`, `]` first in a set is literal, an unclosed `[` is literal, `-`
//! ranges whose ends are reversed are dropped (`[z-a]` never matches,
//! `[!z-a]` matches any character), and `*` crosses dots and newlines.

/// One pattern element.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Literal(char),
    /// `?`, or a set that Python turns into `.`.
    AnyChar,
    /// Any run of characters, also empty.
    Star,
    Set(CharSet),
    /// A set Python turns into `(?!)`: nothing matches.
    Never,
}

#[derive(Debug, Clone, PartialEq)]
struct CharSet {
    negated: bool,
    /// Inclusive ranges; a literal is a one-character range.
    ranges: Vec<(char, char)>,
}

impl CharSet {
    fn contains(&self, c: char) -> bool {
        let hit = self.ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
        hit != self.negated
    }
}

/// A compiled fnmatch pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    tokens: Vec<Token>,
}

impl Pattern {
    pub fn new(pattern: &str) -> Pattern {
        Pattern {
            tokens: translate(pattern),
        }
    }

    /// Does the whole of `name` match?
    pub fn matches(&self, name: &str) -> bool {
        let chars: Vec<char> = name.chars().collect();
        let toks = &self.tokens;
        let (mut t, mut c) = (0usize, 0usize);
        // Where to resume after the last `*`: (token after it, char index).
        let mut backtrack: Option<(usize, usize)> = None;
        loop {
            if let Some(tok) = toks.get(t) {
                if *tok == Token::Star {
                    backtrack = Some((t + 1, c));
                    t += 1;
                    continue;
                }
                if let Some(&ch) = chars.get(c) {
                    let ok = match tok {
                        Token::Literal(l) => *l == ch,
                        Token::AnyChar => true,
                        Token::Set(set) => set.contains(ch),
                        Token::Never | Token::Star => false,
                    };
                    if ok {
                        t += 1;
                        c += 1;
                        continue;
                    }
                }
            } else if c == chars.len() {
                return true;
            }
            // Mismatch: let the last `*` swallow one more character.
            match backtrack {
                Some((bt, bc)) if bc < chars.len() => {
                    backtrack = Some((bt, bc + 1));
                    t = bt;
                    c = bc + 1;
                }
                _ => return false,
            }
        }
    }
}

/// `fnmatch.fnmatch(name, pattern)` on POSIX.
pub fn fnmatch(name: &str, pattern: &str) -> bool {
    // Without a wildcard a pattern matches only itself (a state run
    // checks every require against its ID and name).
    if !has_glob(pattern) {
        return name == pattern;
    }
    Pattern::new(pattern).matches(name)
}

/// Salt's `expr_match(line, expr)`: `expr` as a glob, else as a
/// whole-line regular expression.
pub fn expr_match(line: &str, expr: &str) -> bool {
    fnmatch(line, expr)
        || regex::Regex::new(&format!(r"\A(?:{expr})\z")).is_ok_and(|r| r.is_match(line))
}

/// Does `name` contain fnmatch wildcards?
pub fn has_glob(name: &str) -> bool {
    name.contains(['*', '?', '['])
}

/// Python's `fnmatch.filter(names, pattern)`.
pub fn fnmatch_filter(names: &[String], pattern: &str) -> Vec<String> {
    if !has_glob(pattern) {
        return names.iter().filter(|n| *n == pattern).cloned().collect();
    }
    let p = Pattern::new(pattern);
    names.iter().filter(|n| p.matches(n)).cloned().collect()
}

fn translate(pattern: &str) -> Vec<Token> {
    let pat: Vec<char> = pattern.chars().collect();
    let n = pat.len();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = pat.get(i) {
        i += 1;
        match c {
            '*' => {
                if out.last() != Some(&Token::Star) {
                    out.push(Token::Star);
                }
            }
            '?' => out.push(Token::AnyChar),
            '[' => {
                let mut j = i;
                if pat.get(j) == Some(&'!') {
                    j += 1;
                }
                if pat.get(j) == Some(&']') {
                    j += 1;
                }
                while j < n && pat.get(j) != Some(&']') {
                    j += 1;
                }
                if j >= n {
                    out.push(Token::Literal('['));
                } else {
                    out.push(bracket(&pat, i, j));
                    i = j + 1;
                }
            }
            other => out.push(Token::Literal(other)),
        }
    }
    out
}

/// An element of a set body as CPython's regex sees it after translate()
/// escaped it: a literal character or an unescaped, range-forming `-`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Atom {
    Lit(char),
    Dash,
}

/// Translate the set body `pat[start..end]` (between `[` and `]`).
fn bracket(pat: &[char], start: usize, end: usize) -> Token {
    let stuff = pat.get(start..end).unwrap_or(&[]);
    let atoms: Vec<Atom> = if !stuff.contains(&'-') {
        stuff.iter().map(|&c| Atom::Lit(c)).collect()
    } else {
        // Split into chunks at range-forming hyphens: a `-` right at the start
        // (after a `!`) is literal, and the character after a range's `-` is
        // that range's end, so the next search starts two characters later.
        let mut chunks: Vec<Vec<char>> = Vec::new();
        let mut i = start;
        let mut k = if pat.get(start) == Some(&'!') {
            start + 2
        } else {
            start + 1
        };
        while let Some(found) = (k..end).find(|&x| pat.get(x) == Some(&'-')) {
            chunks.push(pat.get(i..found).unwrap_or(&[]).to_vec());
            i = found + 1;
            k = found + 3;
        }
        let last = pat.get(i..end).unwrap_or(&[]).to_vec();
        if !last.is_empty() {
            chunks.push(last);
        } else if let Some(prev) = chunks.last_mut() {
            prev.push('-');
        }
        // Drop reversed ranges (`z-a`): Python removes both end points.
        let mut k = chunks.len().saturating_sub(1);
        while k > 0 {
            let reversed = match (
                chunks.get(k - 1).and_then(|c| c.last()),
                chunks.get(k).and_then(|c| c.first()),
            ) {
                (Some(a), Some(b)) => a > b,
                _ => false,
            };
            if reversed {
                let tail: Vec<char> = chunks.remove(k).into_iter().skip(1).collect();
                if let Some(prev) = chunks.get_mut(k - 1) {
                    prev.pop();
                    prev.extend(tail);
                }
            }
            k -= 1;
        }
        let mut atoms = Vec::new();
        for (idx, chunk) in chunks.iter().enumerate() {
            if idx > 0 {
                atoms.push(Atom::Dash);
            }
            atoms.extend(chunk.iter().map(|&c| Atom::Lit(c)));
        }
        atoms
    };

    if atoms.is_empty() {
        return Token::Never;
    }
    if atoms == [Atom::Lit('!')] {
        return Token::AnyChar;
    }
    let (negated, body) = match atoms.split_first() {
        Some((Atom::Lit('!'), rest)) => (true, rest),
        _ => (false, atoms.as_slice()),
    };
    // Read the body the way `re` reads a character class.
    let mut ranges = Vec::new();
    let mut idx = 0;
    while let Some(atom) = body.get(idx) {
        let this = match atom {
            Atom::Lit(c) => *c,
            Atom::Dash => '-',
        };
        idx += 1;
        if body.get(idx) == Some(&Atom::Dash) {
            if let Some(Atom::Lit(that)) = body.get(idx + 1) {
                idx += 2;
                if this <= *that {
                    ranges.push((this, *that));
                }
                // A reversed range is a regex error in Python; translate()
                // never produces one, so there is nothing to mirror.
                continue;
            }
        }
        ranges.push((this, this));
    }
    Token::Set(CharSet { negated, ranges })
}

#[cfg(test)]
mod tests {
    use super::fnmatch;

    /// (name, pattern, what CPython 3.11.7 `fnmatch.fnmatch` answers).
    const CASES: &[(&str, &str, bool)] = include!("testdata/fnmatch_cases.rs");

    #[test]
    fn matches_cpython_fnmatch() {
        for (name, pat, want) in CASES {
            assert_eq!(
                fnmatch(name, pat),
                *want,
                "fnmatch({name:?}, {pat:?}) should be {want}"
            );
        }
    }
}
