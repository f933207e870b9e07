//! Salt's `disk` module, the usage readings: `df -P` and `df -iP`, which
//! Salt runs and parses (df chooses which mounts to show: the pseudo
//! filesystems and duplicate mounts it leaves out are its own rules, so it
//! is asked rather than imitated).

use super::function::{sig, CallError, Ctx, Function, Return};
use super::params::Params;
use brine_core::{Map, Value};
use brine_host::exec::{self, CommandSpec};

pub(super) const FUNCTIONS: &[Function] = &[
    Function::acts(
        "inodeusage",
        sig!(args = null),
        "Inode usage per mount point (inodes, used, free, use, filesystem); ARGS \
adds df flags (letters among aBhHikl PtTxv).\n\n    brine-call disk.inodeusage",
        |c, p| df(c, p, true),
    ),
    Function::acts(
        "usage",
        sig!(args = null),
        "Disk usage per mount point (filesystem, 1K-blocks, used, available, \
capacity); ARGS adds df flags (letters among aBhHiklPtTxv).\n\n    brine-call disk.usage",
        |c, p| df(c, p, false),
    ),
];

/// Salt's `_clean_flags`: each character one of df's allowed flags.
fn flags(args: Option<Value>, caller: &str) -> Result<String, CallError> {
    const ALLOWED: &str = "aBhHiklPtTxv";
    let Some(args) = args.filter(|v| !v.is_null()) else {
        return Ok(String::new());
    };
    let items: Vec<String> = match args {
        Value::List(l) => l.iter().map(Value::to_python_str).collect(),
        other => other.to_python_str().chars().map(String::from).collect(),
    };
    let mut out = String::new();
    for f in items {
        if f.chars().count() == 1 && ALLOWED.contains(f.as_str()) {
            out.push_str(&f);
        } else {
            return Err(CallError::Failed(format!(
                "Invalid flag passed to {caller}"
            )));
        }
    }
    Ok(out)
}

fn df<'c>(_: &Ctx<'c>, mut p: Params, inodes: bool) -> Result<Return, CallError> {
    let caller = if inodes {
        "disk.inodeusage"
    } else {
        "disk.usage"
    };
    let extra = flags(p.take("args"), caller)?;
    p.finish()?;
    if !inodes && !std::path::Path::new("/etc/mtab").is_file() {
        tracing::error!("df cannot run without /etc/mtab");
        return Ok(Value::Map(Map::default()).into());
    }
    let mut argv = vec!["df".to_string(), if inodes { "-iP" } else { "-P" }.into()];
    if !extra.is_empty() {
        argv.push(format!("-{extra}"));
    }
    let res = exec::run(&CommandSpec {
        merge_stderr: true,
        ..CommandSpec::argv(&argv)
    })
    .map_err(|e| CallError::Failed(e.to_string()))?;
    let parsed = if inodes {
        parse_df_inodes(&res.stdout)
    } else {
        parse_df(&res.stdout)
    };
    Ok(Value::Map(parsed).into())
}

/// `df -P` lines as Salt reads them: a name that wrapped onto its own
/// line joins the next; words before the first number are the name.
pub(crate) fn parse_df(out: &str) -> Map {
    let mut ret = Map::default();
    let mut pending: Option<String> = None;
    for line in out.lines() {
        if line.is_empty() || line.starts_with("Filesystem") {
            continue;
        }
        let line = match pending.take() {
            Some(old) => format!("{old} {line}"),
            None => line.to_string(),
        };
        let mut comps: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        if comps.len() == 1 {
            pending = Some(line);
            continue;
        }
        while comps.len() >= 2 && !comps[1].bytes().all(|b| b.is_ascii_digit()) {
            let next = comps.remove(1);
            comps[0] = format!("{} {next}", comps[0]);
        }
        if comps.len() < 6 {
            tracing::error!("Problem parsing disk usage information");
            return Map::default();
        }
        let mut m = Map::default();
        for (k, i) in [
            ("filesystem", 0),
            ("1K-blocks", 1),
            ("used", 2),
            ("available", 3),
            ("capacity", 4),
        ] {
            m.insert(k.into(), Value::Str(comps[i].clone()));
        }
        ret.insert(comps[5].clone(), Value::Map(m));
    }
    ret
}

/// `df -iP` lines as Salt reads them.
pub(crate) fn parse_df_inodes(out: &str) -> Map {
    let mut ret = Map::default();
    for line in out.lines() {
        if line.starts_with("Filesystem") {
            continue;
        }
        let comps: Vec<&str> = line.split_whitespace().collect();
        if comps.is_empty() {
            continue;
        }
        if comps.len() < 6 {
            tracing::error!("Problem parsing inode usage information");
            return Map::default();
        }
        let mut m = Map::default();
        for (k, i) in [
            ("inodes", 1),
            ("used", 2),
            ("free", 3),
            ("use", 4),
            ("filesystem", 0),
        ] {
            m.insert(k.into(), Value::Str(comps[i].to_string()));
        }
        ret.insert(comps[5].to_string(), Value::Map(m));
    }
    ret
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_df_like_salt() {
        let out = "Filesystem 1024-blocks Used Available Capacity Mounted on\n\
                   /dev/vda 264212084 44375448 50910440 47% /\n\
                   very-long-device-name\n 4 0 4 0% /mnt/x\n\
                   my fs 10 1 9 10% /data\n";
        let m = Value::Map(parse_df(out));
        assert_eq!(
            m.to_python_repr(),
            "{'/': {'filesystem': '/dev/vda', '1K-blocks': '264212084', 'used': '44375448', \
             'available': '50910440', 'capacity': '47%'}, '/mnt/x': {'filesystem': \
             'very-long-device-name', '1K-blocks': '4', 'used': '0', 'available': '4', \
             'capacity': '0%'}, '/data': {'filesystem': 'my fs', '1K-blocks': '10', \
             'used': '1', 'available': '9', 'capacity': '10%'}}"
        );
        let i = Value::Map(parse_df_inodes(
            "Filesystem Inodes IUsed IFree IUse% Mounted on\ntmpfs 30 3 27 10% /run\n",
        ));
        assert_eq!(
            i.to_python_repr(),
            "{'/run': {'inodes': '30', 'used': '3', 'free': '27', 'use': '10%', 'filesystem': 'tmpfs'}}"
        );
        assert_eq!(
            flags(Some(Value::from("q")), "disk.usage")
                .unwrap_err()
                .to_string(),
            "Invalid flag passed to disk.usage"
        );
        assert_eq!(flags(Some(Value::from("ah")), "disk.usage").unwrap(), "ah");
    }

    #[test]
    fn root_is_listed_as_statvfs_sees_it() {
        if brine_host::path::which("df").is_none() {
            return;
        }
        let out = exec::run(&CommandSpec::argv(&["df", "-P", "/"])).unwrap();
        let m = parse_df(&out.stdout);
        let root = m.get("/").expect("df lists /").to_json();
        let st = nix::sys::statvfs::statvfs("/").unwrap();
        let kblocks = st.blocks() * st.fragment_size() / 1024;
        assert_eq!(root["1K-blocks"], kblocks.to_string());
    }
}
