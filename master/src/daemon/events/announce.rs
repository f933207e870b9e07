//! A master-side run as the bus shows it (`salt/run/<jid>/new` and
//! `.../ret` for a runner, `salt/wheel/...` for a wheel function), fired
//! through the event socket by whoever runs it: `brine-run`, the reactor.
//! Best effort: without a master listening there is no bus.

use super::client;
use super::tags::{self, MasterSide};
use super::wire::Event;
use brine_core::args::CallArgs;
use brine_core::{Map, Value};
use std::path::Path;

pub struct Announce<'a> {
    sock_dir: &'a Path,
    pub jid: String,
    fun: &'a str,
    user: &'a str,
    side: MasterSide,
    fun_args: Vec<Value>,
}

impl<'a> Announce<'a> {
    /// The run of `fun` with `call` by `user` (`root` for the CLI,
    /// `Reactor` for a reaction): its args, then its keyword arguments as
    /// one mapping, as Salt's events list them.
    pub fn new(
        sock_dir: &'a Path,
        side: MasterSide,
        fun: &'a str,
        user: &'a str,
        call: &CallArgs,
    ) -> Announce<'a> {
        let mut fun_args = call.args.clone();
        let kwargs: Map = call
            .kwargs
            .iter()
            .filter(|(k, _)| !k.starts_with("__"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !kwargs.is_empty() {
            fun_args.push(Value::Map(kwargs));
        }
        Announce {
            sock_dir,
            jid: brine_host::time::jid(brine_host::time::now_micros(), false),
            fun,
            user,
            side,
            fun_args,
        }
    }

    fn run(&self) -> tags::Run<'_> {
        tags::Run {
            jid: &self.jid,
            fun: self.fun,
            user: self.user,
            fun_args: &self.fun_args,
            side: self.side,
        }
    }

    /// The function as the events name it (`runner.state.orchestrate`).
    pub fn full_fun(&self) -> String {
        format!("{}.{}", self.side.client(), self.fun)
    }

    /// Who runs it.
    pub fn user(&self) -> &str {
        self.user
    }

    /// A keyword argument the run is given besides its caller's (Salt's
    /// `orchestration_jid`), shown in `fun_args` as the call's own are.
    pub fn add_kwarg(&mut self, key: &str, value: Value) {
        match self.fun_args.last_mut() {
            Some(Value::Map(kw)) => {
                kw.insert(key.into(), value);
            }
            _ => {
                let mut kw = Map::default();
                kw.insert(key.into(), value);
                self.fun_args.push(Value::Map(kw));
            }
        }
    }

    /// The `.../ret` event: its tag and data.
    pub fn ret_data(&self, ret: Value, success: bool) -> (String, Map) {
        self.run().ret(ret, success)
    }

    /// Fire one event (best effort).
    pub fn fire(&self, (tag, data): (String, Map)) {
        let ev = Event {
            tag,
            data: Value::Map(data),
        };
        if let Err(e) = client::fire(self.sock_dir, &[ev]) {
            tracing::debug!("no run event: {e}");
        }
    }

    /// `.../new`: the run starts.
    pub fn fire_new(&self) {
        self.fire(self.run().new_run());
    }

    /// `.../ret`: what it returned, and whether it succeeded.
    pub fn fire_ret(&self, ret: Value, success: bool) {
        self.fire(self.ret_data(ret, success));
    }
}
