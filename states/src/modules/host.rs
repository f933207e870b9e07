//! The `host` state module (Salt's `salt/states/host.py`): names present
//! in or absent from the hosts file, or the only names of an address, over
//! the file logic the `hosts` execution module shares ([`hostsfile`]).
//! The file is `hosts.file` (an option, as Salt reads it), else
//! /etc/hosts.
//!
//! Where Salt walks a Python `set` (the addresses to add, comment or
//! remove), brine takes the order of `ip`, then of the file.

pub mod hostsfile;

use crate::{StateCall, StateContext, StateFunction, StateModule, StateReturn};
use brine_core::sig;
use brine_core::{Map, Value};
use hostsfile::HostsError;
use std::net::{Ipv4Addr, Ipv6Addr};

/// The `host` state module.
pub static MODULE: StateModule = StateModule {
    name: "host",
    doc: "Manage the hosts file: names present at addresses, absent, or the only \
names of an address.",
    functions: &[
        StateFunction::new(
            "absent",
            sig!(name, ip),
            "The host NAME is not listed for the address (or any of the \
addresses) IP.",
            absent,
        ),
        StateFunction::new(
            "only",
            sig!(name, hostnames),
            "The address NAME is listed with exactly HOSTNAMES (one or a list), \
in that order.",
            only,
        ),
        StateFunction::new(
            "present",
            sig!(name, ip, comment = "", clean = false),
            "The host NAME is listed for the address (or each address) IP, with \
COMMENT; CLEAN removes NAME from other addresses.",
            present,
        ),
    ],
};

/// The hosts file this minion edits.
pub fn hosts_file(ctx: &StateContext) -> String {
    match ctx.config_option("hosts.file") {
        None | Some(Value::Null) => "/etc/hosts".into(),
        Some(v) => v.to_python_str(),
    }
}

/// Salt's `salt.utils.validate.net.ip_addr`: an IPv4 or IPv6 address,
/// optionally with a prefix length.
fn valid_ip(addr: &str) -> bool {
    let check = |max: u8, ok: &dyn Fn(&str) -> bool| match addr.rsplit_once('/') {
        Some((ip, mask)) => {
            ok(ip)
                && mask
                    .trim()
                    .parse::<u8>()
                    .is_ok_and(|m| (1..=max).contains(&m))
        }
        None => ok(addr),
    };
    check(32, &|ip| ip.parse::<Ipv4Addr>().is_ok())
        || check(128, &|ip| ip.parse::<Ipv6Addr>().is_ok())
}

/// `ip` as the list Salt makes of it.
fn ip_list(call: &StateCall) -> Vec<Value> {
    match call.arg("ip") {
        Some(Value::List(l)) => l.clone(),
        Some(v) => vec![v.clone()],
        None => Vec::new(),
    }
}

fn raised(name: &str, e: &HostsError) -> StateReturn {
    let mut r = StateReturn::new(name);
    r.result = Some(false);
    r.comment = crate::raised(e);
    r
}

/// Append `item` under `changes[group][addr]`.
fn record(changes: &mut Map, group: &str, addr: &str, item: &str) {
    let mut g = match changes.shift_remove(group) {
        Some(Value::Map(m)) => m,
        _ => Map::default(),
    };
    let mut list = match g.shift_remove(addr) {
        Some(Value::List(l)) => l,
        _ => Vec::new(),
    };
    list.push(Value::Str(item.to_string()));
    g.insert(addr.to_string(), Value::List(list));
    changes.insert(group.to_string(), Value::Map(g));
}

fn push_unique(v: &mut Vec<(String, String)>, item: (String, String)) {
    if !v.contains(&item) {
        v.push(item);
    }
}

