#!/usr/bin/env python3
"""Record what a real Salt 3007.8 master answers for orchestration
(`salt-run state.orchestrate` and its salt.state / salt.function /
salt.runner / salt.wheel / salt.parallel_runners steps), the orchestrate
helper runners, a set of plain runners and the wheel client.

usage: SALT_BIN=/tmp/saltvenv/bin /tmp/saltvenv/bin/python3 record_orch.py OUTDIR [SCENARIO...]

SCENARIO is any of orch_ok, orch_fail, orch_down, orch_batch, orch_function,
orch_runner_wheel, orch_highstate, orch_show, runners (default: all, in that
order).  Writes OUTDIR/<scenario>.salt.json with the layout of
../fleet/record_fleet.py (whose Fleet class this imports):

  steps   each command in order: argv (without `-c DIR`), stdout, stderr,
          code, seconds, label; orchestration steps also carry `events`:
          [first, last) indexes into `events` of the lines the listener
          printed while the step ran
  tree    the master/minion configs and the sls files the scenario used
  events  each line `salt-run state.event pretty=False` printed: tag, data
  jids    per orchestration label: the runner's jid (salt/run/<jid>/new)
          and the orchestration jid(s) seen in salt/run/<jid>/args events
  logs    grep results of the master log (errors and warnings)
  notes   free text about what was done between steps

The temporary folder is written @TMP@, the publish port @PUB@, the
request (ret) port @RET@."""
import json, os, re, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fleet"))
import record_fleet  # noqa: E402
from record_fleet import Fleet, log  # noqa: E402

SALT_BIN = record_fleet.SALT_BIN
WEB_DB = {"web1": {"roles": ["web"]}, "web2": {"roles": ["web"]}, "db1": {"roles": ["db"]}}
MASTER_EXTRA = {"timeout": 10, "gather_job_timeout": 5}
J = ("--out", "json")
Y = ("--out", "yaml")

# ---------------------------------------------------------------------------
# state files the orchestration steps apply on the minions
STATE_SLS = {
    "db.sls": """\
db_schema:
  test.succeed_with_changes:
    - name: db schema for {{ grains['id'] }}
db_file:
  file.managed:
    - name: @W@/out/{{ grains['id'] }}-db.txt
    - contents: db on {{ grains['id'] }}
    - makedirs: True
""",
    "web.sls": """\
web_pkg:
  test.succeed_with_changes: []
web_true:
  cmd.run:
    - name: 'true'
web_file:
  file.managed:
    - name: @W@/out/{{ grains['id'] }}-web.txt
    - contents: web on {{ grains['id'] }}
    - makedirs: True
""",
    "lb.sls": """\
lb_ok:
  test.succeed_without_changes: []
""",
    "fail.sls": """\
fail_ok:
  test.succeed_without_changes: []
fail_here:
  test.fail_without_changes:
    - name: this step fails
fail_cmd:
  cmd.run:
    - name: 'false'
""",
    "changes.sls": """\
changes_here:
  test.succeed_with_changes: []
""",
    "showpillar.sls": """\
show_pillar:
  test.succeed_with_changes:
    - name: "y={{ pillar.get('y', 'unset') }} from_orch={{ pillar.get('from_orch', 'unset') }} common={{ pillar.get('common_key', 'unset') }}"
""",
}
PILLAR = {
    "top.sls": "base:\n  '*':\n    - common\n",
    "common.sls": "common_key: common_value\n",
}

OK_SLS = """\
db_step:
  salt.state:
    - tgt: db1
    - sls: db

web_step:
  salt.state:
    - tgt: 'web*'
    - sls: web
    - require:
      - salt: db_step

lb_step:
  salt.function:
    - tgt: web1
    - name: cmd.run
    - arg:
      - echo lb
    - require:
      - salt: web_step
"""

PILLAR_ORCH_SLS = """\
pillar_fn:
  salt.function:
    - tgt: web1
    - name: test.echo
    - arg:
      - "x is {{ pillar.x }}"

pillar_sls_name:
  salt.state:
    - tgt: web1
    - sls: {{ 'lb' if pillar.x == 1 else 'fail' }}

pillar_state:
  salt.state:
    - tgt: db1
    - sls: showpillar
    - pillar:
        y: {{ pillar.x }}
        from_orch: hello
"""


class OrchFleet(Fleet):
    def events(self):
        # lines without a JSON object after the tab are not events (the
        # traceback `state.event` prints when it is stopped): dropped
        return [e for e in Fleet.events(self) if isinstance(e["data"], dict)]


