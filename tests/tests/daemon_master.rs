//! brine-master end to end, driven by scripted minions that speak the wire
//! protocol message by message (signed requests, sealed returns, verified
//! publications), and the real CLIs (`brine`, `brine-key`, `brine-run`).

use brine_core::Value;
use brine_protocol::messages::{AuthStatus, ErrorCode};
use brine_tests::daemon::{accept, json_out, write_tree, MasterConf, ScriptedMinion};
use serde_json::json;
use std::io::Write;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

fn pillar_tree(conf: &MasterConf) -> String {
    let pr = conf.dir.path().join("pillar");
    write_tree(
        &pr,
        &[
            (
                "base/top.sls",
                "base:\n  '*':\n    - common\n  'web*':\n    - web\n",
            ),
            ("base/common.sls", "owner: {{ grains['id'] }}\n"),
            ("base/web.sls", "role: web\n"),
            ("testing/top.sls", "testing:\n  '*':\n    - t\n"),
            ("testing/t.sls", "env: testing\n"),
        ],
    );
    format!(
        "pillar_roots:\n  base: [{}]\n  testing: [{}]\n",
        pr.join("base").display(),
        pr.join("testing").display()
    )
}

#[test]
fn accept_flow_then_ping_and_the_job_cache() {
    let conf = MasterConf::new("");
    let _master = conf.start();
    let web1 = ScriptedMinion::new("web1", &conf, json!({"os": "Debian"}));
    // Pending until brine-key accepts it; it retries, as minions do.
    assert_eq!(web1.auth(), AuthStatus::Pending);
    assert_eq!(web1.auth(), AuthStatus::Pending);
    let listed = conf.cli("brine-key", &["-L", "--out", "json"]);
    assert_eq!(json_out(&listed)["minions_pre"], json!(["web1"]));
    accept(&conf, "web1");
    assert_eq!(web1.auth(), AuthStatus::Accepted);

    let mut sub = web1.subscribe(conf.publish_addr());
    let cli = conf.spawn_cli("brine", &["--out", "json", "-t", "10", "*", "test.ping"]);
    let (publication, secret) = sub.next(WAIT).expect("publication");
    assert_eq!(publication.fun, "test.ping");
    assert_eq!(publication.tgt, Value::from("*"));
    assert!(secret.is_none());
    web1.send_return(&publication.jid, "test.ping", Value::Bool(true))
        .expect("return acked");
    let out = cli.wait_with_output().expect("brine");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(json_out(&out), json!({"web1": true}));

    let jobs = json_out(&conf.cli("brine-run", &["--out", "json", "jobs.list_jobs"]));
    let job = &jobs[&publication.jid];
    assert_eq!(job["Function"], json!("test.ping"));
    assert_eq!(job["Target"], json!("*"));
    assert_eq!(job["Target-type"], json!("glob"));
    assert_eq!(job["User"], json!("root"));
    assert_eq!(job["Arguments"], json!([]));
    let found = conf.cli(
        "brine-run",
        &["--out", "json", "jobs.lookup_jid", &publication.jid],
    );
    assert_eq!(json_out(&found), json!({"web1": true}));
    // The default (nested) output, as salt-run prints it.
    let found = conf.cli("brine-run", &["jobs.lookup_jid", &publication.jid]);
    assert_eq!(String::from_utf8_lossy(&found.stdout), "web1:\n    True\n");
}

