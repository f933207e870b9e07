//! The render budget: what one template render may cost before it fails
//! with an error naming the file (Salt has none: a template that never
//! ends holds a master worker forever). brine's own options, in the
//! minion's or master's opts:
//!
//! - `render_timeout` (seconds, default 60): checked as output is written;
//! - `render_max_bytes` (default 64 MiB): the rendered text;
//! - `render_max_instructions` (default 500 million, a few seconds of
//!   work): minijinja's fuel, which also stops a loop that writes nothing.
//!
//! Each is per render of one file; 0 turns it off. A single value built
//! without output is bounded by minijinja itself (a repeated string at
//! 100 MB, a range at 100,000 items), not by this budget.

use brine_core::Value;
use std::time::{Duration, Instant};

pub const DEFAULT_TIMEOUT_SECS: u64 = 60;
pub const DEFAULT_MAX_BYTES: u64 = 64 << 20;
pub const DEFAULT_MAX_INSTRUCTIONS: u64 = 500_000_000;

fn opt(opts: &Value, key: &str, default: u64) -> Option<u64> {
    let n = match opts.get(key) {
        Some(Value::Int(n)) => u64::try_from(*n).unwrap_or(0),
        Some(Value::Float(f)) if *f >= 0.0 => *f as u64,
        _ => default,
    };
    (n > 0).then_some(n)
}

/// `render_max_instructions` (minijinja's fuel), `None` when off.
pub(super) fn instructions(opts: &Value) -> Option<u64> {
    opt(opts, "render_max_instructions", DEFAULT_MAX_INSTRUCTIONS)
}

/// What one render went past.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Over {
    Time(Duration),
    Bytes(u64),
}

impl Over {
    pub(super) fn describe(&self) -> String {
        match self {
            Over::Time(t) => format!("render_timeout ({} s)", t.as_secs()),
            Over::Bytes(b) => format!("render_max_bytes ({b} bytes)"),
        }
    }
}

/// The rendered text, written under the time and size budget.
pub(super) struct BudgetWriter {
    pub(super) out: Vec<u8>,
    deadline: Option<(Instant, Duration)>,
    max_bytes: Option<u64>,
    pub(super) over: Option<Over>,
}

impl BudgetWriter {
    pub(super) fn new(opts: &Value) -> BudgetWriter {
        let timeout = opt(opts, "render_timeout", DEFAULT_TIMEOUT_SECS).map(Duration::from_secs);
        BudgetWriter {
            out: Vec::new(),
            deadline: timeout.map(|t| (Instant::now() + t, t)),
            max_bytes: opt(opts, "render_max_bytes", DEFAULT_MAX_BYTES),
            over: None,
        }
    }
}

impl std::io::Write for BudgetWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(max) = self.max_bytes {
            if self.out.len() as u64 + buf.len() as u64 > max {
                self.over = Some(Over::Bytes(max));
            }
        }
        if let Some((at, t)) = self.deadline {
            if Instant::now() > at {
                self.over = Some(Over::Time(t));
            }
        }
        if let Some(over) = &self.over {
            return Err(std::io::Error::other(over.describe()));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn opts(pairs: &[(&str, i64)]) -> Value {
        Value::Map(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), Value::Int(*v)))
                .collect(),
        )
    }

    #[test]
    fn the_writer_stops_at_the_size_and_the_time() {
        let mut w = BudgetWriter::new(&opts(&[("render_max_bytes", 10)]));
        w.write_all(b"0123456789").unwrap();
        assert!(w.write_all(b"x").is_err());
        assert_eq!(w.over, Some(Over::Bytes(10)));
        let mut w = BudgetWriter::new(&opts(&[("render_timeout", 1)]));
        w.write_all(b"a").unwrap();
        w.deadline = Some((
            Instant::now() - Duration::from_millis(1),
            Duration::from_secs(1),
        ));
        assert!(w.write_all(b"b").is_err());
        assert_eq!(w.over, Some(Over::Time(Duration::from_secs(1))));
        // 0 turns a limit off.
        let w = BudgetWriter::new(&opts(&[("render_timeout", 0), ("render_max_bytes", 0)]));
        assert!(w.deadline.is_none() && w.max_bytes.is_none());
        assert_eq!(instructions(&opts(&[("render_max_instructions", 0)])), None);
        assert_eq!(
            instructions(&Value::new_map()),
            Some(DEFAULT_MAX_INSTRUCTIONS)
        );
    }
}
