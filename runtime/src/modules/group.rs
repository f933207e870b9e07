//! Salt's `group` module (groupadd): groups read from the group file and
//! changed with `groupadd`, `groupmod`, `groupdel` and `gpasswd`, as the
//! `group` state changes them.

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{into_string, Params};
use brine_core::Value;
use brine_host::accounts::{group_map, EtcRoot};
use brine_states::modules::group::groupadd;
use brine_states::modules::user::tool;

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "add",
        sig!(
            name,
            gid = null,
            system = false,
            root = null,
            non_unique = false,
            local = false
        ),
        "Create the group NAME with groupadd; GID, SYSTEM, NON_UNIQUE. True on \
success.\n\n    brine-call group.add deploy gid=2000",
        add,
    ),
    Function::acts(
        "adduser",
        sig!(name, username, root = null),
        "Add USERNAME to the members of group NAME (gpasswd --add). True on \
success.\n\n    brine-call group.adduser www-data deploy",
        adduser,
    ),
    Function::acts(
        "chgid",
        sig!(name, gid, root = null, non_unique = false),
        "Set the gid of group NAME to GID (NON_UNIQUE allows a shared gid); True \
when it reads back so, False when there is no such group.\n\n    \
brine-call group.chgid deploy 2001",
        chgid,
    ),
    Function::acts(
        "delete",
        sig!(name, root = null, local = false),
        "Delete the group NAME with groupdel. True on success.\n\n    \
brine-call group.delete deploy",
        delete,
    ),
    Function::acts(
        "deluser",
        sig!(name, username, root = null),
        "Remove USERNAME from the members of group NAME (gpasswd --del); True \
also when it was not a member.\n\n    brine-call group.deluser www-data deploy",
        deluser,
    ),
    Function::acts(
        "getent",
        sig!(refresh = false, root = null),
        "Every group as group.info describes it.\n\n    brine-call group.getent",
        getent,
    ),
    Function::acts(
        "info",
        sig!(name, root = null),
        "The group NAME: {name, passwd, gid, members}; {} when there is no such \
group.\n\n    brine-call group.info adm",
        info,
    ),
    Function::acts(
        "members",
        sig!(name, members_list, root = null),
        "Make MEMBERS_LIST (comma separated user names) the members of group \
NAME (gpasswd --members). True on success.\n\n    \
brine-call group.members deploy alice,bob",
        members,
    ),
];

fn etc() -> EtcRoot {
    EtcRoot::default()
}

/// See `user`: a chroot is refused rather than ignored.
fn no_root(p: &mut Params) -> Result<(), CallError> {
    match p.take("root") {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(CallError::Failed(
            "group: root= (a chroot) is not supported by brine".into(),
        )),
    }
}

fn no_local(p: &mut Params, fun: &str) -> Result<(), CallError> {
    if p.take("local").is_some_and(|v| v.is_truthy()) {
        return Err(CallError::Failed(format!(
            "group.{fun}: local=True is not supported by brine"
        )));
    }
    Ok(())
}

/// A tool's exit code as the call's answer (`not retcode`) and retcode,
/// as Salt's `cmd.run_all` leaves it.
fn by_retcode(retcode: i32) -> Return {
    Return {
        value: Value::Bool(retcode == 0),
        retcode,
    }
}

fn tool_rc(name: &str, args: &[String]) -> Result<i32, CallError> {
    tool(name, args)
        .map(|r| r.retcode)
        .map_err(CallError::Failed)
}

fn add(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let gid = p.take("gid").filter(Value::is_truthy);
    let system = p.take("system").is_some_and(|v| v.is_truthy());
    no_root(&mut p)?;
    let non_unique = p.take("non_unique").is_some_and(|v| v.is_truthy());
    no_local(&mut p, "add")?;
    p.finish()?;
    let rc = groupadd(&name, gid.as_ref(), system, non_unique).map_err(CallError::Failed)?;
    Ok(by_retcode(rc))
}

fn delete(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    no_root(&mut p)?;
    no_local(&mut p, "delete")?;
    p.finish()?;
    Ok(by_retcode(tool_rc("groupdel", &[name])?))
}

fn info(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = match p.require("name")? {
        Value::Str(s) => s,
        // grp.getgrnam takes a string only.
        other => {
            return Err(CallError::InvalidArguments(format!(
                "getgrnam(): argument must be str, not {}",
                other.type_name()
            )))
        }
    };
    no_root(&mut p)?;
    p.finish()?;
    Ok(Value::Map(etc().group_info(&name).unwrap_or_default()).into())
}

fn getent(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let _refresh = p.take("refresh");
    no_root(&mut p)?;
    p.finish()?;
    let all = etc()
        .groups()
        .into_iter()
        .map(|g| Value::Map(group_map(g)))
        .collect();
    Ok(Value::List(all).into())
}

fn chgid(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let gid = p.require("gid")?;
    no_root(&mut p)?;
    let non_unique = p.take("non_unique").is_some_and(|v| v.is_truthy());
    p.finish()?;
    let Some(pre) = etc().group_info(&name) else {
        return Ok(Value::Bool(false).into());
    };
    if pre.get("gid") == Some(&gid) {
        return Ok(Value::Bool(true).into());
    }
    let flag = if non_unique { "-og" } else { "-g" };
    let rc = tool_rc(
        "groupmod",
        &[flag.into(), gid.to_python_str(), name.clone()],
    )?;
    let now = etc().group_info(&name).and_then(|g| g.get("gid").cloned());
    Ok(Return {
        value: Value::Bool(now.as_ref() == Some(&gid)),
        retcode: rc,
    })
}

fn adduser(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let username = into_string(p.require("username")?);
    no_root(&mut p)?;
    p.finish()?;
    Ok(by_retcode(tool_rc(
        "gpasswd",
        &["--add".into(), username, name],
    )?))
}

fn deluser(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let username = into_string(p.require("username")?);
    no_root(&mut p)?;
    p.finish()?;
    let member = etc()
        .getgrnam(&name)
        .is_some_and(|g| g.members.contains(&username));
    if !member {
        return Ok(Value::Bool(true).into());
    }
    Ok(by_retcode(tool_rc(
        "gpasswd",
        &["--del".into(), username, name],
    )?))
}

fn members(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let list = match p.require("members_list")? {
        Value::List(items) => items
            .iter()
            .map(Value::to_python_str)
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_python_str(),
    };
    no_root(&mut p)?;
    p.finish()?;
    Ok(by_retcode(tool_rc(
        "gpasswd",
        &["--members".into(), list, name],
    )?))
}
