//! `brine-api [-c CONFDIR]`: salt-api's REST interface (`rest_cherrypy`)
//! for the master configured in CONFDIR/master, run as the master's user
//! on the master's host.

use brine_compile::opts;
use brine_master::api::config::ApiConfig;
use brine_master::api::context::ApiContext;
use brine_master::api::{listen, server};
use brine_master::daemon::MasterConfig;
use std::path::PathBuf;
use std::sync::Arc;

struct Args {
    config_dir: PathBuf,
    log_level: Option<String>,
    daemon: bool,
    overrides: Vec<(&'static str, String)>,
}

fn command() -> brine_cli::Command {
    brine_cli::Command {
        name: "brine-api",
        usage: "[options]",
        about: "salt-api's REST interface (rest_cherrypy) for the brine master; runs in the \
                foreground unless -d.",
        options: vec![
            brine_cli::CONFIG_DIR,
            brine_cli::LOG_LEVEL,
            brine_cli::DAEMON,
            brine_cli::PID_FILE,
            brine_cli::LOG_FILE,
            brine_cli::LOG_FILE_LEVEL,
        ],
    }
}

fn parse(m: brine_cli::Matches) -> Result<Args, brine_cli::CliError> {
    if let Some(extra) = m.positionals.first() {
        return Err(brine_cli::CliError::Invalid(format!(
            "unexpected argument: {extra}"
        )));
    }
    Ok(Args {
        config_dir: PathBuf::from(m.value("config-dir").unwrap_or("/etc/brine")),
        log_level: m.value("log-level").map(str::to_string),
        daemon: m.flag("daemon"),
        overrides: brine_cli::DAEMON_OPTION_KEYS
            .iter()
            .filter_map(|(long, key)| m.value(long).map(|v| (*key, v.to_string())))
            .collect(),
    })
}

fn main() {
    let cmd = command();
    let args = parse(cmd.parse_or_exit(std::env::args_os().skip(1)))
        .unwrap_or_else(|e| cmd.exit_usage(&e));
    let (mut master, warnings) = match MasterConfig::load(&args.config_dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("brine-api: {e}");
            std::process::exit(1);
        }
    };
    for (key, value) in &args.overrides {
        master
            .opts
            .insert((*key).into(), brine_core::Value::Str(value.clone()));
    }
    let cfg = match ApiConfig::from_master(master) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("brine-api: {e}");
            std::process::exit(1);
        }
    };
    let o = &cfg.master.opts;
    // Salt's salt-api logs to `api_logfile`; `log_file` names the master's.
    let log_default = opts::rooted(o, "/var/log/brine/api");
    if args.daemon {
        let pidfile = opts::rooted(
            o,
            opts::get_str(o, "api_pidfile").unwrap_or("/var/run/brine-api.pid"),
        );
        if let Err(e) = brine_cli::daemonize::daemonize(&pidfile) {
            eprintln!("brine-api: {e}");
            std::process::exit(1);
        }
    }
    let mut log = brine_cli::logging::LogConfig::from_options(
        |k| {
            let key = if k == "log_file" { "api_logfile" } else { k };
            match o.get(key) {
                None | Some(brine_core::Value::Null) => None,
                Some(v) => Some(v.to_python_str()),
            }
        },
        args.log_level.as_deref(),
        log_default,
    );
    log.console = !args.daemon;
    brine_cli::logging::init(&log);
    for w in warnings {
        tracing::warn!("{w}");
    }
    let tls = match &cfg.tls {
        None => None,
        Some((crt, key)) => match listen::tls_config(crt, key) {
            Ok(t) => Some(t),
            Err(e) => {
                tracing::error!("{e}");
                eprintln!("brine-api: {e}");
                std::process::exit(1);
            }
        },
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    let addr = cfg.addr;
    let ctx = Arc::new(ApiContext::new(cfg));
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("brine-api: cannot start the runtime: {e}");
            std::process::exit(1);
        }
    };
    let code = rt.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => l,
            Err(e) => {
                tracing::error!("cannot listen on {addr}: {e}");
                eprintln!("brine-api: cannot listen on {addr}: {e}");
                return 1;
            }
        };
        tracing::info!("brine-api serving on {scheme}://{addr}");
        listen::serve(listener, server::router(ctx), tls, shutdown()).await;
        0
    });
    std::process::exit(code);
}

async fn shutdown() {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(mut t), Ok(mut i)) => {
            tokio::select! {
                _ = t.recv() => {}
                _ = i.recv() => {}
            }
        }
        _ => std::future::pending::<()>().await,
    }
}
