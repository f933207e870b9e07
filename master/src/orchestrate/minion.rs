//! The master's own minion (Salt's `MasterMinion`): the minion defaults
//! under the master's options, `file_client: local` (it reads the
//! master's `file_roots` and `pillar_roots` itself), `__role: master`,
//! the master's id (`<host>_master`), this host's grains, and the pillar
//! the master's top file gives that id.

use super::calls::MasterLink;
use crate::daemon::MasterConfig;
use brine_core::Value;
use brine_runtime::context::{FreshPillar, MasterHandle, Minion};
use brine_runtime::modules;
use std::path::Path;
use std::sync::Arc;

/// The master minion of `config`, its `saltutil` functions reaching the
/// master through `side`, its pillar compiled when `with_pillar` (an
/// orchestration's always is; `salt.cmd`'s only when asked).
pub fn master_minion(config: &MasterConfig, side: Option<MasterLink>, with_pillar: bool) -> Minion {
    let mut opts = brine_compile::opts::minion_defaults();
    for (k, v) in &config.opts {
        opts.insert(k.clone(), v.clone());
    }
    opts.insert("file_client".into(), Value::from("local"));
    opts.insert("__role".into(), Value::from("master"));
    opts.insert("__cli".into(), Value::from("salt-run"));
    let conf = brine_compile::opts::get_str(&config.opts, "conf_file")
        .unwrap_or("/etc/brine/master")
        .to_string();
    let mut minion = Minion::from_opts(opts, Path::new(&conf), modules::functions());
    if let Some(side) = side {
        minion.master = MasterHandle(Some(Arc::new(side)));
    }
    if with_pillar {
        minion.pillar = Arc::new(minion.compile_pillar(&FreshPillar::default(), false));
    }
    minion
}
