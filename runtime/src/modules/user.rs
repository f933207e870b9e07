//! Salt's `user` module (useradd): accounts read from the passwd and group
//! files and changed with the shadow tools (`useradd`, `usermod`,
//! `userdel`), through the same helpers the `user` state uses.

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{into_string, Params};
use brine_compile::minion_data::Returned;
use brine_core::Value;
use brine_host::accounts::EtcRoot;
use brine_states::modules::user::{chattrib, chgroups, update_gecos, useradd, userdel, NewUser};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "add",
        sig!(
            name,
            uid = null,
            gid = null,
            groups = null,
            home = null,
            shell = null,
            unique = true,
            system = false,
            fullname = "",
            roomnumber = "",
            workphone = "",
            homephone = "",
            other = "",
            createhome = true,
            loginclass = null,
            nologinit = false,
            root = null,
            usergroup = null,
            local = false
        ),
        "Create the account NAME with useradd. Keywords: uid, gid, groups, home, \
shell, unique (False allows a shared uid), system, fullname, roomnumber, \
workphone, homephone, other, createhome (default True), nologinit, usergroup. \
True when useradd succeeded.\n\n    brine-call user.add deploy shell=/bin/bash",
        add,
    ),
    Function::acts(
        "chfullname",
        sig!(name, fullname, root = null),
        "Set the full name (GECOS) of NAME; True when it reads back so.\n\n    \
brine-call user.chfullname deploy 'Deploy Bot'",
        |c, p| gecos(c, p, "fullname"),
    ),
    Function::acts(
        "chgid",
        sig!(name, gid, root = null),
        "Set the primary group id of NAME to GID; True when it reads back so.\n\n    \
brine-call user.chgid deploy 1001",
        |c, p| attr(c, p, "gid", "-g", "gid"),
    ),
    Function::acts(
        "chgroups",
        sig!(name, groups, append = false, root = null),
        "Set the supplementary groups of NAME to GROUPS (a list or comma \
separated); APPEND=True adds them instead. True on success.\n\n    \
brine-call user.chgroups deploy www-data,adm",
        chgroups_fn,
    ),
    Function::acts(
        "chhome",
        sig!(name, home, persist = false, root = null),
        "Set the home directory of NAME to HOME; PERSIST=True moves the old \
home's contents there. True when it reads back so.\n\n    \
brine-call user.chhome deploy /srv/deploy",
        chhome,
    ),
    Function::acts(
        "chhomephone",
        sig!(name, homephone, root = null),
        "Set the home phone (GECOS) of NAME; True when it reads back so.\n\n    \
brine-call user.chhomephone deploy 555-0100",
        |c, p| gecos(c, p, "homephone"),
    ),
    Function::acts(
        "chother",
        sig!(name, other, root = null),
        "Set the 'other' GECOS field of NAME; True when it reads back so.\n\n    \
brine-call user.chother deploy 'on call'",
        |c, p| gecos(c, p, "other"),
    ),
    Function::acts(
        "chroomnumber",
        sig!(name, roomnumber, root = null),
        "Set the room number (GECOS) of NAME; True when it reads back so.\n\n    \
brine-call user.chroomnumber deploy 42",
        |c, p| gecos(c, p, "roomnumber"),
    ),
    Function::acts(
        "chshell",
        sig!(name, shell, root = null),
        "Set the login shell of NAME to SHELL; True when it reads back so.\n\n    \
brine-call user.chshell deploy /bin/zsh",
        |c, p| attr(c, p, "shell", "-s", "shell"),
    ),
    Function::acts(
        "chuid",
        sig!(name, uid, root = null),
        "Set the uid of NAME to UID; True when it reads back so.\n\n    \
brine-call user.chuid deploy 2001",
        |c, p| attr(c, p, "uid", "-u", "uid"),
    ),
    Function::acts(
        "chworkphone",
        sig!(name, workphone, root = null),
        "Set the work phone (GECOS) of NAME; True when it reads back so.\n\n    \
brine-call user.chworkphone deploy 555-0199",
        |c, p| gecos(c, p, "workphone"),
    ),
    Function::acts(
        "delete",
        sig!(
            name,
            remove = false,
            force = false,
            root = null,
            local = false
        ),
        "Delete the account NAME with userdel; REMOVE=True removes its home and \
mail spool, FORCE=True forces it. True on success.\n\n    \
brine-call user.delete deploy remove=True",
        delete,
    ),
    Function::acts(
        "getent",
        sig!(refresh = false, root = null),
        "Every account as user.info describes it.\n\n    brine-call user.getent",
        getent,
    ),
    Function::reads(
        "info",
        sig!(name, root = null),
        "The account NAME as Salt describes it (uid, gid, groups, home, shell, \
passwd, name and the GECOS fields fullname, roomnumber, workphone, homephone, \
other); {} when there is no such user.\n\n    brine-call user.info root",
        info,
    ),
    Function::acts(
        "list_groups",
        sig!(name),
        "The names of the groups NAME belongs to, its primary group included, \
sorted.\n\n    brine-call user.list_groups root",
        list_groups,
    ),
    Function::acts(
        "list_users",
        sig!(root = null),
        "Every account name, sorted.\n\n    brine-call user.list_users",
        list_users,
    ),
    Function::acts(
        "primary_group",
        sig!(name),
        "The name of NAME's primary group (`id -g -n`).\n\n    \
brine-call user.primary_group root",
        primary_group,
    ),
    Function::acts(
        "rename",
        sig!(name, new_name, root = null),
        "Rename the account NAME to NEW_NAME; True when it reads back so.\n\n    \
brine-call user.rename deploy deployer",
        rename,
    ),
];