def base_fleet(name, out, minions=None, master_extra=None, minion_extra=None):
    me = dict(MASTER_EXTRA)
    me.update(master_extra or {})
    fl = OrchFleet(name, out, minions or WEB_DB, master_extra=me, minion_extra=minion_extra)
    for fn, text in STATE_SLS.items():
        fl.write("srv/salt/" + fn, text.replace("@W@", fl.work))
    for fn, text in PILLAR.items():
        fl.write("srv/pillar/" + fn, text)
    fl.result = {"jids": {}}
    return fl


def start(fl, ids):
    fl.start_master()
    for mid in ids:
        fl.start_minion(mid)
    fl.accept_and_wait(ids)
    time.sleep(2)
    fl.start_listener()
    fl.note("fleet up (%s accepted and answering test.ping); event listener started"
            % ", ".join(ids))


def n_events(fl):
    return len(fl.events())


def step(fl, label, *argv, settle=1.0, **kw):
    """fl.run, plus the range of listener lines printed during the step."""
    e0 = n_events(fl)
    st = fl.run(label, *argv, **kw)
    time.sleep(settle)
    st["events"] = [e0, n_events(fl)]
    fl.save()
    return st


def wait_ret(fl, jid, limit=10):
    deadline = time.time() + limit
    while time.time() < deadline:
        if any(e["tag"] == "salt/run/%s/ret" % jid for e in fl.events()):
            return
        time.sleep(0.5)


def jids_of(fl, st):
    """Runner jid(s) of state.* runner jobs started during step st, and the
    orchestration jids (salt/run/<jid>/args)."""
    evs = fl.events()[st["events"][0]:]
    runner, orch = [], []
    for e in evs:
        m = re.match(r"salt/run/(\d+)/new$", e["tag"])
        d = e["data"] if isinstance(e["data"], dict) else {}
        if m and str(d.get("fun", "")).startswith("runner.state.") \
                and d.get("fun") != "runner.state.event":
            runner.append(m.group(1))
        m = re.match(r"salt/run/(\d+)/args$", e["tag"])
        if m and m.group(1) not in orch:
            orch.append(m.group(1))
    return runner, orch


def orch(fl, label, *args, outs=("text", "json"), lookup=("json",), exe_args=()):
    """salt-run state.orchestrate ARGS with each outputter; then
    jobs.lookup_jid / jobs.list_job of the json run's jid."""
    fun = exe_args[0] if exe_args else "state.orchestrate"
    main = None
    for o in outs:
        extra = {"text": (), "json": J, "yaml": Y}[o]
        st = step(fl, "%s-%s" % (label, o), "salt-run", *extra, fun, *args)
        runner, ojids = jids_of(fl, st)
        if runner:
            wait_ret(fl, runner[0])
            runner, ojids = jids_of(fl, st)
        fl.result["jids"]["%s-%s" % (label, o)] = {"runner_jid": runner,
                                                   "orchestration_jids": ojids}
        if o == "json" or main is None:
            main = (o, runner)
    fl.save()
    o, runner = main
    if runner and lookup:
        jid = runner[0]
        for lo in lookup:
            extra = {"text": (), "json": J}[lo]
            step(fl, "%s-lookup-jid-%s" % (label, lo), "salt-run", *extra,
                 "jobs.lookup_jid", jid, settle=0.3)
            step(fl, "%s-list-job-%s" % (label, lo), "salt-run", *extra,
                 "jobs.list_job", jid, settle=0.3)
    elif lookup:
        fl.note("%s: no salt/run/<jid>/new event of a state.* runner seen" % label)


def finish(fl):
    time.sleep(2)
    fl.grep("master_log_errors", fl.master_log(), r"\[ERROR|\[WARNING|\[CRITICAL")
    fl.stop_listeners()


def run_scenario(fl, ids, body):
    try:
        start(fl, ids)
        body(fl)
        finish(fl)
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


