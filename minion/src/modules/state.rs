//! `state.*`: show_top, show_highstate, show_sls, show_lowstate,
//! show_low_sls (compile side), and the runs (apply, sls, highstate,
//! single, low) once the runtime exists.

use super::{CallError, Params, Return};
use crate::context::Minion;

pub(super) fn call(m: &mut Minion, name: &str, p: Params) -> Option<Result<Return, CallError>> {
    let _ = (m, name, p);
    None
}
