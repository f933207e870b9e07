//! Salt's event tags and the data each carries, written once: what
//! `salt-run state.event` shows a real master firing (recorded in
//! `tests/recorded/events/`). Each builder gives the tag and the data;
//! the bus stamps it.

use brine_core::{Map, Value};

/// A map from `(key, value)` pairs, in order (Salt's insertion order is
/// what `state.event` prints).
fn map<const N: usize>(pairs: [(&str, Value); N]) -> Map {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

fn strings(items: &[String]) -> Value {
    Value::List(items.iter().cloned().map(Value::Str).collect())
}

/// What an authentication did with the minion's key (`salt/auth`'s
/// `act`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthAct {
    /// Now (or still) waiting for acceptance.
    Pend,
    /// Accepted.
    Accept,
    /// A key other than the one on file was offered.
    Denied,
    /// Refused: the pending list is full.
    Full,
    /// The key is in the rejected list (Salt says no `act` for it).
    Rejected,
}

/// `salt/auth`: a minion authenticated (or tried to).
pub fn auth(id: &str, act: AuthAct, public_key: &str) -> (String, Map) {
    let (result, act) = match act {
        AuthAct::Pend => (true, Some("pend")),
        AuthAct::Accept => (true, Some("accept")),
        AuthAct::Denied => (false, Some("denied")),
        AuthAct::Full => (false, Some("full")),
        AuthAct::Rejected => (false, None),
    };
    let mut m = map([("result", Value::Bool(result))]);
    if let Some(act) = act {
        m.insert("act".into(), Value::Str(act.into()));
    }
    m.insert("id".into(), Value::Str(id.into()));
    m.insert("pub".into(), Value::Str(public_key.into()));
    ("salt/auth".into(), m)
}

/// `salt/key`: a key was accepted, rejected or deleted (`brine-key`).
pub fn key(id: &str, act: &str) -> (String, Map) {
    (
        "salt/key".into(),
        map([
            ("result", Value::Bool(true)),
            ("act", Value::Str(act.into())),
            ("id", Value::Str(id.into())),
        ]),
    )
}

/// `minion/refresh/<id>`: the master compiled a minion's pillar (its data
/// cache refreshed).
pub fn minion_refresh(id: &str) -> (String, Map) {
    (
        format!("minion/refresh/{id}"),
        map([("Minion data cache refresh", Value::Str(id.into()))]),
    )
}

/// `key`: the publication key was rotated.
pub fn rotate() -> (String, Map) {
    ("key".into(), map([("rotate_aes_key", Value::Bool(true))]))
}

/// What a published job's events say about it.
pub struct Job<'a> {
    pub jid: &'a str,
    pub tgt: &'a Value,
    pub tgt_type: &'a str,
    pub user: &'a str,
    pub fun: &'a str,
    pub arg: &'a [Value],
    pub minions: &'a [String],
    pub missing: &'a [String],
}

impl Job<'_> {
    /// The bare `<jid>` event: who the job expects.
    pub fn minions(&self) -> (String, Map) {
        (
            self.jid.to_string(),
            map([("minions", strings(self.minions))]),
        )
    }

    /// `salt/job/<jid>/new`.
    pub fn new_job(&self) -> (String, Map) {
        (
            format!("salt/job/{}/new", self.jid),
            map([
                ("jid", Value::Str(self.jid.into())),
                ("tgt_type", Value::Str(self.tgt_type.into())),
                ("tgt", self.tgt.clone()),
                ("user", Value::Str(self.user.into())),
                ("fun", Value::Str(self.fun.into())),
                ("arg", Value::List(self.arg.to_vec())),
                ("minions", strings(self.minions)),
                ("missing", strings(self.missing)),
            ]),
        )
    }

    /// `salt/job/<jid>/publish`.
    pub fn publish(&self) -> (String, Map) {
        (
            format!("salt/job/{}/publish", self.jid),
            map([
                ("fun", Value::Str(self.fun.into())),
                ("arg", Value::List(self.arg.to_vec())),
                ("tgt", self.tgt.clone()),
                ("jid", Value::Str(self.jid.into())),
                ("ret", Value::Str(String::new())),
                ("tgt_type", Value::Str(self.tgt_type.into())),
                ("user", Value::Str(self.user.into())),
            ]),
        )
    }
}