# ---------------------------------------------------------------------------
def scenario_orch_ok(out):
    fl = base_fleet("orch_ok", out)
    fl.write("srv/salt/orch/ok.sls", OK_SLS)
    fl.write("srv/salt/orch/pillar.sls", PILLAR_ORCH_SLS)

    def body(fl):
        orch(fl, "ok", "orch.ok", outs=("text", "json", "yaml"), lookup=("text", "json"))
        # the orchestration jid (salt/run/<ojid>/args), if it differs
        j = fl.result["jids"].get("ok-json", {})
        for oj in j.get("orchestration_jids", []):
            if oj not in j.get("runner_jid", []):
                step(fl, "ok-lookup-orchestration-jid-json", "salt-run", *J,
                     "jobs.lookup_jid", oj, settle=0.3)
                step(fl, "ok-list-job-orchestration-jid-json", "salt-run", *J,
                     "jobs.list_job", oj, settle=0.3)
                break
        orch(fl, "ok-alias-orch", "orch.ok", outs=("text", "json"), lookup=(),
             exe_args=("state.orch",))
        orch(fl, "ok-alias-sls", "orch.ok", outs=("text", "json"), lookup=(),
             exe_args=("state.sls",))
        orch(fl, "ok-test", "orch.ok", "test=True", outs=("text", "json"))
        orch(fl, "pillar", "orch.pillar", 'pillar={"x": 1}', outs=("text", "json"))
        orch(fl, "pillar-missing", "orch.pillar", outs=("text", "json"), lookup=())
        orch(fl, "pillar-not-dict", "orch.pillar", "pillar=[1, 2]", outs=("text", "json"),
             lookup=())
        orch(fl, "nosuch-sls", "orch.nosuch", outs=("text", "json"))
        step(fl, "jobs-list-jobs", "salt-run", *J, "jobs.list_jobs")
    run_scenario(fl, ["web1", "web2", "db1"], body)


# ---------------------------------------------------------------------------
FAIL_SLS = """\
first:
  salt.state:
    - tgt: db1
    - sls: db

middle:
  salt.state:
    - tgt: web1
    - sls: fail
    - require:
      - salt: first{failhard}

last:
  salt.function:
    - tgt: web1
    - name: test.ping
    - require:
      - salt: middle

independent:
  salt.function:
    - tgt: db1
    - name: test.echo
    - arg:
      - independent
"""
ONFAIL_SLS = """\
ok_step:
  salt.function:
    - tgt: db1
    - name: test.ping

middle:
  salt.state:
    - tgt: web1
    - sls: fail

recover:
  salt.function:
    - tgt: web1
    - name: test.echo
    - arg:
      - recovering
    - onfail:
      - salt: middle

not_needed:
  salt.function:
    - tgt: web1
    - name: test.echo
    - arg:
      - never
    - onfail:
      - salt: ok_step
"""
ONCHANGES_SLS = """\
changes_step:
  salt.state:
    - tgt: db1
    - sls: changes

nochanges_step:
  salt.state:
    - tgt: db1
    - sls: lb

failing_step:
  salt.state:
    - tgt: web1
    - sls: fail

on_changes_yes:
  salt.function:
    - tgt: web1
    - name: test.echo
    - arg:
      - onchanges ran
    - onchanges:
      - salt: changes_step

on_changes_no:
  salt.function:
    - tgt: web1
    - name: test.echo
    - arg:
      - onchanges should not run
    - onchanges:
      - salt: nochanges_step

watch_changes:
  salt.function:
    - tgt: web1
    - name: test.echo
    - arg:
      - watch with changes
    - watch:
      - salt: changes_step

watch_nochanges:
  salt.function:
    - tgt: web1
    - name: test.echo
    - arg:
      - watch without changes
    - watch:
      - salt: nochanges_step

watch_failing:
  salt.function:
    - tgt: web1
    - name: test.echo
    - arg:
      - watch of a failure
    - watch:
      - salt: failing_step

watch_state_changes:
  salt.state:
    - tgt: web2
    - sls: lb
    - watch:
      - salt: changes_step
"""


def scenario_orch_fail(out):
    fl = base_fleet("orch_fail", out)
    fl.write("srv/salt/orch/fail.sls", FAIL_SLS.format(failhard=""))
    fl.write("srv/salt/orch/fail_failhard.sls",
             FAIL_SLS.format(failhard="\n    - failhard: True"))
    fl.write("srv/salt/orch/onfail.sls", ONFAIL_SLS)
    fl.write("srv/salt/orch/onchanges.sls", ONCHANGES_SLS)

    def body(fl):
        orch(fl, "fail", "orch.fail", outs=("text", "json", "yaml"), lookup=("text", "json"))
        orch(fl, "failhard-step", "orch.fail_failhard", outs=("text", "json"))
        orch(fl, "failhard-kwarg", "orch.fail", "failhard=True", outs=("text", "json"),
             lookup=())
        # global failhard: the master config read by salt-run
        fl.master_cfg["failhard"] = True
        fl.write_master()
        fl.note("wrote failhard: True into the master config (not restarting the master: "
                "salt-run reads the config file itself)")
        orch(fl, "failhard-global", "orch.fail", outs=("text", "json"))
        st = fl.run("cat-master-config-global-failhard", "cat", "@TMP@/etc/master")
        del fl.master_cfg["failhard"]
        fl.write_master()
        fl.note("removed failhard from the master config again")
        orch(fl, "onfail", "orch.onfail", outs=("text", "json"))
        orch(fl, "onchanges-watch", "orch.onchanges", outs=("text", "json"))
    run_scenario(fl, ["web1", "web2", "db1"], body)


