//! Which jobs are due (Salt's `Schedule.eval`, run every `loop_interval`
//! second): a job runs every `seconds`/`minutes`/`hours`/`days`, at a
//! `cron` expression's times, `once` at a date, or at each of its `when`
//! times; `splay` delays each run by a random number of seconds,
//! `run_on_start` runs it at the first evaluation, `range`, `until`,
//! `after` and `skip_during_range` hold it back, and `maxrunning` caps how
//! many of its runs are under way. A disabled job or schedule runs nothing.

use super::dates::{self, Cron};
use super::jobs::{Schedule, HIDDEN};
use brine_core::{Map, Value};
use jiff::civil::DateTime;

/// A job the scheduler is to run now.
#[derive(Debug, Clone, PartialEq)]
pub struct Due {
    pub name: String,
    pub function: String,
    pub args: Vec<Value>,
    pub kwargs: Map,
    /// Whether its return goes to the master (`return_job`, default True).
    pub return_job: bool,
}

/// How a job names its times.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Interval(i64),
    Once,
    When,
    Cron,
}

const TIME_ELEMENTS: [(&str, i64); 4] = [
    ("seconds", 1),
    ("minutes", 60),
    ("hours", 3600),
    ("days", 86_400),
];

fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Float(f) => Some(*f as i64),
        Value::Str(s) => s.trim().parse().ok(),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// A job's function (`function`, or the older `func`/`fun`).