fn present(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let path = hosts_file(call.ctx);
    let ips: Vec<String> = ip_list(call).iter().map(Value::to_python_str).collect();
    let comment = call
        .arg("comment")
        .filter(|v| v.is_truthy())
        .map(Value::to_python_str);
    let clean = call.arg("clean").is_some_and(Value::is_truthy);
    let mut ret = StateReturn::new(&name);
    let all = match hostsfile::list_hosts(&path) {
        Ok(a) => a,
        Err(e) => return raised(&name, &e),
    };
    let mut comments: Vec<String> = Vec::new();
    let mut to_add: Vec<(String, String)> = Vec::new();
    let mut to_remove: Vec<(String, String)> = Vec::new();
    let mut update_comment: Vec<(String, String)> = Vec::new();
    let mut warnings: Vec<Value> = Vec::new();
    for addr in ips.iter().filter(|a| !all.contains_key(*a)) {
        push_unique(&mut to_add, (addr.clone(), name.clone()));
        if let Some(c) = &comment {
            push_unique(&mut update_comment, (addr.clone(), c.clone()));
        }
    }
    for (addr, info) in &all {
        let aliases = info.get("aliases").and_then(Value::as_list);
        let named = aliases.is_some_and(|a| a.iter().any(|x| x.as_str() == Some(name.as_str())));
        if !ips.contains(addr) {
            if named {
                if clean {
                    push_unique(&mut to_remove, (addr.clone(), name.clone()));
                } else {
                    warnings.push(Value::Str(format!(
                        "Host {name} present for IP address {addr}. To get rid of this warning, either run this state with 'clean' set to True to remove {name} from {addr}, or add {addr} to the 'ip' argument."
                    )));
                }
            }
            continue;
        }
        if named {
            let have = info.get("comment").map(Value::to_python_str);
            match (&comment, have) {
                (Some(c), Some(h)) if *c != h => {
                    push_unique(&mut update_comment, (addr.clone(), c.clone()))
                }
                (Some(c), None) => push_unique(&mut update_comment, (addr.clone(), c.clone())),
                _ => comments.push(format!("Host {name} ({addr}) already present")),
            }
        } else if valid_ip(addr) {
            push_unique(&mut to_add, (addr.clone(), name.clone()));
            if let Some(c) = &comment {
                push_unique(&mut update_comment, (addr.clone(), c.clone()));
            }
        } else {
            ret.result = Some(false);
            comments.push(format!("Invalid IP Address for {name} ({addr})"));
        }
    }
    let test = call.test;
    for (addr, host) in &to_add {
        if test {
            ret.result = None;
            comments.push(format!("Host {host} ({addr}) would be added"));
        } else {
            match hostsfile::add_host(&path, addr, &Value::Str(host.clone())) {
                Ok(true) => comments.push(format!("Added host {host} ({addr})")),
                Ok(false) => {
                    ret.result = Some(false);
                    comments.push(format!("Failed to add host {host} ({addr})"));
                    continue;
                }
                Err(e) => return raised(&name, &e),
            }
        }
        record(&mut ret.changes, "added", addr, host);
    }
    for (addr, c) in &update_comment {
        if test {
            comments.push(format!("Comment for {addr} ({c}) would be added"));
        } else {
            match hostsfile::set_comment(&path, addr, c) {
                Ok(true) => comments.push(format!("Set comment for host {addr} ({c})")),
                Ok(false) => {
                    ret.result = Some(false);
                    comments.push(format!("Failed to add comment for host {addr} ({c})"));
                    continue;
                }
                Err(e) => return raised(&name, &e),
            }
        }
        record(&mut ret.changes, "comment_added", addr, c);
    }
    for (addr, host) in &to_remove {
        if test {
            ret.result = None;
            comments.push(format!("Host {host} ({addr}) would be removed"));
        } else {
            match hostsfile::rm_host(&path, addr, &Value::Str(host.clone())) {
                Ok(true) => comments.push(format!("Removed host {host} ({addr})")),
                Ok(false) => {
                    ret.result = Some(false);
                    comments.push(format!("Failed to remove host {host} ({addr})"));
                    continue;
                }
                Err(e) => return raised(&name, &e),
            }
        }
        record(&mut ret.changes, "removed", addr, host);
    }
    ret.comment = comments.join("\n");
    if !warnings.is_empty() {
        ret.extra.insert("warnings".into(), Value::List(warnings));
    }
    ret
}

fn absent(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let path = hosts_file(call.ctx);
    let mut ret = StateReturn::new(&name);
    ret.result = None;
    let mut comments = Vec::new();
    for ip in ip_list(call).iter().map(Value::to_python_str) {
        let host = Value::Str(name.clone());
        match hostsfile::has_pair(&path, &ip, &host) {
            Err(e) => return raised(&name, &e),
            Ok(false) => {
                ret.result = Some(true);
                comments.push(format!("Host {name} ({ip}) already absent"));
            }
            Ok(true) if call.test => {
                comments.push(format!("Host {name} ({ip}) needs to be removed"))
            }
            Ok(true) => match hostsfile::rm_host(&path, &ip, &host) {
                Ok(true) => {
                    let mut m = Map::default();
                    m.insert("host".into(), host);
                    ret.changes = m;
                    ret.result = Some(true);
                    comments.push(format!("Removed host {name} ({ip})"));
                }
                Ok(false) => {
                    ret.result = Some(false);
                    comments.push("Failed to remove host".into());
                }
                Err(e) => return raised(&name, &e),
            },
        }
    }
    ret.comment = comments.join("\n");
    ret
}

fn only(call: &StateCall) -> StateReturn {
    let name = call.name().to_string();
    let path = hosts_file(call.ctx);
    let mut ret = StateReturn::new(&name);
    ret.result = None;
    let hostnames: Vec<String> = match call.arg("hostnames") {
        Some(Value::List(l)) => l
            .iter()
            .map(|v| v.to_python_str().trim().to_string())
            .collect(),
        Some(v) => vec![v.to_python_str().trim().to_string()],
        None => Vec::new(),
    };
    let old = match hostsfile::get_alias(&path, &name) {
        Ok(a) => a.join(" "),
        Err(e) => return raised(&name, &e),
    };
    let new = hostnames.join(" ");
    if old == new {
        ret.comment = format!("IP address {name} already set to \"{new}\"");
        ret.result = Some(true);
        return ret;
    }
    if call.test {
        ret.comment = format!("Would change {name} from \"{old}\" to \"{new}\"");
        return ret;
    }
    match hostsfile::set_host(&path, &name, &new, None) {
        Ok(true) => {}
        Ok(false) => {
            ret.result = Some(false);
            ret.comment =
                format!("hosts.set_host failed to change {name} from \"{old}\" to \"{new}\"");
            return ret;
        }
        Err(e) => return raised(&name, &e),
    }
    ret.result = Some(true);
    ret.comment = format!("successfully changed {name} from \"{old}\" to \"{new}\"");
    let mut change = Map::default();
    change.insert("old".into(), Value::Str(old));
    change.insert("new".into(), Value::Str(new));
    ret.changes.insert(name.clone(), Value::Map(change));
    ret
}

#[cfg(test)]
mod tests {
    /// Salt's answers for the host scenarios of testdata/sys_cases.py, on a
    /// scratch hosts file (`hosts.file`).
    #[test]
    fn host_states_match_salt() {
        super::super::sysreplay::run("host_", crate::modules::MODULES);
    }
}