# ---------------------------------------------------------------------------
DOWN_SLS = """\
down_state:
  salt.state:
    - tgt: web1,gone1
    - tgt_type: list
    - sls: lb{extra}
"""
DOWN_FUNCTION_SLS = """\
down_function:
  salt.function:
    - tgt: gone1
    - name: test.ping

down_function_expect:
  salt.function:
    - tgt: gone1
    - name: test.ping
    - expect_minions: True

down_function_list:
  salt.function:
    - tgt: web1,gone1
    - tgt_type: list
    - name: test.ping
    - expect_minions: True
"""
NOMATCH_SLS = """\
nomatch_state:
  salt.state:
    - tgt: 'nosuch*'
    - sls: lb

nomatch_state_no_expect:
  salt.state:
    - tgt: 'nosuch*'
    - sls: lb
    - expect_minions: False

nomatch_function:
  salt.function:
    - tgt: 'nosuch*'
    - name: test.ping
"""


def scenario_orch_down(out):
    m = dict(WEB_DB)
    m["gone1"] = {"roles": ["gone"]}
    fl = base_fleet("orch_down", out, minions=m)
    fl.write("srv/salt/orch/down.sls", DOWN_SLS.format(extra=""))
    fl.write("srv/salt/orch/down_expect_false.sls",
             DOWN_SLS.format(extra="\n    - expect_minions: False"))
    fl.write("srv/salt/orch/down_expect_true.sls",
             DOWN_SLS.format(extra="\n    - expect_minions: True"))
    fl.write("srv/salt/orch/down_fail_minions.sls",
             DOWN_SLS.format(extra="\n    - fail_minions: gone1"))
    fl.write("srv/salt/orch/down_function.sls", DOWN_FUNCTION_SLS)
    fl.write("srv/salt/orch/nomatch.sls", NOMATCH_SLS)

    def body(fl):
        fl.stop("minion-gone1")
        fl.note("stopped gone1's minion daemon (its key stays accepted)")
        time.sleep(2)
        step(fl, "salt-key-L", "salt-key", "-L")
        step(fl, "salt-list-ping-web1-gone1", "salt", *J, "-L", "web1,gone1", "test.ping")
        orch(fl, "down", "orch.down", outs=("text", "json", "yaml"), lookup=("text", "json"))
        orch(fl, "down-expect-false", "orch.down_expect_false", outs=("text", "json"))
        orch(fl, "down-expect-true", "orch.down_expect_true", outs=("text", "json"),
             lookup=())
        orch(fl, "down-fail-minions", "orch.down_fail_minions", outs=("text", "json"))
        orch(fl, "down-function", "orch.down_function", outs=("text", "json"))
        orch(fl, "nomatch", "orch.nomatch", outs=("text", "json"))
    run_scenario(fl, ["web1", "web2", "db1", "gone1"], body)


# ---------------------------------------------------------------------------
BATCH_SLS = """\
batch_web:
  salt.state:
    - tgt: 'web*'
    - sls: web
    - batch: 1
"""
BATCH_PCT_SLS = """\
batch_all:
  salt.state:
    - tgt: '*'
    - sls: lb
    - batch: 50%
"""
BATCH_FN_SLS = """\
batch_function:
  salt.function:
    - tgt: '*'
    - name: test.echo
    - arg:
      - batched
    - batch: 2

batch_fail:
  salt.state:
    - tgt: 'web*'
    - sls: fail
    - batch: 1
"""


def scenario_orch_batch(out):
    fl = base_fleet("orch_batch", out)
    fl.write("srv/salt/orch/batch.sls", BATCH_SLS)
    fl.write("srv/salt/orch/batch_pct.sls", BATCH_PCT_SLS)
    fl.write("srv/salt/orch/batch_fn.sls", BATCH_FN_SLS)

    def body(fl):
        orch(fl, "batch1", "orch.batch", outs=("text", "json", "yaml"), lookup=("text", "json"))
        orch(fl, "batch-50pct", "orch.batch_pct", outs=("text", "json"))
        orch(fl, "batch-function-and-fail", "orch.batch_fn", outs=("text", "json"))
    run_scenario(fl, ["web1", "web2", "db1"], body)


