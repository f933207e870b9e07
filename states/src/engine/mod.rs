//! Runs low chunks and builds the running dictionary, as Salt's
//! `State.call_chunks`, `call_chunk`, `check_requisite`, `call` and
//! `call_listen` do.
//!
//! - [`requisites`]: the requisite index (requisites are looked up by id,
//!   name or SLS by binary search over sorted digests, never by scanning every chunk) and the
//!   evaluation of a chunk's requisites against the running dictionary.
//! - [`call`]: one state function call (argument checks, `unless` /
//!   `onlyif` / `creates` / `check_cmd`, `retry`, timing, `__run_num__`).
//! - [`listen`]: `listen` / `listen_in`, run after all chunks.
//!
//! The running dictionary maps the tag `state_|-id_|-name_|-fun` to the
//! state's return plus `__run_num__`, `__sls__`, `__id__`, `start_time`
//! and `duration`, with exactly the keys Salt writes for each outcome.

mod call;
mod checks;
mod chunk;
mod clock;
mod index;
mod listen;
mod requisites;
mod runtime;

pub use call::verify_data;
pub use chunk::{gen_tag, RuntimeError};
use runtime::Runtime;

use super::StateContext;
use brine_core::{Map, Value};

/// Run compiled low chunks (in order) and then the `listen` watchers:
/// Salt's `call_chunks` followed by `call_listen`. Returns the running
/// dictionary.
pub fn call_high(ctx: &StateContext, chunks: Vec<Map>) -> Result<Map, RuntimeError> {
    let any_listen = chunks.iter().any(listen::involved);
    let mut rt = Runtime::new(ctx, chunks, 0);
    rt.compact = !any_listen;
    rt.call_chunks()?;
    let run_num = rt.run_num;
    let (mut running, lows) = rt.into_parts();
    if any_listen {
        listen::call_listen(ctx, &lows, &mut running, run_num)?;
    }
    Ok(running)
}

/// Run the chunks whose `__id__` is `id`, each with what its requisites
/// call for from the other `chunks` (Salt's `state.sls_id`, which calls
/// `call_chunk` for the matching chunks only). Returns the running
/// dictionary; empty when no chunk has that id.
pub fn call_id(ctx: &StateContext, chunks: Vec<Map>, id: &str) -> Result<Map, RuntimeError> {
    let mut rt = Runtime::new(ctx, chunks, 0);
    for i in 0..rt.chunks.len() {
        if rt.chunks[i].low.get("__id__").and_then(Value::as_str) != Some(id) {
            continue;
        }
        if rt.running.contains(rt.chunks[i].tag) {
            continue;
        }
        match rt.call_chunk(i, 0) {
            Ok(()) | Err(RuntimeError::FailhardStop) => {}
            Err(e) => return Err(e),
        }
        rt.active.clear();
    }
    Ok(rt.into_parts().0)
}

/// One state call outside a run (`state.low`, `state.single`): Salt's
/// `State.call` on a fresh `State`, so `__run_num__` is 0. Callers run
/// [`verify_data`] first, as Salt's `state.low` / `state.single` do.
pub fn call_low(ctx: &StateContext, mut low: Map) -> Result<Map, RuntimeError> {
    let mut run_num = 0;
    Ok(call::call(ctx, &mut run_num, &mut low, false, 1)?.ret)
}

#[cfg(test)]
mod tests;