#[test]
fn unaccepted_and_rejected_minions_get_no_job_and_no_pillar() {
    let conf = MasterConf::new("");
    let _ = std::fs::create_dir_all(conf.conf_dir());
    let extra = pillar_tree(&conf);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(conf.conf_dir().join("master"))
        .expect("config");
    f.write_all(extra.as_bytes()).expect("append");
    let _master = conf.start();
    let web1 = ScriptedMinion::new("web1", &conf, json!({}));
    let web2 = ScriptedMinion::new("web2", &conf, json!({}));
    let pend = ScriptedMinion::new("web3", &conf, json!({}));
    for m in [&web1, &web2, &pend] {
        assert_eq!(m.auth(), AuthStatus::Pending);
    }
    accept(&conf, "web1");
    accept(&conf, "web2");
    // Salt's -r takes pending keys only unless told to include accepted.
    let out = conf.cli("brine-key", &["-r", "web2", "--include-accepted", "-y"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(web1.auth(), AuthStatus::Accepted);
    assert_eq!(web2.auth(), AuthStatus::Rejected);

    // Pillar: only for the accepted minion, only its own.
    // No pillarenv: every environment's top (Salt's merge of all).
    let p = web1.pillar_of("web1", None).expect("own pillar");
    assert_eq!(
        p.to_json(),
        json!({"owner": "web1", "role": "web", "env": "testing"})
    );
    let p = web1.pillar_of("web1", Some("testing")).expect("own pillar");
    assert_eq!(p.to_json(), json!({"env": "testing"}));
    assert_eq!(pend.pillar_of("web3", None), Err(ErrorCode::NotAccepted));
    assert_eq!(web2.pillar_of("web2", None), Err(ErrorCode::NotAccepted));
    assert_eq!(pend.pillar_of("web1", None), Err(ErrorCode::Unauthorized));
    assert_eq!(web2.pillar_of("web1", None), Err(ErrorCode::Unauthorized));

    // Jobs: only web1 is expected; the others' returns are refused.
    let mut sub = web1.subscribe(conf.publish_addr());
    let cli = conf.spawn_cli("brine", &["--out", "json", "-t", "10", "web*", "test.ping"]);
    let (publication, _) = sub.next(WAIT).expect("publication");
    assert_eq!(
        web2.send_return(&publication.jid, "test.ping", Value::Bool(true)),
        Err(ErrorCode::NotAccepted)
    );
    assert_eq!(
        pend.send_return(&publication.jid, "test.ping", Value::Bool(true)),
        Err(ErrorCode::NotAccepted)
    );
    web1.send_return(&publication.jid, "test.ping", Value::Bool(true))
        .expect("acked");
    let out = cli.wait_with_output().expect("brine");
    assert_eq!(json_out(&out), json!({"web1": true}));
    let found = conf.cli(
        "brine-run",
        &[
            "--out",
            "json",
            "jobs.lookup_jid",
            &publication.jid,
            "missing=True",
        ],
    );
    assert_eq!(json_out(&found), json!({"web1": true}));
}

#[test]
fn pillar_kwarg_is_sealed_to_matched_minions_only_and_missing_minions_are_named() {
    let conf = MasterConf::new("");
    let _master = conf.start();
    let debian = ScriptedMinion::new("deb1", &conf, json!({"os": "Debian"}));
    let arch = ScriptedMinion::new("arch1", &conf, json!({"os": "Arch"}));
    let quiet = ScriptedMinion::new("deb2", &conf, json!({"os": "Debian"}));
    for m in [&debian, &arch, &quiet] {
        m.auth();
        accept(&conf, &m.id);
        assert_eq!(m.auth(), AuthStatus::Accepted);
    }
    let mut sub_deb = debian.subscribe(conf.publish_addr());
    let mut sub_arch = arch.subscribe(conf.publish_addr());
    let cli = conf.spawn_cli(
        "brine",
        &[
            "-G",
            "-t",
            "3",
            "os:Debian",
            "test.echo",
            "hi",
            r#"pillar={"secret": "s3cr3t"}"#,
        ],
    );
    let (p, secret) = sub_deb.next(WAIT).expect("publication");
    assert_eq!(p.tgt_type, "grain");
    assert_eq!(p.arg, vec![Value::from("hi")]);
    assert!(!p.kwarg.contains_key("pillar"));
    assert_eq!(
        secret.map(|s| s.to_json()),
        Some(json!({"secret": "s3cr3t"}))
    );
    let mut parts: Vec<_> = p.secrets.keys().cloned().collect();
    parts.sort();
    assert_eq!(parts, vec!["deb1", "deb2"]);
    // arch1 sees the publication (it is a broadcast) but has no secret.
    let (pa, secret) = sub_arch.next(WAIT).expect("publication");
    assert_eq!(pa.jid, p.jid);
    assert!(secret.is_none());
    debian
        .send_return(&p.jid, "test.echo", Value::from("hi"))
        .expect("acked");
    // deb2 never answers: named, Salt's no_return text, exit 1.
    let out = cli.wait_with_output().expect("brine");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("deb1:\n    hi\ndeb2:\n    Minion did not return. [No response]\n"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ERROR: Minions returned with non-zero exit code"),
        "{stderr}"
    );
    // The job cache keeps the pillar= argument (like Salt's), for root only.
    let jobs = json_out(&conf.cli("brine-run", &["--out", "json", "jobs.list_jobs"]));
    assert_eq!(
        jobs[&p.jid]["Arguments"],
        json!(["hi", {"__kwarg__": true, "pillar": {"secret": "s3cr3t"}}])
    );
}

#[test]
fn garbage_leaves_the_master_serving() {
    use std::io::Read;
    let conf = MasterConf::new("max_message_size: 65536\n");
    let _master = conf.start();
    // Raw TCP junk, a bad greeting, a huge declared frame.
    let greeting = {
        let mut g = [0u8; 64];
        g[0] = 0xff;
        g[9] = 0x7f;
        g[10] = 3;
        g[12..16].copy_from_slice(b"NULL");
        g
    };
    let mut huge = greeting.to_vec();
    huge.push(0x02);
    huge.extend_from_slice(&(1u64 << 40).to_be_bytes());
    let mut over = greeting.to_vec();
    over.push(0x02);
    over.extend_from_slice(&(200_000u64).to_be_bytes());
    over.extend(std::iter::repeat_n(0u8, 1000));
    for junk in [
        b"GET / HTTP/1.0\r\n\r\n".to_vec(),
        vec![0u8; 10_000],
        huge,
        over,
    ] {
        if let Ok(mut s) = std::net::TcpStream::connect(conf.ret_addr()) {
            let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
            let _ = s.write_all(&junk);
            let mut buf = [0u8; 256];
            let _ = s.read(&mut buf);
        }
    }
    // Well-framed ZeroMQ messages that are not valid requests.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("rt");
    rt.block_on(async {
        let limits = brine_protocol::transport::Limits::default();
        let mut d = brine_protocol::transport::connect_dealer(conf.ret_addr(), &limits)
            .await
            .expect("dealer");
        // Let the connection finish its handshake before sending.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let kp = brine_protocol::crypto::KeyPair::generate().expect("keys");
        let signed_junk =
            rmp_serde::to_vec_named(&kp.sign(b"\x81\xa1v\x07".to_vec())).expect("enc");
        for frame in [b"not msgpack".to_vec(), vec![0x91; 3000], signed_junk] {
            let _ = brine_protocol::transport::send_frame(&mut d.socket, frame, &limits).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        // Over max_message_size: the frame guard cuts this connection.
        let mut big = brine_protocol::transport::connect_dealer(conf.ret_addr(), &limits)
            .await
            .expect("dealer");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let _ = brine_protocol::transport::send_frame(&mut big.socket, vec![0u8; 70_000], &limits)
            .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    });
    // Still serving.
    let m = ScriptedMinion::new("web1", &conf, json!({}));
    assert_eq!(m.auth(), AuthStatus::Pending);
    let log = conf.log();
    assert!(log.contains("dropped a request"), "{log}");
}

#[test]
fn master_restart_mid_job_loses_no_return() {
    let conf = MasterConf::new("");
    let mut master = conf.start();
    let web1 = ScriptedMinion::new("web1", &conf, json!({}));
    web1.auth();
    accept(&conf, "web1");
    assert_eq!(web1.auth(), AuthStatus::Accepted);
    let mut sub = web1.subscribe(conf.publish_addr());
    let out = conf.cli("brine", &["--async", "*", "test.sleep", "1"]);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let jid = text
        .trim()
        .strip_prefix("Executed command with job ID: ")
        .unwrap_or_else(|| panic!("{text}"))
        .to_string();
    let (p, _) = sub.next(WAIT).expect("publication");
    assert_eq!(p.jid, jid);
    // The master goes away while the job runs; the return waits on the
    // minion and is sent once the master is back.
    let status = master.stop().expect("stopped");
    assert!(status.success(), "clean shutdown: {status:?}");
    let master = conf.start();
    // The new run asks the minion to authenticate again (its requests
    // name the earlier run); then it takes the return.
    assert_eq!(
        web1.send_return(&jid, "test.sleep", Value::Bool(true)),
        Err(ErrorCode::NotAccepted)
    );
    assert_eq!(web1.auth(), AuthStatus::Accepted);
    web1.send_return(&jid, "test.sleep", Value::Bool(true))
        .expect("acked after restart");
    // Sent twice (ack lost): kept once.
    web1.send_return(&jid, "test.sleep", Value::Bool(false))
        .expect("acked again");
    let found = conf.cli("brine-run", &["--out", "json", "jobs.lookup_jid", &jid]);
    assert_eq!(json_out(&found), json!({"web1": true}));
    drop(master);
}

/// A minion that returned and one that did not, printed as a real
/// salt-master/salt-minion pair prints them (../shared/conformance/cli,
/// cases 01, 02, 03 and 07): `--out json` is one document per minion, the
/// silent one last; `--out yaml` writes its message as a YAML string;
/// `--static` leaves it out and exits 0; otherwise stderr says "Minions
/// returned with non-zero exit code" and the exit code is 1.
#[test]
fn a_minion_that_did_not_return_is_printed_as_salt_prints_it() {
    let conf = MasterConf::new("");
    let _master = conf.start();
    conf.write_minion_conf("web1", "");
    let _minion = conf.start_minion(&[]);
    conf.accept_and_ping("web1");
    // db1: accepted, never answers.
    let db1 = ScriptedMinion::new("db1", &conf, json!({}));
    db1.auth();
    accept(&conf, "db1");
    assert_eq!(db1.auth(), AuthStatus::Accepted);

    // The four runs at once: each waits out the silent minion.
    let spawn = |args: &[&str]| {
        let mut all = vec!["-t", "1"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["*", "test.ping"]);
        conf.spawn_cli("brine", &all)
    };
    let runs = [
        spawn(&["--out", "json"]),
        spawn(&["--out", "yaml"]),
        spawn(&["--static", "--out", "json"]),
        spawn(&[]),
    ];
    let mut outs = runs.into_iter().map(|c| {
        let out = c.wait_with_output().expect("brine");
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code(),
        )
    });
    let mut run = |_: &[&str]| outs.next().expect("a run");
    let message = "Minion did not return. [No response]\\nThe minions may not have all finished \
                   running and any remaining minions will return upon completion. To look up \
                   the return data for this job later, run the following command:\\n\\n\
                   brine-run jobs.lookup_jid ";

    let (stdout, stderr, code) = run(&["--out", "json"]);
    assert!(
        stdout.starts_with(&format!(
            "{{\n    \"web1\": true\n}}\n{{\n    \"db1\": \"{message}"
        )),
        "{stdout}"
    );
    assert!(stdout.ends_with("\"\n}\n"), "{stdout}");
    assert_eq!(
        stderr.trim(),
        "ERROR: Minions returned with non-zero exit code"
    );
    assert_eq!(code, Some(1));

    let (stdout, _, code) = run(&["--out", "yaml"]);
    assert!(
        stdout.starts_with(
            "web1: true\ndb1: 'Minion did not return. [No response]\n\n  The minions may not"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n\n\n  brine-run jobs.lookup_jid "),
        "{stdout}"
    );
    assert_eq!(code, Some(1));

    let (stdout, stderr, code) = run(&["--static", "--out", "json"]);
    assert_eq!(stdout, "{\n    \"web1\": true\n}\n");
    assert_eq!(stderr, "");
    assert_eq!(code, Some(0));

    let (stdout, stderr, code) = run(&[]);
    assert!(
        stdout.starts_with("web1:\n    True\ndb1:\n    Minion did not return."),
        "{stdout}"
    );
    assert_eq!(
        stderr.trim(),
        "ERROR: Minions returned with non-zero exit code"
    );
    assert_eq!(code, Some(1));
}
