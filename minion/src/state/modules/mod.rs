//! The state modules, by name.

pub mod cmd;
pub mod file;
pub mod group;
pub mod pkg;
pub mod service;
pub mod user;

use super::StateModule;

/// The state module called `name`, if brine has it.
pub fn lookup(name: &str) -> Option<&'static dyn StateModule> {
    match name {
        "file" => Some(&file::FileStates),
        "cmd" => Some(&cmd::CmdStates),
        "group" => Some(&group::GROUP),
        "pkg" => Some(&pkg::PKG),
        "service" => Some(&service::SERVICE),
        "user" => Some(&user::USER),
        _ => None,
    }
}
