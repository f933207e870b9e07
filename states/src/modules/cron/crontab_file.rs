//! `cron.file`: a user's whole crontab from a file, as Salt does it — the
//! current crontab is copied to a temporary file, `file.managed` brings
//! that file to the source's contents (template, hash checks, diff), and
//! when the contents changed the file is installed with `crontab`.

use super::super::file::MODULE as FILE;
use super::super::user::support::failed;
use super::tab;
use crate::{StateCall, StateReturn};
use brine_core::{Map, Value};
use brine_host::accounts::EtcRoot;
use std::io::Write;

/// The arguments `cron.file` hands on to `file.managed` (the others are
/// its own, or template variables that go along as they are).
const OWN: &[&str] = &["name", "user", "replace", "state", "fun", "__id__"];

pub fn file(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let user = call
        .arg("user")
        .map_or_else(|| "root".to_string(), Value::to_python_str);
    let Some(group) = EtcRoot::default().group_list(&user).into_iter().next() else {
        return failed(&name, format!("Could not identify group for user {user}"));
    };
    let current = match tab::raw_cron(&user) {
        Ok(t) => t,
        Err(e) => return failed(&name, crate::raised(e)),
    };
    let current = if current.ends_with('\n') {
        current
    } else {
        format!("{current}\n")
    };
    // Salt's mkstemp: /tmp/__salt.tmp.XXXXXXXX, mode 0600.
    let tmp = tempfile::Builder::new()
        .prefix(tab::TMP_PREFIX)
        .rand_bytes(8)
        .tempfile()
        .and_then(|mut f| f.write_all(current.as_bytes()).map(|()| f));
    let tmp = match tmp {
        Ok(t) => t,
        Err(e) => return failed(&name, format!("Unable to manage file: {e}")),
    };
    let cron_path = tmp.path().display().to_string();
    let mut ret = StateReturn::new(&name);
    let replace = call.arg("replace").is_none_or(Value::is_truthy);
    // The copy always holds at least a newline: Salt's check of its size
    // never finds it empty.
    if !replace {
        ret.comment = format!("User {user} already has a crontab. No changes made");
        return ret;
    }

    let mut low: Map = call
        .low
        .iter()
        .filter(|(k, _)| !OWN.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    low.insert("name".into(), Value::Str(cron_path.clone()));
    low.insert("source".into(), Value::Str(name.clone()));
    low.insert("user".into(), Value::Str(user.clone()));
    low.insert("group".into(), Value::Str(group));
    low.insert("mode".into(), Value::Str("0600".into()));
    low.insert("state".into(), Value::Str("file".into()));
    low.insert("fun".into(), Value::Str("managed".into()));
    let Some(managed) = FILE.function("managed") else {
        return failed(&name, "file.managed is missing");
    };
    let fm = (managed.run)(&StateCall {
        low: &low,
        test: call.test,
        ctx: call.ctx,
    });

    if call.test {
        // Salt's file.check_managed: (result, comment); the temporary
        // file's owner and mode are not counted.
        let mut changes = fm.changes.clone();
        for k in ["user", "group", "mode"] {
            changes.shift_remove(k);
        }
        ret.result = fm.result;
        ret.comment = if fm.result == Some(false) {
            fm.comment
        } else if changes.is_empty() {
            ret.result = Some(true);
            format!("The file {cron_path} is in the correct state")
        } else {
            let mut c = String::from("The following values are set to be changed:\n");
            for (k, v) in &changes {
                c.push_str(&format!("{k}: {}\n", v.to_python_str()));
            }
            c
        };
        return ret;
    }

    if fm.changes.contains_key("diff") {
        match tab::write_cron_file(&user, &cron_path) {
            Ok(out) if out.retcode == 0 => {
                ret.comment = format!("Crontab for user {user} was updated");
                ret.changes = fm.changes;
            }
            Ok(out) => {
                ret.result = Some(false);
                ret.comment = format!(
                    "Unable to update user {user} crontab {cron_path}. Error: {}",
                    out.stderr
                );
            }
            Err(e) => {
                ret.result = Some(false);
                ret.comment = format!("Unable to manage file: {e}");
            }
        }
    } else if fm.result == Some(true) {
        ret.comment = format!("Crontab for user {user} is in the correct state");
    } else {
        ret.result = fm.result;
        ret.comment = fm.comment;
        ret.changes = fm.changes;
    }
    ret
}
