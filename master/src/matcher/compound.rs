//! The compound matcher (`salt/matchers/compound_match.py`): words split on
//! whitespace, each `X@pattern` (or `X<delim>@pattern` for G, P, I, J) run
//! through its matcher, bare words globbed against the id, `N@group`
//! expanded in place. Salt then `eval`s the words as Python; here a small
//! parser reads the same token stream with Python's grammar and precedence
//! (`not` > `and` > `or`).
//!
//! Like Salt, every word is evaluated (no short-circuit), so an error in any
//! of them (a bad `E@` regex) is an error of the whole expression, and an
//! expression Salt rejects with a logged error (leading `and`, `and` right
//! after `(`, an `R@` range word, a syntax error, parentheses nested deeper
//! than Python's 200) is simply no match.

use super::grain::{subdict_match, Mode};
use super::ipcidr::{ipcidr_match, Outcome};
use super::nodegroup::{nodegroup_comp, py_split};
use super::{glob, list, pcre, MatchError};
use crate::MinionData;
use brine_protocol::Map;
use std::collections::VecDeque;

/// Python's limit on nested parentheses in one expression.
const MAX_PAREN_DEPTH: usize = 200;

/// One word of a compound target: `engine`, optional `delimiter`, `pattern`.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetInfo<'a> {
    pub engine: Option<char>,
    pub delimiter: Option<char>,
    pub pattern: &'a str,
}

/// `salt.utils.minions.parse_target`: `G@os:Ubuntu`, `G|@os|Ubuntu`, or a
/// bare word. Letters other than G P I J L N S E R are no engine, so
/// `X@foo` is a glob.
pub fn parse_target(word: &str) -> TargetInfo<'_> {
    let bare = TargetInfo {
        engine: None,
        delimiter: None,
        pattern: word,
    };
    let mut chars = word.char_indices();
    let Some((_, engine)) = chars.next() else {
        return bare;
    };
    if !"GPIJLNSER".contains(engine) {
        return bare;
    }
    let second = chars.next();
    let third = chars.next();
    // The delimiter form is tried first, as the regex does.
    if "GPIJ".contains(engine) {
        if let (Some((_, delim)), Some((at, '@'))) = (second, third) {
            if delim != '\n' {
                if let Some(pattern) = word.get(at + 1..).filter(|p| !p.is_empty()) {
                    return TargetInfo {
                        engine: Some(engine),
                        delimiter: Some(delim),
                        pattern,
                    };
                }
            }
        }
    }
    if let Some((at, '@')) = second {
        if let Some(pattern) = word.get(at + 1..).filter(|p| !p.is_empty()) {
            return TargetInfo {
                engine: Some(engine),
                delimiter: None,
                pattern,
            };
        }
    }
    bare
}

/// Token of the expression Salt would hand to `eval`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok {
    /// A word's result, as its truth value (`True`, `False`, `[]`).
    Val(bool),
    And,
    Or,
    Not,
    Open,
    Close,
}

fn operator(word: &str) -> Option<Tok> {
    match word {
        "and" => Some(Tok::And),
        "or" => Some(Tok::Or),
        "not" => Some(Tok::Not),
        "(" => Some(Tok::Open),
        ")" => Some(Tok::Close),
        _ => None,
    }
}

/// Compound match of a target string.
pub fn compound_match(tgt: &str, minion: &MinionData) -> Result<bool, MatchError> {
    compound_words(py_split(tgt), tgt, minion)
}

/// Compound match of a target already split in words (Salt also accepts a
/// list). `tgt` is only used in messages.
pub fn compound_words(
    words: Vec<String>,
    tgt: &str,
    minion: &MinionData,
) -> Result<bool, MatchError> {
    let empty = Map::new();
    let nodegroups = minion
        .opts
        .get("nodegroups")
        .and_then(|v| v.as_map())
        .unwrap_or(&empty);
    let mut words: VecDeque<String> = words.into();
    let mut results: Vec<Tok> = Vec::new();
    while let Some(word) = words.pop_front() {
        if let Some(op) = operator(&word) {
            match results.last() {
                Some(last) => {
                    if *last == Tok::Open && matches!(op, Tok::And | Tok::Or) {
                        tracing::error!("Invalid beginning operator after \"(\": {word}");
                        return Ok(false);
                    }
                    if op == Tok::Not && !matches!(last, Tok::And | Tok::Or | Tok::Open) {
                        results.push(Tok::And);
                    }
                    results.push(op);
                }
                None => {
                    if !matches!(op, Tok::Open | Tok::Not) {
                        tracing::error!("Invalid beginning operator: {word}");
                        return Ok(false);
                    }
                    results.push(op);
                }
            }
            continue;
        }
        let target = parse_target(&word);
        let Some(engine) = target.engine else {
            results.push(Tok::Val(glob::fnmatch(&minion.id, &word)));
            continue;
        };
        let delimiter = target.delimiter.map(String::from);
        let delimiter = delimiter.as_deref().unwrap_or(":");
        let pattern = target.pattern;
        let hit = match engine {
            'N' => {
                let decomposed = nodegroup_comp(pattern, nodegroups);
                for w in decomposed.into_iter().rev() {
                    words.push_front(w);
                }
                continue;
            }
            'G' => delimited(pattern, delimiter, &minion.grains, Mode::Glob),
            'P' => delimited(pattern, delimiter, &minion.grains, Mode::Regex),
            'I' => delimited(pattern, delimiter, &minion.pillar, Mode::Glob),
            'J' => delimited(pattern, delimiter, &minion.pillar, Mode::Regex),
            'L' => list::list_match(pattern, &minion.id),
            'E' => pcre::re_match(pattern, &minion.id).map_err(|reason| MatchError::Invalid {
                matcher: "compound".into(),
                expr: tgt.into(),
                reason: format!("E@{pattern}: {reason}"),
            })?,
            'S' => match ipcidr_match(pattern, &minion.grains) {
                Ok(Outcome::Match(hit)) => hit,
                // Salt's `[]`: false.
                Ok(Outcome::InvalidTarget) => false,
                Err(reason) => {
                    return Err(MatchError::Invalid {
                        matcher: "compound".into(),
                        expr: tgt.into(),
                        reason: format!("S@{pattern}: {reason}"),
                    })
                }
            },
            _ => {
                // R@ (range): Salt only knows it with the seco.range library.
                tracing::error!(
                    "Unrecognized target engine \"{engine}\" for target expression \"{word}\""
                );
                return Ok(false);
            }
        };
        results.push(Tok::Val(hit));
    }
    match evaluate(&results) {
        Some(value) => Ok(value),
        None => {
            tracing::error!("Invalid compound target: {tgt}");
            Ok(false)
        }
    }
}

