//! A state run's `__salt__`: the execution functions its states call by
//! name (`module.run`, `grains.present`), run on a copy of the running
//! minion that carries the run's pillar. Grains a function writes stay
//! with that copy, so the states after it see them, and the run hands
//! them back to the minion when it ends.

use crate::context::{Minion, RegistryCalls};
use brine_compile::minion_data::FunctionError;
use brine_core::args::CallArgs;
use brine_core::signature::Signature;
use brine_core::{Map, Value};
use brine_states::{MinionCalls, MinionFunctions};
use std::sync::{Arc, Mutex, MutexGuard};

struct RunningMinion {
    minion: Mutex<Minion>,
    registry: RegistryCalls,
}

impl RunningMinion {
    fn lock(&self) -> MutexGuard<'_, Minion> {
        match self.minion.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }
}

impl MinionFunctions for RunningMinion {
    fn signature(&self, fun: &str) -> Option<Signature> {
        (self.registry.signature)(fun)
    }

    fn call(&self, fun: &str, args: CallArgs) -> Result<Value, FunctionError> {
        let mut m = self.lock();
        (self.registry.call)(&mut m, fun, args)
    }

    fn grains(&self) -> Option<Arc<Map>> {
        Some(Arc::clone(&self.lock().grains))
    }

    fn jid_event(&self, suffix: &str, data: Value) {
        let master = self.lock().master.0.clone();
        if let Some(master) = master {
            master.jid_event(suffix, data);
        }
    }
}

/// The handle for a run of `m` with `pillar`; none when `m` was not
/// called through the registry (nothing to call then).
pub(super) fn for_run(m: &Minion, pillar: &Arc<Map>) -> MinionCalls {
    let Some(registry) = m.registry else {
        return MinionCalls::default();
    };
    let mut copy = m.clone();
    copy.pillar = Arc::clone(pillar);
    MinionCalls::new(Arc::new(RunningMinion {
        minion: Mutex::new(copy),
        registry,
    }))
}
