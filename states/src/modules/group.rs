//! The `group` state module: `group.present` and `group.absent`, as Salt's
//! `salt/states/group.py` runs them over the `groupadd` execution module
//! (`groupadd`, `groupmod`, `groupdel`, `gpasswd`), reading `/etc/group`
//! for the current state.

use super::user::support::{failed, not_found, run_argv, which, ArgError, Args};
use crate::{StateCall, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::{Map, Value};
use brine_host::accounts::{EtcRoot, GroupEntry};

/// The `group` state module.
pub static MODULE: StateModule = StateModule {
    name: "group",
    doc: "Manage local groups: present with a GID and members, or absent.",
    functions: &[
        StateFunction::new(
            "absent",
            sig!(name, local = false),
            "Remove the group NAME if it exists.",
            |call| absent(call, &EtcRoot::default()),
        ),
        StateFunction::new(
            "present",
            sig!(
                name,
                gid = null,
                system = false,
                addusers = null,
                delusers = null,
                members = null,
                non_unique = false,
                local = false
            ),
            "The group NAME exists, with GID, and MEMBERS (or ADDUSERS and \
DELUSERS) as given.",
            |call| {
                present(call, &EtcRoot::default()).unwrap_or_else(|e| e.into_return(call.name()))
            },
        ),
    ],
};

/// One change `group.present` would make (Salt's `_changes` keys).
#[derive(Debug, Clone, PartialEq)]
pub enum GroupChange {
    Gid(i64),
    /// Replace the member list.
    Members(Vec<String>),
    AddUsers(Vec<String>),
    /// Remove these members; `all` when `members: []` emptied the group
    /// (Salt then prints the names as a Python set).
    DelUsers {
        users: Vec<String>,
        all: bool,
    },
}

/// What `_changes` found.
#[derive(Debug, Clone, PartialEq)]
pub enum Changes {
    /// The group does not exist.
    Absent,
    /// `gid` is not a number: Salt's `{'result': False, 'comment': 'Invalid gid'}`.
    InvalidGid,
    List(Vec<GroupChange>),
}

impl Changes {
    fn is_empty(&self) -> bool {
        matches!(self, Changes::List(l) if l.is_empty())
    }

    /// The `key: value` lines Salt appends to its comment.
    fn comment_lines(&self) -> String {
        let mut out = String::new();
        match self {
            Changes::Absent => {}
            Changes::InvalidGid => out.push_str("result: False\ncomment: Invalid gid\n"),
            Changes::List(l) => {
                for c in l {
                    let line = match c {
                        GroupChange::Gid(g) => format!("gid: {g}\n"),
                        GroupChange::Members(m) => format!("members: {}\n", py_list(m)),
                        GroupChange::AddUsers(m) => format!("addusers: {}\n", py_list(m)),
                        GroupChange::DelUsers { users, all: true } => {
                            format!("delusers: {}\n", py_set(users))
                        }
                        GroupChange::DelUsers { users, all: false } => {
                            format!("delusers: {}\n", py_list(users))
                        }
                    };
                    out.push_str(&line);
                }
            }
        }
        out
    }

    /// The mapping shown under `Failed` when changes could not be applied.
    fn to_value(&self) -> Value {
        let mut m = Map::default();
        match self {
            Changes::Absent => {}
            Changes::InvalidGid => {
                m.insert("result".into(), Value::Bool(false));
                m.insert("comment".into(), Value::Str("Invalid gid".into()));
            }
            Changes::List(l) => {
                for c in l {
                    let strs =
                        |v: &[String]| Value::List(v.iter().cloned().map(Value::Str).collect());
                    let (k, v) = match c {
                        GroupChange::Gid(g) => ("gid", Value::Int(*g)),
                        GroupChange::Members(u) => ("members", strs(u)),
                        GroupChange::AddUsers(u) => ("addusers", strs(u)),
                        GroupChange::DelUsers { users, .. } => ("delusers", strs(users)),
                    };
                    m.insert(k.into(), v);
                }
            }
        }
        Value::Map(m)
    }
}

fn py_list(items: &[String]) -> String {
    Value::List(items.iter().cloned().map(Value::Str).collect()).to_python_repr()
}

fn py_set(items: &[String]) -> String {
    let inner: Vec<String> = items
        .iter()
        .map(|s| brine_core::value::python_str_repr(s))
        .collect();
    format!("{{{}}}", inner.join(", "))
}

/// Python's `int()` of a gid argument; `None` where it would raise.
fn int_gid(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Float(f) if f.is_finite() => Some(f.trunc() as i64),
        Value::Str(s) => s.trim().replace('_', "").parse().ok(),
        _ => None,
    }
}

