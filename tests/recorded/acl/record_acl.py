#!/usr/bin/env python3
"""Record what a real Salt 3007.8 master (running as root) with minions web1
and db1 answers when NON-ROOT local users run the `salt` CLI under
`publisher_acl` and `publisher_acl_blacklist`: what the folders, the key
files and the sockets must allow before such a user gets anywhere, and
then, per command, stdout, stderr, exit code and the lines the master
logged.

usage: SALT_BIN=/tmp/saltvenv/bin /tmp/saltvenv/bin/python3 record_acl.py OUTDIR

Run as root. Writes OUTDIR/acl.salt.json:

  users       the local users used: `nobody` (must exist) and `brineacl2`
              (made with useradd if missing, removed again at the end)
  python      how the CLI was started for the non-root users (see notes)
  scenarios   in order, each {name, master_config (the ACL part), steps,
              stat, notes}
    steps     {label, user, env (what was set besides the defaults),
              cmdline (the exact command, as a shell would read it),
              argv (from `salt`/`salt-run` on, without `-c DIR`), stdout,
              stderr, code, master_log (the master's log lines written
              while the step ran: WARNING/ERROR/CRITICAL and "Published
              command"; time, pid and jid masked), and for the
              permission steps `fs` (what was changed on disk before it)}
    stat      mode, owner and group of the master's root_dir chain, the
              cachedir, the `.<user>_key` files and the sock_dir sockets

The temporary folder is written @ROOT@, jids (20 digits from 20..) @JID@,
log times @TIME@, log pids @PID@, object addresses in tracebacks @ADDR@,
ports @PUB@/@RET@.  Uses the fleet recorder's Fleet (one master, N minions
under one temporary folder, processes started in their own sessions and
stopped by PID)."""
import grp, json, os, pwd, re, shlex, stat, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fleet"))
from record_fleet import Fleet, SALT_BIN, log  # noqa: E402

ACL_USER = "nobody"
OTHER_USER = "brineacl2"
MINIONS = {"web1": {"roles": ["web"]}, "db1": {"roles": ["db"]}}

SCEN_ACL = {
    "publisher_acl": {ACL_USER: [{"web*": ["test.*"]}]},
}
SCEN_BLACKLIST = {
    "publisher_acl": {ACL_USER: [".*"], OTHER_USER: [".*"]},
    "publisher_acl_blacklist": {"users": [OTHER_USER], "modules": ["cmd.*"]},
}