fn etc() -> EtcRoot {
    EtcRoot::default()
}

/// brine changes the running system's accounts only: `root=` (a chroot
/// for the shadow tools) is refused rather than ignored.
fn no_root(p: &mut Params) -> Result<(), CallError> {
    match p.take("root") {
        None | Some(Value::Null) => Ok(()),
        Some(_) => Err(CallError::Failed(
            "user: root= (a chroot) is not supported by brine".into(),
        )),
    }
}

fn info<'c>(_: &Ctx<'c>, mut p: Params) -> Result<Returned<'c>, CallError> {
    let name = p.require("name")?.to_python_str();
    no_root(&mut p)?;
    p.finish()?;
    let info = etc().user_info(&name).unwrap_or_default();
    Ok(Returned::New(Value::Map(info)))
}

fn failed(e: String) -> CallError {
    CallError::Failed(e)
}

fn add(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let uid = p.take("uid");
    let gid = p.take("gid");
    let groups = p.take("groups");
    let home = p.take("home");
    let shell = p.take("shell");
    let unique = p.take("unique").is_none_or(|v| v.is_truthy());
    let system = p.take("system").is_some_and(|v| v.is_truthy());
    let gecos: Vec<(&str, Option<Value>)> =
        ["fullname", "roomnumber", "workphone", "homephone", "other"]
            .into_iter()
            .map(|k| (k, p.take(k)))
            .collect();
    let createhome = p.take("createhome").is_none_or(|v| v.is_truthy());
    let _loginclass = p.take("loginclass");
    let nologinit = p.take("nologinit").is_some_and(|v| v.is_truthy());
    no_root(&mut p)?;
    let usergroup = p.take("usergroup");
    let local = p.take("local").is_some_and(|v| v.is_truthy());
    p.finish()?;
    if local {
        return Err(CallError::Failed(
            "user.add: local=True (luseradd) is not supported by brine".into(),
        ));
    }
    let shell = shell.filter(Value::is_truthy).map(into_string);
    let home = home.filter(|h| !h.is_null()).map(into_string);
    let groups = groups.filter(|g| !g.is_null()).map(|g| list_arg(&g));
    let gecos: Vec<Option<String>> = gecos
        .into_iter()
        .map(|(_, v)| v.filter(Value::is_truthy).map(into_string))
        .collect();
    let usergroup = match usergroup {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.is_truthy()),
    };
    let root = etc();
    let new = NewUser {
        name: &name,
        uid: uid.as_ref(),
        gid: gid.as_ref(),
        usergroup,
        groups: groups.as_deref(),
        home: home.as_deref(),
        shell: shell.as_deref(),
        createhome,
        nologinit,
        unique,
        system,
        gecos: std::array::from_fn(|i| gecos[i].as_deref()),
    };
    let added = useradd(&root, &new).map_err(failed)?;
    // Once the account exists the answer is True: a group or GECOS field
    // that did not take is for the next run to report (as in Salt).
    Ok(Return {
        value: Value::Bool(added.retcode == 0),
        retcode: added.retcode,
    })
}