/// The desired membership of `group.present`.
#[derive(Debug, Clone, Default)]
pub struct Wanted {
    pub gid: Option<Value>,
    pub addusers: Option<Vec<String>>,
    pub delusers: Option<Vec<String>>,
    pub members: Option<Vec<String>>,
}

/// Salt's `_changes`: what must change on the existing group.
pub fn changes(cur: Option<&GroupEntry>, want: &Wanted) -> Changes {
    let Some(cur) = cur else {
        return Changes::Absent;
    };
    let mut out = Vec::new();
    if let Some(gid) = want.gid.as_ref().filter(|g| g.is_truthy()) {
        match int_gid(gid) {
            Some(g) => {
                if cur.gid != g {
                    out.push(GroupChange::Gid(g));
                }
            }
            None => return Changes::InvalidGid,
        }
    }
    let differs = |wanted: &[String]| {
        cur.members.iter().any(|m| !wanted.contains(m))
            || wanted.iter().any(|m| !cur.members.contains(m))
    };
    match &want.members {
        Some(m) if m.is_empty() && differs(m) => {
            let mut users = cur.members.clone();
            users.dedup();
            out.push(GroupChange::DelUsers { users, all: true });
        }
        Some(m) if !m.is_empty() && differs(m) => {
            out.push(GroupChange::Members(m.clone()));
        }
        _ => {}
    }
    if let Some(add) = want.addusers.as_ref().filter(|a| !a.is_empty()) {
        let to_add: Vec<String> = add
            .iter()
            .filter(|u| !cur.members.contains(u))
            .cloned()
            .collect();
        if !to_add.is_empty() {
            out.push(GroupChange::AddUsers(to_add));
        }
    }
    if let Some(del) = want.delusers.as_ref().filter(|d| !d.is_empty()) {
        let to_del: Vec<String> = del
            .iter()
            .filter(|u| cur.members.contains(u))
            .cloned()
            .collect();
        if !to_del.is_empty() {
            // A later key replaces an earlier one in Salt's dict.
            out.retain(|c| !matches!(c, GroupChange::DelUsers { .. }));
            out.push(GroupChange::DelUsers {
                users: to_del,
                all: false,
            });
        }
    }
    Changes::List(out)
}

/// Run a group tool; `Err` with Salt's message when it is not installed.
fn run_tool(tool: &str, args: &[String]) -> Result<i32, String> {
    let path = which(tool).ok_or_else(|| not_found(tool))?;
    let mut argv = vec![path.display().to_string()];
    argv.extend(args.iter().cloned());
    run_argv(&argv, &[], None)
        .map(|r| r.retcode)
        .map_err(|e| e.to_string())
}

/// Salt's `group.add`: `groupadd` with `-g GID` as one argument (as Salt
/// passes it), `-o` for a shared gid, `-r` for a system group; its exit
/// code. `group.present` and the `group.add` execution function share it.
pub fn groupadd(
    name: &str,
    gid: Option<&Value>,
    system: bool,
    non_unique: bool,
) -> Result<i32, String> {
    let mut args = Vec::new();
    if let Some(gid) = gid.filter(|g| g.is_truthy()) {
        args.push(format!("-g {}", gid.to_python_str()));
        if non_unique {
            args.push("-o".into());
        }
    }
    if system {
        args.push("-r".into());
    }
    args.push(name.to_string());
    run_tool("groupadd", &args)
}

