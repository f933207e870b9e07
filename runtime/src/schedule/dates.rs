//! The times a schedule names, read as Salt reads them: `once` with
//! `once_fmt` (strptime), `when`/`range`/`until`/`after` as dateutil's
//! parser reads the usual forms (`2030-01-01 10:00`, `5:00pm`, `8am`,
//! `Monday 5:00pm`), and `cron` as croniter reads it (five fields, or six
//! with the seconds last). Times are the minion's local wall-clock time
//! without a zone, as Python's `datetime.now()` is.

use jiff::civil::{Date, DateTime, Time};
use jiff::ToSpan;

/// The local time now, to the microsecond.
pub fn now() -> DateTime {
    jiff::Zoned::now().datetime()
}

/// Salt's display of a scheduled time (`%Y-%m-%dT%H:%M:%S`).
pub fn show(t: DateTime) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S").to_string()
}

/// `t` plus `secs` seconds (saturating at the calendar's ends).
pub fn plus(t: DateTime, secs: i64) -> DateTime {
    t.checked_add(secs.seconds()).unwrap_or(t)
}

/// Whole seconds from `a` to `b` (negative when `b` is earlier), with the
/// microseconds of both dropped first as Salt's `_chop_ms` does.
pub fn seconds_between(a: DateTime, b: DateTime) -> i64 {
    let chop = |t: DateTime| t.with().subsec_nanosecond(0).build().unwrap_or(t);
    chop(b).duration_since(chop(a)).as_secs()
}

/// `text` read with the strptime format `fmt` (the directives Salt's
/// examples use: `%Y %y %m %d %H %I %M %S %p %b %B %j` and literals).
pub fn strptime(text: &str, fmt: &str) -> Option<DateTime> {
    let tm = jiff::fmt::strtime::parse(fmt, text).ok()?;
    if let Ok(dt) = tm.to_datetime() {
        return Some(dt);
    }
    // A format without a time of day: midnight, as Python's strptime.
    tm.to_date().ok().map(|d| d.to_datetime(Time::midnight()))
}

const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// A date and time as dateutil's `parse` reads the forms schedules use;
/// what the text leaves out comes from `today` (a weekday name moves to
/// that weekday, today or later). `None` when the text is not a time.
pub fn parse_fuzzy(text: &str, today: Date) -> Option<DateTime> {
    let lower = text.trim().to_ascii_lowercase();
    if lower.is_empty() {
        return None;
    }
    let mut date: Option<Date> = None;
    let mut time: Option<Time> = None;
    let mut weekday: Option<usize> = None;
    // `2030-01-01T10:00` reads as a date and a time.
    let bytes = lower.as_bytes();
    let spaced: String = lower
        .char_indices()
        .map(|(i, c)| {
            let digit =
                |j: Option<usize>| j.and_then(|j| bytes.get(j)).is_some_and(u8::is_ascii_digit);
            if c == 't' && digit(i.checked_sub(1)) && digit(Some(i + 1)) {
                ' '
            } else {
                c
            }
        })
        .collect();
    let words: Vec<&str> = spaced
        .split([' ', ','])
        .filter(|w| !w.is_empty() && *w != "at")
        .collect();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        // A meridian written apart from its hour: `5 pm`, `5:00 pm`.
        let next_meridian = words
            .get(i + 1)
            .filter(|n| matches!(**n, "am" | "pm" | "a.m." | "p.m."))
            .copied();
        if let Some(d) = parse_date(w) {
            date = Some(d);
        } else if let Some(k) = WEEKDAYS
            .iter()
            .position(|d| w.len() >= 3 && d.starts_with(w.trim_end_matches('.')))
        {
            weekday = Some(k);
        } else if let Some(t) = parse_time(w, next_meridian) {
            time = Some(t);
            if next_meridian.is_some() {
                i += 1;
            }
        } else {
            return None;
        }
        i += 1;
    }
    if date.is_none() && time.is_none() && weekday.is_none() {
        return None;
    }
    let mut day = date.unwrap_or(today);
    if let (Some(k), None) = (weekday, date) {
        let now_k = today.weekday().to_monday_zero_offset() as i64;
        let ahead = (k as i64 - now_k).rem_euclid(7);
        day = day.checked_add(ahead.days()).ok()?;
    }
    Some(day.to_datetime(time.unwrap_or(Time::midnight())))
}

