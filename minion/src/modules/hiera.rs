//! `hiera.lookup KEY [merge=STRATEGY] [default=VALUE]`: a Hiera 5 lookup in
//! the minion's hierarchies (see `brine_master::pillar::hiera`), answering
//! what Puppet 7's `puppet lookup` answers.
//!
//! A key found nowhere, with no `default=`, and any lookup problem (bad
//! `hiera.yaml`, unparsable data file, failing merge) return the string
//! `ERROR: <why>` with exit code 1: the shape a Salt minion gives when an
//! execution function raises `CommandExecutionError`. The not-found text
//! names the data files that were searched.

use super::{CallError, Params, Return};
use crate::context::Minion;
use brine_master::pillar::hiera::Hiera;
use brine_master::MinionData;
use brine_protocol::Value;

pub(super) fn call(m: &mut Minion, name: &str, mut p: Params) -> Option<Result<Return, CallError>> {
    Some(match name {
        "lookup" => (|| {
            let key = p.require("key")?.to_python_str();
            let merge = p.take("merge").filter(|v| !v.is_null());
            let default = p.take("default");
            p.finish()?;
            Ok(lookup(m, &key, merge.as_ref(), default))
        })(),
        _ => return None,
    })
}

fn lookup(m: &Minion, key: &str, merge: Option<&Value>, default: Option<Value>) -> Return {
    let node = MinionData {
        id: m.id.clone(),
        grains: Value::Map(m.grains.clone()),
        pillar: Value::Map(m.pillar.clone()),
        opts: Value::Map(m.opts.clone()),
    };
    let hiera = Hiera::new(&m.opts, &node, None);
    let error = |text: String| Return {
        value: Value::Str(format!("ERROR: {text}")),
        retcode: 1,
    };
    match hiera.lookup(key, merge) {
        Ok(Some(v)) => Return::from(v),
        Ok(None) => match default {
            Some(d) => Return::from(d),
            None => error(hiera.not_found(key)),
        },
        Err(e) => error(e.to_string()),
    }
}
