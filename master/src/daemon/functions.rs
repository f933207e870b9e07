//! What `salt[...]` calls in templates the master renders for its minions
//! (pillar, states, Hiera): the runtime's registry, with `mine.get`
//! answered from the master's own mine store (a minion would ask the
//! master; here the master is the one asked). The minion it renders for is
//! the requester the mine's ACLs see.

use super::mine::Mine;
use brine_compile::minion_data::{ExecFunctions, FunctionError, Functions, Returned};
use brine_compile::MinionData;
use brine_core::args::CallArgs;
use brine_core::Value;
use std::sync::Arc;

struct MasterTemplates {
    registry: Functions,
    mine: Arc<Mine>,
}

/// The functions for templates the master renders.
pub fn for_templates(mine: Arc<Mine>) -> Functions {
    Functions::new(Arc::new(MasterTemplates {
        registry: brine_runtime::modules::functions(),
        mine,
    }))
}

impl ExecFunctions for MasterTemplates {
    fn call<'m>(
        &self,
        minion: &'m MinionData,
        fun: &str,
        args: CallArgs,
    ) -> Result<Returned<'m>, FunctionError> {
        if fun != "mine.get" {
            return self.registry.call(minion, fun, args);
        }
        let f = brine_runtime::modules::find(fun)
            .ok_or_else(|| FunctionError::NotAvailable(fun.to_string()))?;
        let mut p = f.params(args);
        let tgt = p.require("tgt")?;
        let which = p.require("fun")?;
        let tgt_type = p
            .take("tgt_type")
            .map(|v| v.to_python_str())
            .unwrap_or_else(|| "glob".into());
        let exclude = p.take("exclude_minion").is_some_and(|v| v.is_truthy());
        p.finish()?;
        let mut got = self
            .mine
            .get(&minion.id, &tgt, &which, &tgt_type)
            .map_err(|e| FunctionError::Failed(format!("mine.get: {e}")))?;
        if exclude {
            if let Value::Map(m) = &mut got {
                m.shift_remove(&minion.id);
            }
        }
        Ok(Returned::New(got))
    }

    fn names(&self) -> Vec<String> {
        self.registry.names()
    }

    fn replayable(&self, fun: &str) -> bool {
        // Another minion's data: a compile that read it is not replayed.
        fun != "mine.get" && self.registry.replayable(fun)
    }
}