fn apply(name: &str, root: &EtcRoot, c: &GroupChange, non_unique: bool) -> Result<(), String> {
    match c {
        GroupChange::Gid(g) => {
            // groupmod only when the gid really differs (Salt's _chattrib).
            if root.getgrnam(name).is_some_and(|cur| cur.gid != *g) {
                let flag = if non_unique { "-og" } else { "-g" };
                run_tool("groupmod", &[flag.into(), g.to_string(), name.into()])?;
            }
        }
        GroupChange::AddUsers(users) => {
            for u in users {
                run_tool("gpasswd", &["--add".into(), u.clone(), name.into()])?;
            }
        }
        GroupChange::DelUsers { users, .. } => {
            for u in users {
                if root
                    .getgrnam(name)
                    .is_some_and(|g| g.members.iter().any(|m| m == u))
                {
                    run_tool("gpasswd", &["--del".into(), u.clone(), name.into()])?;
                }
            }
        }
        GroupChange::Members(m) => {
            set_members(name, m)?;
        }
    }
    Ok(())
}

fn set_members(name: &str, members: &[String]) -> Result<i32, String> {
    run_tool(
        "gpasswd",
        &["--members".into(), members.join(","), name.into()],
    )
}

fn read_wanted(call: &StateCall) -> Result<Wanted, ArgError> {
    Ok(Wanted {
        // Any gid is taken: Salt itself answers "Invalid gid" for non-numbers.
        gid: call.value("gid").cloned(),
        addusers: call.opt_str_list("addusers")?,
        delusers: call.opt_str_list("delusers")?,
        members: call.opt_str_list("members")?,
    })
}

/// `group.present`.
pub fn present(call: &StateCall, root: &EtcRoot) -> Result<StateReturn, ArgError> {
    let name = call.name();
    let want = read_wanted(call)?;
    let system = call.truthy("system", false);
    let non_unique = call.truthy("non_unique", false);
    let mut ret = StateReturn::new(name);
    ret.comment = format!("Group {name} is present and up to date");

    if want.members.is_some() && (want.addusers.is_some() || want.delusers.is_some()) {
        ret.result = None;
        ret.comment = "Error: Conflicting options \"members\" with \"addusers\" and/or \"delusers\" can not be used together. ".into();
        return Ok(ret);
    }
    if let (Some(add), Some(del)) = (&want.addusers, &want.delusers) {
        if add.iter().any(|a| del.contains(a)) {
            ret.result = None;
            ret.comment = "Error. Same user(s) can not be added and deleted simultaneously".into();
            return Ok(ret);
        }
    }

    let found = changes(root.getgrnam(name).as_ref(), &want);
    if found == Changes::Absent {
        return Ok(create(call, root, &want, system, non_unique, ret));
    }
    if found.is_empty() {
        return Ok(ret);
    }
    ret.comment = format!(
        "The following group attributes are set to be changed:\n{}",
        found.comment_lines()
    );
    if call.test {
        ret.result = None;
        return Ok(ret);
    }
    if let Changes::List(list) = &found {
        for c in list {
            if let Err(e) = apply(name, root, c, non_unique) {
                return Ok(failed(name, e));
            }
        }
    }
    let after = changes(root.getgrnam(name).as_ref(), &want);
    if after.is_empty() {
        ret.changes.insert(
            "Final".into(),
            Value::Str("All changes applied successfully".into()),
        );
    } else {
        ret.result = Some(false);
        ret.comment.push_str("Some changes could not be applied");
        ret.changes.insert("Failed".into(), after.to_value());
    }
    Ok(ret)
}

fn create(
    call: &StateCall,
    root: &EtcRoot,
    want: &Wanted,
    system: bool,
    non_unique: bool,
    mut ret: StateReturn,
) -> StateReturn {
    let name = call.name();
    if call.test {
        ret.result = None;
        ret.comment = format!("Group {name} set to be added");
        return ret;
    }
    // Salt compares the gid as given, so only a number can collide.
    if let (Some(Value::Int(gid)), false) = (&want.gid, non_unique) {
        if let Some(other) = root.getgrgid(*gid) {
            ret.result = Some(false);
            ret.comment = format!(
                "Group {name} is not present but gid {gid} is already taken by group {}",
                other.name
            );
            return ret;
        }
    }
    match groupadd(name, want.gid.as_ref(), system, non_unique) {
        Err(e) => return failed(name, e),
        Ok(0) => {}
        Ok(_) => {
            ret.result = Some(false);
            ret.comment = format!("Failed to create new group {name}");
            return ret;
        }
    }
    let mut members = None;
    if let Some(m) = want.members.as_ref().filter(|m| !m.is_empty()) {
        members = Some(m);
    }
    if let Some(a) = want.addusers.as_ref().filter(|a| !a.is_empty()) {
        members = Some(a);
    }
    if let Some(m) = members {
        if let Err(e) = set_members(name, m) {
            return failed(name, e);
        }
    }
    ret.comment = format!("New group {name} created");
    ret.changes = root.group_info(name).unwrap_or_default();
    let after = changes(root.getgrnam(name).as_ref(), want);
    if !after.is_empty() {
        ret.result = Some(false);
        ret.comment =
            format!("Group {name} has been created but, some changes could not be applied");
        ret.changes = Map::default();
        ret.changes.insert("Failed".into(), after.to_value());
    }
    ret
}

