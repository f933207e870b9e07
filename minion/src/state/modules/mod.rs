//! The state modules, by name.

pub mod test;

use super::StateModule;

/// The state module called `name`, if brine has it.
pub fn lookup(name: &str) -> Option<&'static dyn StateModule> {
    match name {
        "test" => Some(&test::TestState),
        _ => None,
    }
}