# ---------------------------------------------------------------------------
FUNCTION_OK_SLS = """\
ping_all:
  salt.function:
    - tgt: '*'
    - name: test.ping

fn_arg_kwarg:
  salt.function:
    - tgt: web1
    - name: test.arg
    - arg:
      - a
      - 2
    - kwarg:
        k: v
        n: 3

fn_cmd_kwarg:
  salt.function:
    - tgt: db1
    - name: cmd.run
    - arg:
      - pwd
    - kwarg:
        cwd: /

fn_grain_tgt:
  salt.function:
    - tgt: 'roles:web'
    - tgt_type: grain
    - name: grains.get
    - arg:
      - roles

fn_arg_string:
  salt.function:
    - tgt: web1
    - name: test.arg
    - arg: one two

fn_arg_with_equals:
  salt.function:
    - tgt: web1
    - name: test.arg
    - arg:
      - "x=1"
      - plain

fn_fail_function_pass:
  salt.function:
    - tgt: web1
    - name: test.echo
    - arg:
      - yes
    - fail_function: test.echo
"""
FUNCTION_SLS = """\
fn_false:
  salt.function:
    - tgt: web1
    - name: test.false

fn_fail_function_falsy:
  salt.function:
    - tgt: web1
    - name: test.echo
    - arg:
      - ''
    - fail_function: test.echo

fn_fail_function_raises:
  salt.function:
    - tgt: web1
    - name: test.echo
    - arg:
      - hi
    - fail_function: test.false

fn_nosuch:
  salt.function:
    - tgt: web1
    - name: nosuch.fn

fn_exception:
  salt.function:
    - tgt: web1
    - name: test.exception
    - arg:
      - boom

fn_retcode:
  salt.function:
    - tgt: web1
    - name: cmd.retcode
    - arg:
      - exit 3
    - kwarg:
        python_shell: True

fn_cmd_run_false:
  salt.function:
    - tgt: web1
    - name: cmd.run
    - arg:
      - 'false'

fn_fail_minions:
  salt.function:
    - tgt: 'web*'
    - name: cmd.retcode
    - arg:
      - 'false'
    - fail_minions: web1

fn_ping_all:
  salt.function:
    - tgt: '*'
    - name: test.ping
"""


def scenario_orch_function(out):
    fl = base_fleet("orch_function", out)
    fl.write("srv/salt/orch/function_ok.sls", FUNCTION_OK_SLS)
    fl.write("srv/salt/orch/function.sls", FUNCTION_SLS)

    def body(fl):
        orch(fl, "function-ok", "orch.function_ok", outs=("text", "json", "yaml"),
             lookup=("text", "json"))
        orch(fl, "function-failures", "orch.function", outs=("text", "json", "yaml"))
        orch(fl, "function-ok-test", "orch.function_ok", "test=True", outs=("text", "json"),
             lookup=())
    run_scenario(fl, ["web1", "web2", "db1"], body)


# ---------------------------------------------------------------------------
RUNNER_SLS = """\
runner_arg:
  salt.runner:
    - name: test.arg
    - arg:
      - one
      - 2
    - kwarg:
        k: v

runner_kwargs_plain:
  salt.runner:
    - name: test.arg
    - a: 1
    - b: two

runner_list_jobs:
  salt.runner:
    - name: jobs.list_jobs
    - search_function: nosuch.function.never.run

runner_nosuch:
  salt.runner:
    - name: nosuch.runner

runner_missing_arg:
  salt.runner:
    - name: jobs.lookup_jid

runner_orch_nosuch:
  salt.runner:
    - name: state.orchestrate
    - mods: orch.nosuch

runner_orch_inner:
  salt.runner:
    - name: state.orchestrate
    - mods: orch.inner
"""
INNER_SLS = """\
inner_step:
  salt.function:
    - tgt: db1
    - name: test.echo
    - arg:
      - inner
"""
WHEEL_SLS = """\
wheel_list_all:
  salt.wheel:
    - name: key.list_all

wheel_finger:
  salt.wheel:
    - name: key.finger
    - match: web1

wheel_gen_accept:
  salt.wheel:
    - name: key.gen_accept
    - id_: newid

wheel_nosuch:
  salt.wheel:
    - name: nosuch.fn

wheel_list_all_after:
  salt.wheel:
    - name: key.list_all
    - require:
      - salt: wheel_gen_accept
"""
PARALLEL_SLS = """\
parallel_two:
  salt.parallel_runners:
    - runners:
        arg_runner:
          - name: test.arg
          - kwarg:
              a: 1
        sleep_runner:
          - name: test.sleep
          - kwarg:
              s_time: 1

parallel_orchs:
  salt.parallel_runners:
    - runners:
        inner_a:
          - name: state.orchestrate
          - kwarg:
              mods: orch.inner
        inner_b:
          - name: state.orchestrate
          - kwarg:
              mods: orch.nosuch

parallel_bad:
  salt.parallel_runners:
    - runners:
      - not a dict
"""
LOCAL_SLS = """\
local_changes:
  test.succeed_with_changes: []

local_nop:
  test.nop:
    - name: nothing here

local_file:
  file.managed:
    - name: @W@/out/orch-local.txt
    - contents: written by the orchestration on the master
    - makedirs: True

local_cmd:
  cmd.run:
    - name: echo from the master

local_then_minion:
  salt.function:
    - tgt: web1
    - name: test.echo
    - arg:
      - after local
    - require:
      - test: local_changes
      - file: local_file
"""


