//! `brine-master [-c CONFDIR]`: the master daemon (Salt's salt-master).
//! Reads CONFDIR/master (default /etc/brine), creates its key pair and root
//! token on first start, serves minions and the CLI until SIGTERM/SIGINT.

use brine_master::daemon::config::tracing_level;
use brine_master::daemon::{server, Bound, Master, MasterConfig};
use std::path::PathBuf;
use std::sync::Arc;

const USAGE: &str = "usage: brine-master [-c CONFIG_DIR] [-l LOG_LEVEL]\n\n\
  -c, --config-dir DIR   folder holding the 'master' config file (default /etc/brine)\n\
  -l, --log-level LEVEL  overrides log_level: quiet, error, warning, info, debug, trace\n";

struct Args {
    config_dir: PathBuf,
    log_level: Option<String>,
}

fn parse(argv: &[String]) -> Result<Option<Args>, String> {
    let mut args = Args {
        config_dir: PathBuf::from("/etc/brine"),
        log_level: None,
    };
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag {
            "-h" | "--help" => return Ok(None),
            "-c" | "--config-dir" => args.config_dir = PathBuf::from(value(flag)?),
            "-l" | "--log-level" => args.log_level = Some(value(flag)?),
            // salt-master's -d (daemonize): systemd runs us in the foreground.
            "-d" | "--daemon" => {}
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(Some(args))
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse(&argv) {
        Ok(Some(a)) => a,
        Ok(None) => {
            print!("{USAGE}");
            return;
        }
        Err(e) => {
            eprint!("brine-master: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let (config, warnings) = match MasterConfig::load(&args.config_dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("brine-master: {e}");
            std::process::exit(1);
        }
    };
    let level = args.log_level.as_deref().unwrap_or(&config.log_level);
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(tracing_level(level)));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    for w in warnings {
        tracing::warn!("{w}");
    }
    if let Err(e) = run(config) {
        tracing::error!("{e}");
        eprintln!("brine-master: {e}");
        std::process::exit(1);
    }
}

fn run(config: MasterConfig) -> Result<(), brine_master::daemon::DaemonError> {
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

    #[test]
    fn options() {
        let a = parse(&["-c".into(), "/x".into(), "--log-level=debug".into()])
            .unwrap()
            .unwrap();
        assert_eq!(a.config_dir, PathBuf::from("/x"));
        assert_eq!(a.log_level.as_deref(), Some("debug"));
        assert!(parse(&["-h".into()]).unwrap().is_none());
        assert!(parse(&["-c".into()]).is_err());
        assert!(parse(&["--bogus".into()]).is_err());
    }
}