def user_python():
    """The interpreter a non-root user can start.  The venv's python3 is a
    symlink into /root/.pyenv here, and /root is 0700, so it cannot be
    executed by nobody; then the system python of the same minor version
    runs the venv's scripts with the venv's site-packages on PYTHONPATH."""
    venv_py = os.path.join(SALT_BIN, "python3")
    ok = subprocess.run(["runuser", "-u", ACL_USER, "--", venv_py, "-c", "pass"],
                        capture_output=True).returncode == 0
    if ok:
        return [venv_py], {}, "the venv's own python3"
    ver = subprocess.run([venv_py, "-c", "import sys;print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True).stdout.strip()
    site = subprocess.run([venv_py, "-c", "import salt,os;print(os.path.dirname("
                           "os.path.dirname(salt.__file__)))"],
                          capture_output=True, text=True).stdout.strip()
    sys_py = "/usr/bin/python" + ver
    return [sys_py], {"PYTHONPATH": site}, (
        "%s cannot be executed by %s (its real file is under /root, mode 0700), so "
        "the salt scripts were run with %s and PYTHONPATH=%s (same minor version, "
        "same salt package)" % (os.path.realpath(venv_py), ACL_USER, sys_py, site))


class AclRecorder:
    def __init__(self, fl):
        self.fl = fl
        self.py, self.pyenv, self.pynote = user_python()
        self.scenarios = []
        self.cur = None

    # ---- masking --------------------------------------------------------
    def norm(self, s):
        if not isinstance(s, str):
            return s
        s = self.fl.norm(s).replace("@TMP@", "@ROOT@")
        s = re.sub(r"\b20\d{18}\b", "@JID@", s)
        s = re.sub(r"\b0x[0-9a-f]{6,}\b", "@ADDR@", s)
        return s

    def norm_log(self, line):
        line = re.sub(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+", "@TIME@", line)
        line = re.sub(r"\]\[\d+\]", "][@PID@]", line)
        return self.norm(line)

    # ---- scenarios -----------------------------------------------------
    def scenario(self, name, acl_cfg):
        self.cur = {"name": name, "master_config": acl_cfg, "steps": [], "notes": [],
                    "stat": {}}
        self.scenarios.append(self.cur)
        log("=== scenario", name)

    def note(self, text):
        self.cur["notes"].append({"after_step": len(self.cur["steps"]), "note": self.norm(text)})
        log("note:", text)

    def run(self, label, user, exe, *argv, home=None, fs=None, timeout=120):
        fl = self.fl
        env = dict(self.pyenv)
        if home:
            env["HOME"] = home
        cmd = ["runuser", "-u", user, "--"]
        if env:
            cmd += ["env"] + ["%s=%s" % kv for kv in sorted(env.items())]
        cmd += self.py + [fl.b(exe), "-c", fl.conf] + list(argv)
        mlog0 = fl.size(fl.master_log())
        t0 = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd="/")
            out, err, code = p.stdout, p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
            code = "timeout after %ds (recorder's limit)" % timeout
        secs = round(time.time() - t0, 2)
        time.sleep(1)  # let the master's workers write their log lines
        step = {"label": label, "user": user, "env": {k: self.norm(v) for k, v in env.items()},
                "cmdline": self.norm(" ".join(shlex.quote(c) for c in cmd)),
                "argv": [exe] + [self.norm(a) for a in argv],
                "stdout": self.norm(out), "stderr": self.norm(err), "code": code,
                "seconds": secs, "master_log": self.master_log_since(mlog0)}
        if fs:
            step["fs"] = [self.norm(x) for x in fs]
        self.cur["steps"].append(step)
        log("%-40s code=%s %.1fs %s" % (label, code, secs,
                                        (out.strip() or err.strip()).splitlines()[:1]))
        return step

    def master_log_since(self, pos):
        lines = []
        path = self.fl.master_log()
        if os.path.exists(path):
            with open(path, errors="replace") as f:
                f.seek(pos)
                for line in f:
                    if not re.match(r"\d{4}-\d\d-\d\d ", line):
                        continue
                    if re.search(r"\[(WARNING|ERROR|CRITICAL) *\]|Published command", line):
                        lines.append(self.norm_log(line.rstrip("\n")))
        return lines

    # ---- file system ---------------------------------------------------
    def statinfo(self, path):
        try:
            st = os.lstat(path)
        except OSError as e:
            return {"error": e.strerror}
        try:
            owner = pwd.getpwuid(st.st_uid).pw_name
        except KeyError:
            owner = st.st_uid
        try:
            group = grp.getgrgid(st.st_gid).gr_name
        except KeyError:
            group = st.st_gid
        kind = ("socket" if stat.S_ISSOCK(st.st_mode) else
                "dir" if stat.S_ISDIR(st.st_mode) else "file")
        return {"mode": "%04o" % stat.S_IMODE(st.st_mode), "owner": owner, "group": group,
                "kind": kind}

    def snapshot(self, key):
        w = self.fl.work
        m = os.path.join(w, "mroot")
        paths = [w, m, m + "/var", m + "/var/cache", m + "/var/cache/salt",
                 m + "/var/cache/salt/master", m + "/var/cache/salt/master/jobs",
                 m + "/var/log", m + "/var/log/salt", m + "/var/log/salt/master",
                 m + "/var/run", m + "/var/run/salt", m + "/var/run/salt/master"]
        cache = m + "/var/cache/salt/master"
        paths += sorted(os.path.join(cache, f) for f in os.listdir(cache)
                        if f.startswith(".") and f.endswith("_key"))
        sock = m + "/var/run/salt/master"
        paths += sorted(os.path.join(sock, f) for f in os.listdir(sock))
        self.cur["stat"][key] = {self.norm(p): self.statinfo(p) for p in paths}

    def save(self, out, extra):
        doc = {"salt_version": "3007.8", "users": extra["users"], "python": self.norm(self.pynote),
               "scenarios": self.scenarios,
               "tree": {k.replace("@TMP@", "@ROOT@"): v.replace("@TMP@", "@ROOT@")
                        for k, v in self.fl.tree().items()}}
        with open(os.path.join(out, "acl.salt.json"), "w") as f:
            json.dump(doc, f, indent=1)


def chmod(path, add):
    os.chmod(path, stat.S_IMODE(os.stat(path).st_mode) | add)


def ensure_user(name):
    try:
        pwd.getpwnam(name)
        return False
    except KeyError:
        subprocess.run(["useradd", "-M", "-d", "/nonexistent", "-s", "/usr/sbin/nologin", name],
                       check=True)
        return True


def open_event_socket(fl, rec):
    """The master recreates master_event_pub.ipc (0660 root:root) at each
    start; give it the ACL user's group so that user can connect."""
    sock = os.path.join(fl.work, "mroot/var/run/salt/master/master_event_pub.ipc")
    gid = pwd.getpwnam(ACL_USER).pw_gid
    os.chown(sock, -1, gid)
    return "chgrp %s %s" % (grp.getgrgid(gid).gr_name, rec.norm(sock))


def restart_master(fl, extra):
    fl.stop_master()
    for k in ("publisher_acl", "publisher_acl_blacklist"):
        fl.master_cfg.pop(k, None)
    fl.master_cfg.update(extra)
    fl.write_master()
    fl.start_master()
    fl.wait_ping(list(MINIONS))
    time.sleep(2)


def main(out):
    os.makedirs(out, exist_ok=True)
    made_user = ensure_user(OTHER_USER)
    fl = Fleet("acl", out, MINIONS, master_extra=dict(SCEN_ACL))
    rec = AclRecorder(fl)
    W = fl.work
    M = os.path.join(W, "mroot")
    home = {}
    try:
        fl.start_master()
        for mid in MINIONS:
            fl.start_minion(mid)
        fl.accept_and_wait(list(MINIONS))
        time.sleep(2)

        # -- 1. what the folders must allow -----------------------------
        rec.scenario("permissions", SCEN_ACL)
        rec.note("python: " + rec.pynote)
        rec.snapshot("as_salt_made_them")
        P = ("salt", "web1", "test.ping")
        rec.run("perm-0 as created (tempdir 0700)", ACL_USER, *P,
                fs=["@ROOT@ is mkdtemp's 0700 root:root; mroot, mroot/var, mroot/var/log, "
                    "mroot/var/log/salt are 0750 as salt-master made them"])
        os.chmod(W, 0o711)
        rec.run("perm-1 @ROOT@ 0711", ACL_USER, *P, fs=["chmod 0711 @ROOT@"])
        for d in (M, M + "/var", M + "/var/log", M + "/var/log/salt"):
            chmod(d, 0o001)
        rec.run("perm-2 o+x on the log folders", ACL_USER, *P,
                fs=["chmod o+x @ROOT@/mroot @ROOT@/mroot/var @ROOT@/mroot/var/log "
                    "@ROOT@/mroot/var/log/salt (the log file stays 0640 root:root)",
                    "HOME is what runuser sets: nobody's home /nonexistent"])
        for u in (ACL_USER, OTHER_USER):
            home[u] = os.path.join(W, "home-" + u)
            os.makedirs(home[u])
            pw = pwd.getpwnam(u)
            os.chown(home[u], pw.pw_uid, pw.pw_gid)
        rec.run("perm-3 HOME writable", ACL_USER, *P, home=home[ACL_USER],
                fs=["mkdir @ROOT@/home-nobody owned by nobody, passed as HOME"])
        for d in (W, M, M + "/var"):
            chmod(d, 0o004)
        rec.run("perm-4 cachedir parents readable", ACL_USER, *P, home=home[ACL_USER],
                fs=["chmod o+r @ROOT@ @ROOT@/mroot @ROOT@/mroot/var (the cachedir "
                    "@ROOT@/mroot/var/cache/salt/master and its parents under var are "
                    "already 0755)"])
        rec.snapshot("before_event_socket")
        fs = open_event_socket(fl, rec)
        rec.run("perm-5 event socket group", ACL_USER, *P, home=home[ACL_USER], fs=[fs])
        rec.snapshot("working")
        rec.note("files under nobody's HOME: %s" % sorted(
            os.path.relpath(os.path.join(b, f), home[ACL_USER])
            for b, _, fs_ in os.walk(home[ACL_USER]) for f in fs_))

        # -- 2. publisher_acl: nobody may run test.* on web* -------------
        rec.scenario("acl", SCEN_ACL)
        H = home[ACL_USER]
        rec.run("1 allowed: web1 test.ping", ACL_USER, "salt", "web1", "test.ping", home=H)
        rec.run("1 allowed: web1 test.ping --out json", ACL_USER, "salt", "--out", "json",
                "web1", "test.ping", home=H)
        rec.run("1b allowed: web* test.echo", ACL_USER, "salt", "web*", "test.echo", "hi",
                home=H)
        rec.run("2 refused: web1 cmd.run id", ACL_USER, "salt", "web1", "cmd.run", "id", home=H)
        rec.run("2 refused: web1 cmd.run id --out json", ACL_USER, "salt", "--out", "json",
                "web1", "cmd.run", "id", home=H)
        rec.run("3 refused?: db1 test.ping", ACL_USER, "salt", "db1", "test.ping", home=H)
        rec.run("4 glob over web1+db1: '*' test.ping", ACL_USER, "salt", "*", "test.ping",
                home=H)
        rec.run("4b list web1,db1 test.ping", ACL_USER, "salt", "-L", "web1,db1", "test.ping",
                home=H)
        rec.run("4c no minion matches: nosuch test.ping", ACL_USER, "salt", "nosuch",
                "test.ping", home=H)
        rec.run("6 user not in publisher_acl: web1 test.ping", OTHER_USER, "salt", "web1",
                "test.ping", home=home[OTHER_USER])
        rec.run("6b same without a HOME of its own", OTHER_USER, "salt", "web1", "test.ping")
        rec.run("7 salt-run jobs.list_jobs", ACL_USER, "salt-run", "jobs.list_jobs", home=H)
        rec.snapshot("after")

        # -- 3. publisher_acl_blacklist --------------------------------
        restart_master(fl, SCEN_BLACKLIST)
        rec.scenario("blacklist", SCEN_BLACKLIST)
        fs = open_event_socket(fl, rec)
        rec.note("restarted the master with the blacklist config; then " + fs)
        rec.snapshot("after_restart")
        rec.run("5 allowed: '*' test.ping (nobody: ['.*'])", ACL_USER, "salt", "*",
                "test.ping", home=H)
        rec.run("5 blacklisted module: web1 cmd.run id", ACL_USER, "salt", "web1", "cmd.run",
                "id", home=H)
        rec.run("5 blacklisted module --out json", ACL_USER, "salt", "--out", "json", "web1",
                "cmd.run", "id", home=H)
        rec.run("5 blacklisted user: web1 test.ping", OTHER_USER, "salt", "web1", "test.ping",
                home=home[OTHER_USER])
    finally:
        fl.close()
        rec.save(out, {"users": {
            ACL_USER: {"uid": pwd.getpwnam(ACL_USER).pw_uid, "note": "pre-existing"},
            OTHER_USER: {"note": "made with `useradd -M -d /nonexistent -s /usr/sbin/nologin`"
                                 " for the recording" if made_user else "pre-existing"}}})
        fl.cleanup()
        if made_user:
            subprocess.run(["userdel", OTHER_USER])
    log("wrote", os.path.join(out, "acl.salt.json"))


if __name__ == "__main__":
    main(sys.argv[1])
