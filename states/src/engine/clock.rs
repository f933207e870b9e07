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
        if micros == 0 {
            format!("{h:02}:{m:02}:{s:02}")
        } else {
            format!("{h:02}:{m:02}:{s:02}.{micros:06}")
        }
    }

    /// Milliseconds since the start, to the microsecond (`1.234`).
    pub fn duration_ms(&self) -> f64 {
        self.mono.elapsed().as_micros() as f64 / 1000.0
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
