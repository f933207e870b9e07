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
use super::{glob, list, pcre, InvalidReason, MatchError};
use crate::MinionData;
use brine_core::Map;
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
    let empty = Map::default();
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
                reason: InvalidReason::Word {
                    engine: 'E',
                    pattern: pattern.into(),
                    reason: Box::new(reason.into()),
                },
            })?,
            'S' => match ipcidr_match(pattern, &minion.grains) {
                Ok(Outcome::Match(hit)) => hit,
                // Salt's `[]`: false.
                Ok(Outcome::InvalidTarget) => false,
                Err(reason) => {
                    return Err(MatchError::Invalid {
                        matcher: "compound".into(),
                        expr: tgt.into(),
                        reason: InvalidReason::Word {
                            engine: 'S',
                            pattern: pattern.into(),
                            reason: Box::new(reason.into()),
                        },
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
fn delimited(pattern: &str, delimiter: &str, data: &brine_core::Value, mode: Mode) -> bool {
    pattern.contains(delimiter) && subdict_match(data, pattern, delimiter, mode)
}

/// Evaluate the token stream as Python's `eval` would; `None` where it
/// raises: a syntax error, nesting deeper than Python allows, or calling a
/// value (`( True ) ( False )` is a call, a TypeError once evaluated; `and`
/// and `or` short-circuit, so a call they skip is harmless).
fn evaluate(toks: &[Tok]) -> Option<bool> {
    let mut parser = Parser { toks, pos: 0 };
    let expr = parser.or_test(0)?;
    if parser.pos != toks.len() {
        return None;
    }
    expr.eval().ok()
}

/// Python's expression, reduced to what Salt's token stream can spell.
#[derive(Debug)]
enum Expr {
    /// `True`, `False`, `[]` or `()` as a truth value.
    Val(bool),
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    /// `callee(arg)`: only the first call of a chain matters, as it raises.
    Call(Box<Expr>, Option<Box<Expr>>),
}

/// Evaluation raised (a value was called).
struct Raised;

impl Expr {
    fn eval(&self) -> Result<bool, Raised> {
        match self {
            Expr::Val(v) => Ok(*v),
            Expr::Not(e) => Ok(!e.eval()?),
            Expr::And(items) => {
                for item in items {
                    if !item.eval()? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Expr::Or(items) => {
                for item in items {
                    if item.eval()? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Expr::Call(callee, arg) => {
                // Python evaluates the callee and the argument, then fails.
                callee.eval()?;
                if let Some(arg) = arg {
                    arg.eval()?;
                }
                Err(Raised)
            }
        }
    }
}

struct Parser<'a> {
    toks: &'a [Tok],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<Tok> {
        self.toks.get(self.pos).copied()
    }

    fn or_test(&mut self, depth: usize) -> Option<Expr> {
        let mut items = vec![self.and_test(depth)?];
        while self.peek() == Some(Tok::Or) {
            self.pos += 1;
            items.push(self.and_test(depth)?);
        }
        Some(if items.len() == 1 {
            items.pop()?
        } else {
            Expr::Or(items)
        })
    }

    fn and_test(&mut self, depth: usize) -> Option<Expr> {
        let mut items = vec![self.not_test(depth)?];
        while self.peek() == Some(Tok::And) {
            self.pos += 1;
            items.push(self.not_test(depth)?);
        }
        Some(if items.len() == 1 {
            items.pop()?
        } else {
            Expr::And(items)
        })
    }

    fn not_test(&mut self, depth: usize) -> Option<Expr> {
        // Iterative over a run of `not`s, so input cannot grow the stack.
        let mut negations = 0usize;
        while self.peek() == Some(Tok::Not) {
            self.pos += 1;
            negations += 1;
        }
        let expr = self.primary(depth)?;
        // `not not x` has the truth value of `x`.
        Some(if negations % 2 == 1 {
            Expr::Not(Box::new(expr))
        } else {
            expr
        })
    }

    /// An atom and the calls that follow it: `atom ( arg ) ( arg ) ...`.
    fn primary(&mut self, depth: usize) -> Option<Expr> {
        let mut expr = self.atom(depth)?;
        let mut called = false;
        while self.peek() == Some(Tok::Open) {
            let arg = self.parenthesized(depth)?;
            if !called {
                expr = Expr::Call(Box::new(expr), arg.map(Box::new));
                called = true;
            }
        }
        Some(expr)
    }

    fn atom(&mut self, depth: usize) -> Option<Expr> {
        match self.peek()? {
            Tok::Val(v) => {
                self.pos += 1;
                Some(Expr::Val(v))
            }
            // `()` is the empty tuple: false.
            Tok::Open => Some(self.parenthesized(depth)?.unwrap_or(Expr::Val(false))),
            _ => None,
        }
    }

    /// `( expr )` or `( )` (`None`), at `depth` levels of nesting.
    fn parenthesized(&mut self, depth: usize) -> Option<Option<Expr>> {
        if depth >= MAX_PAREN_DEPTH || self.peek() != Some(Tok::Open) {
            return None;
        }
        self.pos += 1;
        if self.peek() == Some(Tok::Close) {
            self.pos += 1;
            return Some(None);
        }
        let inner = self.or_test(depth + 1)?;
        if self.peek() != Some(Tok::Close) {
            return None;
        }
        self.pos += 1;
        Some(Some(inner))
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