/// `YYYY-MM-DD`, `YYYY/MM/DD` or `MM/DD/YYYY`.
fn parse_date(w: &str) -> Option<Date> {
    let parts: Vec<&str> = w.split(['-', '/']).collect();
    if parts.len() != 3 || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let n: Vec<i64> = parts
        .iter()
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let (y, m, d) = if parts[0].len() == 4 {
        (n[0], n[1], n[2])
    } else {
        (n[2], n[0], n[1])
    };
    Date::new(
        i16::try_from(y).ok()?,
        i8::try_from(m).ok()?,
        i8::try_from(d).ok()?,
    )
    .ok()
}

/// `17:00`, `5:00pm`, `5pm`, `8am`, `17:00:30` (with `meridian` the word
/// after it, if that is am/pm).
fn parse_time(w: &str, meridian: Option<&str>) -> Option<Time> {
    let (clock, own) = match w
        .strip_suffix("am")
        .or_else(|| w.strip_suffix("a.m."))
        .map(|c| (c, Some(false)))
        .or_else(|| {
            w.strip_suffix("pm")
                .or_else(|| w.strip_suffix("p.m."))
                .map(|c| (c, Some(true)))
        }) {
        Some(x) => x,
        None => (w, None),
    };
    let pm = own.or(meridian.map(|m| m.starts_with('p')));
    let parts: Vec<&str> = clock.split(':').collect();
    if parts.is_empty() || parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    // A bare number is an hour only with a meridian (`8am`).
    if parts.len() == 1 && pm.is_none() {
        return None;
    }
    let n: Vec<i64> = parts
        .iter()
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let mut hour = n[0];
    match pm {
        Some(true) if hour < 12 => hour += 12,
        Some(false) if hour == 12 => hour = 0,
        _ => {}
    }
    Time::new(
        i8::try_from(hour).ok()?,
        i8::try_from(*n.get(1).unwrap_or(&0)).ok()?,
        i8::try_from(*n.get(2).unwrap_or(&0)).ok()?,
        0,
    )
    .ok()
}

/// A cron expression as croniter reads it.
#[derive(Debug, Clone)]
pub struct Cron(croner::Cron);

impl Cron {
    /// Five fields (minute hour day month weekday), or six with croniter's
    /// seconds last. `None` when the expression is not one.
    pub fn parse(expr: &str) -> Option<Cron> {
        let fields: Vec<&str> = expr.split_whitespace().collect();
        let pattern = match fields.len() {
            5 => fields.join(" "),
            // croniter's seconds come last, croner's first.
            6 => format!("{} {}", fields[5], fields[..5].join(" ")),
            _ => return None,
        };
        croner::parser::CronParser::new()
            .parse(&pattern)
            .ok()
            .map(Cron)
    }

