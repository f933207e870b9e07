//! Salt's `locale` module, the reading part: the system locale (from
//! `localectl` under systemd, else the distribution's file) and the
//! compiled locales (`locale -a`).

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::Params;
use super::run::run_merged;
use brine_core::Value;

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

fn locales() -> Result<(Vec<String>, i32), CallError> {
    let r = run_merged(&["locale", "-a"])?;
    Ok((
        r.stdout.split('\n').map(str::to_string).collect(),
        r.retcode,
    ))
}

fn list_avail(_: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    let (list, retcode) = locales()?;
    Ok(Return {
        value: Value::List(list.into_iter().map(Value::Str).collect()),
        retcode,
    })
}

/// Salt's `normalize_locale`: territory upper-cased, codeset lower-cased
/// without dashes, charmap dropped.
fn normalize(loc: &str) -> String {
    let (work, _charmap) = loc.split_once(' ').unwrap_or((loc, ""));
    let (work, modifier) = work.split_once('@').unwrap_or((work, ""));
    let (work, codeset) = work.split_once('.').unwrap_or((work, ""));
    let (language, territory) = work.split_once('_').unwrap_or((work, ""));
    let mut out = language.to_string();
    if !territory.is_empty() {
        out.push('_');
        out.push_str(&territory.to_uppercase());
    }
    let codeset = codeset.to_lowercase().replace('-', "");
    if !codeset.is_empty() {
        out.push('.');
        out.push_str(&codeset);
    }
    if !modifier.is_empty() {
        out.push('@');
        out.push_str(modifier);
    }
    out
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
    let want = normalize(&locale);
    let (list, retcode) = locales()?;
    Ok(Return {
        value: Value::Bool(list.iter().any(|l| normalize(l.trim()) == want)),
        retcode,
    })
}

fn get_locale(cx: &Ctx<'_>, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    if brine_states::modules::service::systemd::booted() {
        return Ok(Value::Str(localectl_lang()?).into());
    }
    let family = cx
        .grains
        .get("os_family")
        .and_then(Value::as_str)
        .unwrap_or("");
    let (pattern, file) = if family.contains("Suse") {
        ("^RC_LANG", "/etc/sysconfig/language")
    } else if family.contains("RedHat") {
        ("^LANG=", "/etc/sysconfig/i18n")
    } else if family.contains("Debian") {
        ("^LANG=", "/etc/default/locale")
    } else if family.contains("Gentoo") {
        let r = run_merged(&["eselect", "--brief", "locale", "show"])?;
        return Ok(Return {
            value: Value::Str(r.stdout.trim().to_string()),
            retcode: r.retcode,
        });
    } else if family.contains("Solaris") {
        ("^LANG=", "/etc/default/init")
    } else {
        let code = cx
            .grains
            .get("oscodename")
            .map(Value::to_python_str)
            .unwrap_or_default();
        return Err(CallError::Failed(format!(
            "Error: \"{code}\" is unsupported!"
        )));
    };
    let r = run_merged(&["grep", pattern, file])?;
    // Salt takes what follows the first '=', quotes dropped; '' when the
    // line is not there.
    let lang = r
        .stdout
        .split('=')
        .nth(1)
        .map(|v| v.replace('"', ""))
        .unwrap_or_default();
    Ok(Return {
        value: Value::Str(lang),
        retcode: r.retcode,
    })
}

/// LANG of `localectl status`'s "System Locale".
fn localectl_lang() -> Result<String, CallError> {
    if brine_host::path::which("localectl").is_none() {
        return Err(CallError::Failed("Unable to find \"localectl\"".into()));
    }
    let r = run_merged(&["localectl", "status"])?;
    let mut key: Option<String> = None;
    let mut lang = None;
    let mut any = false;
    for line in r.stdout.trim().lines() {
        let data = match line.split_once(": ") {
            Some((k, d)) => {
                key = Some(k.trim().to_lowercase().replace(' ', "_"));
                d.to_string()
            }
            None => line.trim().to_string(),
        };
        if data.is_empty() || key.is_none() {
            continue;
        }
        any = true;
        if key.as_deref() == Some("system_locale") {
            if let Some(v) = data.strip_prefix("LANG=") {
                lang = Some(v.to_string());
            }
        }
    }
    if !any {
        return Err(CallError::Failed(
            "Unable to parse result of \"localectl\"".into(),
        ));
    }
    Ok(lang.unwrap_or_default())
}