def scenario_orch_runner_wheel(out):
    fl = base_fleet("orch_runner_wheel", out)
    fl.write("srv/salt/orch/runner.sls", RUNNER_SLS)
    fl.write("srv/salt/orch/inner.sls", INNER_SLS)
    fl.write("srv/salt/orch/wheel.sls", WHEEL_SLS)
    fl.write("srv/salt/orch/parallel.sls", PARALLEL_SLS)
    fl.write("srv/salt/orch/local.sls", LOCAL_SLS.replace("@W@", fl.work))

    def body(fl):
        orch(fl, "runner", "orch.runner", outs=("text", "json", "yaml"),
             lookup=("text", "json"))
        step(fl, "salt-key-L-before-wheel", "salt-key", "-L")
        orch(fl, "wheel", "orch.wheel", outs=("text",), lookup=("json",))
        step(fl, "salt-key-L-after-wheel", "salt-key", "-L")
        orch(fl, "wheel-again", "orch.wheel", outs=("json",), lookup=())
        orch(fl, "parallel", "orch.parallel", outs=("text", "json"))
        orch(fl, "local", "orch.local", outs=("text", "json"))
        step(fl, "cat-orch-local", "cat", "@TMP@/out/orch-local.txt")
        orch(fl, "runner-wheel-test", "orch.runner", "test=True", outs=("text",), lookup=())
    run_scenario(fl, ["web1", "web2", "db1"], body)


# ---------------------------------------------------------------------------
HIGHSTATE_SLS = """\
highstate_all:
  salt.state:
    - tgt: '*'
    - highstate: True

highstate_envs:
  salt.state:
    - tgt: web1
    - highstate: True
    - saltenv: base
    - pillarenv: base
    - timeout: 20
    - require:
      - salt: highstate_all

highstate_dev:
  salt.state:
    - tgt: web1
    - highstate: True
    - saltenv: dev
    - require:
      - salt: highstate_envs

top_file:
  salt.state:
    - tgt: db1
    - top: othertop.sls

no_sls_no_highstate:
  salt.state:
    - tgt: db1
"""
HIGHSTATE_OK_SLS = """\
highstate_all:
  salt.state:
    - tgt: '*'
    - highstate: True
"""


def scenario_orch_highstate(out):
    fl = base_fleet("orch_highstate", out)
    fl.master_cfg["file_roots"]["dev"] = [fl.srv + "/salt-dev"]
    fl.write_master()
    fl.write("srv/salt/top.sls", "base:\n  'web*':\n    - web\n  db1:\n    - db\n")
    fl.write("srv/salt/othertop.sls", "base:\n  db1:\n    - lb\n")
    fl.write("srv/salt-dev/top.sls", "dev:\n  web1:\n    - devstate\n")
    fl.write("srv/salt-dev/devstate.sls",
             "dev_state:\n  test.succeed_with_changes:\n    - name: from dev on "
             "{{ grains['id'] }}\n")
    fl.write("srv/salt/orch/highstate.sls", HIGHSTATE_SLS)
    fl.write("srv/salt/orch/highstate_ok.sls", HIGHSTATE_OK_SLS)

    def body(fl):
        orch(fl, "highstate", "orch.highstate", outs=("text", "json", "yaml"),
             lookup=("text", "json"))
        orch(fl, "highstate-test", "orch.highstate", "test=True", outs=("text",), lookup=())
        orch(fl, "highstate-ok", "orch.highstate_ok", outs=("text", "json"))
    run_scenario(fl, ["web1", "web2", "db1"], body)


# ---------------------------------------------------------------------------
HIGH_DATA = ('{stage_one: {salt.function: [{tgt: db1}, {name: test.echo}, {arg: [one]}]}, '
             'stage_two: {salt.state: [{tgt: "web*"}, {sls: lb}, '
             '{require: [{salt: stage_one}]}]}}')


# the same in the form the state compiler expects (no dotted state.fun keys)
HIGH_DATA_PLAIN = ('{stage_one: {salt: [function, {tgt: db1}, {name: test.echo}, {arg: [one]}]}, '
                   'stage_two: {salt: [state, {tgt: "web*"}, {sls: lb}, '
                   '{require: [{salt: stage_one}]}]}}')


