//! Salt's `saltutil` functions about the minion itself: syncing custom
//! modules (which a Rust minion cannot load: every sync answers that
//! nothing was synced), refreshing grains, pillar and modules, clearing the
//! cache, the jobs running a function, and `saltutil.cmd`, which needs a
//! master client on the minion's host.

use super::function::{sig, CallError, Daemon, Function, Return, Signature};
use super::params::Params;
use crate::context::{CompileSource, Minion};
use brine_compile::matcher::glob::fnmatch;
use brine_compile::opts;
use brine_core::{Map, Value};

const SYNC_DOC: &str = "Salt copies custom modules of this kind (the _modules, _states, \
_grains ... folders of the file roots) to the minion here. brine is one Rust program and \
cannot load Python modules, so nothing is ever synced: the answer is the empty list Salt \
gives when there is nothing new. Takes SALTENV, REFRESH, EXTMOD_WHITELIST and \
EXTMOD_BLACKLIST as Salt does.\n\n    brine '*' saltutil.sync_modules";

/// One `sync_*` function: its name and signature.
macro_rules! sync {
    ($name:literal, $sig:expr) => {
        Function::minion($name, $sig, SYNC_DOC, |_, p| {
            sync_nothing(p).map(|()| Return::from(Value::List(Vec::new())))
        })
    };
}

/// The kinds `sync_all` answers for, in Salt's order (`tops` comes first
/// for a masterless minion).
const SYNC_ALL_KINDS: &[&str] = &[
    "clouds",
    "beacons",
    "modules",
    "states",
    "sdb",
    "grains",
    "renderers",
    "returners",
    "output",
    "utils",
    "log_handlers",
    "executors",
    "proxymodules",
    "engines",
    "thorium",
    "serializers",
    "matchers",
];

/// The kinds only a masterless minion syncs (after the others).
const SYNC_ALL_LOCAL_KINDS: &[&str] = &["pillar", "wrapper"];

/// The signature several functions here share (Salt's, recorded).
const REFRESH_PILLAR_SIG: Signature = sig!(wait = false, timeout = 30, clean_cache = true);

/// The signature several functions here share (Salt's, recorded).
const SYNC_ALL_SIG: Signature = sig!(
    saltenv = null,
    refresh = true,
    extmod_whitelist = null,
    extmod_blacklist = null,
    clean_pillar_cache = false
);

/// The signature several functions here share (Salt's, recorded).
const SYNC_BEACONS_SIG: Signature = sig!(
    saltenv = null,
    refresh = true,
    extmod_whitelist = null,
    extmod_blacklist = null
);

/// The signature several functions here share (Salt's, recorded).
const SYNC_ENGINES_SIG: Signature = sig!(
    saltenv = null,
    refresh = false,
    extmod_whitelist = null,
    extmod_blacklist = null
);