/// A minion's return, as its `salt/job/<jid>/ret/<id>` event shows it.
pub struct Return<'a> {
    pub jid: &'a str,
    pub id: &'a str,
    pub fun: &'a str,
    pub fun_args: &'a [Value],
    pub ret: Value,
    pub retcode: i64,
    pub success: bool,
    pub out: Option<&'a str>,
    pub user: &'a str,
    /// Set for a scheduled run: its job's name.
    pub schedule: Option<&'a str>,
}

impl Return<'_> {
    pub fn event(self) -> (String, Map) {
        let mut m = map([
            ("cmd", Value::Str("_return".into())),
            ("id", Value::Str(self.id.into())),
            ("success", Value::Bool(self.success)),
            ("return", self.ret),
            ("retcode", Value::Int(self.retcode)),
            ("jid", Value::Str(self.jid.into())),
            ("fun", Value::Str(self.fun.into())),
            ("fun_args", Value::List(self.fun_args.to_vec())),
        ]);
        if let Some(out) = self.out {
            m.insert("out".into(), Value::Str(out.into()));
        }
        if let Some(s) = self.schedule {
            m.insert("schedule".into(), Value::Str(s.into()));
        }
        m.insert("user".into(), Value::Str(self.user.into()));
        // Salt stamps the load before the master adds the time it got it.
        m.insert("_stamp".into(), Value::Str(super::bus::stamp()));
        m.insert("ts".into(), Value::Int(now_secs()));
        (format!("salt/job/{}/ret/{}", self.jid, self.id), m)
    }
}

fn now_secs() -> i64 {
    brine_host::time::now_micros() / 1_000_000
}

/// A runner's run, as `salt/run/<jid>/new` and `.../ret` show it.
pub struct Run<'a> {
    pub jid: &'a str,
    /// `module.function`; the events say `runner.module.function`
    /// (`wheel.module.function`).
    pub fun: &'a str,
    pub user: &'a str,
    pub fun_args: &'a [Value],
    pub side: MasterSide,
}

/// Which of the master's own clients ran a function: a runner
/// (`salt/run/...`) or a wheel function (`salt/wheel/...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MasterSide {
    Runner,
    Wheel,
}

impl MasterSide {
    /// The client's name in `fun` (`runner.test.arg`).
    pub fn client(self) -> &'static str {
        match self {
            MasterSide::Runner => "runner",
            MasterSide::Wheel => "wheel",
        }
    }

    fn tag(self) -> &'static str {
        match self {
            MasterSide::Runner => "salt/run",
            MasterSide::Wheel => "salt/wheel",
        }
    }
}

impl Run<'_> {
    fn base(&self) -> Map {
        map([
            (
                "fun",
                Value::Str(format!("{}.{}", self.side.client(), self.fun)),
            ),
            ("jid", Value::Str(self.jid.into())),
            ("user", Value::Str(self.user.into())),
            ("fun_args", Value::List(self.fun_args.to_vec())),
        ])
    }

    pub fn new_run(&self) -> (String, Map) {
        (format!("{}/{}/new", self.side.tag(), self.jid), self.base())
    }

    pub fn ret(&self, ret: Value, success: bool) -> (String, Map) {
        let mut m = self.base();
        m.insert("_stamp".into(), Value::Str(super::bus::stamp()));
        m.insert("return".into(), ret);
        m.insert("success".into(), Value::Bool(success));
        (format!("{}/{}/ret", self.side.tag(), self.jid), m)
    }
}

/// `salt/presence/present`: the minions connected now.
pub fn present(ids: &[String]) -> (String, Map) {
    (
        "salt/presence/present".into(),
        map([("present", strings(ids))]),
    )
}

/// `salt/presence/change`: minions that came and went since the last look.
pub fn presence_change(new: &[String], lost: &[String]) -> (String, Map) {
    (
        "salt/presence/change".into(),
        map([("new", strings(new)), ("lost", strings(lost))]),
    )
}

