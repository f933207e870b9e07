//! Orchestration through a real brine-master and its minions on 127.0.0.1,
//! replaying what a real Salt 3007.8 master answered for the same
//! orchestrations (`tests/recorded/orch/`, see its README): every
//! `brine-run` step's exit code, and its output — `--out json` compared
//! as data, the default highstate text line by line — once times,
//! durations, pids, job ids and the order minions answered in are taken
//! out ([`brine_tests::orch`]). `jobs.lookup_jid` / `jobs.list_job` steps
//! ask for the orchestration brine ran in the step before.
//!
//! `BRINE_ORCH_ONLY=orch_ok` replays one scenario.

use brine_tests::daemon::json_docs;
use brine_tests::orch::{normalize_json, normalize_text, Fleet};
use brine_tests::recorded;
use serde_json::Value as Json;

/// Steps where brine answers otherwise than Salt, each with why.
const PARALLEL_BUG: &str = "Salt 3007.8's salt.parallel_runners fails every step with \
     TypeError: 'NoneType' object is not subscriptable (saltstack/salt#66022); brine's runs the \
     runners (tested apart, parallel_runners_run_each_runner)";

const SHOW_TOP: &str = "pillar.show_top is not a brine runner yet";

const GRAINS: &str = "a minion's whole grains are its host's (Salt's Python grains, CPU flags, \
     memory, the time they were read); the json steps compare which minions and the grains \
     their configs set";

const KNOWN: &[(&str, &str, &str)] = &[
    ("runners", "cache-grains-web1-text", GRAINS),
    ("runners", "cache-grains-glob-text", GRAINS),
    ("runners", "pillar-show-top-text", SHOW_TOP),
    ("runners", "pillar-show-top-json", SHOW_TOP),
    (
        "orch_show",
        "high-plain-text",
        "the progress event's pprint wraps a comment naming web2 and web1 in the order they \
         answered over several lines; high-plain-json compares the same data",
    ),
    ("orch_runner_wheel", "parallel-text", PARALLEL_BUG),
    ("orch_runner_wheel", "parallel-json", PARALLEL_BUG),
    (
        "orch_runner_wheel",
        "parallel-lookup-jid-json",
        PARALLEL_BUG,
    ),
    ("orch_runner_wheel", "parallel-list-job-json", PARALLEL_BUG),
    (
        "orch_ok",
        "jobs-list-jobs",
        "every job since the fleet came up, keyed by jid: the replay's own calls (its pings, its \
     jobs.list_jobs lookups) are jobs Salt's recording does not have",
    ),
];

/// The jids of the orchestrations in the job cache, oldest first.
fn orchestrations(fleet: &Fleet) -> Vec<String> {
    let out = fleet
        .conf
        .cli("brine-run", &["--out", "json", "jobs.list_jobs"]);
    let Ok(jobs) = json_docs(&out.stdout) else {
        return Vec::new();
    };
    let mut jids: Vec<String> = jobs
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, j)| {
            j["Function"]
                .as_str()
                .is_some_and(|f| f.starts_with("runner.state.orch") || f == "runner.state.sls")
        })
        .map(|(jid, _)| jid.clone())
        .collect();
    jids.sort();
    jids
}

