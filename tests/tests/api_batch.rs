//! brine-api's `local_batch`, as a real salt-api 3007.8 answered it
//! (`tests/recorded/api/batch.salt.json`, recorded by `record_batch.py`
//! with three minions): the target pinged, the job run a batch at a time
//! (`batch` a count, a share, or Salt's default 10%), each minion's
//! return its own `{id: return}` in the list of answers — flattened with
//! the other chunks' — in the order they came, a minion that did not
//! answer the ping left out; a size that is not one is a 500 with Salt's
//! JSON body; the caller's permissions hold. Here: web1 up, db1 down.

use brine_tests::daemon::{free_port, MasterConf};
use brine_tests::http::{request, Answer};
use serde_json::{json, Value as Json};
use std::net::SocketAddr;

fn post(addr: SocketAddr, token: &str, accept: &str, body: Json) -> Answer {
    request(
        addr,
        "POST",
        "/",
        &[
            ("Content-Type", "application/json"),
            ("Accept", accept),
            ("X-Auth-Token", token),
        ],
        body.to_string().as_bytes(),
    )
    .expect("request")
}

fn login(addr: SocketAddr, user: &str) -> String {
    let r = request(
        addr,
        "POST",
        "/login",
        &[("Content-Type", "application/json")],
        json!({"username": user, "password": "x", "eauth": "auto"})
            .to_string()
            .as_bytes(),
    )
    .expect("login");
    r.json()["return"][0]["token"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn local_batch_answers_as_salt_api() {
    let port = free_port();
    let conf = MasterConf::new(&format!(
        "external_auth:\n  auto:\n    admin: ['.*', '@runner', '@wheel', '@jobs']\n    limited: ['test.*']\n\
         netapi_enable_clients: [local, local_batch, runner]\n\
         rest_cherrypy: {{port: {port}, host: 127.0.0.1, disable_ssl: True}}\n"
    ));
    let _master = conf.start();
    conf.add_down_minion("db1");
    conf.write_minion_conf("web1", "");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let _api = conf.start_api(port);
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let (admin, limited) = (login(addr, "admin"), login(addr, "limited"));
    let json_of = |token: &str, body: Json| {
        let r = post(addr, token, "application/json", body);
        (r.status, r.json())
    };
    let one = json!({"return": [{"web1": true}]});

    for batch in [json!("1"), json!("50%"), json!(2)] {
        let chunk =
            json!([{"client": "local_batch", "tgt": "web*", "fun": "test.ping", "batch": batch}]);
        assert_eq!(json_of(&admin, chunk), (200, one.clone()), "batch {batch}");
    }
    // Salt's default size, 10%.
    let (s, j) = json_of(
        &admin,
        json!([{"client": "local_batch", "tgt": "web1", "fun": "test.ping"}]),
    );
    assert_eq!((s, j), (200, one.clone()));
    // Each batch is its own job, published to a list.
    let (_, j) = json_of(
        &admin,
        json!([{"client": "local_batch", "tgt": "web*", "fun": "test.arg", "arg": ["a"],
                "kwarg": {"k": "v"}, "batch": "1"}]),
    );
    let w = &j["return"][0]["web1"];
    assert_eq!(w["args"], json!(["a"]), "{j}");
    assert_eq!(w["kwargs"]["k"], "v");
    assert_eq!(w["kwargs"]["__pub_tgt"], json!(["web1"]));
    assert_eq!(w["kwargs"]["__pub_tgt_type"], "list");
    assert_eq!(w["kwargs"]["__pub_user"], "admin");
    // A size that is not one: Salt's 500, as data.
    let (s, j) = json_of(
        &admin,
        json!([{"client": "local_batch", "tgt": "*", "fun": "test.ping", "batch": "x"}]),
    );
    assert_eq!(
        (s, j),
        (
            500,
            json!({"return": "An unexpected error occurred", "status": 500})
        )
    );
    // Permissions hold.
    let r = post(
        addr,
        &limited,
        "application/json",
        json!([{"client": "local_batch", "tgt": "*", "fun": "cmd.run", "arg": ["id"], "batch": "1"}]),
    );
    assert_eq!(r.status, 401);
    assert_eq!(
        r.page_message().as_deref(),
        Some("Authorization error occurred.")
    );
    assert_eq!(
        json_of(
            &limited,
            json!([{"client": "local_batch", "tgt": "web1", "fun": "test.ping", "batch": "1"}])
        ),
        (200, one.clone())
    );
    // Nothing matched; an unknown id in a list left out.
    assert_eq!(
        json_of(
            &admin,
            json!([{"client": "local_batch", "tgt": "nosuch*", "fun": "test.ping", "batch": "1"}])
        ),
        (200, json!({"return": []}))
    );
    assert_eq!(
        json_of(
            &admin,
            json!([{"client": "local_batch", "tgt": "web1,ghost", "tgt_type": "list",
                    "fun": "test.ping", "batch": "1"}])
        ),
        (200, one.clone())
    );
    // YAML, and a second chunk's answer after the batch's.
    let r = post(
        addr,
        &admin,
        "application/x-yaml",
        json!([{"client": "local_batch", "tgt": "web1", "fun": "test.ping", "batch": "1"}]),
    );
    assert_eq!(
        (r.status, r.body.as_str()),
        (200, "return:\n- web1: true\n")
    );
    assert_eq!(
        json_of(
            &admin,
            json!([{"client": "local_batch", "tgt": "web*", "fun": "test.ping", "batch": "1"},
                   {"client": "local", "tgt": "web*", "fun": "test.ping"}])
        ),
        (200, json!({"return": [{"web1": true}, {"web1": true}]}))
    );
    // db1 is down: left out.
    assert_eq!(
        json_of(
            &admin,
            json!([{"client": "local_batch", "tgt": "*", "fun": "test.ping", "batch": "1",
                    "timeout": 3}])
        ),
        (200, one)
    );
}
