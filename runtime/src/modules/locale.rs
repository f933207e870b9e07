//! Salt's `locale` module, the reading part: the system locale (from
//! `localectl` under systemd, else the distribution's file) and the
//! compiled locales (`locale -a`). The logic is the locale state module's
//! (`brine_states::modules::locale::system`).

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::Params;
use brine_core::Value;
use brine_states::modules::locale::system::{self, LocaleError};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "avail",
        sig!(locale),
        "True when LOCALE (any spelling of its codeset: en_US.UTF-8, \
en_US.utf8) is compiled on this host.\n\n    brine-call locale.avail en_US.UTF-8",
        avail,
    ),
    Function::acts(
        "get_locale",
        sig!(),
        "The system locale (LANG): from localectl under systemd, else from \
/etc/default/locale (Debian), /etc/sysconfig/i18n (Red Hat) ...; '' when unset.\n\n    \
brine-call locale.get_locale",
        get_locale,
    ),
    Function::acts(
        "list_avail",
        sig!(),
        "The compiled locales, as `locale -a` lists them.\n\n    brine-call locale.list_avail",
        list_avail,
    ),
];

fn failed(e: LocaleError) -> CallError {
    CallError::Failed(e.to_string())
}

fn list_avail(_: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    let (list, retcode) = system::list_avail().map_err(failed)?;
    Ok(Return {
        value: Value::List(list.into_iter().map(Value::Str).collect()),
        retcode,
    })
}

fn avail(_: &Ctx<'_>, mut p: Params) -> Result<Return, CallError> {
    let locale = p.require("locale")?;
    p.finish()?;
    let Value::Str(locale) = locale else {
        // Salt splits the name as a string: anything else raises.
        return Err(CallError::Failed(format!(
            "AttributeError: '{}' object has no attribute 'split'",
            locale.type_name()
        )));
    };
    let (found, retcode) = system::avail(&locale).map_err(failed)?;
    Ok(Return {
        value: Value::Bool(found),
        retcode,
    })
}

fn get_locale(cx: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    let (lang, retcode) = system::get_locale(cx.grains).map_err(failed)?;
    Ok(Return {
        value: Value::Str(lang),
        retcode,
    })
}