/// The grain/pillar matchers' own check before subdict_match.
fn delimited(pattern: &str, delimiter: &str, data: &brine_protocol::Value, mode: Mode) -> bool {
    pattern.contains(delimiter) && subdict_match(data, pattern, delimiter, mode)
}

/// Evaluate the token stream with Python's expression grammar; `None` where
/// Python's `eval` would raise (syntax error, calling a value like
/// `( True ) ( False )`, too deep nesting).
fn evaluate(toks: &[Tok]) -> Option<bool> {
    let mut parser = Parser { toks, pos: 0 };
    let value = parser.or_test(0)?;
    (parser.pos == toks.len()).then_some(value)
}

struct Parser<'a> {
    toks: &'a [Tok],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<Tok> {
        self.toks.get(self.pos).copied()
    }

    fn or_test(&mut self, depth: usize) -> Option<bool> {
        let mut value = self.and_test(depth)?;
        while self.peek() == Some(Tok::Or) {
            self.pos += 1;
            let rhs = self.and_test(depth)?;
            value = value || rhs;
        }
        Some(value)
    }

    fn and_test(&mut self, depth: usize) -> Option<bool> {
        let mut value = self.not_test(depth)?;
        while self.peek() == Some(Tok::And) {
            self.pos += 1;
            let rhs = self.not_test(depth)?;
            value = value && rhs;
        }
        Some(value)
    }

    fn not_test(&mut self, depth: usize) -> Option<bool> {
        // Iterative over a run of `not`s, so input cannot grow the stack.
        let mut negations = 0usize;
        while self.peek() == Some(Tok::Not) {
            self.pos += 1;
            negations += 1;
        }
        let value = self.atom(depth)?;
        Some(if negations % 2 == 1 { !value } else { value })
    }

    fn atom(&mut self, depth: usize) -> Option<bool> {
        let value = match self.peek()? {
            Tok::Val(v) => {
                self.pos += 1;
                v
            }
            Tok::Open => {
                if depth >= MAX_PAREN_DEPTH {
                    return None;
                }
                self.pos += 1;
                if self.peek() == Some(Tok::Close) {
                    // `()`: the empty tuple, false.
                    self.pos += 1;
                    false
                } else {
                    let v = self.or_test(depth + 1)?;
                    if self.peek() != Some(Tok::Close) {
                        return None;
                    }
                    self.pos += 1;
                    v
                }
            }
            _ => return None,
        };
        // A value followed by `(` is a call in Python: a TypeError at run
        // time, which Salt reports as an invalid target.
        if self.peek() == Some(Tok::Open) {
            return None;
        }
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_target_like_salt() {
        let p = |w| {
            let t = parse_target(w);
            (t.engine, t.delimiter, t.pattern.to_string())
        };
        assert_eq!(p("G@os:Ubuntu"), (Some('G'), None, "os:Ubuntu".into()));
        assert_eq!(
            p("G|@os|Ubuntu"),
            (Some('G'), Some('|'), "os|Ubuntu".into())
        );
        assert_eq!(p("G@@foo"), (Some('G'), Some('@'), "foo".into()));
        assert_eq!(p("L|@a,b"), (None, None, "L|@a,b".into()));
        assert_eq!(p("X@foo"), (None, None, "X@foo".into()));
        assert_eq!(p("G@"), (None, None, "G@".into()));
        assert_eq!(p("web*"), (None, None, "web*".into()));
        assert_eq!(p("E@.*"), (Some('E'), None, ".*".into()));
    }

    #[test]
    fn python_grammar() {
        use Tok::*;
        assert_eq!(
            evaluate(&[Val(true), Or, Val(false), And, Val(false)]),
            Some(true)
        );
        assert_eq!(evaluate(&[Not, Val(false), And, Val(true)]), Some(true));
        assert_eq!(evaluate(&[Open, Close]), Some(false));
        assert_eq!(
            evaluate(&[Open, Val(true), Close, Open, Val(true), Close]),
            None
        );
        assert_eq!(evaluate(&[Val(true), And]), None);
        assert_eq!(evaluate(&[]), None);
        assert_eq!(evaluate(&[Val(true), Val(true)]), None);
        let deep = |n: usize| {
            let mut t = vec![Open; n];
            t.push(Val(true));
            t.extend(vec![Close; n]);
            evaluate(&t)
        };
        assert_eq!(deep(200), Some(true));
        assert_eq!(deep(201), None);
    }
}
