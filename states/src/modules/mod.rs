//! The state modules, by name.

pub mod cmd;
pub mod docs;
pub mod file;
pub mod group;
pub mod pkg;
pub mod service;
pub mod test;
pub mod user;

use super::StateModule;

/// The state module called `name`, if brine has it.
pub fn lookup(name: &str) -> Option<&'static dyn StateModule> {
    match name {
        "cmd" => Some(&cmd::CmdStates),
        "file" => Some(&file::FileStates),
        "group" => Some(&group::GROUP),
        "pkg" => Some(&pkg::PKG),
        "service" => Some(&service::SERVICE),
        "test" => Some(&test::TestState),
        "user" => Some(&user::USER),
        _ => None,
    }
}