/// A list argument: a list, or a comma-separated string.
fn list_arg(v: &Value) -> Vec<String> {
    match v {
        Value::List(items) => items.iter().map(Value::to_python_str).collect(),
        other => other
            .to_python_str()
            .split(',')
            .map(str::to_string)
            .collect(),
    }
}

fn delete(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let remove = p.take("remove").is_some_and(|v| v.is_truthy());
    let force = p.take("force").is_some_and(|v| v.is_truthy());
    no_root(&mut p)?;
    let local = p.take("local").is_some_and(|v| v.is_truthy());
    p.finish()?;
    if local {
        return Err(CallError::Failed(
            "user.delete: local=True (luserdel) is not supported by brine".into(),
        ));
    }
    let debian = cx.grains.get("os_family").and_then(Value::as_str) == Some("Debian");
    let (ok, retcode) = userdel(&name, remove, force, debian).map_err(failed)?;
    Ok(Return {
        value: Value::Bool(ok),
        retcode,
    })
}

/// `user.chuid` and friends: usermod unless already so, then read back.
fn attr(
    _: &Ctx<'_>,
    mut p: Params,
    key: &str,
    param: &str,
    arg: &str,
) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let value = p.require(arg)?;
    no_root(&mut p)?;
    p.finish()?;
    set_attr(&name, key, &value, param, false)
}

fn set_attr(
    name: &str,
    key: &str,
    value: &Value,
    param: &str,
    persist: bool,
) -> Result<Return, CallError> {
    let root = etc();
    chattrib(&root, name, key, value, param, persist).map_err(failed)?;
    let now = root.user_info(name).and_then(|i| i.get(key).cloned());
    Ok(Value::Bool(now.as_ref() == Some(value)).into())
}

fn chhome(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let home = p.require("home")?;
    let persist = p.take("persist").is_some_and(|v| v.is_truthy());
    no_root(&mut p)?;
    p.finish()?;
    set_attr(&name, "home", &home, "-d", persist)
}

fn rename(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let new_name = p.require("new_name")?;
    no_root(&mut p)?;
    p.finish()?;
    let new = new_name.to_python_str();
    if etc().user_info(&new).is_some() {
        return Err(CallError::Failed(format!("User '{new}' already exists")));
    }
    let root = etc();
    chattrib(&root, &name, "name", &new_name, "-l", false).map_err(failed)?;
    let now = root.user_info(&new).and_then(|i| i.get("name").cloned());
    Ok(Value::Bool(now.as_ref() == Some(&new_name)).into())
}

fn gecos(_: &Ctx<'_>, mut p: Params, key: &str) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let value = match p.require(key)? {
        Value::Null => String::new(),
        v => into_string(v),
    };
    no_root(&mut p)?;
    p.finish()?;
    let root = etc();
    if root.user_info(&name).is_none() {
        // Salt looks the account up without a guard: a KeyError.
        return Err(CallError::Failed(format!(
            "KeyError: \"getpwnam(): name not found: '{name}'\""
        )));
    }
    update_gecos(&root, &name, key, &value).map_err(failed)?;
    let now = root.user_info(&name).and_then(|i| i.get(key).cloned());
    Ok(Value::Bool(now == Some(Value::Str(value))).into())
}

fn chgroups_fn(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    let groups = list_arg(&p.require("groups")?);
    let append = p.take("append").is_some_and(|v| v.is_truthy());
    no_root(&mut p)?;
    p.finish()?;
    let ok = chgroups(&etc(), &name, &groups, append).map_err(failed)?;
    Ok(Value::Bool(ok).into())
}

