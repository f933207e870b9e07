//! The state modules, by name.

pub mod cmd;
pub mod file;
pub mod test;

use super::StateModule;

/// The state module called `name`, if brine has it.
pub fn lookup(name: &str) -> Option<&'static dyn StateModule> {
    match name {
        "cmd" => Some(&cmd::CmdStates),
        "file" => Some(&file::FileStates),
        "test" => Some(&test::TestState),
        _ => None,
    }
}
