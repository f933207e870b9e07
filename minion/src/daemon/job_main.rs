//! What runs in a job's own process (`brine-minion --job-process`, see
//! [`super::job_process`]): the identity joins the master with the
//! daemon's parts — its key from `pki_dir`, the master key and admission
//! the daemon holds, so no new authentication unless the master asks for
//! one — runs the published function with the master as its compile
//! source and file server, and hands the return over itself: sent, or
//! queued in the identity's `pending_returns` for the daemon (this one or
//! the next) to resend. Signals from the daemon reach the job's commands
//! and stop it as they would in the daemon.

use super::config::DaemonConfig;
use super::job_process::{Handoff, Report, FLAG};
use super::jobs::{self, Outcome};
use super::running::RunningTable;
use super::session::{connect, Process};
use super::{auth, returns, Admission, Standing};
use brine_host::jobs::{Jobs, RunningJobs};
use brine_runtime::context::{CompileSource, Minion};
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

/// The job process's whole life; its exit code.
pub fn main() -> i32 {
    let mut stdin = std::io::stdin();
    let handoff = match Handoff::read(&mut stdin) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("brine-minion {FLAG}: {e}");
            return 2;
        }
    };
    crate::logging::init_job_process(None, &handoff.opts);
    // Signals from the daemon, until it closes the pipe (or dies: the job
    // goes on).
    let table = Arc::new(RunningTable::default());
    let (signalled, jid) = (table.clone(), handoff.publ.jid.clone());
    std::thread::spawn(move || {
        let mut sig = [0u8; 4];
        while stdin.read_exact(&mut sig).is_ok() {
            signalled.signal(&jid, i32::from_be_bytes(sig));
        }
    });
    let report = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(8)
        .build()
    {
        Ok(rt) => {
            let r = rt.block_on(run(handoff, table));
            rt.shutdown_timeout(Duration::from_millis(200));
            r
        }
        Err(e) => not_run(format!("cannot start the async runtime: {e}")),
    };
    // The daemon may be gone: nobody reads this then, and that is fine.
    if let Ok(bytes) = rmp_serde::to_vec_named(&report) {
        let mut out = std::io::stdout();
        let _ = out.write_all(&bytes);
        let _ = out.flush();
    }
    0
}

fn not_run(why: String) -> Report {
    Report {
        handed: None,
        grains: None,
        not_run: Some(why),
    }
}

async fn run(h: Handoff, table: Arc<RunningTable>) -> Report {
    let id = brine_compile::opts::get_str(&h.opts, "id")
        .unwrap_or_default()
        .to_string();
    let base = Minion {
        id,
        opts: Arc::new(h.opts),
        grains: Arc::new(h.grains),
        pillar: Arc::new(h.pillar),
        source: CompileSource::Local,
        functions: brine_runtime::modules::functions(),
        jobs: Jobs::default(),
        registry: None,
        schedule: None,
        master: Default::default(),
        key_finger: Some(super::keys::finger),
    };
    let config = match DaemonConfig::from_minion(&base) {
        Ok(c) => c,
        Err(e) => return not_run(e.to_string()),
    };
    let (fatal, _refused) = tokio::sync::mpsc::channel(1);
    let process = Process::single(config, base, fatal);
    let shared = match connect(&process, h.ret_addr, &h.queue) {
        Ok(s) => s,
        Err(e) => return not_run(e.to_string()),
    };
    let Some(ident) = shared.identities.first().cloned() else {
        return not_run("no identity".into());
    };
    // Where the daemon stands with the master, taken over.
    let admission = Admission {
        instance: h.instance,
        request_key: h.request_key,
    };
    if let Err(e) = auth::admit(&shared, &ident, h.master, admission) {
        return not_run(e.to_string());
    }
    ident.standing.send_replace(Standing::Ready);
    // The master may ask for a new authentication (it restarted while the
    // job ran): this process answers as the daemon would.
    let (s, i) = (shared.clone(), ident.clone());
    tokio::spawn(async move {
        loop {
            i.client.auth.reauth.notified().await;
            if !auth::authenticate(&s, &i).await {
                return;
            }
        }
    });
    let publ = h.publ;
    let data = jobs::proc_data(&publ, h.scheduled.as_ref().map(|s| s.name.as_str()));
    let Some(cancel) = table.start(&publ.jid, data) else {
        return not_run("no room in the job table".into());
    };
    let mut m = (*ident.snapshot()).clone();
    // The daemon's schedule is not this process's: schedule.* stay there.
    m.schedule = None;
    m.jobs = Jobs::new(table.clone(), Some(publ.jid.clone()))
        .with_cachedir(&brine_compile::opts::cachedir(&m.opts));
    let args = jobs::published_args(&publ, h.pillar_part);
    let fun = publ.fun.clone();
    let task = tokio::task::spawn_blocking(move || jobs::call_noting_grains(&mut m, &fun, args));
    let (outcome, grains) = tokio::select! {
        biased;
        _ = cancel.notified() => {
            tracing::info!("{}: job {} ({}) was stopped", ident.id(), publ.jid, publ.fun);
            return Report { handed: None, grains: None, not_run: None };
        }
        r = task => match r {
            Ok((r, grains)) => (Outcome::Done(r), grains),
            Err(e) => (Outcome::Crashed(e.to_string()), None),
        },
    };
    table.finish(&publ.jid);
    let handed = match jobs::the_return(&publ, ident.id(), outcome, h.scheduled.as_ref()) {
        Some(ret) => Some(returns::send_or_queue(&ident, ret).await),
        None => None,
    };
    Report {
        handed,
        grains: grains.map(Arc::unwrap_or_clone),
        not_run: None,
    }
}
