//! Dates as Salt writes them: job ids (`%Y%m%d%H%M%S%f`, local time unless
//! `utc_jid`) and Python's `isoformat()` of UTC timestamps. The calendar
//! and the system time zone are jiff's.

use jiff::tz::TimeZone;
use jiff::Timestamp;

/// Microseconds since the epoch, now.
pub fn now_micros() -> i64 {
    Timestamp::now().as_microsecond()
}

/// A job id for the instant `micros` (microseconds since the epoch):
/// Salt's `gen_jid`, `%Y%m%d%H%M%S%f` in local time, or UTC with
/// `utc_jid: True`. An instant jiff cannot show gives the epoch's id.
pub fn jid(micros: i64, utc: bool) -> String {
    let ts = Timestamp::from_microsecond(micros).unwrap_or(Timestamp::UNIX_EPOCH);
    let tz = if utc {
        TimeZone::UTC
    } else {
        TimeZone::system()
    };
    ts.to_zoned(tz).strftime("%Y%m%d%H%M%S%6f").to_string()
}

/// Now in local time as Python's `time.asctime()` (`Fri Nov  7 20:02:48
/// 2026`: the day padded with a space).
pub fn asctime_now() -> String {
    Timestamp::now()
        .to_zoned(TimeZone::system())
        .strftime("%a %b %e %H:%M:%S %Y")
        .to_string()
}

/// `secs` since the epoch as Python's `datetime.utcfromtimestamp(secs)
/// .isoformat()` (`YYYY-MM-DDTHH:MM:SS`); `None` outside the years 1 to
/// 9999, which Python's datetime cannot show either.
pub fn iso_utc(secs: i64) -> Option<String> {
    let ts = Timestamp::from_second(secs).ok()?;
    let dt = ts.to_zoned(TimeZone::UTC).datetime();
    (1..=9999)
        .contains(&dt.year())
        .then(|| dt.strftime("%Y-%m-%dT%H:%M:%S").to_string())
}

/// [`iso_utc`] of a float timestamp, with `.ffffff` when the microseconds
/// are not zero (Python's `isoformat()`).
pub fn iso_utc_float(t: f64) -> String {
    let micros = (t * 1e6).round() as i64;
    let (secs, frac) = (micros.div_euclid(1_000_000), micros.rem_euclid(1_000_000));
    let base = iso_utc(secs).unwrap_or_default();
    if frac == 0 {
        base
    } else {
        format!("{base}.{frac:06}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_python_writes_them() {
        assert_eq!(iso_utc(0).as_deref(), Some("1970-01-01T00:00:00"));
        assert_eq!(
            iso_utc(1_700_000_000).as_deref(),
            Some("2023-11-14T22:13:20")
        );
        assert_eq!(iso_utc(-1).as_deref(), Some("1969-12-31T23:59:59"));
        assert_eq!(iso_utc(951_782_400).as_deref(), Some("2000-02-29T00:00:00"));
        assert_eq!(iso_utc(i64::MAX), None);
        assert_eq!(iso_utc_float(0.0), "1970-01-01T00:00:00");
        assert_eq!(
            iso_utc_float(1795560328.404683),
            "2026-11-24T22:45:28.404683"
        );
        assert_eq!(jid(1_700_000_000_123_456, true), "20231114221320123456");
        assert_eq!(jid(0, true), "19700101000000000000");
        assert_eq!(jid(1_700_000_000_123_456, false).len(), 20);
    }
}
