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
        let local = i64::try_from(since.as_secs())
            .ok()
            .and_then(brine_host::sys::local_time);
        let (h, m, s) = if let Some(t) = local {
            (t.hour, t.minute, t.second)
        } else {
            let day = since.as_secs() % 86_400;
            (
                (day / 3600) as i32,
                (day / 60 % 60) as i32,
                (day % 60) as i32,
            )
        };
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
}
