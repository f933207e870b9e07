//! `brine-api` is hostile-input code: its bounds hold against a real
//! server on 127.0.0.1 — the body size (`max_request_body_size`), login
//! attempts per address, event streams and connections at once, tokens
//! that expire — and the master's own CLI is served meanwhile.

use brine_tests::daemon::{free_port, json_out, MasterConf};
use brine_tests::http::request;
use std::net::SocketAddr;
use std::time::Duration;

fn login(addr: SocketAddr, user: &str, password: &str, eauth: &str) -> brine_tests::http::Answer {
    let body = format!(r#"{{"username": "{user}", "password": "{password}", "eauth": "{eauth}"}}"#);
    request(
        addr,
        "POST",
        "/login",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
        ],
        body.as_bytes(),
    )
    .expect("login")
}

#[test]
fn bodies_logins_streams_and_tokens_are_bounded() {
    let port = free_port();
    let conf = MasterConf::new(&format!(
        "external_auth:\n  auto:\n    admin: ['.*']\n  sharedsecret:\n    ops: ['test.*']\n\
         sharedsecret: s3cret\ntoken_expire: 3\nmax_event_subscribers: 200\n\
         netapi_enable_clients: [local]\n\
         rest_cherrypy: {{port: {port}, host: 127.0.0.1, disable_ssl: True, \
         max_request_body_size: 4096}}\n"
    ));
    let _master = conf.start();
    conf.write_minion_conf("web1", "");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    let _api = conf.start_api(port);
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let token = login(addr, "admin", "x", "auto").json()["return"][0]["token"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(token.len(), 64);

    // A body past max_request_body_size is refused before it is read whole.
    let big = format!(
        r#"[{{"client": "local", "tgt": "*", "fun": "test.echo", "arg": ["{}"]}}]"#,
        "x".repeat(8192)
    );
    let r = request(
        addr,
        "POST",
        "/",
        &[
            ("Content-Type", "application/json"),
            ("X-Auth-Token", &token),
        ],
        big.as_bytes(),
    )
    .expect("big body");
    assert_eq!(r.status, 413, "{}", r.body);

    // Event streams: at most 64 at once; the next is refused, the CLI
    // still answers, and closing one makes room.
    let streams: Vec<std::net::TcpStream> = (0..64)
        .map(|_| {
            use std::io::Write;
            let mut s = std::net::TcpStream::connect(addr).expect("stream");
            write!(s, "GET /events?token={token} HTTP/1.1\r\nHost: x\r\n\r\n").expect("write");
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(1500));
    let r = request(addr, "GET", &format!("/events?token={token}"), &[], b"").expect("65th");
    assert_eq!(r.status, 503, "{}", r.body);
    let ping = conf.cli("brine", &["--out", "json", "web1", "test.ping"]);
    assert_eq!(json_out(&ping)["web1"], true);
    drop(streams);

    // Connections: at most 1,024 at once; idle ones (no request yet) take
    // them all, the next is closed unanswered, the CLI still answers, and
    // once they go a request is served again.
    let idle: Vec<std::net::TcpStream> = (0..1024)
        .map(|_| std::net::TcpStream::connect(addr).expect("idle connection"))
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let refused = request(addr, "GET", "/", &[], b"");
    assert!(refused.is_err(), "{refused:?}");
    let ping = conf.cli("brine", &["--out", "json", "web1", "test.ping"]);
    assert_eq!(json_out(&ping)["web1"], true);
    drop(idle);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        request(addr, "GET", "/", &[], b"").expect("served").status,
        200
    );

    // Logins: 30 a minute per address, then 429 (the right password too).
    let mut statuses = Vec::new();
    for _ in 0..31 {
        statuses.push(login(addr, "ops", "wrong", "sharedsecret").status);
    }
    assert!(statuses[..29].iter().all(|s| *s == 401), "{statuses:?}");
    assert_eq!(login(addr, "ops", "s3cret", "sharedsecret").status, 429);

    // token_expire: 3 — the token is refused once it has expired.
    std::thread::sleep(Duration::from_secs(3));
    let r = request(
        addr,
        "POST",
        "/",
        &[
            ("Content-Type", "application/json"),
            ("X-Auth-Token", &token),
        ],
        br#"[{"client": "local", "tgt": "*", "fun": "test.ping"}]"#,
    )
    .expect("expired");
    assert_eq!(r.status, 401, "{}", r.body);
}
