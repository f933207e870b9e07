//! Salt's `cmd` state module.
use super::super::{StateCall, StateModule, StateReturn};
pub struct CmdStates;
impl StateModule for CmdStates {
    fn has_function(&self, _fun: &str) -> bool {
        false
    }
    fn call(&self, call: &StateCall) -> StateReturn {
        StateReturn::new(call.name())
    }
}
