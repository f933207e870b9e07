//! The master's event bus through real daemons on 127.0.0.1, against what
//! a real Salt 3007.8 master printed (`tests/recorded/events/`):
//! `brine-run state.event` with `count`, `pretty`, a glob, a regular
//! expression and `quiet` while `brine-run event.send` fires events; and
//! a minion's start, a job, `event.send` and `event.fire_master` and
//! `brine-key` deleting its key as a listener sees them. Job ids, stamps and times are put aside.

use brine_tests::bin;
use brine_tests::daemon::MasterConf;
use serde_json::Value as Json;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn recorded(name: &str) -> Json {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("recorded/events")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).expect("recording")).expect("json")
}

/// Job ids, stamps and Unix times made placeholders.
fn normalized(text: &str) -> String {
    let jid = regex::Regex::new(r"\b\d{20}\b").expect("re");
    let stamp = regex::Regex::new(r#"("_stamp": ?)"[0-9T:.-]+""#).expect("re");
    let ts = regex::Regex::new(r#"("ts": ?)\d+"#).expect("re");
    let started = regex::Regex::new(r"started at [A-Za-z]{3} [A-Za-z]{3} [ \d]\d [\d:]{8} \d{4}")
        .expect("re");
    let t = jid.replace_all(text, "<jid>");
    let t = stamp.replace_all(&t, r#"${1}"<stamp>""#);
    let t = ts.replace_all(&t, "${1}0");
    started.replace_all(&t, "started at <time>").into_owned()
}

/// `brine-run -c CONF state.event ARGS...` listening in the background.
struct Listening {
    child: std::process::Child,
}

impl Listening {
    fn start(conf: &MasterConf, args: &[&str]) -> Listening {
        let child = Command::new(bin("brine-run"))
            .arg("-c")
            .arg(conf.conf_dir())
            .arg("state.event")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("brine-run state.event");
        // Subscribed once its socket connection is up; give it a moment.
        std::thread::sleep(Duration::from_millis(1500));
        Listening { child }
    }

    /// Its whole output once it ends (within `wait`), or what it printed
    /// before it was stopped.
    fn output(mut self, wait: Duration) -> (String, Option<i32>) {
        let deadline = Instant::now() + wait;
        let mut code = None;
        while Instant::now() < deadline {
            if let Ok(Some(st)) = self.child.try_wait() {
                code = st.code();
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if code.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let mut out = String::new();
        if let Some(mut s) = self.child.stdout.take() {
            let _ = s.read_to_string(&mut out);
        }
        (out, code)
    }
}

#[test]
fn state_event_prints_as_salts() {
    let rec = recorded("state_event.salt.json");
    let conf = MasterConf::new("");
    let mut master = conf.start();
    let mut failures = Vec::new();
    for case in ["count1", "pretty_count2", "match", "quiet", "regex"] {
        let want = &rec[case];
        let args: Vec<&str> = want["args"]
            .as_array()
            .expect("args")
            .iter()
            .filter_map(Json::as_str)
            .collect();
        let listening = Listening::start(&conf, &args);
        for (tag, data) in [
            ("other/tag", r#"{"x": 1}"#),
            ("my/tag/one", r#"{"b": 2, "a": [1, "é"]}"#),
            ("my/tag/two", r#"{"c": null}"#),
        ] {
            let out = conf.cli("brine-run", &["event.send", tag, data]);
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                rec["event_send_runner"]["stdout"]
                    .as_str()
                    .unwrap_or_default(),
                "event.send {tag}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let (got, code) = listening.output(Duration::from_secs(15));
        let salt = want["stdout"].as_str().unwrap_or_default();
        if normalized(&got) != normalized(salt) || code != Some(0) {
            failures.push(format!(
                "{case} {args:?} (exit {code:?}):\n  salt:  {salt:?}\n  brine: {got:?}"
            ));
        }
    }
    master.stop();
    assert!(
        failures.is_empty(),
        "state.event differs from Salt:\n{}\nmaster log:\n{}",
        failures.join("\n"),
        conf.log()
    );
}

/// What a listener saw while a minion started, answered a job and fired
/// events, against the recorded pair's events of the same tags.
#[test]
fn a_minions_events_reach_the_bus_as_salts() {
    let rec = recorded("events.salt.json");
    let conf = MasterConf::new("");
    let mut master = conf.start();
    conf.write_minion_conf("web1", "grains:\n  roles: [web]\n");
    let listening = Listening::start(&conf, &["pretty=False"]);
    let mut minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let steps: [&[&str]; 3] = [
        &["web1", "event.send", "my/custom/tag", r#"{"a": 1}"#],
        &["web1", "event.fire_master", r#"{"c": 3}"#, "my/fired/tag"],
        &["web1", "test.ping"],
    ];
    for step in steps {
        let out = conf.cli("brine", step);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "web1:\n    True\n",
            "{step:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    minion.stop();
    let out = conf.cli("brine-key", &["-d", "web1", "-y"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::thread::sleep(Duration::from_millis(500));
    let (got, _) = listening.output(Duration::from_millis(100));
    master.stop();
    // Tag → data (as JSON), the last of each tag, jids made placeholders.
    let seen = |lines: Vec<(String, Json)>| -> std::collections::BTreeMap<String, Json> {
        lines
            .into_iter()
            .map(|(tag, data)| {
                let tag = normalized(&tag);
                let data: Json =
                    serde_json::from_str(&normalized(&data.to_string())).expect("json");
                (tag, data)
            })
            .collect()
    };
    let brine = seen(
        got.lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(t, d)| (t.to_string(), serde_json::from_str(d).unwrap_or(Json::Null)))
            .collect(),
    );
    let salt = seen(
        rec["events"]
            .as_array()
            .expect("events")
            .iter()
            .map(|e| {
                (
                    e["tag"].as_str().unwrap_or_default().to_string(),
                    e["data"].clone(),
                )
            })
            .collect(),
    );
    let mut failures = Vec::new();
    for tag in [
        "salt/key",
        "minion_start",
        "salt/minion/web1/start",
        "my/custom/tag",
        "my/fired/tag",
        "salt/job/<jid>/new",
        "salt/job/<jid>/ret/web1",
    ] {
        let (Some(b), Some(s)) = (brine.get(tag), salt.get(tag)) else {
            failures.push(format!(
                "{tag}: brine {:?}, salt {:?}",
                brine.get(tag),
                salt.get(tag)
            ));
            continue;
        };
        // The last job of each is a different function: compare shapes
        // (keys) for jobs and every value for the rest.
        let same = if tag.starts_with("salt/job/") {
            b.as_object().map(|o| o.keys().collect::<Vec<_>>())
                == s.as_object().map(|o| o.keys().collect::<Vec<_>>())
        } else if tag == "my/custom/tag" {
            // The publish metadata differs (its jid, its arguments).
            b["data"]["a"] == s["data"]["a"] && b["cmd"] == s["cmd"] && b["id"] == s["id"]
        } else {
            b == s
        };
        if !same {
            failures.push(format!("{tag}:\n  salt:  {s}\n  brine: {b}"));
        }
    }
    assert!(
        failures.is_empty(),
        "events differ from Salt's:\n{}\nlistener printed:\n{got}\nmaster log:\n{}",
        failures.join("\n"),
        conf.log()
    );
}

/// The bus's bounds against a real master: subscribers past
/// `max_event_subscribers` are refused, and one that stops reading while
/// more than its `event_subscriber_buffer` of events fires is cut (logged
/// once) while a reading subscriber misses nothing.
#[test]
fn the_bus_refuses_and_cuts_past_its_bounds() {
    use brine_master::daemon::events::client::{fire, Listener};
    use brine_master::daemon::events::wire::Event;
    let conf = MasterConf::new("max_event_subscribers: 3\nevent_subscriber_buffer: 65536\n");
    let mut master = conf.start();
    let sock_dir = conf.root().join("var/run/brine/master");
    let max = 1 << 20;
    let mut reader = Listener::open(&sock_dir, max).expect("first subscriber");
    let _stalled = Listener::open(&sock_dir, max).expect("second subscriber");
    let _third = Listener::open(&sock_dir, max).expect("third subscriber");
    assert!(
        Listener::open(&sock_dir, max).is_err(),
        "a fourth subscriber was let in past max_event_subscribers: 3"
    );
    // 400 events of ~1 KB: six times the stalled subscribers' budget.
    let n = 400;
    let body = "x".repeat(1000);
    // Fired in batches of 20 (20 KB, under a subscriber's budget), each
    // once the reader has had the last: a reader that reads is never cut,
    // however slow the machine, while the stalled ones pass their budget.
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = seen.clone();
    let got = std::thread::spawn(move || {
        let mut total = 0;
        while total < n {
            match reader.next(Some(Duration::from_secs(10))) {
                Ok(Some(e)) if e.tag.starts_with("load/") => {
                    total += 1;
                    counted.store(total, std::sync::atomic::Ordering::SeqCst);
                }
                Ok(Some(_)) => {}
                _ => break,
            }
        }
        total
    });
    for batch in 0..n / 20 {
        let events: Vec<Event> = (batch * 20..batch * 20 + 20)
            .map(|i| Event {
                tag: format!("load/{i}"),
                data: brine_core::Value::from_json(&serde_json::json!({ "body": body })),
            })
            .collect();
        fire(&sock_dir, &events).expect("fire");
        let deadline = Instant::now() + Duration::from_secs(10);
        while seen.load(std::sync::atomic::Ordering::SeqCst) < batch * 20 + 20
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    assert_eq!(
        got.join().expect("reader"),
        n,
        "the reading subscriber missed events"
    );
    let cut = "fell";
    let log = conf.log();
    assert_eq!(
        log.matches(cut).count(),
        2,
        "the two stalled subscribers are cut once each:\n{log}"
    );
    master.stop();
}

/// At most 64 peers fire at once: with 64 firing connections held open,
/// the next firer is refused (logged) and its event never reaches the bus;
/// once they go, firing works again.
#[test]
fn the_bus_takes_at_most_64_firers_at_once() {
    use brine_master::daemon::events::client::{fire, Listener};
    use brine_master::daemon::events::socket::MAX_FIRERS;
    use brine_master::daemon::events::wire::{self, Event, Hello, SOCKET_NAME};
    let conf = MasterConf::new("");
    let mut master = conf.start();
    let sock_dir = conf.root().join("var/run/brine/master");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !sock_dir.join(SOCKET_NAME).exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut listener = Listener::open(&sock_dir, 1 << 20).expect("subscriber");
    let held: Vec<std::os::unix::net::UnixStream> = (0..MAX_FIRERS)
        .map(|_| {
            let mut s = std::os::unix::net::UnixStream::connect(sock_dir.join(SOCKET_NAME))
                .expect("connect");
            wire::write_blocking(&mut s, &Hello::Fire).expect("hello");
            s
        })
        .collect();
    // The server takes them in as it reads their hellos.
    std::thread::sleep(Duration::from_millis(500));
    let one = |tag: &str| Event {
        tag: tag.into(),
        data: brine_core::Value::from_json(&serde_json::json!({})),
    };
    assert!(
        fire(&sock_dir, &[one("over/limit")]).is_err(),
        "a 65th firer was let in"
    );
    assert!(
        conf.log().contains("peers already firing; refused one"),
        "{}",
        conf.log()
    );
    drop(held);
    std::thread::sleep(Duration::from_millis(300));
    fire(&sock_dir, &[one("after/limit")]).expect("firing once the others left");
    let mut tags = Vec::new();
    while let Ok(Some(e)) = listener.next(Some(Duration::from_secs(2))) {
        tags.push(e.tag);
        if tags.iter().any(|t| t == "after/limit") {
            break;
        }
    }
    assert!(!tags.iter().any(|t| t == "over/limit"), "{tags:?}");
    assert!(tags.iter().any(|t| t == "after/limit"), "{tags:?}");
    master.stop();
}
