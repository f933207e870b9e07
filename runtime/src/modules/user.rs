//! Salt's `user` module (useradd): what templates ask about accounts.

use super::params::Params;
use super::{CallError, Ctx, Function};
use crate::accounts::EtcRoot;
use brine_compile::minion_data::functions::Returned;
use brine_core::Value;

pub(super) const FUNCTIONS: &[Function] = &[Function::reads(
    "info",
    "The account NAME as Salt describes it (uid, gid, groups, home, shell, \
passwd, name and the GECOS fields fullname, roomnumber, workphone, homephone, \
other); {} when there is no such user.\n\n    brine-call user.info root",
    info,
)];

fn info<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let name = p.require("name")?.to_python_str();
    p.finish()?;
    let info = EtcRoot::default().user_info(&name).unwrap_or_default();
    Ok(Returned::New(Value::Map(info)))
}
