//! `brine-key`: manage the master's minion keys, like salt-key.
//! The logic lives in `brine_master::keys::cli`.

use brine_master::daemon::events::{client, tags, wire::Event};
use brine_master::daemon::MasterConfig;
use brine_master::keys::cli::KeyEvents;

/// Fires `salt/key` on the master's bus for each changed key (best effort:
/// a master that is not running has no bus).
#[derive(Default)]
struct Bus {
    sock_dir: Option<Option<std::path::PathBuf>>,
}

impl KeyEvents for Bus {
    fn changed(&mut self, config_dir: &std::path::Path, id: &str, act: &str) {
        let sock_dir = self
            .sock_dir
            .get_or_insert_with(|| MasterConfig::load(config_dir).ok().map(|(c, _)| c.sock_dir));
        let Some(dir) = sock_dir else { return };
        let (tag, data) = tags::key(id, act);
        let _ = client::fire(
            dir,
            &[Event {
                tag,
                data: brine_core::Value::Map(data),
            }],
        );
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let stdin = std::io::stdin();
    let mut stdin = stdin.lock();
    let mut stdout = std::io::stdout();
    let mut stderr = std::io::stderr();
    let code = brine_master::keys::cli::main_with(
        &argv,
        &mut brine_master::keys::cli::Io {
            stdin: &mut stdin,
            stdout: &mut stdout,
            stderr: &mut stderr,
            events: &mut Bus::default(),
        },
    );
    std::process::exit(code);
}
