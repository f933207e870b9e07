#!/usr/bin/env python3
"""Record what a real Salt 3007.8 master with several minions (all on
127.0.0.1, free ports, everything under one temporary folder per scenario)
answers for the mine, the minion scheduler, the reactor and salt-call
through a master.

usage: SALT_BIN=/tmp/saltvenv/bin /tmp/saltvenv/bin/python3 record_fleet.py OUTDIR [SCENARIO...]

SCENARIO is any of mine, schedule, reactor, call, bus, caller_local (default: all, in that
order).  Writes OUTDIR/<scenario>.salt.json:

  steps   each command in order: argv (without `-c DIR`; salt-call steps name
          their config dir under `conf`), stdout, stderr, code, seconds, label
  tree    the master/minion configs and the sls files the scenario used
  events  (schedule, reactor, call) each line `salt-run state.event
          pretty=False` printed while the scenario ran: tag and data
  logs    grep results of the master/minion log files
  notes   free text about what was done between steps

The temporary folder is written @TMP@, the publish port @PUB@, the
request (ret) port @RET@.  Processes are started in their own sessions and
stopped by PID (and any member of their session left is killed by PID)."""
import json, os, re, shutil, signal, subprocess, sys, tempfile, time

import yaml

SALT_BIN = os.environ.get("SALT_BIN", "/tmp/saltvenv/bin")
USER = os.environ.get("USER") or "root"


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def session_members(sid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == sid:
                out.append(int(d))
        except (OSError, IndexError, ValueError):
            pass
    return out


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


class Fleet:
    """One master and N minions, each with its own config dir (`-c`)."""

    def __init__(self, name, out, minions, master_extra=None, minion_extra=None):
        self.name, self.out = name, out
        self.work = tempfile.mkdtemp(prefix="recfleet-%s-" % name)
        self.pub, self.ret = free_port(), free_port()
        while self.ret == self.pub:
            self.ret = free_port()
        self.conf = os.path.join(self.work, "etc")
        self.srv = os.path.join(self.work, "srv")
        for d in (self.conf, self.srv + "/salt", self.srv + "/pillar", self.srv + "/reactor"):
            os.makedirs(d, exist_ok=True)
        self.master_cfg = {
            "interface": "127.0.0.1", "publish_port": self.pub, "ret_port": self.ret,
            "root_dir": os.path.join(self.work, "mroot"), "user": USER,
            "log_level": "warning", "log_level_logfile": "info",
            "worker_threads": 3, "timeout": 30, "gather_job_timeout": 15,
            "file_roots": {"base": [self.srv + "/salt"]},
            "pillar_roots": {"base": [self.srv + "/pillar"]},
        }
        self.master_cfg.update(master_extra or {})
        self.minion_cfgs = {}
        for mid, grains in minions.items():
            self.minion_cfg(mid, grains, minion_extra)
        self.procs = {}
        self.steps, self.notes, self.logs, self.files = [], [], {}, {}
        self.events_path = None
        self.result = {}
        self.write_master()

    # ---- config -------------------------------------------------------
    def minion_cfg(self, mid, grains, extra=None):
        cfg = {
            "id": mid, "master": "127.0.0.1", "master_port": self.ret,
            "publish_port": self.pub, "root_dir": os.path.join(self.work, "nroot-" + mid),
            "user": USER, "log_level": "warning", "log_level_logfile": "info",
            "acceptance_wait_time": 1, "random_reauth_delay": 0,
            "grains": grains,
        }
        cfg.update(extra or {})
        self.minion_cfgs[mid] = cfg
        d = self.mconf(mid)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "minion"), "w") as f:
            yaml.safe_dump(cfg, f, default_flow_style=False)
        return cfg

    def mconf(self, mid):
        return os.path.join(self.work, "etc-" + mid)

    def write_master(self):
        with open(os.path.join(self.conf, "master"), "w") as f:
            yaml.safe_dump(self.master_cfg, f, default_flow_style=False)

    def write(self, rel, text):
        path = os.path.join(self.work, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def norm(self, s):
        if not isinstance(s, str):
            return s
        s = s.replace(self.work, "@TMP@")
        s = re.sub(r"(?<!\d)%d(?!\d)" % self.pub, "@PUB@", s)
        s = re.sub(r"(?<!\d)%d(?!\d)" % self.ret, "@RET@", s)
        return s

    def normobj(self, o):
        if isinstance(o, dict):
            return {self.norm(k): self.normobj(v) for k, v in o.items()}
        if isinstance(o, list):
            return [self.normobj(v) for v in o]
        return self.norm(o)

    # ---- processes ----------------------------------------------------
    def b(self, name):
        return os.path.join(SALT_BIN, name)

    def spawn(self, key, argv, env=None):
        logf = open(os.path.join(self.work, key + ".out"), "a")
        p = subprocess.Popen(argv, stdout=logf, stderr=logf, start_new_session=True,
                             env=env)
        self.procs[key] = p
        return p

    def start_master(self):
        self.spawn("salt-master", [self.b("salt-master"), "-c", self.conf])
        import socket
        deadline = time.time() + 180
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.ret), 1).close()
                return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError("salt-master did not open its ret port")

    def start_minion(self, mid, env=None):
        e = None
        if env:
            e = dict(os.environ)
            e.update(env)
        self.spawn("minion-" + mid, [self.b("salt-minion"), "-c", self.mconf(mid)], env=e)

    def stop(self, key):
        p = self.procs.pop(key, None)
        if p is None:
            return
        sid = p.pid
        try:
            p.send_signal(signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            p.wait(45)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(15)
        for pid in session_members(sid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def stop_master(self):
        self.stop("salt-master")

    def close(self):
        for key in list(self.procs):
            if key.startswith("listener"):
                self.stop(key)
        for key in list(self.procs):
            if key.startswith("minion-"):
                self.stop(key)
        self.stop("salt-master")
        for key in list(self.procs):
            self.stop(key)

    # ---- commands -----------------------------------------------------
    def raw(self, exe, *argv, conf=None, timeout=300):
        return subprocess.run([self.b(exe), "-c", conf or self.conf] + list(argv),
                              capture_output=True, text=True, timeout=timeout)

    def run(self, label, exe, *argv, conf=None, timeout=400, env=None):
        argv = [self.subst(a) for a in argv]
        t0 = time.time()
        cmd = [exe] if exe in ("cat", "ls", "sh") else [self.b(exe), "-c", conf or self.conf]
        try:
            p = subprocess.run(cmd + list(argv), capture_output=True, text=True,
                               timeout=timeout, env=env)
            out, err, code = p.stdout, p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
            code = "timeout after %ds (recorder's limit)" % timeout
        step = {"label": label, "argv": [exe] + [self.norm(a) for a in argv],
                "stdout": self.norm(out), "stderr": self.norm(err), "code": code,
                "seconds": round(time.time() - t0, 2)}
        if conf and exe == "salt-call":
            step["conf"] = self.norm(conf)
        self.steps.append(step)
        log("%-8s %-34s code=%s %.1fs" % (self.name, label, code, step["seconds"]))
        self.save()
        return step

    def subst(self, s):
        return s.replace("@TMP@", self.work) if isinstance(s, str) else s

    def note(self, text):
        self.notes.append({"after_step": len(self.steps), "note": self.norm(text)})
        log("%-8s note: %s" % (self.name, text))

    def accept_and_wait(self, ids, deadline_s=300):
        deadline = time.time() + deadline_s
        ids = list(ids)
        while time.time() < deadline:
            self.raw("salt-key", "-A", "-y", timeout=120)
            try:
                keys = json.loads(self.raw("salt-key", "--out", "json", "-L").stdout)
                if all(i in keys.get("minions", []) for i in ids):
                    break
            except Exception:
                pass
            time.sleep(2)
        self.wait_ping(ids, deadline_s)

    def wait_ping(self, ids, deadline_s=300):
        deadline = time.time() + deadline_s
        ids = list(ids)
        while time.time() < deadline:
            try:
                p = self.raw("salt", "--out", "json", "-t", "20", "-L", ",".join(ids),
                             "test.ping", timeout=120)
                got = {}
                for chunk in re.findall(r"\{[^{}]*\}", p.stdout):
                    try:
                        got.update(json.loads(chunk))
                    except ValueError:
                        pass
                if all(got.get(i) is True for i in ids):
                    return
                log("%-8s waiting for %s: %s" % (self.name, ids, p.stdout.strip()[:200]))
            except subprocess.TimeoutExpired:
                pass
            time.sleep(2)
        raise RuntimeError("minions %s never all answered test.ping" % ids)

    # ---- event listener ------------------------------------------------
    def start_listener(self, wait=8):
        n = sum(1 for k in self.procs if k.startswith("listener")) + 1
        self.events_path = os.path.join(self.work, "events.txt")
        key = "listener%d" % (len(self.steps) * 100 + n)
        self.procs[key] = subprocess.Popen(
            [self.b("salt-run"), "-c", self.conf, "state.event", "pretty=False"],
            stdout=open(self.events_path, "a"), stderr=subprocess.DEVNULL,
            start_new_session=True)
        time.sleep(wait)

    def stop_listeners(self):
        for key in list(self.procs):
            if key.startswith("listener"):
                self.stop(key)

    def events(self):
        evs = []
        if not self.events_path or not os.path.exists(self.events_path):
            return evs
        with open(self.events_path) as f:
            for line in f:
                line = self.norm(line.rstrip("\n"))
                tag, _, data = line.partition("\t")
                try:
                    data = json.loads(data)
                except ValueError:
                    pass
                if not tag or tag[0].isspace():
                    # not an event: the traceback state.event prints on
                    # stdout when it is stopped with SIGTERM; dropped
                    continue
                evs.append({"tag": tag, "data": data})
        return evs

    # ---- logs and files -------------------------------------------------
    def master_log(self):
        return os.path.join(self.work, "mroot", "var", "log", "salt", "master")

    def minion_log(self, mid):
        return os.path.join(self.work, "nroot-" + mid, "var", "log", "salt", "minion")

    def grep(self, key, path, pattern, since=0):
        """Lines of a log matching pattern, each with its continuation lines
        (a traceback's lines, which start without a timestamp)."""
        lines = []
        if os.path.exists(path):
            with open(path, errors="replace") as f:
                f.seek(since)
                taking = False
                for line in f:
                    if re.match(r"\d{4}-\d\d-\d\d ", line):
                        taking = bool(re.search(pattern, line))
                    if taking:
                        lines.append(self.norm(line.rstrip("\n")))
        self.logs[key] = {"file": self.norm(path), "pattern": pattern, "lines": lines}
        self.save()
        return lines

    def size(self, path):
        return os.path.getsize(path) if os.path.exists(path) else 0

    def tree(self):
        t = {}
        for base, dirs, files in os.walk(self.work):
            rel = os.path.relpath(base, self.work)
            top = rel.split(os.sep)[0]
            if not (top == "srv" or top == "etc" or top.startswith("etc-")):
                continue
            for fn in sorted(files):
                p = os.path.join(base, fn)
                try:
                    with open(p) as f:
                        t["@TMP@/" + os.path.relpath(p, self.work)] = self.norm(f.read())
                except (OSError, UnicodeDecodeError):
                    pass
        return t

    def save(self):
        doc = {"steps": self.steps}
        doc.update({
            "salt_version": "3007.8",
            "tree": self.tree(),
            "notes": self.notes,
            "logs": self.logs,
        })
        if self.events_path:
            doc["events"] = self.events()
        doc.update(self.normobj(self.result))
        with open(os.path.join(self.out, self.name + ".salt.json"), "w") as f:
            json.dump(doc, f, indent=1)

    def cleanup(self):
        shutil.rmtree(self.work, ignore_errors=True)


WEB_DB = {"web1": {"roles": ["web"]}, "web2": {"roles": ["web"]}, "db1": {"roles": ["db"]}}
MINE_FUNCTIONS = {
    "test.ping": [],
    "grains.item": ["roles"],
    "roles_alias": [{"mine_function": "grains.get"}, "roles"],
    "secret": [{"mine_function": "test.echo"}, "hidden", {"allow_tgt": "web*"}],
}
POOL_SLS = """\
{{% set pool = salt['mine.get']('roles:web', 'roles_alias', tgt_type='grain') %}}
{path}:
  file.managed:
    - contents:
{{%- for host, roles in pool | dictsort %}}
      - "{{{{ host }}}} {{{{ roles | join(',') }}}}"
{{%- endfor %}}
"""


def start_fleet(fl, ids, listener=False):
    fl.start_master()
    if listener:
        fl.start_listener()
    for mid in ids:
        fl.start_minion(mid)
    fl.accept_and_wait(ids)
    time.sleep(3)


# ---------------------------------------------------------------------------
def scenario_mine(out):
    fl = Fleet("mine", out, WEB_DB, minion_extra={"mine_functions": MINE_FUNCTIONS})
    fl.write("srv/pillar/top.sls", "base:\n  db1:\n    - minepillar\n  'web*':\n    - webroles\n")
    fl.write("srv/pillar/minepillar.sls",
             "mine_functions:\n  pillar_fn:\n    - mine_function: test.echo\n    - from_pillar\n")
    fl.write("srv/pillar/webroles.sls", "roles:\n  - web\n")
    fl.write("srv/salt/pool.sls", POOL_SLS.format(path=fl.work + "/pool.txt"))
    try:
        start_fleet(fl, ["web1", "web2", "db1"])
        J = ("--out", "json")
        fl.run("update-json", "salt", *J, "*", "mine.update")
        fl.run("update-text", "salt", "*", "mine.update")
        W = ("salt", "--out", "json", "web1")
        fl.run("get-glob", *W, "mine.get", "*", "test.ping")
        fl.run("get-glob-text", "salt", "web1", "mine.get", "*", "test.ping")
        fl.run("get-glob-from-all", "salt", *J, "*", "mine.get", "*", "test.ping")
        fl.run("get-alias", *W, "mine.get", "web*", "roles_alias")
        fl.run("get-grains-item-grain", *W, "mine.get", "roles:db", "grains.item", "grain")
        fl.run("get-grains-item-all", *W, "mine.get", "*", "grains.item")
        fl.run("get-list", *W, "mine.get", "web1,db1", "test.ping", "list")
        fl.run("get-compound", *W, "mine.get", "G@roles:web and not web2", "test.ping", "compound")
        fl.run("get-tgt-type-kwarg", *W, "mine.get", "roles:web", "roles_alias", "tgt_type=grain")
        fl.run("get-multi-comma", *W, "mine.get", "*", "test.ping,roles_alias")
        fl.run("get-multi-comma-text", "salt", "web1", "mine.get", "*", "test.ping,roles_alias")
        fl.run("get-list-arg-one", *W, "mine.get", "*", "[test.ping]")
        fl.run("get-list-arg-two", *W, "mine.get", "*", "[test.ping, roles_alias]")
        fl.run("get-secret-from-web1", *W, "mine.get", "*", "secret")
        fl.run("get-secret-from-db1", "salt", *J, "db1", "mine.get", "*", "secret")
        fl.run("get-secret-text-from-db1", "salt", "db1", "mine.get", "*", "secret")
        fl.run("get-pillar-fn", *W, "mine.get", "*", "pillar_fn")
        fl.run("get-exclude-minion", *W, "mine.get", "*", "test.ping", "exclude_minion=True")
        fl.run("get-nosuch", *W, "mine.get", "*", "nosuch.fun")
        fl.run("get-nosuch-text", "salt", "web1", "mine.get", "*", "nosuch.fun")
        fl.run("get-nomatch-tgt", *W, "mine.get", "nosuchminion*", "test.ping")
        fl.run("get-pillar-tgt", *W, "mine.get", "roles:web", "test.ping", "pillar")
        fl.run("get-compound-pillar", *W, "mine.get", "I@roles:web and G@roles:web", "test.ping",
               "compound")
        fl.run("valid-json", "salt", *J, "*", "mine.valid")
        fl.run("valid-text", "salt", "*", "mine.valid")
        fl.run("pillar-items-db1", "salt", *J, "db1", "pillar.items")
        # a state compiled on web1 that reads the mine
        fl.run("pool-show-sls", *W, "state.show_sls", "pool")
        fl.run("pool-apply", *W, "state.apply", "pool")
        fl.run("pool-cat", "cat", "@TMP@/pool.txt")
        fl.run("pool-apply-text-again", "salt", "web1", "state.apply", "pool")
        # send / delete / flush
        fl.run("send", *W, "mine.send", "test.echo", "sent_value")
        fl.run("send-get", *W, "mine.get", "*", "test.echo")
        fl.run("send-alias", *W, "mine.send", "my_alias", "mine_function=test.echo", "aliased")
        fl.run("send-alias-get", *W, "mine.get", "*", "my_alias")
        fl.run("send-acl", *W, "mine.send", "acl_alias", "mine_function=test.echo", "acl_value",
               "allow_tgt=db1")
        fl.run("send-acl-get-web1", *W, "mine.get", "*", "acl_alias")
        fl.run("send-acl-get-db1", "salt", *J, "db1", "mine.get", "*", "acl_alias")
        fl.run("send-nosuch", *W, "mine.send", "nosuch.fun")
        fl.run("delete", *W, "mine.delete", "test.echo")
        fl.run("delete-get", *W, "mine.get", "*", "test.echo")
        fl.run("delete-text", "salt", "web1", "mine.delete", "test.echo")
        fl.run("flush-db1", "salt", *J, "db1", "mine.flush")
        fl.run("flush-get", *W, "mine.get", "*", "test.ping")
        fl.run("runner-get-json", "salt-run", *J, "mine.get", "*", "test.ping")
        fl.run("runner-get-text", "salt-run", "mine.get", "*", "test.ping")
        fl.run("runner-get-grain", "salt-run", *J, "mine.get", "roles:web", "roles_alias",
               "tgt_type=grain")
        fl.run("runner-get-grain-text", "salt-run", "mine.get", "roles:web", "roles_alias",
               "tgt_type=grain")
        fl.run("runner-get-multi", "salt-run", *J, "mine.get", "*", "test.ping,roles_alias")
        fl.run("runner-get-secret", "salt-run", *J, "mine.get", "*", "secret")
        fl.run("update-clear", "salt", *J, "db1", "mine.update", "clear=True")
        fl.run("update-clear-get", *W, "mine.get", "db1", "[test.ping, grains.item, pillar_fn]")
        time.sleep(2)
        fl.grep("master_log_errors_after_update_clear", fl.master_log(),
                r"\[ERROR|\[WARNING|\[CRITICAL")
        # a minion whose mine_functions hold a failing and a missing function
        broken = dict(MINE_FUNCTIONS)
        broken["broken"] = [{"mine_function": "cmd.run"}]
        broken["nosuch.fn"] = []
        fl.minion_cfg("bad1", {"roles": ["bad"]}, {"mine_functions": broken})
        fl.note("started a fourth minion bad1 (grains roles: [bad]) whose mine_functions add "
                "broken: [{mine_function: cmd.run}] and nosuch.fn: []")
        mlog0 = fl.size(fl.master_log())
        fl.start_minion("bad1")
        fl.accept_and_wait(["bad1"])
        fl.run("bad-update-json", "salt", *J, "bad1", "mine.update")
        fl.run("bad-update-text", "salt", "bad1", "mine.update")
        fl.run("bad-valid", "salt", *J, "bad1", "mine.valid")
        fl.run("bad-valid-text", "salt", "bad1", "mine.valid")
        fl.run("bad-get", *W, "mine.get", "bad1", "[broken, nosuch.fn, test.ping, roles_alias]")
        fl.run("bad-send-broken", "salt", *J, "bad1", "mine.send", "broken2",
               "mine_function=cmd.run")
        time.sleep(3)
        fl.grep("bad1_minion_log_mine", fl.minion_log("bad1"), r"(?i)mine")
        fl.grep("bad1_minion_log_errors", fl.minion_log("bad1"), r"\[ERROR|\[WARNING")
        fl.grep("master_log_mine_since_bad1", fl.master_log(), r"(?i)mine|\[ERROR", since=mlog0)
        fl.grep("web1_minion_log_mine", fl.minion_log("web1"), r"(?i)mine")
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


# ---------------------------------------------------------------------------
def scenario_schedule(out):
    fl = Fleet("schedule", out, {"web1": {"roles": ["web"]}},
               minion_extra={"schedule": {"cfg_job": {"function": "test.ping",
                                                      "seconds": 3600}}})
    fl.write("srv/pillar/top.sls", "base:\n  web1:\n    - sched\n")
    fl.write("srv/pillar/sched.sls", "{}\n")
    try:
        start_fleet(fl, ["web1"], listener=True)
        J = ("salt", "--out", "json", "web1")
        T = ("salt", "web1")
        fl.run("list-json", *J, "schedule.list")
        fl.run("list-text", *T, "schedule.list")
        fl.run("list-show-all-json", *J, "schedule.list", "show_all=True")
        fl.run("list-show-all-text", *T, "schedule.list", "show_all=True")
        fl.run("list-return-yaml-false-json", *J, "schedule.list", "return_yaml=False")
        fl.run("list-return-yaml-false-text", *T, "schedule.list", "return_yaml=False")
        fl.run("cat-schedule-conf-initial", "cat", "@TMP@/etc-web1/minion.d/_schedule.conf")
        fl.run("add-job2", *J, "schedule.add", "job2", "function=test.echo",
               "job_args=['hi']", "seconds=5")
        fl.run("list-after-add-json", *J, "schedule.list")
        fl.run("list-after-add-text", *T, "schedule.list")
        fl.run("add-job2-dup-json", *J, "schedule.add", "job2", "function=test.echo",
               "job_args=['hi']", "seconds=5")
        fl.run("add-job2-dup-text", *T, "schedule.add", "job2", "function=test.echo",
               "job_args=['hi']", "seconds=5")
        fl.run("modify-job2", *J, "schedule.modify", "job2", "function=test.echo",
               "job_args=['hello']", "seconds=6")
        fl.run("modify-job2-text", *T, "schedule.modify", "job2", "function=test.echo",
               "job_args=['hello']", "seconds=7")
        fl.run("modify-nosuch", *J, "schedule.modify", "nosuch", "function=test.ping",
               "seconds=6")
        fl.run("disable-job-job2", *J, "schedule.disable_job", "job2")
        fl.run("list-after-disable-job-json", *J, "schedule.list")
        fl.run("list-after-disable-job-text", *T, "schedule.list")
        fl.run("list-show-disabled-false", *J, "schedule.list", "show_disabled=False")
        fl.run("enable-job-job2", *J, "schedule.enable_job", "job2")
        fl.run("disable-job-nosuch", *J, "schedule.disable_job", "nosuch")
        fl.run("disable", *J, "schedule.disable")
        fl.run("list-after-disable-json", *J, "schedule.list")
        fl.run("list-after-disable-text", *T, "schedule.list")
        fl.run("is-enabled-all-while-disabled", *J, "schedule.is_enabled")
        fl.run("enable", *J, "schedule.enable")
        fl.run("run-job-job2", *J, "schedule.run_job", "job2")
        fl.run("run-job-nosuch", *J, "schedule.run_job", "nosuch")
        fl.run("run-job-nosuch-text", *T, "schedule.run_job", "nosuch")
        fl.run("add-cronjob", *J, "schedule.add", "cronjob", "function=test.ping",
               "cron=*/5 * * * *")
        fl.run("add-splayjob", *J, "schedule.add", "splayjob", "function=test.ping",
               "seconds=30", "splay=10")
        fl.run("add-oncejob", *J, "schedule.add", "oncejob", "function=test.ping",
               "once=2030-01-01T00:00:00", "once_fmt=%Y-%m-%dT%H:%M:%S")
        fl.run("add-bad-no-interval", *J, "schedule.add", "bad", "function=test.ping")
        fl.run("add-both-seconds-cron", *J, "schedule.add", "both", "function=test.ping",
               "seconds=5", "cron=* * * * *")
        fl.run("add-no-function", *J, "schedule.add", "nofun", "seconds=5")
        fl.run("add-test-true", *J, "schedule.add", "testjob", "function=test.ping",
               "seconds=5", "test=True")
        fl.run("list-after-adds-json", *J, "schedule.list")
        fl.run("list-after-adds-text", *T, "schedule.list")
        fl.run("next-fire-cronjob", *J, "schedule.show_next_fire_time", "cronjob")
        fl.run("save", *J, "schedule.save")
        fl.run("save-text", *T, "schedule.save")
        fl.run("cat-schedule-conf", "cat", "@TMP@/etc-web1/minion.d/_schedule.conf")
        fl.run("delete-job2", *J, "schedule.delete", "job2")
        fl.run("delete-nosuch", *J, "schedule.delete", "nosuch")
        fl.run("cat-schedule-conf-after-delete", "cat",
               "@TMP@/etc-web1/minion.d/_schedule.conf")
        fl.run("reload", *J, "schedule.reload")
        fl.run("list-after-reload-json", *J, "schedule.list")
        fl.run("list-after-reload-text", *T, "schedule.list")
        fl.run("is-enabled-cfg-job", *J, "schedule.is_enabled", "cfg_job")
        fl.run("is-enabled-cfg-job-text", *T, "schedule.is_enabled", "cfg_job")
        fl.run("is-enabled-nosuch", *J, "schedule.is_enabled", "nosuch")
        fl.run("is-enabled-all", *J, "schedule.is_enabled")
        fl.run("next-fire-cfg-job", *J, "schedule.show_next_fire_time", "cfg_job")
        fl.run("next-fire-cfg-job-text", *T, "schedule.show_next_fire_time", "cfg_job")
        fl.run("next-fire-nosuch", *J, "schedule.show_next_fire_time", "nosuch")
        fl.run("job-status-cfg-job", *J, "schedule.job_status", "cfg_job")
        fl.run("purge", *J, "schedule.purge")
        fl.run("list-after-purge-json", *J, "schedule.list")
        fl.run("list-after-purge-text", *T, "schedule.list")
        fl.run("list-after-purge-show-all", *J, "schedule.list", "show_all=True")
        fl.run("cat-schedule-conf-after-purge", "cat",
               "@TMP@/etc-web1/minion.d/_schedule.conf")
        # a job that runs every 5 s for ~20 s
        fl.run("add-tickjob", *J, "schedule.add", "tickjob", "function=test.echo",
               "job_args=['tick']", "seconds=5")
        fl.note("slept 22 s while tickjob (test.echo tick every 5 s) ran")
        time.sleep(22)
        fl.run("delete-tickjob", *J, "schedule.delete", "tickjob")
        time.sleep(3)
        fl.run("list-jobs-json", "salt-run", "--out", "json", "jobs.list_jobs")
        jid = None
        for ev in fl.events():
            d = ev.get("data") if isinstance(ev.get("data"), dict) else {}
            if ev.get("tag", "").startswith("salt/job/") and d.get("schedule") == "tickjob":
                jid = d.get("jid")
        if jid:
            fl.result["tick_jid"] = jid
            fl.run("lookup-jid-tick-json", "salt-run", "--out", "json", "jobs.lookup_jid", jid)
            fl.run("lookup-jid-tick-text", "salt-run", "jobs.lookup_jid", jid)
            fl.run("list-job-tick-json", "salt-run", "--out", "json", "jobs.list_job", jid)
            fl.run("list-job-tick-text", "salt-run", "jobs.list_job", jid)
        else:
            fl.note("no salt/job/<jid>/ret event with schedule tickjob was seen")
        # pillar schedule
        fl.write("srv/pillar/sched.sls",
                 "schedule:\n  pillar_job:\n    function: test.ping\n    minutes: 10\n")
        fl.note("wrote pillar sched.sls: schedule: {pillar_job: {function: test.ping, minutes: 10}}")
        fl.run("refresh-pillar", *J, "saltutil.refresh_pillar")
        time.sleep(5)
        fl.run("list-pillar-json", *J, "schedule.list")
        fl.run("list-pillar-text", *T, "schedule.list")
        fl.run("list-pillar-noyaml", *J, "schedule.list", "return_yaml=False")
        fl.run("delete-pillar-job", *J, "schedule.delete", "pillar_job")
        # the other accepted keys
        fl.run("add-keysjob", *J, "schedule.add", "keysjob", "function=test.ping",
               "seconds=3600", "maxrunning=3", "run_on_start=True",
               "until=2030-01-01 00:00:00", "after=2020-01-01 00:00:00",
               "return_job=False", "jid_include=False", "metadata={'a': 1}",
               "job_kwargs={'k': 'v'}", "range={'start': '8am', 'end': '5pm'}")
        fl.run("add-whenjob", *J, "schedule.add", "whenjob", "function=test.ping",
               "when=['Monday 5:00pm', '2030-01-01 10:00']")
        fl.run("list-keys-json", *J, "schedule.list")
        fl.run("list-keys-text", *T, "schedule.list")
        fl.run("list-keys-noyaml", *J, "schedule.list", "return_yaml=False")
        fl.run("build-item", *J, "schedule.build_schedule_item", "x", "function=test.ping",
               "seconds=10")
        fl.run("cat-schedule-conf-final", "cat", "@TMP@/etc-web1/minion.d/_schedule.conf")
        # the same minion without croniter importable
        nocron = fl.write("nocron/croniter/__init__.py",
                          "raise ImportError('croniter hidden for this recording')\n")
        fl.stop("minion-web1")
        fl.start_minion("web1", env={"PYTHONPATH": os.path.dirname(os.path.dirname(nocron))})
        fl.note("restarted web1 with PYTHONPATH holding a croniter package that raises "
                "ImportError (croniter 7.0.0 is installed in the venv; this hides it)")
        fl.wait_ping(["web1"])
        nlog0 = fl.size(fl.minion_log("web1"))
        fl.run("nocron-add-cronjob", *J, "schedule.add", "cronjob2", "function=test.ping",
               "cron=*/5 * * * *")
        time.sleep(5)
        fl.run("nocron-list-json", *J, "schedule.list")
        fl.run("nocron-list-text", *T, "schedule.list")
        fl.run("nocron-next-fire", *J, "schedule.show_next_fire_time", "cronjob2")
        time.sleep(3)
        fl.grep("web1_log_croniter", fl.minion_log("web1"), r"(?i)cron", since=nlog0)
        fl.grep("web1_log_schedule_all", fl.minion_log("web1"), r"(?i)schedul")
        fl.stop_listeners()
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


# ---------------------------------------------------------------------------
REACT_SLS = """\
reaction_cmd:
  local.cmd.run:
    - tgt: {{{{ data['id'] }}}}
    - args:
      - cmd: 'echo {{{{ tag }}}} >> {tmp}/reacted.txt'

reaction_cmd_shell:
  local.cmd.run:
    - tgt: {{{{ data['id'] }}}}
    - args:
      - cmd: 'echo {{{{ tag }}}} >> {tmp}/reacted.txt'
      - python_shell: true

reaction_runner:
  runner.test.arg:
    - args:
      - a: {{{{ data['data']['x'] | default(1) }}}}
      - tag: {{{{ tag }}}}

reaction_wheel:
  wheel.key.list_all: []
"""
START_SLS = """\
start_ping:
  local.test.ping:
    - tgt: {{ data['id'] }}
"""
BAD_SLS = """\
bad_reaction:
  local.test.ping:
    - tgt: {{ data['id'] | nosuchfilter( }}
"""
FULL_SLS = """\
slow_runner:
  runner.test.sleep:
    - args:
      - s_time: 60
"""


def scenario_reactor(out):
    fl = Fleet("reactor", out, WEB_DB)
    r = fl.srv + "/reactor/"
    fl.write("srv/reactor/react.sls", REACT_SLS.format(tmp=fl.work))
    fl.write("srv/reactor/start.sls", START_SLS)
    fl.write("srv/reactor/bad.sls", BAD_SLS)
    fl.write("srv/reactor/full.sls", FULL_SLS)
    fl.master_cfg["reactor"] = [
        {"my/react/*": [r + "react.sls"]},
        {"salt/minion/*/start": [r + "start.sls"]},
        {"my/bad/*": [r + "bad.sls"]},
        {"my/full/*": [r + "full.sls"]},
    ]
    fl.write_master()
    try:
        start_fleet(fl, ["web1", "web2", "db1"], listener=True)
        J = ("salt", "--out", "json", "web1")
        fl.run("send-react-one", *J, "event.send", "my/react/one", '{"x": 5}')
        reacted = os.path.join(fl.work, "reacted.txt")
        deadline = time.time() + 150
        while time.time() < deadline and not os.path.exists(reacted):
            time.sleep(1)
        fl.note("reacted.txt %s after send-react-one" %
                ("appeared" if os.path.exists(reacted) else "never appeared (150 s)"))
        time.sleep(12)
        fl.run("cat-reacted", "cat", "@TMP@/reacted.txt")
        fl.run("send-react-two-no-x", "salt", "web1", "event.send", "my/react/two", "{}")
        t0 = time.time()
        while time.time() < t0 + 90:
            if os.path.exists(reacted) and "my/react/two" in open(reacted).read():
                break
            time.sleep(1)
        time.sleep(10)
        fl.run("cat-reacted-2", "cat", "@TMP@/reacted.txt")
        fl.run("runner-event-send", "salt-run", "event.send", "my/react/three", '{"x": 9}')
        time.sleep(20)
        fl.run("cat-reacted-3", "cat", "@TMP@/reacted.txt")
        mlog0 = fl.size(fl.master_log())
        fl.run("send-bad", *J, "event.send", "my/bad/one", '{"y": 1}')
        time.sleep(15)
        fl.grep("master_log_reactor_bad", fl.master_log(), r"(?i)reactor|render|jinja|\[ERROR",
                since=mlog0)
        fl.grep("master_log_reactor_all", fl.master_log(), r"(?i)reactor|reaction")
        fl.run("jobs-list-jobs", "salt-run", "--out", "json", "jobs.list_jobs")
        # the pool: reactor_worker_threads 1, reactor_worker_hwm 1
        fl.stop_listeners()
        fl.stop_master()
        fl.master_cfg["reactor_worker_threads"] = 1
        fl.master_cfg["reactor_worker_hwm"] = 1
        fl.write_master()
        fl.note("stopped the master, set reactor_worker_threads: 1 and reactor_worker_hwm: 1, "
                "restarted it; my/full/* reacts with runner.test.sleep s_time=60")
        mlog1 = fl.size(fl.master_log())
        fl.start_master()
        fl.start_listener()
        fl.wait_ping(["web1", "web2", "db1"])
        procs = []
        t0 = time.time()
        for i in range(1, 6):
            argv = [fl.b("salt-run"), "-c", fl.conf, "event.send", "my/full/%d" % i,
                    '{"n": %d}' % i]
            procs.append((i, subprocess.Popen(argv, stdout=subprocess.PIPE,
                                              stderr=subprocess.PIPE, text=True,
                                              start_new_session=True)))
            time.sleep(0.3)
        for i, p in procs:
            so, se = p.communicate(timeout=300)
            fl.steps.append({"label": "full-send-%d (5 started in parallel)" % i,
                             "argv": ["salt-run", "event.send", "my/full/%d" % i,
                                      '{"n": %d}' % i],
                             "stdout": fl.norm(so), "stderr": fl.norm(se),
                             "code": p.returncode, "seconds": round(time.time() - t0, 2)})
        fl.save()
        time.sleep(15)
        fl.grep("master_log_pool_full", fl.master_log(),
                r"(?i)reactor|taskpool|queue|\[ERROR|\[WARNING", since=mlog1)
        fl.stop_listeners()
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


# ---------------------------------------------------------------------------
def scenario_call(out):
    fl = Fleet("call", out, WEB_DB, minion_extra={"mine_functions": MINE_FUNCTIONS})
    fl.write("srv/pillar/top.sls", "base:\n  'web*':\n    - web\n")
    fl.write("srv/pillar/web.sls", "roles:\n  - web\ncall_pillar: yes\n")
    fl.write("srv/salt/pool.sls", POOL_SLS.format(path=fl.work + "/pool.txt"))
    fl.write("srv/salt/somefile", "hello from the master\n")
    try:
        start_fleet(fl, ["web1", "web2", "db1"], listener=True)
        fl.run("setup-mine-update", "salt", "--out", "json", "*", "mine.update")
        C = fl.mconf("web1")

        def call(label, *argv, **kw):
            return fl.run(label, "salt-call", *argv, conf=C, **kw)
        call("ping-json", "--out", "json", "test.ping")
        call("ping-text", "test.ping")
        call("pillar-items", "--out", "json", "pillar.items")
        call("pillar-items-text", "pillar.items")
        call("state-apply-pool-json", "--out", "json", "state.apply", "pool")
        fl.run("cat-pool", "cat", "@TMP@/pool.txt")
        os.unlink(os.path.join(fl.work, "pool.txt"))
        fl.note("removed @TMP@/pool.txt")
        call("state-apply-pool-text", "state.apply", "pool")
        call("state-apply-pool-text-clean", "state.apply", "pool")
        call("mine-get", "--out", "json", "mine.get", "*", "test.ping")
        call("mine-get-text", "mine.get", "*", "test.ping")
        call("event-send", "--out", "json", "event.send", "my/call/tag", '{"k": 1}')
        call("event-send-text", "event.send", "my/call/tag2", '{"k": 2}')
        call("grains-item-roles", "--out", "json", "grains.item", "roles")
        call("grains-item-roles-text", "grains.item", "roles")
        call("cp-get-file", "--out", "json", "cp.get_file", "salt://somefile",
             "@TMP@/got/somefile.txt", "makedirs=True")
        fl.run("cat-got", "cat", "@TMP@/got/somefile.txt")
        call("cp-get-file-missing", "--out", "json", "cp.get_file", "salt://nosuchfile",
             "@TMP@/got/nosuch.txt")
        call("nosuch-function", "--out", "json", "nosuch.fn")
        call("retcode-passthrough-false", "--out", "json", "--retcode-passthrough",
             "test.false")
        time.sleep(5)
        fl.stop_listeners()
        fl.stop_master()
        fl.note("stopped the master (the minion daemons keep running)")
        call("ping-master-down-json", "--out", "json", "test.ping", timeout=300)
        call("ping-master-down-text", "test.ping", timeout=300)
        call("ping-master-down-t5", "--out", "json", "-t", "5", "test.ping", timeout=300)
        call("ping-master-down-local", "--out", "json", "--local", "test.ping", timeout=300)
    finally:
        fl.close()
        fl.save()
        fl.cleanup()

# ---------------------------------------------------------------------------
CALLER_SLS = """\
touch_it:
  caller.file.touch:
    - args:
      - name: {tmp}/caller-touched.txt
"""
CALLER_LEGACY_SLS = """\
legacy_it:
  caller.cmd.run:
    - args:
      - touch {tmp}/caller-legacy.txt
"""


def caller_reactor(fl):
    """Map my/caller/* and my/legacy/* to the two caller reactions."""
    r = fl.srv + "/reactor/"
    fl.write("srv/reactor/caller.sls", CALLER_SLS.format(tmp=fl.work))
    fl.write("srv/reactor/legacy.sls", CALLER_LEGACY_SLS.format(tmp=fl.work))
    fl.master_cfg["reactor"] = [
        {"my/caller/*": [r + "caller.sls"]},
        {"my/legacy/*": [r + "legacy.sls"]},
    ]
    fl.write_master()


def send_caller_events(fl, wait):
    """Fire my/caller/one and my/legacy/one, wait, and record which files
    the reactions made and what the master logged."""
    mlog0 = fl.size(fl.master_log())
    fl.run("send-caller", "salt-run", "event.send", "my/caller/one", '{"x": 1}')
    fl.run("send-legacy", "salt-run", "event.send", "my/legacy/one", '{"x": 2}')
    time.sleep(wait)
    fl.run("ls-caller-files", "sh", "-c", "ls @TMP@ | grep caller || echo none")
    fl.grep("master_log_caller", fl.master_log(),
            r"(?i)reactor|caller|\[ERROR|\[WARNING|\[CRITICAL", since=mlog0)


def scenario_bus(out):
    """caller.* reactions on a master, and salt-call's schedule.* and
    event.fire reaching a running minion daemon (its local event bus)."""
    sched = {"job1": {"function": "test.echo", "args": ["from-job1"], "seconds": 3600}}
    fl = Fleet("bus", out, {"web1": {"roles": ["web"]}, "web2": {"roles": ["web"]}},
               minion_extra={"schedule": sched})
    caller_reactor(fl)
    try:
        start_fleet(fl, ["web1", "web2"], listener=True)
        send_caller_events(fl, wait=60)
        C = fl.mconf("web1")

        def call(label, *argv, **kw):
            return fl.run(label, "salt-call", *argv, conf=C, **kw)
        call("schedule-list", "--out", "json", "schedule.list")
        call("schedule-list-text", "schedule.list")
        call("schedule-add-job2", "--out", "json", "schedule.add", "job2",
             "function=test.echo", "job_args=[from-job2]", "seconds=3600")
        fl.run("master-schedule-list-web1", "salt", "--out", "json", "web1", "schedule.list")
        call("schedule-list-after-add", "--out", "json", "schedule.list")
        call("schedule-run-job1", "--out", "json", "schedule.run_job", "job1")
        time.sleep(8)
        call("schedule-run-nosuch", "--out", "json", "schedule.run_job", "nosuch")
        call("schedule-disable-job2", "--out", "json", "schedule.disable_job", "job2")
        fl.run("master-schedule-list-web1-disabled", "salt", "--out", "json", "web1",
               "schedule.list")
        call("schedule-delete-job2", "--out", "json", "schedule.delete", "job2")
        call("schedule-save", "--out", "json", "schedule.save")
        fl.run("ls-web1-minion-d", "sh", "-c", "ls @TMP@/etc-web1/minion.d || echo none")
        call("event-fire-local", "--out", "json", "event.fire", '{"a": 1}', "my/local/tag")
        call("event-fire-master", "--out", "json", "event.fire_master", '{"b": 2}',
             "my/firemaster/tag")
        time.sleep(5)
        fl.stop("minion-web1")
        fl.note("stopped web1's minion daemon (the master and web2 keep running)")
        call("down-schedule-list", "--out", "json", "schedule.list", timeout=300)
        call("down-schedule-add-job3", "--out", "json", "schedule.add", "job3",
             "function=test.ping", "seconds=3600", timeout=300)
        call("down-schedule-run-job1", "--out", "json", "schedule.run_job", "job1",
             timeout=300)
        call("down-event-fire-local", "--out", "json", "event.fire", '{"a": 1}',
             "my/local/tag", timeout=300)
        call("down-local-schedule-list", "--out", "json", "--local", "schedule.list",
             timeout=300)
        time.sleep(5)
        fl.stop_listeners()
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


def scenario_caller_local(out):
    """caller.* reactions on a master whose config says `file_client: local`
    (Salt's Caller reads the master's config file as a minion's)."""
    fl = Fleet("caller_local", out, {"web1": {"roles": ["web"]}},
               master_extra={"file_client": "local"})
    caller_reactor(fl)
    try:
        start_fleet(fl, ["web1"], listener=True)
        send_caller_events(fl, wait=30)
        fl.stop_listeners()
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


SCENARIOS = {"mine": scenario_mine, "schedule": scenario_schedule,
             "reactor": scenario_reactor, "call": scenario_call,
             "bus": scenario_bus, "caller_local": scenario_caller_local}


def main():
    out = os.path.abspath(sys.argv[1])
    os.makedirs(out, exist_ok=True)
    names = sys.argv[2:] or list(SCENARIOS)
    failed = []
    for n in names:
        log("=== scenario", n)
        try:
            SCENARIOS[n](out)
        except Exception as e:  # keep going with the next scenario
            import traceback
            traceback.print_exc()
            failed.append(n)
    log("done; failed:", failed)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
