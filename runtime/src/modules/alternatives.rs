//! Salt's `alternatives` module: the alternatives system through
//! `update-alternatives` (`alternatives` on Red Hat). The logic is the
//! alternatives state module's (`brine_states::modules::alternatives::system`).

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::{into_string, Params};
use brine_core::Value;
use brine_states::modules::alternatives::system::{self, AltError};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "auto",
        sig!(name),
        "Put the link group NAME back in auto mode (its highest priority \
alternative): the command's output, or its error.\n\n    brine-call alternatives.auto editor",
        auto,
    ),
    Function::acts(
        "check_exists",
        sig!(name, path),
        "True when PATH is one of the alternatives of NAME.\n\n    \
brine-call alternatives.check_exists editor /usr/bin/vim.basic",
        check_exists,
    ),
    Function::acts(
        "check_installed",
        sig!(name, path),
        "True when /etc/alternatives/NAME points at PATH.\n\n    \
brine-call alternatives.check_installed editor /usr/bin/vim.basic",
        check_installed,
    ),
    Function::acts(
        "display",
        sig!(name),
        "The settings of the link group NAME (update-alternatives --display), \
or the command's error.\n\n    brine-call alternatives.display editor",
        display,
    )
    .txt(),
    Function::acts(
        "install",
        sig!(name, link, path, priority),
        "Make PATH an alternative of the link group NAME, whose master link is \
LINK, with PRIORITY: the command's output, or its error.\n\n    \
brine-call alternatives.install editor /usr/bin/editor /usr/bin/emacs 50",
        install,
    )
    .txt(),
    Function::acts(
        "remove",
        sig!(name, path),
        "Take PATH out of the alternatives of NAME: the command's output, or its \
error.\n\n    brine-call alternatives.remove editor /usr/bin/emacs",
        remove,
    )
    .txt(),
    Function::acts(
        "set",
        sig!(name, path),
        "Point the link group NAME at PATH (manual mode): the command's output, \
or its error.\n\n    brine-call alternatives.set editor /usr/bin/vim.basic",
        set,
    ),
    Function::acts(
        "show_current",
        sig!(name),
        "Where /etc/alternatives/NAME points; False when it is not a link.\n\n    \
brine-call alternatives.show_current editor",
        show_current,
    ),
    Function::acts(
        "show_link",
        sig!(name),
        "The master link of the link group NAME (/usr/bin/editor); False when \
there is no such group.\n\n    brine-call alternatives.show_link editor",
        show_link,
    ),
];

fn family(cx: &Ctx<'_>) -> String {
    cx.grains
        .get("os_family")
        .map(Value::to_python_str)
        .unwrap_or_default()
}

fn failed(e: AltError) -> CallError {
    CallError::Failed(e.to_string())
}

fn text(p: &mut Params, key: &str) -> Result<String, CallError> {
    Ok(into_string(p.require(key)?))
}

fn display(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = text(&mut p, "name")?;
    p.finish()?;
    Ok(Value::Str(system::display(&family(cx), &name).map_err(failed)?).into())
}

fn show_link(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = text(&mut p, "name")?;
    p.finish()?;
    Ok(system::show_link(&family(cx), &name)
        .map_err(failed)?
        .into())
}

fn show_current(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = text(&mut p, "name")?;
    p.finish()?;
    if system::show_current(&name).is_none() {
        tracing::error!("alternative: {name} does not exist");
    }
    Ok(system::show_current(&name)
        .map_or(Value::Bool(false), Value::Str)
        .into())
}

fn check_exists(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = text(&mut p, "name")?;
    let path = text(&mut p, "path")?;
    p.finish()?;
    let found = system::check_exists(&family(cx), &name, &path).map_err(failed)?;
    Ok(Value::Bool(found).into())
}

fn check_installed(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = text(&mut p, "name")?;
    let path = text(&mut p, "path")?;
    p.finish()?;
    Ok(Value::Bool(system::check_installed(&name, &path)).into())
}

fn install(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = text(&mut p, "name")?;
    let link = text(&mut p, "link")?;
    let path = text(&mut p, "path")?;
    let priority = p.require("priority")?.to_python_str();
    p.finish()?;
    let out = system::install(&family(cx), &name, &link, &path, &priority).map_err(failed)?;
    Ok(Value::Str(out).into())
}

fn remove(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = text(&mut p, "name")?;
    let path = text(&mut p, "path")?;
    p.finish()?;
    Ok(Value::Str(system::remove(&family(cx), &name, &path).map_err(failed)?).into())
}

fn auto(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = text(&mut p, "name")?;
    p.finish()?;
    Ok(Value::Str(system::auto(&family(cx), &name).map_err(failed)?).into())
}

fn set(cx: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let name = text(&mut p, "name")?;
    let path = text(&mut p, "path")?;
    p.finish()?;
    Ok(Value::Str(system::set(&family(cx), &name, &path).map_err(failed)?).into())
}