/// `group.absent`.
pub fn absent(call: &StateCall, root: &EtcRoot) -> StateReturn {
    let name = call.name();
    let mut ret = StateReturn::new(name);
    if root.getgrnam(name).is_none() {
        ret.comment = "Group not present".into();
        return ret;
    }
    if call.test {
        ret.result = None;
        ret.comment = format!("Group {name} is set for removal");
        return ret;
    }
    match run_tool("groupdel", &[name.to_string()]) {
        Err(e) => failed(name, e),
        Ok(0) => {
            ret.changes.insert(name.into(), Value::Str(String::new()));
            ret.comment = format!("Removed group {name}");
            ret
        }
        Ok(_) => {
            ret.result = Some(false);
            ret.comment = format!("Failed to remove group {name}");
            ret
        }
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// The module's function of `call`, as the engine runs it.
    fn run_state(call: &StateCall) -> StateReturn {
        let f = MODULE
            .function(call.fun())
            .expect("a function of the module");
        (f.run)(call)
    }

    fn scratch_root(tag: &str, passwd: &str, group: &str, shadow: &str) -> EtcRoot {
        EtcRoot::scratch(tag, passwd, group, shadow).unwrap()
    }
    use crate::{fileclient, StateContext};
    use std::sync::Arc;

    struct NoFiles;
    impl fileclient::FileClient for NoFiles {
        fn cache_file(
            &self,
            url: &str,
            saltenv: &str,
        ) -> Result<std::path::PathBuf, fileclient::FileClientError> {
            Err(fileclient::FileClientError::NotFound {
                url: url.into(),
                saltenv: saltenv.into(),
            })
        }
    }

    pub fn ctx() -> StateContext {
        StateContext {
            opts: Arc::new(Map::default()),
            grains: Arc::new(Map::default()),
            pillar: Arc::new(Map::default()),
            saltenv: "base".into(),
            test: false,
            fileclient: Arc::new(NoFiles),
            functions: Default::default(),
            jobs: Default::default(),
            minion: Default::default(),
            accumulators: Default::default(),
        }
    }

    /// A low chunk from a YAML-ish list of `(key, value)` pairs.
    pub fn low(state: &str, fun: &str, name: &str, args: &[(&str, Value)]) -> Map {
        let mut m = Map::default();
        m.insert("state".into(), Value::Str(state.into()));
        m.insert("fun".into(), Value::Str(fun.into()));
        m.insert("name".into(), Value::Str(name.into()));
        m.insert("__id__".into(), Value::Str(name.into()));
        for (k, v) in args {
            m.insert(k.to_string(), v.clone());
        }
        m
    }

    pub fn strs(v: &[&str]) -> Value {
        Value::List(v.iter().map(|s| Value::Str(s.to_string())).collect())
    }

    pub fn is_root() -> bool {
        brine_host::accounts::is_root()
    }

    fn run_test_mode(root: &EtcRoot, fun: &str, name: &str, args: &[(&str, Value)]) -> StateReturn {
        let ctx = ctx();
        let low = low("group", fun, name, args);
        let call = StateCall {
            low: &low,
            test: true,
            ctx: &ctx,
        };
        match fun {
            "present" => present(&call, root).unwrap_or_else(|e| e.into_return(name)),
            _ => absent(&call, root),
        }
    }

    /// Comments and results in test mode, as real Salt 3007.8 printed them
    /// for the same group states.
    #[test]
    fn test_mode_answers_match_salt() {
        let root = scratch_root("grp", "", "g1:x:45123:root,daemon\n", "");
        let r = run_test_mode(&root, "present", "g1", &[("gid", Value::Int(45124))]);
        assert_eq!(r.result, None);
        assert_eq!(
            r.comment,
            "The following group attributes are set to be changed:\ngid: 45124\n"
        );
        let r = run_test_mode(&root, "present", "g1", &[("addusers", strs(&["bin"]))]);
        assert_eq!(
            r.comment,
            "The following group attributes are set to be changed:\naddusers: ['bin']\n"
        );
        let r = run_test_mode(&root, "present", "g1", &[("members", strs(&[]))]);
        assert_eq!(
            r.comment,
            "The following group attributes are set to be changed:\ndelusers: {'root', 'daemon'}\n"
        );
        let r = run_test_mode(
            &root,
            "present",
            "g1",
            &[("members", strs(&["x"])), ("addusers", strs(&["bin"]))],
        );
        assert_eq!(r.result, None);
        assert_eq!(r.comment, "Error: Conflicting options \"members\" with \"addusers\" and/or \"delusers\" can not be used together. ");
        let r = run_test_mode(
            &root,
            "present",
            "g1",
            &[("addusers", strs(&["bin"])), ("delusers", strs(&["bin"]))],
        );
        assert_eq!(
            r.comment,
            "Error. Same user(s) can not be added and deleted simultaneously"
        );
        let r = run_test_mode(&root, "present", "g1", &[("gid", Value::Str("abc".into()))]);
        assert_eq!(
            r.comment,
            "The following group attributes are set to be changed:\nresult: False\ncomment: Invalid gid\n"
        );
        let r = run_test_mode(
            &root,
            "present",
            "g1",
            &[("members", strs(&["daemon", "root"]))],
        );
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(true), "Group g1 is present and up to date")
        );
        let r = run_test_mode(&root, "present", "g2", &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (None, "Group g2 set to be added")
        );
        let r = run_test_mode(&root, "absent", "g1", &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (None, "Group g1 is set for removal")
        );
        let r = run_test_mode(&root, "absent", "g2", &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(true), "Group not present")
        );
        let r = run_test_mode(
            &root,
            "present",
            "g1",
            &[("members", Value::Str("a".into()))],
        );
        assert_eq!(r.result, Some(false));
        assert!(r.comment.contains("'members'"), "{}", r.comment);
        let _ = std::fs::remove_dir_all(&root.0);
    }

    /// Values of every type for every argument: a failed state or an
    /// answer, never a panic.
    #[test]
    fn odd_arguments_never_panic() {
        let root = scratch_root(
            "odd",
            "u:x:5:5::/:/bin/sh\n",
            "g1:x:45:u\n",
            "u:!:1::::::\n",
        );
        let odd = odd_values();
        for key in [
            "gid",
            "members",
            "addusers",
            "delusers",
            "system",
            "non_unique",
            "name",
        ] {
            for v in &odd {
                for name in ["g1", "g2", ""] {
                    let _ = run_test_mode(&root, "present", name, &[(key, v.clone())]);
                    let _ = run_test_mode(&root, "absent", name, &[(key, v.clone())]);
                }
            }
        }
        let _ = std::fs::remove_dir_all(&root.0);
    }

    pub fn odd_values() -> Vec<Value> {
        let mut m = Map::default();
        m.insert("k".into(), Value::List(vec![Value::Null]));
        vec![
            Value::Null,
            Value::Bool(true),
            Value::Bool(false),
            Value::Int(-1),
            Value::Int(i64::MAX),
            Value::Float(f64::NAN),
            Value::Float(1e300),
            Value::Str(String::new()),
            Value::Str("a,b:c\n'\"$(x)".into()),
            Value::List(vec![]),
            Value::List(vec![Value::Null, Value::Map(m.clone()), Value::Int(3)]),
            Value::Map(Map::default()),
            Value::Map(m),
        ]
    }

    fn run_real(fun: &str, name: &str, args: &[(&str, Value)]) -> StateReturn {
        let ctx = ctx();
        let low = low("group", fun, name, args);
        run_state(&StateCall {
            low: &low,
            test: false,
            ctx: &ctx,
        })
    }

    /// Removes the test groups even when an assertion fails.
    struct Cleanup(Vec<String>);
    impl Drop for Cleanup {
        fn drop(&mut self) {
            for g in &self.0 {
                let _ = run_argv(&["groupdel", g.as_str()], &[], None);
            }
        }
    }

    /// Real groups made and removed with groupadd/gpasswd/groupdel; the
    /// answers are the ones real Salt gave for the same sequence.
    #[test]
    fn real_group_lifecycle() {
        if !is_root() || which("groupadd").is_none() {
            println!("skipped: needs root and groupadd");
            return;
        }
        let _accounts = crate::modules::user::ACCOUNTS_LOCK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let g1 = format!("brinet-{}", std::process::id());
        let g2 = format!("brinet-{}-b", std::process::id());
        let _cleanup = Cleanup(vec![g1.clone(), g2.clone()]);
        let root = EtcRoot::default();
        // A free gid high enough to stay clear of real groups.
        let base = 45000 + i64::from(std::process::id() % 5000) * 2;
        let gid = (base..base + 2000)
            .step_by(2)
            .find(|g| root.getgrgid(*g).is_none() && root.getgrgid(g + 1).is_none())
            .unwrap();

        let r = run_real("present", &g1, &[("gid", Value::Int(gid))]);
        assert_eq!(r.comment, format!("New group {g1} created"));
        let mut want = Map::default();
        want.insert("name".into(), Value::Str(g1.clone()));
        want.insert("passwd".into(), Value::Str("x".into()));
        want.insert("gid".into(), Value::Int(gid));
        want.insert("members".into(), Value::List(vec![]));
        assert_eq!(r.changes, want);

        let r = run_real("present", &g1, &[("gid", Value::Int(gid))]);
        assert_eq!(r.comment, format!("Group {g1} is present and up to date"));
        assert!(r.changes.is_empty());

        let r = run_real("present", &g1, &[("gid", Value::Int(gid + 1))]);
        assert_eq!(r.result, Some(true));
        assert_eq!(
            r.comment,
            format!(
                "The following group attributes are set to be changed:\ngid: {}\n",
                gid + 1
            )
        );
        assert_eq!(
            r.changes.get("Final"),
            Some(&Value::Str("All changes applied successfully".into()))
        );

        let r = run_real("present", &g1, &[("members", strs(&["root", "daemon"]))]);
        assert_eq!(r.result, Some(true), "{}", r.comment);
        assert_eq!(root.getgrnam(&g1).unwrap().members, ["root", "daemon"]);

        let r = run_real(
            "present",
            &g1,
            &[("addusers", strs(&["bin"])), ("delusers", strs(&["root"]))],
        );
        assert_eq!(
            r.comment,
            "The following group attributes are set to be changed:\naddusers: ['bin']\ndelusers: ['root']\n"
        );
        assert_eq!(root.getgrnam(&g1).unwrap().members, ["daemon", "bin"]);

        let r = run_real("present", &g2, &[("gid", Value::Int(gid + 1))]);
        assert_eq!(r.result, Some(false));
        assert_eq!(
            r.comment,
            format!(
                "Group {g2} is not present but gid {} is already taken by group {g1}",
                gid + 1
            )
        );

        let r = run_real("present", &g2, &[("members", strs(&["brinet-nosuchuser"]))]);
        assert_eq!(r.result, Some(false));
        assert_eq!(
            r.comment,
            format!("Group {g2} has been created but, some changes could not be applied")
        );
        let mut failed_members = Map::default();
        failed_members.insert("members".into(), strs(&["brinet-nosuchuser"]));
        assert_eq!(r.changes.get("Failed"), Some(&Value::Map(failed_members)));

        for g in [&g1, &g2] {
            let r = run_real("absent", g, &[]);
            assert_eq!(r.comment, format!("Removed group {g}"));
            assert_eq!(r.changes.get(g.as_str()), Some(&Value::Str(String::new())));
        }
        let r = run_real("absent", &g1, &[]);
        assert_eq!(
            (r.result, r.comment.as_str()),
            (Some(true), "Group not present")
        );
    }
}