/// Replay scenario `name` on a fleet of `ids` (`down`: stopped once up);
/// the differences found.
fn replay(name: &str, ids: &[&str], down: &[&str]) -> Vec<String> {
    let rec = recorded::load(&format!("orch/{name}.salt.json"));
    // A minion that does not answer costs each step `timeout` and then
    // `gather_job_timeout`: kept short where one is down.
    let waits = if down.is_empty() { 3 } else { 1 };
    let mut fleet = Fleet::start(&rec, ids, waits);
    for id in down {
        fleet.stop_minion(id);
    }
    let notes = rec["notes"].as_array().cloned().unwrap_or_default();
    let tmp = fleet.conf.dir.path().to_path_buf();
    let tmp_s = tmp.display().to_string();
    let mut failures = Vec::new();
    // The recorded orchestration jid → brine's, for the lookups after.
    let mut jids: Vec<(String, String)> = Vec::new();
    let steps = rec["steps"].as_array().expect("steps");
    for (i, step) in steps.iter().enumerate() {
        for note in notes
            .iter()
            .filter(|n| n["after_step"].as_u64() == Some(i as u64))
        {
            act_on(&mut fleet, &rec, note["note"].as_str().unwrap_or_default());
        }
        let label = step["label"].as_str().unwrap_or_default();
        let mut argv = recorded::argv(step, &tmp);
        if let Some(call) = wheel_api_call(&argv) {
            if let Some(d) = wheel_differs(&fleet, step, call, &tmp_s) {
                failures.push(format!("[{name} {i} {label}] {argv:?}: {d}"));
            }
            continue;
        }
        let tool = match argv.first().map(String::as_str) {
            Some("salt-run") => "brine-run",
            Some("salt") => "brine",
            Some("salt-key") => "brine-key",
            _ => continue,
        };
        for a in argv.iter_mut() {
            for (salt, ours) in &jids {
                if a == salt {
                    *a = ours.clone();
                }
            }
        }
        let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
        let orchestration = args
            .iter()
            .any(|a| a.starts_with("state.orch") || *a == "state.sls");
        let before = if orchestration {
            orchestrations(&fleet)
        } else {
            Vec::new()
        };
        let out = fleet.conf.cli(tool, &args);
        if orchestration {
            // The step's first new orchestration is its own (nested ones
            // it ran come after).
            let ours = orchestrations(&fleet)
                .into_iter()
                .find(|j| !before.contains(j));
            if let (Some(theirs), Some(ours)) = (rec["jids"][label]["runner_jid"][0].as_str(), ours)
            {
                jids.push((theirs.to_string(), ours));
            }
        }
        if let Some((_, _, why)) = KNOWN.iter().find(|(s, l, _)| *s == name && *l == label) {
            eprintln!("[{name} {i} {label}] not compared: {why}");
            continue;
        }
        let code = out.status.code().unwrap_or(-1);
        let want_code = step["code"].as_i64().unwrap_or(-2);
        let got_text = String::from_utf8_lossy(&out.stdout).into_owned();
        let want_text = step["stdout"]
            .as_str()
            .unwrap_or_default()
            .replace("@TMP@", &tmp_s);
        let mut diff = Vec::new();
        if i64::from(code) != want_code {
            diff.push(format!("exit code {code}, Salt's {want_code}"));
        }
        if args.starts_with(&["--out", "json"]) {
            match (
                json_docs(want_text.as_bytes()),
                json_docs(got_text.as_bytes()),
            ) {
                (Ok(w), Ok(g)) => {
                    let (w, g) = (normalize_json(&w, &tmp_s), normalize_json(&g, &tmp_s));
                    let (w, g) = if args.contains(&"cache.grains") {
                        (configured_grains(&w), configured_grains(&g))
                    } else {
                        (w, g)
                    };
                    if w != g {
                        diff.push(json_diff(&w, &g, "$"));
                    }
                }
                (Ok(_), Err(e)) => diff.push(format!("no json ({e}): {got_text}")),
                _ => {}
            }
        } else if !args.starts_with(&["--out"]) {
            let (w, g) = (
                normalize_text(&want_text, &tmp_s),
                normalize_text(&got_text, &tmp_s),
            );
            if w != g {
                diff.push(text_diff(&w, &g));
            }
        }
        if !diff.is_empty() {
            failures.push(format!(
                "[{name} {i} {label}] {argv:?}: {}\n  stderr: {}",
                diff.join("\n  "),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    if !failures.is_empty() {
        failures.push(format!("logs of {name}:\n{}", fleet.logs()));
    }
    failures
}

/// A recorded call of Salt's wheel through its Python API
/// (`wheel_api.py MASTER_CONFIG FUN KWARGS_JSON [full]`): the function,
/// its keyword arguments, and whether the full return was asked.
fn wheel_api_call(argv: &[String]) -> Option<(String, Json, bool)> {
    let script = argv
        .get(2)
        .filter(|a| argv[0] == "sh" && a.contains("wheel_api.py"))?;
    let words = shell_words::split(script).ok()?;
    let fun = words.get(3)?.clone();
    let kwargs = serde_json::from_str(words.get(4).map_or("{}", String::as_str)).ok()?;
    Some((fun, kwargs, words.get(5).is_some_and(|w| w == "full")))
}

/// brine's wheel (in this process, on the fleet's master config) against
/// the recorded answer: how they differ, if they do.
fn wheel_differs(
    fleet: &Fleet,
    step: &Json,
    call: (String, Json, bool),
    tmp: &str,
) -> Option<String> {
    let (fun, kwargs, full) = call;
    let (config, _) = brine_master::daemon::MasterConfig::load(&fleet.conf.conf_dir()).ok()?;
    let kwargs = match brine_core::Value::from_json(&kwargs) {
        brine_core::Value::Map(m) => m,
        _ => brine_core::Map::default(),
    };
    let call = brine_core::args::CallArgs {
        args: Vec::new(),
        kwargs,
    };
    let want_text = step["stdout"].as_str().unwrap_or_default();
    let got = match brine_master::wheel::run(&config, &fun, call) {
        // Salt's WheelClient raises KeyError for a function it lacks.
        Err(brine_master::wheel::WheelError::NotAvailable(f)) => {
            return (!want_text.starts_with(&format!("EXCEPTION KeyError: '{f}'")))
                .then(|| format!("brine has no {f}, Salt answered {want_text}"));
        }
        Err(e) => return Some(format!("brine's wheel failed: {e}")),
        Ok(v) => v,
    };
    let want: Json = serde_json::from_str(want_text).ok()?;
    // The full return wraps the answer with the job's data (jid, stamp):
    // the answer is compared.
    let want = if full { want["return"].clone() } else { want };
    let got = got.to_json();
    let (w, g) = (normalize_json(&want, tmp), normalize_json(&got, tmp));
    // Salt's config.values lists Salt's options; brine's, its own: the
    // ones both have must agree.
    if fun == "config.values" {
        let (Some(w), Some(g)) = (w.as_object(), g.as_object()) else {
            return Some("config.values is not a mapping".into());
        };
        let differ: Vec<&String> = [
            "interface",
            "publish_port",
            "ret_port",
            "timeout",
            "file_roots",
        ]
        .iter()
        .filter_map(|k| w.keys().find(|x| x == k))
        .filter(|k| g.get(*k).is_some_and(|gv| w.get(*k) != Some(gv)))
        .collect();
        return (!differ.is_empty()).then(|| format!("config.values differs at {differ:?}"));
    }
    // minions.connected lists minions in the order they connected.
    if fun == "minions.connected" {
        let sorted = |v: &Json| {
            let mut l: Vec<String> = v
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect();
            l.sort();
            l
        };
        return (sorted(&w) != sorted(&g)).then(|| format!("Salt {w}, brine {g}"));
    }
    (w != g).then(|| json_diff(&w, &g, "$"))
}

/// What the recording did between two steps, done to our fleet.
fn act_on(fleet: &mut Fleet, rec: &Json, note: &str) {
    if note.starts_with("started minions newbie and newbie2") {
        fleet.start_unaccepted(rec, &["newbie", "newbie2"]);
        return;
    }
    let master = fleet.conf.conf_dir().join("master");
    let text = std::fs::read_to_string(&master).unwrap_or_default();
    if note.starts_with("wrote failhard: True into the master config") {
        std::fs::write(&master, format!("{text}failhard: True\n")).expect("master config");
    } else if note.starts_with("removed failhard from the master config") {
        std::fs::write(&master, text.replace("failhard: True\n", "")).expect("master config");
    }
}

/// Of `{minion: grains}`, the grains a minion's config sets (`roles`)
/// and its `id`: what two hosts' grains share.
fn configured_grains(v: &Json) -> Json {
    let Some(m) = v.as_object() else {
        return v.clone();
    };
    Json::Object(
        m.iter()
            .map(|(id, g)| {
                let kept: serde_json::Map<String, Json> = ["id", "roles"]
                    .iter()
                    .filter_map(|k| g.get(*k).map(|x| (k.to_string(), x.clone())))
                    .collect();
                (id.clone(), Json::Object(kept))
            })
            .collect(),
    )
}

/// The first place two JSON documents differ.
fn json_diff(want: &Json, got: &Json, at: &str) -> String {
    match (want, got) {
        (Json::Object(w), Json::Object(g)) => {
            for (k, wv) in w {
                match g.get(k) {
                    None => return format!("{at}: missing key {k:?}"),
                    Some(gv) if gv != wv => return json_diff(wv, gv, &format!("{at}.{k}")),
                    _ => {}
                }
            }
            for k in g.keys() {
                if !w.contains_key(k) {
                    return format!("{at}: unexpected key {k:?}");
                }
            }
            format!("{at}: differs")
        }
        (Json::Array(w), Json::Array(g)) if w.len() == g.len() => {
            for (n, (wv, gv)) in w.iter().zip(g).enumerate() {
                if wv != gv {
                    return json_diff(wv, gv, &format!("{at}[{n}]"));
                }
            }
            format!("{at}: differs")
        }
        _ => format!("{at}: Salt {want}, brine {got}"),
    }
}

/// The first line two texts differ at, with a little context.
fn text_diff(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let n = w
        .iter()
        .zip(&g)
        .position(|(a, b)| a != b)
        .unwrap_or(w.len().min(g.len()));
    let from = n.saturating_sub(3);
    let context = std::env::var("BRINE_ORCH_CONTEXT")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(4);
    format!(
        "text differs at line {}:\n--- salt\n{}\n--- brine\n{}",
        n + 1,
        w[from..(n + context).min(w.len())].join("\n"),
        g[from..(n + context).min(g.len())].join("\n")
    )
}

fn check(name: &str, ids: &[&str], down: &[&str]) {
    let only = std::env::var("BRINE_ORCH_ONLY").unwrap_or_default();
    if !only.is_empty() && only != name {
        return;
    }
    let failures = replay(name, ids, down);
    assert!(
        failures.is_empty(),
        "{} steps of {name} differ from Salt:\n{}",
        failures.len() - 1,
        failures.join("\n")
    );
}

const FLEET: &[&str] = &["web1", "web2", "db1"];

#[test]
fn orchestrations_that_succeed_answer_as_salts() {
    check("orch_ok", FLEET, &[]);
}

#[test]
fn a_failed_step_fails_the_orchestration_as_salts() {
    check("orch_fail", FLEET, &[]);
}

#[test]
fn a_minion_that_is_down_fails_a_step_unless_not_expected() {
    check("orch_down", &["web1", "web2", "db1", "gone1"], &["gone1"]);
}

#[test]
fn steps_run_a_batch_at_a_time() {
    check("orch_batch", FLEET, &[]);
}

#[test]
fn function_steps_judge_their_returns_as_salts() {
    check("orch_function", FLEET, &[]);
}

#[test]
fn runner_and_wheel_steps_answer_as_salts() {
    check("orch_runner_wheel", FLEET, &[]);
}

#[test]
fn highstate_steps_answer_as_salts() {
    check("orch_highstate", FLEET, &[]);
}

#[test]
fn show_sls_single_and_high_answer_as_salts() {
    check("orch_show", FLEET, &[]);
}

#[test]
fn the_runners_orchestrations_use_answer_as_salts() {
    check("runners", FLEET, &[]);
}

/// The events of an orchestration as the bus carries them: the run's own
/// (`salt/run/<jid>/new`, an `args` per step, `ret`) with their data as
/// Salt's, and each step's job (`salt/job/<jid>/new`, a return per
/// minion) between them.
#[test]
fn an_orchestration_is_a_job_on_the_bus() {
    let rec = recorded::load("orch/orch_ok.salt.json");
    let fleet = Fleet::start(&rec, FLEET, 3);
    let tmp_s = fleet.conf.dir.path().display().to_string();
    let listener = fleet.conf.listen_events();
    let out = fleet
        .conf
        .cli("brine-run", &["state.orchestrate", "orch.ok"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::thread::sleep(std::time::Duration::from_millis(500));
    let lines = listener.finish();
    let ours: Vec<(String, Json)> = lines
        .lines()
        .filter_map(|l| {
            let (tag, data) = l.split_once('\t')?;
            Some((tag.to_string(), serde_json::from_str(data).ok()?))
        })
        .collect();
    // Salt's events of the same orchestration (its first, `ok-text`).
    let step = &rec["steps"][0];
    let (from, to) = (
        step["events"][0].as_u64().unwrap_or(0) as usize,
        step["events"][1].as_u64().unwrap_or(0) as usize,
    );
    let theirs: Vec<(String, Json)> = rec["events"].as_array().expect("events")[from..to]
        .iter()
        .map(|e| {
            (
                e["tag"].as_str().unwrap_or_default().to_string(),
                e["data"].clone(),
            )
        })
        .collect();
    let run = |evs: &[(String, Json)], tmp: &str| -> Vec<(String, Json)> {
        evs.iter()
            .filter(|(t, _)| t.starts_with("salt/run/"))
            .map(|(t, d)| {
                let suffix = t.rsplit('/').next().unwrap_or_default().to_string();
                let mut d = normalize_json(d, tmp);
                // The whole return is compared by the replays.
                if let Some(m) = d.as_object_mut() {
                    m.remove("return");
                }
                (suffix, d)
            })
            .collect()
    };
    let (want, got) = (run(&theirs, "@TMP@"), run(&ours, &tmp_s));
    assert_eq!(
        want.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>(),
        ["new", "args", "args", "args", "ret"]
    );
    for ((wt, wd), (gt, gd)) in want.iter().zip(&got) {
        assert_eq!((wt, wd), (gt, gd), "Salt {wt} {wd}\nbrine {gt} {gd}");
    }
    assert_eq!(want.len(), got.len(), "{got:?}");
    // Each step's job: published, and answered by its minions.
    let jobs = |evs: &[(String, Json)]| -> Vec<String> {
        evs.iter()
            .filter(|(t, _)| {
                t.starts_with("salt/job/") && (t.ends_with("/new") || t.contains("/ret/"))
            })
            .map(|(t, _)| {
                let parts: Vec<&str> = t.split('/').collect();
                match parts.as_slice() {
                    [_, _, _, "ret", id] => format!("ret {id}"),
                    _ => "new".to_string(),
                }
            })
            .collect()
    };
    let mut w = jobs(&theirs);
    let mut g = jobs(&ours);
    w.sort();
    g.sort();
    assert_eq!(w, g);
}

/// `salt.parallel_runners` runs each runner (at once) and passes when all
/// do — what Salt 3007.8's fails to do (#66022, see KNOWN): a nested
/// orchestration and a runner, their returns under the runners' ids.
#[test]
fn parallel_runners_run_each_runner() {
    let rec = recorded::load("orch/orch_ok.salt.json");
    let fleet = Fleet::start(&rec, FLEET, 3);
    let tmp = fleet.conf.dir.path().to_path_buf();
    std::fs::write(
        tmp.join("srv/salt/orch/both.sls"),
        "together:\n  salt.parallel_runners:\n    - runners:\n        inner:\n          \
         - name: state.orchestrate\n          - kwarg:\n              mods: orch.ok\n        \
         echo:\n          - name: test.arg\n          - kwarg:\n              x: 1\n",
    )
    .expect("orchestration");
    let out = fleet.conf.cli(
        "brine-run",
        &["--out", "json", "state.orchestrate", "orch.both"],
    );
    let got = json_docs(&out.stdout).expect("json");
    assert_eq!(out.status.code(), Some(0), "{got}");
    let step = &got["data"]["vm_master"]["salt_|-together_|-together_|-parallel_runners"];
    assert_eq!(step["result"], Json::Bool(true), "{step}");
    assert_eq!(
        step["comment"],
        Json::from("All runner functions executed successfully.")
    );
    // test.arg's answer is not an orchestration's: each return as it is.
    assert_eq!(
        step["changes"]["ret"]["echo"]["kwargs"]["x"],
        Json::from(1),
        "{step}"
    );
    assert!(
        step["changes"]["ret"]["inner"]["data"]["vm_master"].is_object(),
        "{step}"
    );
    // Two failing runners: the step fails, naming them.
    std::fs::write(
        tmp.join("srv/salt/orch/both_fail.sls"),
        "together:\n  salt.parallel_runners:\n    - runners:\n        one:\n          \
         - name: state.orchestrate\n          - kwarg:\n              mods: orch.nosuch\n        \
         two:\n          - name: state.orchestrate\n          - kwarg:\n              \
         mods: orch.nosuch\n",
    )
    .expect("orchestration");
    let out = fleet.conf.cli(
        "brine-run",
        &["--out", "json", "state.orchestrate", "orch.both_fail"],
    );
    let got = json_docs(&out.stdout).expect("json");
    assert_eq!(out.status.code(), Some(1), "{got}");
    let step = &got["data"]["vm_master"]["salt_|-together_|-together_|-parallel_runners"];
    assert_eq!(step["result"], Json::Bool(false), "{step}");
    let comment = step["comment"].as_str().unwrap_or_default();
    assert!(
        comment.contains("Runner one failed with return value:")
            && comment.contains("Runner two failed with return value:"),
        "{comment}"
    );
}