fn getent(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let _refresh = p.take("refresh");
    no_root(&mut p)?;
    p.finish()?;
    let root = etc();
    let all = root
        .passwd()
        .into_iter()
        .filter_map(|pw| root.user_info(&pw.name))
        .map(Value::Map)
        .collect();
    Ok(Value::List(all).into())
}

fn list_users(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    no_root(&mut p)?;
    p.finish()?;
    let mut names: Vec<String> = etc().passwd().into_iter().map(|pw| pw.name).collect();
    names.sort();
    Ok(Value::List(names.into_iter().map(Value::Str).collect()).into())
}

fn list_groups(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = match p.require("name")? {
        v @ (Value::List(_) | Value::Map(_)) => {
            return Err(CallError::InvalidArguments(format!(
                "getpwnam(): argument must be str, not {}",
                v.type_name()
            )))
        }
        v => into_string(v),
    };
    p.finish()?;
    let groups = etc().group_list(&name);
    Ok(Value::List(groups.into_iter().map(Value::Str).collect()).into())
}

fn primary_group(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = into_string(p.require("name")?);
    p.finish()?;
    let r = super::run::run_merged(&["id", "-g", "-n", &name])?;
    Ok(Return {
        value: Value::Str(r.stdout),
        retcode: r.retcode,
    })
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{is_root, minion, run, sh};
    use serde_json::json;

    const USER: &str = "brinex14t";
    const GROUP: &str = "brinex14tg";

    struct Cleanup;
    impl Drop for Cleanup {
        fn drop(&mut self) {
            sh(&["userdel", "-r", USER]);
            sh(&["groupdel", GROUP]);
        }
    }

    /// A throwaway account and group made, changed and deleted through
    /// the execution functions.
    #[test]
    fn throwaway_account_through_the_execution_functions() {
        if !is_root() || brine_host::path::which("useradd").is_none() {
            println!("skipped: needs root and useradd");
            return;
        }
        let _guard = Cleanup;
        sh(&["userdel", "-r", USER]);
        sh(&["groupdel", GROUP]);
        let mut m = minion();
        let mut call = |fun: &str, args: &[&str]| run(&mut m, fun, args).unwrap();

        assert_eq!(call("group.add", &[GROUP]), json!(true));
        assert_eq!(
            call(
                "user.add",
                &[
                    USER,
                    "shell=/bin/sh",
                    "createhome=False",
                    "home=/nonexistent/brinex14t"
                ]
            ),
            json!(true)
        );
        assert!(call("user.list_users", &[])
            .as_array()
            .unwrap()
            .contains(&json!(USER)));
        assert_eq!(call("user.chshell", &[USER, "/bin/bash"]), json!(true));
        assert_eq!(call("user.chfullname", &[USER, "Brine Test"]), json!(true));
        assert_eq!(
            call("user.chgroups", &[USER, GROUP, "append=True"]),
            json!(true)
        );
        assert!(call("user.list_groups", &[USER])
            .as_array()
            .unwrap()
            .contains(&json!(GROUP)));
        let info = call("user.info", &[USER]);
        assert_eq!(info["shell"], json!("/bin/bash"));
        assert_eq!(info["fullname"], json!("Brine Test"));
        assert_eq!(call("group.info", &[GROUP])["members"], json!([USER]));
        assert_eq!(call("group.deluser", &[GROUP, USER]), json!(true));
        assert_eq!(call("group.info", &[GROUP])["members"], json!([]));
        assert_eq!(call("group.members", &[GROUP, USER]), json!(true));
        assert_eq!(call("group.info", &[GROUP])["members"], json!([USER]));
        assert!(call("group.getent", &[])
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["name"] == json!(GROUP)));
        assert_eq!(call("user.delete", &[USER]), json!(true));
        assert_eq!(call("user.info", &[USER]), json!({}));
        assert_eq!(call("group.delete", &[GROUP]), json!(true));
        assert_eq!(call("group.info", &[GROUP]), json!({}));
    }
}
