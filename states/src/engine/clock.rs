//! `start_time` and `duration` as Salt writes them: the local wall-clock
//! time of day in ISO format, and milliseconds as a float with microsecond
//! precision.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// When a state call started.
#[derive(Debug, Clone, Copy)]
pub struct Started {
    wall: SystemTime,
    mono: Instant,
}

impl Started {
    pub fn now() -> Started {
        Started {
            wall: SystemTime::now(),
            mono: Instant::now(),
        }
    }

    /// Python's `datetime.time.isoformat()` of the local start time:
    /// `HH:MM:SS.ffffff`, without the fraction when it is zero.
    pub fn start_time(&self) -> String {
        let since = self.wall.duration_since(UNIX_EPOCH).unwrap_or_default();
        let micros = since.subsec_micros();
        let (h, m, s) = time_of_day(since.as_secs());
        // Written digit by digit: `format!` was most of the cost, asked
        // for every state of a run.
        let mut out = String::with_capacity(15);
        for (n, part) in [h, m, s].into_iter().enumerate() {
            if n > 0 {
                out.push(':');
            }
            push_digits(&mut out, part.clamp(0, 99) as u32, 2);
        }
        if micros != 0 {
            out.push('.');
            push_digits(&mut out, micros, 6);
        }
        out
    }

    /// Milliseconds since the start, to the microsecond (`1.234`).
    pub fn duration_ms(&self) -> f64 {
        self.mono.elapsed().as_micros() as f64 / 1000.0
    }
}

/// `v` in decimal, zero-padded to `width` digits (`v` has no more).
fn push_digits(out: &mut String, v: u32, width: u32) {
    let mut div = 10u32.pow(width.saturating_sub(1));
    while div > 0 {
        out.push(char::from(b'0' + (v / div % 10) as u8));
        div /= 10;
    }
}

/// Hour, minute, second.
type Hms = (i32, i32, i32);

/// The local hour, minute and second of `secs` since the epoch. A run
/// asks this for every state, most within the same second: the last
/// answer is kept per thread (asking the C library each time, with the
/// zone name it copies out, was a sixth of a state call).
fn time_of_day(secs: u64) -> Hms {
    thread_local! {
        static LAST: std::cell::Cell<Option<(u64, Hms)>> = const { std::cell::Cell::new(None) };
    }
    if let Some((at, hms)) = LAST.with(|c| c.get()) {
        if at == secs {
            return hms;
        }
    }
    let hms = match i64::try_from(secs)
        .ok()
        .and_then(brine_host::sys::local_time)
    {
        Some(t) => (t.hour, t.minute, t.second),
        None => {
            let day = secs % 86_400;
            (
                (day / 3600) as i32,
                (day / 60 % 60) as i32,
                (day % 60) as i32,
            )
        }
    };
    LAST.with(|c| c.set(Some((secs, hms))));
    hms
}

/// Salt's `_calculate_fake_duration`: a start time and a near-zero
/// duration for states that were not run.
pub fn fake_duration() -> (String, f64) {
    let s = Started::now();
    (s.start_time(), s.duration_ms())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_time_of_day() {
        let t = Started::now().start_time();
        let (hms, frac) = t.split_once('.').unwrap_or((t.as_str(), "000000"));
        assert_eq!(hms.len(), 8, "{t}");
        assert_eq!(frac.len(), 6, "{t}");
        assert!(Started::now().duration_ms() >= 0.0);
    }

    #[test]
    fn digits_as_format_writes_them() {
        for (v, w) in [
            (0, 2),
            (7, 2),
            (59, 2),
            (0, 6),
            (1, 6),
            (999_999, 6),
            (40_302, 6),
        ] {
            let mut s = String::new();
            push_digits(&mut s, v, w);
            assert_eq!(s, format!("{v:0w$}", w = w as usize));
        }
    }

    #[test]
    fn the_kept_second_is_the_c_librarys() {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        for secs in [now, now, now + 1, 0, now] {
            let t = brine_host::sys::local_time(secs as i64).unwrap();
            assert_eq!(time_of_day(secs), (t.hour, t.minute, t.second), "{secs}");
        }
    }
}
