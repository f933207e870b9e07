//! `brine-call` through the master (salt-call on a minion host,
//! `file_client: remote`): this minion's identity joins its master for one
//! call with the daemon's own parts — its keys, authentication
//! ([`super::auth`]) and start-up pillar ([`super::pillar`]). The function
//! runs here with the master as its compile source, file server, mine and
//! event bus ([`super::remote`]); its return goes to the master, as
//! salt-call's does (the master fires `salt/job/<jid>/ret/<id>`). Nothing
//! is subscribed and no scheduler runs: a daemon of the same minion on this
//! host goes on as it was (the master's session key is one for all).

use super::config::{DaemonConfig, DaemonError};
use super::jobs::{self, Outcome};
use super::session::{connect, resolve, Process};
use super::{auth, pillar, returns};
use brine_core::args::CallArgs;
use brine_core::Value;
use brine_host::jobs::Jobs;
use brine_runtime::context::Minion;
use brine_runtime::modules::{CallError, Return};
use std::time::Duration;

/// Why the call could not reach the master.
#[derive(Debug, thiserror::Error)]
pub enum CallerError {
    #[error(transparent)]
    Config(#[from] DaemonError),
    /// Salt's words for a master that did not accept us in time.
    #[error(
        "Unable to sign_in to master: Attempt to authenticate with the salt master failed with \
         timeout error"
    )]
    SignIn,
    /// The master refused for good (its key changed, ...).
    #[error("{0}")]
    Refused(String),
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
}

/// How long the master has to accept us and hand the pillar over: Salt's
/// `auth_timeout` (5 s) times `auth_tries` (7).
fn sign_in_time(opts: &brine_core::Map) -> Duration {
    let secs = |k: &str, d: u64| match opts.get(k) {
        Some(Value::Int(i)) if *i > 0 => (*i as u64).min(3_600),
        _ => d,
    };
    Duration::from_secs(secs("auth_timeout", 5) * secs("auth_tries", 7))
}

/// Run `fun` with `args` as this minion, through its master, under `jid`
/// (`raw`: the arguments as typed, which salt-call's return carries).
pub fn call(
    base: Minion,
    fun: &str,
    args: CallArgs,
    raw: &[String],
    jid: &str,
) -> Result<Result<Return, CallError>, CallerError> {
    let config = DaemonConfig::from_minion(&base)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(8)
        .build()
        .map_err(CallerError::Runtime)?;
    let r = rt.block_on(joined_call(config, base, fun, args, raw, jid));
    rt.shutdown_timeout(Duration::from_millis(200));
    r
}

async fn joined_call(
    config: DaemonConfig,
    base: Minion,
    fun: &str,
    args: CallArgs,
    raw: &[String],
    jid: &str,
) -> Result<Result<Return, CallError>, CallerError> {
    let within = sign_in_time(&base.opts);
    let deadline = tokio::time::Instant::now() + within;
    let master = config.masters.first().cloned().unwrap_or_default();
    let ret_addr = tokio::time::timeout_at(deadline, resolve(&master, config.master_port))
        .await
        .map_err(|_| CallerError::SignIn)?;
    let (fatal, mut refused) = tokio::sync::mpsc::channel(1);
    let process = Process::single(config, base, fatal);
    let shared = connect(&process, ret_addr, returns::PENDING_DIR)?;
    let Some(ident) = shared.identities.first().cloned() else {
        return Err(CallerError::SignIn);
    };
    let join = async {
        loop {
            if !auth::authenticate(&shared, &ident).await {
                return false;
            }
            if pillar::initial(&shared, &ident).await {
                return true;
            }
        }
    };
    tokio::select! {
        ok = tokio::time::timeout_at(deadline, join) => {
            if !matches!(ok, Ok(true)) {
                return Err(match refused.try_recv() {
                    Ok((_, msg)) => CallerError::Refused(msg),
                    Err(_) => CallerError::SignIn,
                });
            }
        }
        Some((_, msg)) = refused.recv() => return Err(CallerError::Refused(msg)),
    }
    // The call runs on a blocking thread while this one drives the link.
    let snapshot = ident.snapshot();
    let cachedir = brine_compile::opts::cachedir(&snapshot.opts);
    let (fun_s, jid_s) = (fun.to_string(), jid.to_string());
    let call_args = args.clone();
    let argv = raw.to_vec();
    let ran = tokio::task::spawn_blocking(move || {
        let mut m = (*snapshot).clone();
        m.jobs = Jobs::call(jid_s).with_cachedir(&cachedir);
        // No schedule runs in brine-call: its schedule functions go to the
        // daemon, or to nobody.
        m.schedule = None;
        super::local_bus::call(&mut m, &fun_s, call_args, &argv)
    })
    .await;
    let outcome = match &ran {
        Ok(r) => Outcome::Done(r.clone()),
        Err(e) => Outcome::Crashed(e.to_string()),
    };
    // salt-call's return to the master (one try: the answer is printed
    // here whatever the master does with it).
    let publ = jobs::own_job(jid.to_string(), ident.id(), fun, args);
    let mut ret = jobs::job_return(&publ, ident.id(), outcome);
    ret.fun_args = raw.iter().map(|a| Value::Str(a.clone())).collect();
    ret.called = true;
    match tokio::time::timeout(Duration::from_secs(30), returns::send(&ident.client, &ret)).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!("the return of {fun} did not reach the master: {e}"),
        Err(_) => tracing::warn!("the return of {fun} did not reach the master in 30 s"),
    }
    Ok(ran.unwrap_or_else(|e| {
        Err(CallError::Failed(format!(
            "The minion function caused an exception: {e}"
        )))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_in_time_is_salts_auth_timeout_times_tries() {
        let mut opts = brine_core::Map::default();
        assert_eq!(sign_in_time(&opts), Duration::from_secs(35));
        opts.insert("auth_timeout".into(), Value::Int(2));
        opts.insert("auth_tries".into(), Value::Int(1));
        assert_eq!(sign_in_time(&opts), Duration::from_secs(2));
    }
}