def scenario_orch_show(out):
    fl = base_fleet("orch_show", out)
    fl.write("srv/salt/orch/ok.sls", OK_SLS)
    fl.write("srv/salt/orch/pillar.sls", PILLAR_ORCH_SLS)

    def body(fl):
        step(fl, "show-sls-text", "salt-run", "state.orchestrate_show_sls", "orch.ok")
        step(fl, "show-sls-json", "salt-run", *J, "state.orchestrate_show_sls", "orch.ok")
        step(fl, "show-sls-yaml", "salt-run", *Y, "state.orchestrate_show_sls", "orch.ok")
        step(fl, "orch-show-sls-alias-json", "salt-run", *J, "state.orch_show_sls", "orch.ok")
        step(fl, "show-sls-pillar-json", "salt-run", *J, "state.orchestrate_show_sls",
             "orch.pillar", 'pillar={"x": 7}')
        step(fl, "show-sls-nosuch", "salt-run", "state.orchestrate_show_sls", "orch.nosuch")
        step(fl, "show-sls-nosuch-json", "salt-run", *J, "state.orchestrate_show_sls",
             "orch.nosuch")
        step(fl, "single-function-text", "salt-run", "state.orchestrate_single",
             "salt.function", "test.ping", "tgt=web1")
        step(fl, "single-function-json", "salt-run", *J, "state.orchestrate_single",
             "salt.function", "test.ping", "tgt=web1")
        step(fl, "single-wheel-text", "salt-run", "state.orchestrate_single",
             "fun=salt.wheel", "name=key.list_all")
        step(fl, "single-wheel-json", "salt-run", *J, "state.orchestrate_single",
             "fun=salt.wheel", "name=key.list_all")
        step(fl, "single-test-state-text", "salt-run", "state.orchestrate_single",
             "test.succeed_with_changes", "local_thing")
        step(fl, "single-failing-text", "salt-run", "state.orchestrate_single",
             "salt.state", "failing", "tgt=web1", "sls=fail")
        step(fl, "high-text", "salt-run", "state.orchestrate_high", HIGH_DATA)
        step(fl, "high-json", "salt-run", *J, "state.orchestrate_high", HIGH_DATA)
        step(fl, "high-plain-text", "salt-run", "state.orchestrate_high", HIGH_DATA_PLAIN)
        step(fl, "high-plain-json", "salt-run", *J, "state.orchestrate_high", HIGH_DATA_PLAIN)
        step(fl, "high-bad", "salt-run", "state.orchestrate_high", "not a dict")
        step(fl, "state-doc-orchestrate", "salt-run", "-d", "state.orchestrate")
        step(fl, "state-doc-list", "sh", "-c",
             SALT_BIN + "/salt-run -c @TMP@/etc -d state | grep '^state\\.'")
    run_scenario(fl, ["web1", "web2", "db1"], body)


# ---------------------------------------------------------------------------
WHEEL_API = r'''
import json, sys
import salt.config, salt.wheel
opts = salt.config.master_config(sys.argv[1])
fun = sys.argv[2]
kwarg = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
full = len(sys.argv) > 4 and sys.argv[4] == "full"
wheel = salt.wheel.WheelClient(opts)
try:
    ret = wheel.cmd(fun, kwarg=kwarg, print_event=False, full_return=full)
    print(json.dumps(ret, indent=1, sort_keys=True, default=repr))
except Exception as exc:
    print("EXCEPTION %s: %s" % (type(exc).__name__, exc))
    sys.exit(3)
'''


