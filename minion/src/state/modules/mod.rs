//! The state modules, by name.

pub mod cmd;
pub mod file;

use super::StateModule;

/// The state module called `name`, if brine has it.
pub fn lookup(name: &str) -> Option<&'static dyn StateModule> {
    match name {
        "file" => Some(&file::FileStates),
        "cmd" => Some(&cmd::CmdStates),
        _ => None,
    }
}