    /// The first time after `t` the expression names.
    pub fn next_after(&self, t: DateTime) -> Option<DateTime> {
        use chrono::{NaiveDate, TimeZone, Timelike};
        let naive = NaiveDate::from_ymd_opt(
            i32::from(t.year()),
            u32::try_from(t.month()).ok()?,
            u32::try_from(t.day()).ok()?,
        )?
        .and_hms_opt(
            u32::try_from(t.hour()).ok()?,
            u32::try_from(t.minute()).ok()?,
            u32::try_from(t.second()).ok()?,
        )?;
        // The naive local time read as UTC: no zone shifts, as croniter
        // on a naive datetime.
        let start = chrono::Utc.from_utc_datetime(&naive);
        let next = self.0.find_next_occurrence(&start, false).ok()?;
        let n = next.naive_utc();
        use chrono::Datelike;
        DateTime::new(
            i16::try_from(n.year()).ok()?,
            i8::try_from(n.month()).ok()?,
            i8::try_from(n.day()).ok()?,
            i8::try_from(n.hour()).ok()?,
            i8::try_from(n.minute()).ok()?,
            i8::try_from(n.second()).ok()?,
            0,
        )
        .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn dateutil_forms_schedules_use() {
        // 2026-11-27 is a Friday.
        let today = date(2026, 11, 27);
        let p = |s| parse_fuzzy(s, today).map(show);
        assert_eq!(
            p("2030-01-01 10:00").as_deref(),
            Some("2030-01-01T10:00:00")
        );
        assert_eq!(
            p("2030-01-01T10:00:05").as_deref(),
            Some("2030-01-01T10:00:05")
        );
        assert_eq!(p("5:00pm").as_deref(), Some("2026-11-27T17:00:00"));
        assert_eq!(p("8am").as_deref(), Some("2026-11-27T08:00:00"));
        assert_eq!(p("5 pm").as_deref(), Some("2026-11-27T17:00:00"));
        assert_eq!(p("12am").as_deref(), Some("2026-11-27T00:00:00"));
        assert_eq!(p("Monday 5:00pm").as_deref(), Some("2026-11-30T17:00:00"));
        assert_eq!(p("friday 09:30").as_deref(), Some("2026-11-27T09:30:00"));
        assert_eq!(p("Saturday 8am").as_deref(), Some("2026-11-28T08:00:00"));
        assert_eq!(p("12/25/2030").as_deref(), Some("2030-12-25T00:00:00"));
        assert_eq!(p("tomorrowish"), None);
        assert_eq!(p("25:00"), None);
        assert_eq!(p(""), None);
    }

    #[test]
    fn strptime_with_once_fmt() {
        let t = strptime("2030-01-01T00:00:00", "%Y-%m-%dT%H:%M:%S").map(show);
        assert_eq!(t.as_deref(), Some("2030-01-01T00:00:00"));
        assert_eq!(
            strptime("2030-01-01", "%Y-%m-%d").map(show).as_deref(),
            Some("2030-01-01T00:00:00")
        );
        assert!(strptime("junk", "%Y-%m-%dT%H:%M:%S").is_none());
    }

    #[test]
    fn cron_as_croniter_reads_it() {
        let t = date(2026, 11, 27).at(20, 37, 12, 0);
        let next = |e: &str| Cron::parse(e).and_then(|c| c.next_after(t)).map(show);
        assert_eq!(next("*/5 * * * *").as_deref(), Some("2026-11-27T20:40:00"));
        assert_eq!(next("0 3 * * *").as_deref(), Some("2026-11-28T03:00:00"));
        // croniter's sixth field is the seconds.
        assert_eq!(next("* * * * * 30").as_deref(), Some("2026-11-27T20:37:30"));
        // Sunday is 0 (and 7); the 29th-or-Sunday rule is POSIX's "or".
        assert_eq!(next("0 0 * * 0").as_deref(), Some("2026-11-29T00:00:00"));
        assert_eq!(next("0 0 * * 7").as_deref(), Some("2026-11-29T00:00:00"));
        assert_eq!(next("0 0 28 * 1").as_deref(), Some("2026-11-28T00:00:00"));
        assert!(Cron::parse("not a cron").is_none());
        assert!(Cron::parse("61 * * * *").is_none());
    }

    #[test]
    fn seconds_between_drops_microseconds() {
        let a = date(2026, 1, 1).at(0, 0, 0, 900_000_000);
        let b = date(2026, 1, 1).at(0, 0, 5, 100_000_000);
        assert_eq!(seconds_between(a, b), 5);
        assert_eq!(seconds_between(b, a), -5);
        let later = date(2026, 1, 4).at(0, 0, 5, 0);
        assert_eq!(seconds_between(a, later), 3 * 86_400 + 5);
    }
}
