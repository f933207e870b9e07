//! `brine-api [-c CONFDIR]`: salt-api's REST interface (`rest_cherrypy`)
//! for the master configured in CONFDIR/master, run as the master's user
//! on the master's host.

use brine_cli::start::DaemonStart;
use brine_compile::opts;
use brine_master::api::config::ApiConfig;
use brine_master::api::context::ApiContext;
use brine_master::api::{listen, server};
use brine_master::daemon::MasterConfig;
use std::sync::Arc;

fn command() -> brine_cli::Command {
    brine_cli::Command {
        name: "brine-api",
        usage: "[options]",
        about: "salt-api's REST interface (rest_cherrypy) for the brine master; runs in the \
                foreground unless -d.",
        options: brine_cli::start::OPTIONS.to_vec(),
    }
}

fn parse(m: brine_cli::Matches) -> Result<DaemonStart, brine_cli::CliError> {
    DaemonStart::from_matches(&m)
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
        // salt-api's own names for its log file and pid file.
        let key = match *key {
            "log_file" => "api_logfile",
            "pidfile" => "api_pidfile",
            k => k,
        };
        master
            .opts
            .insert(key.into(), brine_core::Value::Str(value.clone()));
    }
    let cfg = match ApiConfig::from_master(master) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("brine-api: {e}");
            std::process::exit(1);
        }
    };
    let o = &cfg.master.opts;
    // salt-api logs to `api_logfile` (`log_file` is the master's) and
    // writes `api_pidfile`.
    let started = args.begin(
        |k| opts::text_of(o, if k == "log_file" { "api_logfile" } else { k }),
        &opts::rooted(
            o,
            opts::get_str(o, "api_pidfile").unwrap_or("/var/run/brine-api.pid"),
        ),
        opts::rooted(o, "/var/log/brine/api"),
    );
    if let Err(e) = started {
        eprintln!("brine-api: {e}");
        std::process::exit(1);
    }
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
