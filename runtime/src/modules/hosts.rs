//! Salt's `hosts` module: the hosts file (`hosts.file`, default
//! `/etc/hosts`) read as a mapping of addresses to aliases and edited line
//! by line, with Salt's layout (tabs between fields, `# comment` at the
//! end). The file logic is the host state module's
//! (`brine_states::modules::host::hostsfile`).

use super::config::option_value;
use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{into_string, Params};
use brine_core::Value;
use brine_states::modules::host::hostsfile::{self, HostsError};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "add_host",
        sig!(ip, alias),
        "Add ALIAS to the line of IP (a new line when IP has none); the file is \
written back in Salt's layout. True when ALIAS is there.\n\n    \
brine-call hosts.add_host 10.0.0.1 db.example",
        add_host,
    ),
    Function::acts(
        "get_alias",
        sig!(ip),
        "The aliases of IP, in file order ([] when IP has no line).\n\n    \
brine-call hosts.get_alias 127.0.0.1",
        get_alias,
    ),
    Function::acts(
        "get_ip",
        sig!(host),
        "The first address whose line names HOST ('' when none does).\n\n    \
brine-call hosts.get_ip localhost",
        get_ip,
    ),
    Function::acts(
        "has_pair",
        sig!(ip, alias),
        "True when the line of IP names ALIAS (or every alias of a list).\n\n    \
brine-call hosts.has_pair 127.0.0.1 localhost",
        has_pair,
    ),
    Function::acts(
        "list_hosts",
        sig!(),
        "The hosts file as a mapping: each address to {aliases, comment}; comment \
lines as comment-N.\n\n    brine-call hosts.list_hosts",
        list_hosts,
    ),
    Function::acts(
        "rm_host",
        sig!(ip, alias),
        "Take ALIAS off the line of IP (the line goes when no alias is left). \
True, also when the pair was not there.\n\n    brine-call hosts.rm_host 10.0.0.1 db.example",
        rm_host,
    ),
    Function::acts(
        "set_comment",
        sig!(ip, comment),
        "Set the end-of-line comment of IP's line; False when IP has no line.\n\n    \
brine-call hosts.set_comment 10.0.0.1 'database'",
        set_comment,
    ),
    Function::acts(
        "set_host",
        sig!(ip, alias, comment = null),
        "Make ALIAS (one or more names, space separated) the only line of IP, \
with COMMENT when given; an empty ALIAS removes IP's lines.\n\n    \
brine-call hosts.set_host 10.0.0.1 'db db.example'",
        set_host,
    ),
];

/// The hosts file's path: `hosts.file` through `config.option`.
fn hosts_file(cx: &Ctx<'_>) -> String {
    match option_value(cx, "hosts.file") {
        None | Some(Value::Null) => String::new(),
        Some(v) => into_string(v),
    }
}

fn failed(e: HostsError) -> CallError {
    match e {
        e @ HostsError::AliasType { .. } => CallError::InvalidArguments(e.to_string()),
        e => CallError::Failed(e.to_string()),
    }
}

/// A parameter Salt concatenates as a string: anything else is Python's
/// TypeError (`left`: the value stands left of the `+`).
fn text(v: Value, left: bool) -> Result<String, CallError> {
    match v {
        Value::Str(s) => Ok(s),
        other if left => Err(CallError::InvalidArguments(format!(
            "unsupported operand type(s) for +: '{}' and 'str'",
            other.type_name()
        ))),
        other => Err(CallError::InvalidArguments(format!(
            "can only concatenate str (not \"{}\") to str",
            other.type_name()
        ))),
    }
}

fn list_hosts(cx: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    Ok(Value::Map(hostsfile::list_hosts(&hosts_file(cx)).map_err(failed)?).into())
}

fn get_ip(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let host = p.require("host")?;
    p.finish()?;
    // Only a string can equal an alias read from the file.
    let Value::Str(host) = host else {
        return Ok(Value::Str(String::new()).into());
    };
    Ok(Value::Str(hostsfile::get_ip(&hosts_file(cx), &host).map_err(failed)?).into())
}

fn get_alias(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let ip = into_string(p.require("ip")?);
    p.finish()?;
    let aliases = hostsfile::get_alias(&hosts_file(cx), &ip).map_err(failed)?;
    Ok(Value::List(aliases.into_iter().map(Value::Str).collect()).into())
}

fn has_pair(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let ip = into_string(p.require("ip")?);
    let alias = p.require("alias")?;
    p.finish()?;
    Ok(Value::Bool(hostsfile::has_pair(&hosts_file(cx), &ip, &alias).map_err(failed)?).into())
}

fn set_host(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let ip = p.require("ip")?;
    let alias = p.require("alias")?;
    let comment = p.take("comment").filter(Value::is_truthy);
    p.finish()?;
    let ip = text(ip, true)?;
    let alias = text(alias, false)?;
    let comment = comment.map(|c| text(c, false)).transpose()?;
    let done =
        hostsfile::set_host(&hosts_file(cx), &ip, &alias, comment.as_deref()).map_err(failed)?;
    Ok(Value::Bool(done).into())
}

fn rm_host(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let ip = into_string(p.require("ip")?);
    let alias = p.require("alias")?;
    p.finish()?;
    Ok(Value::Bool(hostsfile::rm_host(&hosts_file(cx), &ip, &alias).map_err(failed)?).into())
}

fn add_host(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let ip = into_string(p.require("ip")?);
    let alias = p.require("alias")?;
    p.finish()?;
    Ok(Value::Bool(hostsfile::add_host(&hosts_file(cx), &ip, &alias).map_err(failed)?).into())
}

fn set_comment(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let ip = into_string(p.require("ip")?);
    let comment = into_string(p.require("comment")?);
    p.finish()?;
    let done = hostsfile::set_comment(&hosts_file(cx), &ip, &comment).map_err(failed)?;
    Ok(Value::Bool(done).into())
}