pub fn function_of(data: &Map) -> Option<String> {
    ["function", "func", "fun"]
        .iter()
        .find_map(|k| data.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// A random whole number of seconds in `lo..=hi`.
fn random_between(lo: i64, hi: i64) -> i64 {
    let mut b = [0u8; 8];
    if getrandom::fill(&mut b).is_err() || hi <= lo {
        return lo;
    }
    let span = (hi - lo + 1) as u64;
    lo + (u64::from_le_bytes(b) % span) as i64
}

/// The seconds a `splay` adds: 1..=N, or `{start, end}`.
fn splay_seconds(splay: &Value) -> Option<i64> {
    match splay {
        Value::Map(m) => {
            let (s, e) = (int(m.get("start")?)?, int(m.get("end")?)?);
            (e >= s).then(|| random_between(s, e))
        }
        v => int(v).filter(|n| *n > 0).map(|n| random_between(1, n)),
    }
}

/// A time a job names (`until`, `after`, a `when` entry): a date string
/// read as dateutil reads it.
fn time_of(v: &Value, now: DateTime) -> Option<DateTime> {
    v.as_str().and_then(|s| dates::parse_fuzzy(s, now.date()))
}

impl Schedule {
    /// The jobs due at `now` (local time), their state moved on.
    /// `pillar` and `grains` are the minion's (pillar jobs; `whens`
    /// aliases); `running(name)` says how many runs of a job are under way.
    pub fn due(
        &mut self,
        now: DateTime,
        pillar: &Map,
        grains: &Map,
        running: &dyn Fn(&str) -> usize,
    ) -> Vec<Due> {
        let loop_secs = 1;
        let all = self.merged(pillar);
        let global_enabled = self.enabled();
        let global_splay = all.get("splay").cloned().unwrap_or(Value::Null);
        let skip_range = all.get("skip_during_range").cloned();
        let forced: Vec<String> = std::mem::take(&mut self.run_now);
        let mut due = Vec::new();
        for (name, data) in &all {
            if HIDDEN.contains(&name.as_str()) {
                continue;
            }
            let Value::Map(data) = data else {
                let st = self.state.entry(name.clone()).or_default();
                st.error(
                    name,
                    format!("should have a dict value, not {}", data.type_name()),
                );
                continue;
            };
            let own = self.jobs.contains_key(name);
            // Salt writes the job's name into it at its first evaluation.
            let mut data = data.clone();
            if !data.contains_key("name") {
                data.insert("name".into(), Value::Str(name.clone()));
                self.write_key(name, own, "name", Value::Str(name.clone()));
            }
            let function = function_of(&data);
            // `schedule.run_job`: now, whatever its times say (and then
            // evaluated as every second, without a second run).
            let forced_run = forced.iter().any(|f| f == name);
            if forced_run {
                if let Some(d) = self.forced(name, own, &data, function.clone(), running) {
                    due.push(d);
                }
            }
            let st = self.state.entry(name.clone()).or_default();
            if data.get("run_on_start").is_some_and(Value::is_truthy) && st.run_on_start.is_none() {
                st.run_on_start = Some(true);
            }
            if st.run_on_start.is_none() {
                st.run_on_start = Some(false);
            }
            let has = |k: &str| data.contains_key(k);
            let schedulers = ["when", "cron", "once"].iter().filter(|k| has(k)).count();
            if schedulers > 1 {
                st.error(
                    name,
                    "Unable to use \"when\", \"cron\", \"once\" options together. Ignoring.".into(),
                );
                continue;
            }
            let timed = TIME_ELEMENTS.iter().any(|(k, _)| has(k));
            if timed && schedulers > 0 {
                st.error(name, "Unable to use \"seconds\", \"minutes\", \"hours\", \"days\" with \"when\", \"cron\", \"once\" options. Ignoring".into());
                continue;
            }
            let kind = if timed {
                let secs = TIME_ELEMENTS
                    .iter()
                    .map(|(k, mult)| {
                        data.get(*k)
                            .and_then(int)
                            .unwrap_or(0)
                            .saturating_mul(*mult)
                    })
                    .fold(0i64, i64::saturating_add);
                Kind::Interval(secs)
            } else if has("once") {
                Kind::Once
            } else if has("when") {
                Kind::When
            } else if has("cron") {
                Kind::Cron
            } else {
                // No time at all: never runs (Salt skips it silently).
                continue;
            };
            let window = dates::plus(now, -loop_secs);
            match kind {
                Kind::Interval(secs) => {
                    if st.seconds != Some(secs) {
                        st.seconds = Some(secs);
                        if st.next_fire.is_none() {
                            st.next_fire = Some(dates::plus(now, secs));
                        }
                        st.next_scheduled = Some(dates::plus(now, secs));
                    }
                }
                Kind::Once => {
                    if st.next_fire.is_none() {
                        let fmt = data
                            .get("once_fmt")
                            .and_then(Value::as_str)
                            .unwrap_or("%Y-%m-%dT%H:%M:%S");
                        let text = data
                            .get("once")
                            .map(Value::to_python_str)
                            .unwrap_or_default();
                        match dates::strptime(&text, fmt) {
                            Some(t) => {
                                st.next_fire = Some(t);
                                st.next_scheduled = Some(t);
                            }
                            None => {
                                st.error(name, format!("Date string could not be parsed: {text}, {fmt}. Ignoring job {name}."));
                                continue;
                            }
                        }
                    }
                    if st.next_fire.is_some_and(|t| t < window) {
                        st.finished = true;
                        continue;
                    }
                }
                Kind::When => {
                    let whens = match data.get("when") {
                        Some(Value::List(l)) => l.clone(),
                        Some(v) => vec![v.clone()],
                        None => Vec::new(),
                    };
                    let mut times = Vec::new();
                    for w in &whens {
                        // A name of the pillar's or grains' `whens` stands for its time.
                        let key = w.to_python_str();
                        let aliased = [pillar, grains].iter().find_map(|src| {
                            src.get("whens")
                                .and_then(Value::as_map)
                                .and_then(|m| m.get(&key))
                                .cloned()
                        });
                        match time_of(aliased.as_ref().unwrap_or(w), now) {
                            Some(t) => times.push(t),
                            None => {
                                st.error(
                                    name,
                                    format!("Invalid date string {key}. Ignoring job {name}."),
                                );
                                times.clear();
                                break;
                            }
                        }
                    }
                    times.sort();
                    let Some(next) = times.into_iter().find(|t| *t >= window) else {
                        st.next_fire = None;
                        continue;
                    };
                    st.next_fire = Some(next);
                    st.next_scheduled = Some(next);
                }
                Kind::Cron => {
                    if st.next_fire.is_none() {
                        match next_cron(&data, now) {
                            Some(t) => {
                                st.next_fire = Some(t);
                                st.next_scheduled = Some(t);
                            }
                            None => {
                                st.error(
                                    name,
                                    format!("Invalid cron string. Ignoring job {name}."),
                                );
                                continue;
                            }
                        }
                    }
                }
            }
            let Some(next_fire) = st.next_fire else {
                continue;
            };
            let mut seconds = dates::seconds_between(now, next_fire);
            let splay_set = data.get("splay").cloned();
            if splay_set.is_none() {
                self.write_key(name, own, "splay", global_splay.clone());
            }
            let st = self.state.entry(name.clone()).or_default();
            let splay = splay_set.unwrap_or_else(|| global_splay.clone());
            let mut run = false;
            if splay.is_truthy() {
                if st.splay.is_none() {
                    match splay_seconds(&splay) {
                        Some(s) if now < dates::plus(next_fire, s) => {
                            st.splay = Some(dates::plus(next_fire, s));
                        }
                        Some(_) => run = true,
                        None => st.error(
                            name,
                            "Invalid Splay, end must be larger than start. Ignoring splay.".into(),
                        ),
                    }
                }
                if let Some(s) = st.splay {
                    seconds = dates::seconds_between(now, s);
                }
            }
            match kind {
                Kind::Interval(_) => run |= seconds <= 0,
                Kind::Cron => {
                    if seconds <= 0 {
                        // The next time at once: the scheduler sleeps
                        // until it.
                        st.next_fire = next_cron(&data, now);
                        st.next_scheduled = st.next_fire;
                        run = true;
                    }
                }
                Kind::Once => {
                    if next_fire <= now
                        && now <= dates::plus(next_fire, loop_secs)
                        && st.when_done != Some(next_fire)
                    {
                        st.when_done = Some(next_fire);
                        run = true;
                    }
                }
                Kind::When => {
                    if seconds <= 0 && st.when_done != Some(next_fire) {
                        st.when_done = Some(next_fire);
                        run = true;
                    }
                }
            }
            let mut skipped = false;
            if st.run_on_start == Some(true) {
                run = true;
                st.run_on_start = Some(false);
            } else if run {
                if let Some(range) = data.get("range") {
                    match in_range(range, now) {
                        Ok(ok) => run = ok,
                        Err(e) => {
                            st.error(name, e);
                            continue;
                        }
                    }
                }
                if let Some(range) = data.get("skip_during_range").or(skip_range.as_ref()) {
                    match in_range(range, now) {
                        Ok(inside) => {
                            if inside && !range_inverted(range) {
                                run = false;
                                skipped = true;
                            }
                        }
                        Err(e) => {
                            st.error(name, e);
                            continue;
                        }
                    }
                }
                if let Some(until) = data.get("until").and_then(|v| time_of(v, now)) {
                    if until <= now {
                        run = false;
                        skipped = true;
                    }
                }
                if let Some(after) = data.get("after").and_then(|v| time_of(v, now)) {
                    if after >= now {
                        run = false;
                        skipped = true;
                    }
                }
            }
            if !global_enabled || !data.get("enabled").is_none_or(Value::is_truthy) {
                run = false;
                skipped = true;
            }
            if run && !self.may_start(name, own, &data, running) {
                run = false;
                skipped = true;
            }
            if forced_run {
                run = false;
            }
            let st = self.state.entry(name.clone()).or_default();
            if run {
                st.splay = None;
            }
            if let Kind::Interval(secs) = kind {
                if run || (skipped && next_fire <= now) {
                    st.next_fire = Some(dates::plus(now, secs));
                }
            }
            if run {
                self.write_key(name, own, "run", Value::Bool(true));
                if let Some(d) = to_run(name, &data, function) {
                    due.push(d);
                }
            }
        }
        due
    }

    /// A job `run_job` asked for: it runs unless `maxrunning` of it run.
    /// Unlike the timed evaluation, Salt's `run_job` reads `jid_include`
    /// and `maxrunning` without writing their defaults into the job.
    fn forced(
        &mut self,
        name: &str,
        own: bool,
        data: &Map,
        function: Option<String>,
        running: &dyn Fn(&str) -> usize,
    ) -> Option<Due> {
        if data.get("jid_include").is_none_or(Value::is_truthy) {
            let max = data.get("maxrunning").and_then(int).unwrap_or(1);
            if i64::try_from(running(name)).unwrap_or(i64::MAX) >= max {
                tracing::debug!("schedule: the job {name} was not started, {max} already running");
                return None;
            }
        }
        self.write_key(name, own, "run", Value::Bool(true));
        to_run(name, data, function)
    }

    /// `maxrunning` (default 1, with `jid_include`, default True): whether
    /// another run of the job may start.
    fn may_start(
        &mut self,
        name: &str,
        own: bool,
        data: &Map,
        running: &dyn Fn(&str) -> usize,
    ) -> bool {
        if !data.get("jid_include").is_none_or(Value::is_truthy) {
            return true;
        }
        if !data.contains_key("jid_include") {
            self.write_key(name, own, "jid_include", Value::Bool(true));
        }
        let max = match data.get("maxrunning").and_then(int) {
            Some(m) => m,
            None => {
                self.write_key(name, own, "maxrunning", Value::Int(1));
                1
            }
        };
        let now_running = i64::try_from(running(name)).unwrap_or(i64::MAX);
        if now_running >= max {
            tracing::debug!("schedule: the job {name} was not started, {max} already running");
            return false;
        }
        true
    }

    /// Write `key` into the options' job `name` as Salt's evaluation
    /// writes it (a pillar job's data is the pillar's: left alone).
    fn write_key(&mut self, name: &str, own: bool, key: &str, value: Value) {
        if !own {
            return;
        }
        if let Some(Value::Map(job)) = self.jobs.get_mut(name) {
            job.entry(key.to_string()).or_insert(value);
        }
    }
}

/// The first time after `now` the job's `cron` names (`None`: it names
/// none, or does not read).
fn next_cron(data: &Map, now: DateTime) -> Option<DateTime> {
    let expr = data.get("cron").map(Value::to_python_str)?;
    Cron::parse(&expr)?.next_after(now)
}

/// The run of a due job (none without a function: logged).
fn to_run(name: &str, data: &Map, function: Option<String>) -> Option<Due> {
    let Some(function) = function else {
        tracing::info!("Invalid function: None in scheduled job {name}.");
        return None;
    };
    Some(Due {
        name: name.to_string(),
        function,
        args: match data.get("args") {
            Some(Value::List(l)) => l.clone(),
            _ => Vec::new(),
        },
        kwargs: match data.get("kwargs") {
            Some(Value::Map(m)) => m.clone(),
            _ => Map::default(),
        },
        return_job: data.get("return_job").is_none_or(Value::is_truthy),
    })
}

fn range_inverted(range: &Value) -> bool {
    range
        .as_map()
        .and_then(|m| m.get("invert"))
        .is_some_and(Value::is_truthy)
}

/// Whether `now` is inside `range` (`{start, end, invert}`; inverted,
/// whether it is outside). An error when the range does not read.
fn in_range(range: &Value, now: DateTime) -> Result<bool, String> {
    let Some(m) = range.as_map() else {
        return Err("Invalid, range must be specified as a dictionary.".into());
    };
    let start = m.get("start").and_then(|v| time_of(v, now));
    let end = m.get("end").and_then(|v| time_of(v, now));
    let (Some(start), Some(end)) = (start, end) else {
        return Err("Invalid date string for start or end of range.".into());
    };
    if end <= start {
        return Err("Invalid range, end must be larger than start.".into());
    }
    let inside = start <= now && now <= end;
    Ok(if range_inverted(range) {
        !inside
    } else {
        inside
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    fn sched(j: serde_json::Value) -> Schedule {
        let mut opts = Map::default();
        opts.insert("schedule".into(), Value::from_json(&j));
        Schedule::from_opts(&opts)
    }

    fn names(d: &[Due]) -> Vec<&str> {
        d.iter().map(|d| d.name.as_str()).collect()
    }

    fn none(_: &str) -> usize {
        0
    }

    #[test]
    fn intervals_run_on_start_and_maxrunning() {
        let mut s = sched(serde_json::json!({
            "every5": {"function": "test.echo", "args": ["tick"], "seconds": 5},
            "boot": {"function": "test.ping", "minutes": 60, "run_on_start": true},
            "busy": {"function": "test.ping", "seconds": 1, "maxrunning": 1},
            "never": {"function": "test.ping"},
        }));
        let t0 = date(2026, 11, 27).at(12, 0, 0, 0);
        let (p, g) = (Map::default(), Map::default());
        let busy = |n: &str| usize::from(n == "busy");
        assert_eq!(names(&s.due(t0, &p, &g, &busy)), ["boot"]);
        assert_eq!(
            s.next_fire_time("every5").as_deref(),
            Some("2026-11-27T12:00:05")
        );
        let mut ran = Vec::new();
        for sec in 1..=12 {
            let t = dates::plus(t0, sec);
            for d in s.due(t, &p, &g, &busy) {
                ran.push((sec, d.name, d.args));
            }
        }
        let tick = vec![Value::from("tick")];
        assert_eq!(
            ran,
            [
                (5, "every5".to_string(), tick.clone()),
                (10, "every5".to_string(), tick)
            ]
        );
        // Salt's evaluation wrote its keys into the jobs it ran.
        let every5 = s.own()["every5"].as_map().cloned().unwrap_or_default();
        assert_eq!(
            every5.keys().collect::<Vec<_>>(),
            [
                "function",
                "args",
                "seconds",
                "name",
                "splay",
                "jid_include",
                "maxrunning",
                "run"
            ]
        );
        assert!(!s.own()["never"]
            .as_map()
            .is_some_and(|m| m.contains_key("splay")));
    }

    /// The scheduler sleeps until the next wake-up: every kind of job
    /// says when it needs looking at again, and a finished `once` never.
    #[test]
    fn next_wake_follows_the_jobs() {
        let mut s = sched(serde_json::json!({
            "every5": {"function": "test.ping", "seconds": 5},
            "cron": {"function": "test.ping", "cron": "*/2 * * * *"},
            "once": {"function": "test.ping", "once": "2026-11-27T12:00:03"},
        }));
        let t0 = date(2026, 11, 27).at(12, 0, 0, 0);
        let (p, g) = (Map::default(), Map::default());
        assert!(s.take_changed());
        assert!(!s.take_changed());
        s.due(t0, &p, &g, &none);
        assert_eq!(
            s.next_wake().map(dates::show).as_deref(),
            Some("2026-11-27T12:00:03")
        );
        assert_eq!(names(&s.due(dates::plus(t0, 3), &p, &g, &none)), ["once"]);
        assert_eq!(
            s.next_wake().map(dates::show).as_deref(),
            Some("2026-11-27T12:00:05")
        );
        s.due(dates::plus(t0, 5), &p, &g, &none);
        s.due(dates::plus(t0, 6), &p, &g, &none);
        assert_eq!(
            s.next_wake().map(dates::show).as_deref(),
            Some("2026-11-27T12:00:10")
        );
        let mut ran = Vec::new();
        for sec in 7..=125 {
            for d in s.due(dates::plus(t0, sec), &p, &g, &none) {
                ran.push((sec, d.name));
            }
        }
        assert!(ran.contains(&(120, "cron".to_string())), "{ran:?}");
        // The cron job's next time is known right after it ran.
        assert_eq!(
            s.next_fire_time("cron").as_deref(),
            Some("2026-11-27T12:04:00")
        );
        s.run_now("every5");
        assert!(s.take_changed());
    }

    #[test]
    fn disabled_jobs_and_schedules_do_not_run_but_run_job_does() {
        let mut s = sched(serde_json::json!({
            "off": {"function": "test.ping", "seconds": 1, "enabled": false},
        }));
        let t0 = date(2026, 1, 1).at(0, 0, 0, 0);
        let (p, g) = (Map::default(), Map::default());
        for sec in 0..5 {
            assert!(s.due(dates::plus(t0, sec), &p, &g, &none).is_empty());
        }
        s.run_now("off");
        assert_eq!(names(&s.due(dates::plus(t0, 6), &p, &g, &none)), ["off"]);
        s.set_job_enabled("off", true, &p);
        s.set_enabled(false);
        assert!(s.due(dates::plus(t0, 8), &p, &g, &none).is_empty());
    }

    #[test]
    fn cron_once_when_and_their_errors() {
        let mut s = sched(serde_json::json!({
            "cron5": {"function": "test.ping", "cron": "*/5 * * * *"},
            "once": {"function": "test.ping", "once": "2026-11-27T12:03:00"},
            "when": {"function": "test.ping", "when": ["12:02pm", "lunch"]},
            "badcron": {"function": "test.ping", "cron": "nope"},
            "both": {"function": "test.ping", "cron": "* * * * *", "seconds": 5},
        }));
        let mut pillar = Map::default();
        pillar.insert(
            "whens".into(),
            Value::from_json(&serde_json::json!({"lunch": "12:04pm"})),
        );
        let t0 = date(2026, 11, 27).at(12, 0, 30, 0);
        let g = Map::default();
        let mut ran = Vec::new();
        for sec in 0..=300 {
            for d in s.due(dates::plus(t0, sec), &pillar, &g, &none) {
                ran.push((dates::show(dates::plus(t0, sec)), d.name));
            }
        }
        let want: Vec<(String, String)> = [
            ("2026-11-27T12:02:00", "when"),
            ("2026-11-27T12:03:00", "once"),
            ("2026-11-27T12:04:00", "when"),
            ("2026-11-27T12:05:00", "cron5"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(ran, want);
        assert_eq!(s.next_fire_time("badcron"), None);
        assert_eq!(
            s.next_fire_time("cron5").as_deref(),
            Some("2026-11-27T12:10:00")
        );
    }

    /// `when` times in the future do not run now (Salt's recorded
    /// `whenjob`, added a Friday night).
    #[test]
    fn when_times_ahead_wait() {
        let mut s = sched(serde_json::json!({
            "whenjob": {"function": "test.ping", "when": ["Monday 5:00pm", "2030-01-01 10:00"]},
        }));
        let fri = date(2026, 11, 27).at(23, 59, 45, 0);
        let (p, g) = (Map::default(), Map::default());
        for sec in 0..5 {
            assert!(s.due(dates::plus(fri, sec), &p, &g, &none).is_empty());
        }
        assert_eq!(
            s.next_fire_time("whenjob").as_deref(),
            Some("2026-11-30T17:00:00")
        );
    }

    #[test]
    fn splay_until_after_and_range_hold_runs_back() {
        let mut s = sched(serde_json::json!({
            "splayed": {"function": "test.ping", "seconds": 10, "splay": 5},
            "expired": {"function": "test.ping", "seconds": 1, "until": "2020-01-01 00:00"},
            "later": {"function": "test.ping", "seconds": 1, "after": "2030-01-01 00:00"},
            "office": {"function": "test.ping", "seconds": 1,
                       "range": {"start": "8am", "end": "5pm"}},
        }));
        let (p, g) = (Map::default(), Map::default());
        let night = date(2026, 11, 27).at(22, 0, 0, 0);
        let mut splayed_at = Vec::new();
        for sec in 0..=40 {
            for d in s.due(dates::plus(night, sec), &p, &g, &none) {
                assert_eq!(d.name, "splayed");
                splayed_at.push(sec);
            }
        }
        // Each run 1..=5 s after its time, the next time 10 s after the
        // run (as Salt's: the interval counts from the run).
        assert!(splayed_at.len() >= 2, "{splayed_at:?}");
        assert!((11..=15).contains(&splayed_at[0]), "{splayed_at:?}");
        assert!(
            splayed_at
                .windows(2)
                .all(|w| (11..=15).contains(&(w[1] - w[0]))),
            "{splayed_at:?}"
        );
        let noon = date(2026, 11, 27).at(12, 0, 0, 0);
        let mut s2 = sched(serde_json::json!({
            "office": {"function": "test.ping", "seconds": 1,
                       "range": {"start": "8am", "end": "5pm"}},
        }));
        s2.due(noon, &p, &g, &none);
        assert_eq!(
            names(&s2.due(dates::plus(noon, 1), &p, &g, &none)),
            ["office"]
        );
    }
}