pub(super) const FUNCTIONS: &[Function] = &[
    Function::minion(
        "clear_cache",
        sig!(),
        "Delete every file under the minion's cachedir (folders stay), as Salt does; \
True, or False when a file cannot be removed.\n\n    brine '*' saltutil.clear_cache",
        clear_cache,
    ),
    Function::minion(
        "is_running",
        sig!(fun),
        "The data of the running jobs whose function matches FUN (a glob), as a list \
(as saltutil.running gives them).\n\n    brine '*' saltutil.is_running state.highstate",
        is_running,
    ),
    Function::minion(
        "refresh_grains",
        sig!(**kwargs),
        "Read the grains again (the grains file and the configuration's grains: may have \
changed); True.\n\n    brine '*' saltutil.refresh_grains",
        |m, mut p| {
            p.open_kwargs = true;
            p.finish()?;
            m.refresh_grains();
            Ok(Return::from(Value::Bool(true)))
        },
    ),
    Function::minion(
        "refresh_modules",
        sig!(**kwargs),
        "Ask the minion to reload its modules. brine's are built in, so nothing changes; \
True from the daemon, False from brine-call (no running minion to ask), as Salt \
answers.\n\n    brine '*' saltutil.refresh_modules",
        |m, mut p| {
            p.open_kwargs = true;
            p.finish()?;
            Ok(Return::from(Value::Bool(daemon(m))))
        },
    ),
    Function::minion(
        "refresh_pillar",
        REFRESH_PILLAR_SIG,
        "Ask the running minion to compile its pillar again (WAIT=True: until it is done, \
at most TIMEOUT seconds); True. brine-call compiles the pillar at every call and has no \
running minion to ask: False, as Salt's salt-call --local answers.\n\n    \
brine '*' saltutil.refresh_pillar",
        refresh_pillar,
    )
    .in_daemon(Daemon::RefreshPillar),
    Function::minion(
        "pillar_refresh",
        REFRESH_PILLAR_SIG,
        "saltutil.refresh_pillar under its other name.\n\n    \
brine '*' saltutil.pillar_refresh",
        refresh_pillar,
    )
    .in_daemon(Daemon::RefreshPillar),
    Function::minion(
        "sync_all",
        SYNC_ALL_SIG,
        "Every sync_* at once: a dict of kind → what was synced. brine cannot load custom \
Python modules, so every list is empty (tops only for a masterless minion, as Salt).\n\n    \
brine '*' saltutil.sync_all",
        sync_all,
    ),
    sync!("sync_beacons", SYNC_BEACONS_SIG),
    sync!("sync_clouds", SYNC_BEACONS_SIG),
    sync!("sync_engines", SYNC_ENGINES_SIG),
    sync!("sync_executors", SYNC_BEACONS_SIG),
    sync!("sync_grains", SYNC_ALL_SIG),
    sync!("sync_log_handlers", SYNC_BEACONS_SIG),
    sync!("sync_matchers", SYNC_ENGINES_SIG),
    sync!("sync_modules", SYNC_BEACONS_SIG),
    sync!("sync_output", SYNC_BEACONS_SIG),
    Function::minion("sync_pillar", SYNC_ALL_SIG, SYNC_DOC, |m, p| {
        sync_nothing(p)?;
        if !masterless(m) {
            return Err(CallError::Failed(
                "Pillar modules can only be synced to masterless minions".into(),
            ));
        }
        Ok(Return::from(Value::List(Vec::new())))
    }),
    sync!("sync_proxymodules", SYNC_ENGINES_SIG),
    sync!("sync_renderers", SYNC_BEACONS_SIG),
    sync!("sync_returners", SYNC_BEACONS_SIG),
    sync!(
        "sync_sdb",
        sig!(
            saltenv = null,
            extmod_whitelist = null,
            extmod_blacklist = null
        )
    ),
    sync!("sync_serializers", SYNC_BEACONS_SIG),
    sync!("sync_states", SYNC_BEACONS_SIG),
    sync!("sync_thorium", SYNC_ENGINES_SIG),
    sync!("sync_tops", SYNC_BEACONS_SIG),
    sync!("sync_utils", SYNC_BEACONS_SIG),
    sync!("sync_wrapper", SYNC_BEACONS_SIG),
];

/// Whether the minion runs as the daemon (it has a master), not under
/// `brine-call`.
fn daemon(m: &Minion) -> bool {
    matches!(m.source, CompileSource::Master(_))
}

/// Bind a sync function's parameters; there is nothing to do.
/// `saltutil.refresh_pillar` outside the daemon (which answers it itself):
/// there is no running minion to ask.
fn refresh_pillar(m: &mut Minion, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    Ok(Return::from(Value::Bool(daemon(m))))
}

/// Check the arguments of a sync (they bind to the signature) and sync
/// nothing.
fn sync_nothing(p: Params) -> Result<(), CallError> {
    p.finish()
}

/// `file_client: local`: a minion without a master.
fn masterless(m: &Minion) -> bool {
    opts::masterless(&m.opts)
}

fn sync_all(m: &mut Minion, p: Params) -> Result<Return, CallError> {
    sync_nothing(p)?;
    let local = masterless(m);
    let kinds = local
        .then_some("tops")
        .into_iter()
        .chain(SYNC_ALL_KINDS.iter().copied())
        .chain(SYNC_ALL_LOCAL_KINDS.iter().copied().filter(|_| local));
    let out: Map = kinds
        .map(|k| (k.to_string(), Value::List(Vec::new())))
        .collect();
    Ok(Return::from(Value::Map(out)))
}

fn is_running(m: &mut Minion, mut p: Params) -> Result<Return, CallError> {
    let fun = p.require("fun")?.to_python_str();
    p.finish()?;
    let jobs = m
        .jobs
        .others()
        .into_iter()
        .filter(|j| {
            j.get("fun")
                .is_some_and(|f| fnmatch(&f.to_python_str(), &fun))
        })
        .map(Value::Map)
        .collect();
    Ok(Return::from(Value::List(jobs)))
}

fn clear_cache(m: &mut Minion, p: Params) -> Result<Return, CallError> {
    p.finish()?;
    let Some(cachedir) = opts::get_str(&m.opts, "cachedir") else {
        return Ok(Return::from(Value::Bool(true)));
    };
    Ok(Return::from(Value::Bool(remove_files(
        std::path::Path::new(cachedir),
    ))))
}

/// Remove the files under `dir`, not following links to folders; false at
/// the first that cannot be removed.
fn remove_files(dir: &std::path::Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return true;
    };
    for e in entries.flatten() {
        let path = e.path();
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        if is_dir {
            if !remove_files(&path) {
                return false;
            }
        } else if let Err(err) = std::fs::remove_file(&path) {
            tracing::error!("Couldn't remove {}: {err}", path.display());
            return false;
        }
    }
    true
}