def scenario_runners(out):
    mine = {"test.ping": [], "grains.item": ["roles"]}
    fl = base_fleet("runners", out, minion_extra={"mine_functions": mine})
    fl.write("srv/salt/hello.txt", "hello\n")
    fl.write("srv/salt/sub/dir/file.txt", "nested\n")
    fl.write("srv/salt/orch/ok.sls", OK_SLS)
    fl.write("srv/wheel_api.py", WHEEL_API)
    py = SALT_BIN + "/python"

    def wheel(label, fun, kwarg=None, full=False):
        args = [py, "@TMP@/srv/wheel_api.py", "@TMP@/etc/master", fun,
                json.dumps(kwarg or {})]
        if full:
            args.append("full")
        cmd = " ".join("'%s'" % a for a in args)
        step(fl, "wheel-api-" + label, "sh", "-c", cmd, settle=0.5)

    def both(label, *argv):
        step(fl, label + "-text", "salt-run", *argv, settle=0.3)
        step(fl, label + "-json", "salt-run", *J, *argv, settle=0.3)

    def body(fl):
        step(fl, "mine-update", "salt", *J, "*", "mine.update")
        time.sleep(2)
        both("cache-grains-web1", "cache.grains", "tgt=web1")
        both("cache-grains-all", "cache.grains")
        both("cache-grains-glob", "cache.grains", "web*")
        both("cache-pillar-db1", "cache.pillar", "tgt=db1")
        both("cache-pillar-all", "cache.pillar")
        both("cache-mine-web1", "cache.mine", "tgt=web1")
        both("fileserver-envs", "fileserver.envs")
        both("fileserver-file-list", "fileserver.file_list")
        both("fileserver-file-list-base", "fileserver.file_list", "saltenv=base")
        both("fileserver-file-list-nosuch-env", "fileserver.file_list", "saltenv=nosuch")
        both("fileserver-dir-list", "fileserver.dir_list")
        both("fileserver-update", "fileserver.update")
        both("pillar-show-pillar-web1", "pillar.show_pillar", "web1")
        both("pillar-show-pillar", "pillar.show_pillar")
        both("pillar-show-top", "pillar.show_top", "minion=web1")
        both("test-arg", "test.arg", "1", "2", "a=b")
        both("test-raw-arg", "test.raw_arg", "1", "two", "a=b")
        both("test-echo", "test.echo", "hello")
        both("test-sleep", "test.sleep", "1")
        both("test-stdout-print", "test.stdout_print")
        both("test-metasyntactic", "test.metasyntactic")
        both("salt-cmd-test-arg", "salt.cmd", "test.arg", "x")
        both("salt-cmd-test-echo", "salt.cmd", "test.echo", "hi")
        both("wheel-key-list-all-via-salt-run", "wheel.key.list_all")
        both("nosuch-runner", "nosuch.fn")
        both("manage-up", "manage.up")
        both("manage-status", "manage.status")
        both("jobs-active", "jobs.active")
        # the wheel client through the python API
        fl.minion_cfg("newbie", {"roles": ["new"]})
        fl.minion_cfg("newbie2", {"roles": ["new"]})
        fl.start_minion("newbie")
        fl.start_minion("newbie2")
        fl.note("started minions newbie and newbie2 whose keys are not accepted")
        deadline = time.time() + 120
        while time.time() < deadline:
            keys = json.loads(fl.raw("salt-key", "--out", "json", "-L").stdout or "{}")
            if {"newbie", "newbie2"} <= set(keys.get("minions_pre", [])):
                break
            time.sleep(1)
        step(fl, "salt-key-L-pending", "salt-key", "-L")
        fl.result["wheel_api_snippet"] = WHEEL_API
        wheel("key-list-all", "key.list_all")
        wheel("key-list-all-full-return", "key.list_all", full=True)
        wheel("key-list-accepted", "key.list", {"match": "accepted"})
        wheel("key-list-pre", "key.list", {"match": "pre"})
        wheel("key-list-unaccepted", "key.list", {"match": "unaccepted"})
        wheel("key-finger-web1", "key.finger", {"match": "web1"})
        wheel("key-finger-all", "key.finger", {"match": "*"})
        wheel("key-accept-newbie", "key.accept", {"match": "newbie"})
        wheel("key-accept-nosuch", "key.accept", {"match": "nosuch"})
        wheel("key-reject-newbie2", "key.reject", {"match": "newbie2"})
        wheel("key-list-all-after-accept-reject", "key.list_all")
        wheel("key-delete-newbie", "key.delete", {"match": "newbie"})
        wheel("key-delete-nosuch", "key.delete", {"match": "nosuch"})
        wheel("key-gen-accept", "key.gen_accept", {"id_": "apikey"})
        wheel("key-gen-accept-again", "key.gen_accept", {"id_": "apikey"})
        wheel("key-list-all-final", "key.list_all")
        wheel("config-values", "config.values")
        wheel("minions-connected", "minions.connected")
        wheel("nosuch", "nosuch.fn")
        step(fl, "salt-key-L-final", "salt-key", "-L")
    run_scenario(fl, ["web1", "web2", "db1"], body)


SCENARIOS = {
    "orch_ok": scenario_orch_ok, "orch_fail": scenario_orch_fail,
    "orch_down": scenario_orch_down, "orch_batch": scenario_orch_batch,
    "orch_function": scenario_orch_function, "orch_runner_wheel": scenario_orch_runner_wheel,
    "orch_highstate": scenario_orch_highstate, "orch_show": scenario_orch_show,
    "runners": scenario_runners,
}


def main():
    out = os.path.abspath(sys.argv[1])
    os.makedirs(out, exist_ok=True)
    names = sys.argv[2:] or list(SCENARIOS)
    failed = []
    for n in names:
        log("=== scenario", n)
        try:
            SCENARIOS[n](out)
        except Exception:
            import traceback
            traceback.print_exc()
            failed.append(n)
    log("done; failed:", failed)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
