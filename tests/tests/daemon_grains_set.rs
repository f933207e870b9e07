//! Grains written over the bus (`grains.setval`) are the running minion's
//! at once and are read back from the grains file when the minion starts
//! again (real master and minion on 127.0.0.1).

use brine_tests::daemon::MasterConf;
use serde_json::json;

#[test]
fn grains_set_over_the_bus_persist_across_a_restart() {
    let conf = MasterConf::new("");
    let _master = conf.start();
    conf.write_minion_conf("web1", "");
    let mut minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");

    let (set, _) = conf.call("web1", &["grains.setval", "role", "web"]);
    assert_eq!(set, json!({"role": "web"}));
    let (item, _) = conf.call("web1", &["grains.item", "role"]);
    assert_eq!(item, json!({"role": "web"}));
    assert!(conf.conf_dir().join("grains").is_file());

    minion.stop();
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let (got, _) = conf.call("web1", &["grains.get", "role"]);
    assert_eq!(got, json!("web"));
}