/// An event a minion fired (`event.send`, `event.fire_master`, its start
/// events), as the master carries it: wrapped with who sent it and when.
pub fn minion_event(id: &str, tag: &str, data: Value, ts: i64) -> (String, Map) {
    (
        tag.to_string(),
        map([
            ("id", Value::Str(id.into())),
            ("cmd", Value::Str("_minion_event".into())),
            ("pretag", Value::Null),
            ("data", data),
            ("tag", Value::Str(tag.into())),
            ("ts", Value::Int(ts)),
        ]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The recorded events of a real pair, by tag shape, against the
    /// builders (stamps and times aside).
    #[test]
    fn the_builders_give_what_a_real_master_fired() {
        let recorded: serde_json::Value = serde_json::from_str(include_str!(
            "../../../../tests/recorded/events/events.salt.json"
        ))
        .unwrap();
        let find = |pred: &dyn Fn(&str) -> bool| -> serde_json::Value {
            let e = recorded["events"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| pred(e["tag"].as_str().unwrap()))
                .unwrap();
            let mut d = e["data"].clone();
            let m = d.as_object_mut().unwrap();
            m.remove("_stamp");
            m.remove("ts");
            d
        };
        let ours = |(tag, mut m): (String, Map)| -> (String, serde_json::Value) {
            m.shift_remove("_stamp");
            m.shift_remove("ts");
            (tag, serde_json::to_value(Value::Map(m)).unwrap())
        };
        let rec = find(&|t| t == "salt/auth");
        let (tag, data) = ours(auth("web1", AuthAct::Pend, rec["pub"].as_str().unwrap()));
        assert_eq!((tag.as_str(), data), ("salt/auth", rec));
        assert_eq!(ours(key("web1", "accept")).1, find(&|t| t == "salt/key"));
        assert_eq!(
            ours(minion_refresh("web1")),
            (
                "minion/refresh/web1".into(),
                find(&|t| t == "minion/refresh/web1")
            )
        );
        assert_eq!(ours(rotate()).1, find(&|t| t == "key"));
        let new = find(&|t| t.starts_with("salt/job/") && t.ends_with("/new"));
        let jid = new["jid"].as_str().unwrap().to_string();
        let job = Job {
            jid: &jid,
            tgt: &Value::Str("web1".into()),
            tgt_type: "glob",
            user: "root",
            fun: "test.ping",
            arg: &[],
            minions: &["web1".into()],
            missing: &[],
        };
        assert_eq!(ours(job.new_job()).1, new);
        assert_eq!(
            ours(job.publish()).1,
            find(&|t| t == format!("salt/job/{jid}/publish"))
        );
        assert_eq!(ours(job.minions()).1, find(&|t| t == jid));
        let ret = Return {
            jid: &jid,
            id: "web1",
            fun: "test.ping",
            fun_args: &[],
            ret: Value::Bool(true),
            retcode: 0,
            success: true,
            out: None,
            user: "root",
            schedule: None,
        };
        assert_eq!(
            ours(ret.event()),
            (
                format!("salt/job/{jid}/ret/web1"),
                find(&|t| t == format!("salt/job/{jid}/ret/web1"))
            )
        );
        let run_new = find(&|t| t.starts_with("salt/run/") && t.ends_with("/new"));
        let rjid = run_new["jid"].as_str().unwrap().to_string();
        let args = [
            Value::Str("x".into()),
            Value::Map(map([("y", Value::Str("z".into()))])),
        ];
        let run = Run {
            jid: &rjid,
            fun: "test.arg",
            user: "root",
            fun_args: &args,
            side: MasterSide::Runner,
        };
        assert_eq!(ours(run.new_run()).1, run_new);
        let r: Value =
            serde_json::from_value(json!({"args": ["x"], "kwargs": {"y": "z"}})).unwrap();
        assert_eq!(
            ours(run.ret(r, true)).1,
            find(&|t| t == format!("salt/run/{rjid}/ret"))
        );
        assert_eq!(
            ours(presence_change(&["web1".into()], &[])).1,
            find(&|t| t == "salt/presence/change")
        );
        let fired = find(&|t| t == "my/fired/tag");
        assert_eq!(
            ours(minion_event(
                "web1",
                "my/fired/tag",
                Value::Map(map([("c", Value::Int(3))])),
                0
            ))
            .1,
            fired
        );
    }
}
