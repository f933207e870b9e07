//! `brine-master [-c CONFDIR]`: the master daemon (Salt's salt-master).
//! Reads CONFDIR/master (default /etc/brine), creates its key pair and root
//! token on first start, serves minions and the CLI until SIGTERM/SIGINT.

use brine_cli::start::DaemonStart;
use brine_compile::opts;
use brine_master::daemon::{server, Bound, Master, MasterConfig};
use std::sync::Arc;

fn command() -> brine_cli::Command {
    brine_cli::Command {
        name: "brine-master",
        usage: "[options]",
        about: "The brine master daemon (Salt's salt-master); runs in the foreground unless -d.",
        options: [
            &brine_cli::start::OPTIONS[..],
            &[brine_cli::start::CHECK_SALT_CONFIG],
        ]
        .concat(),
    }
}

fn parse(m: brine_cli::Matches) -> Result<DaemonStart, brine_cli::CliError> {
    DaemonStart::from_matches(&m)
}

fn main() {
    let cmd = command();
    let args = parse(cmd.parse_or_exit(std::env::args_os().skip(1)))
        .unwrap_or_else(|e| cmd.exit_usage(&e));
    if let Some(path) = &args.check_salt_config {
        std::process::exit(brine_compile::config_check::main(path));
    }
    let (mut config, warnings) = match MasterConfig::load(&args.config_dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("brine-master: {e}");
            std::process::exit(1);
        }
    };
    for (key, value) in &args.overrides {
        config
            .opts
            .insert((*key).into(), brine_core::Value::Str(value.clone()));
    }
    let o = &config.opts;
    let started = args.begin(
        |k| opts::text_of(o, k),
        &opts::rooted(
            o,
            opts::get_str(o, "pidfile").unwrap_or("/var/run/brine-master.pid"),
        ),
        opts::rooted(o, "/var/log/brine/master"),
    );
    if let Err(e) = started {
        eprintln!("brine-master: {e}");
        std::process::exit(1);
    }
    for w in warnings {
        tracing::warn!("{w}");
    }
    // Salt's pre-flight: git_pillar's remotes are checked and fetched
    // before the master serves; a bad remote stops it.
    if brine_compile::git_remotes::pillar::enabled(&config.opts) {
        let fetched = brine_compile::git_remotes::pillar::GitPillar::from_opts(
            &config.opts,
            &config.cachedir,
        )
        .and_then(|g| g.update(None, None));
        if let Err(e) = fetched {
            tracing::error!("{e}");
            eprintln!("[CRITICAL] {e}\n[CRITICAL] Failed to load git_pillar\n[CRITICAL] Master failed pre flight checks, exiting");
            std::process::exit(1);
        }
    }
    if let Err(e) = run(config) {
        tracing::error!("{e}");
        eprintln!("brine-master: {e}");
        std::process::exit(1);
    }
}

fn run(config: MasterConfig) -> Result<(), brine_master::daemon::DaemonError> {
    // The master renders the same files for every minion: keep them
    // compiled (brine-call, rendering each once, does not).
    brine_compile::render::jinja::keep_compiled_templates(true);
    // The reactor listens on the event socket once the daemon opens it.
    let _reactor = brine_master::reactor::start(config.clone());
    let (master, queue) = Master::open(config)?;
    let master = Arc::new(master);
    tracing::info!(
        "master key fingerprint {}",
        master.key.public().fingerprint()
    );
    let rt = server::runtime()?;
    rt.block_on(async move {
        let bound = Bound::bind(&master).await?;
        server::serve(master, bound, queue, shutdown_signal()).await
    })
}

/// SIGTERM or SIGINT.
async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let term = signal(SignalKind::terminate());
    let int = signal(SignalKind::interrupt());
    match (term, int) {
        (Ok(mut t), Ok(mut i)) => {
            tokio::select! {
                _ = t.recv() => {}
                _ = i.recv() => {}
            }
        }
        _ => {
            // Without signal handlers, Ctrl-C still ends us the default way.
            std::future::pending::<()>().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn options() {
        let run = |argv: &[&str]| command().parse(argv.iter().copied());
        let Ok(brine_cli::Parsed::Run(m)) = run(&["-c", "/x", "--log-level=debug"]) else {
            panic!("not parsed")
        };
        let a = parse(m).unwrap();
        assert_eq!(a.config_dir, PathBuf::from("/x"));
        assert_eq!(a.log_level.as_deref(), Some("debug"));
        assert_eq!(run(&["-h"]), Ok(brine_cli::Parsed::Help));
        assert!(run(&["-c"]).is_err());
        assert!(run(&["--bogus"]).is_err());
    }
}
