#!/usr/bin/env python3
"""Record what a real Salt 3007.8 master (running as root) with minions web1
and db1 answers when the `salt` (and `salt-run`) CLI uses external auth:
`-a/--eauth`, `-T/--make-token`, `--username`, `--password` and the token
file, run as root and as non-root local users; per command stdout,
stderr, exit code and the lines the master logged.

usage: SALT_BIN=/tmp/saltvenv/bin /tmp/saltvenv/bin/python3 record_eauth.py OUTDIR

Run as root (it makes local users).  Writes OUTDIR/eauth.salt.json:

  users       brineop (password pw1) and brineop2 (password pw2, member of
              the group brineops), made with useradd -m / chpasswd /
              groupadd for the recording and removed (userdel -r,
              groupdel) at the end
  python      how the CLI was started for the non-root users (as in
              record_acl.py: /usr/bin/python3.11 with PYTHONPATH when the
              venv's python cannot be executed by them)
  fs          what was opened on disk so that non-root users can run the
              CLI at all (see record_acl.py / acl.salt.json for why)
  scenarios   in order, each {name, master_config (the eauth part), steps,
              notes}
    steps     {label, user, env (what was set besides the defaults),
              cmdline (the exact command, as a shell would read it),
              argv (from `salt`/`salt-run` on, without `-c DIR`), stdin
              (always /dev/null: closed), stdout, stderr, code, seconds,
              master_log (the master's WARNING/ERROR/CRITICAL and
              "Published command" lines written while the step ran)} and,
              after -T steps, `token_file` {path, exists, mode, owner,
              length, is_hex, master_has_it, master_token_data (the
              master's tokens/<token> file, decoded)}

The temporary folder is written @ROOT@, jids @JID@, tokens (40 to 128 hex
digits) @TOKEN@, times in log lines, in token data and in jobs.list_jobs @TIME@, log pids
@PID@, object addresses @ADDR@, ports @PUB@/@RET@.  The root runs get
HOME=@ROOT@/home-root so that nothing is written under /root.  Uses the
fleet recorder's Fleet (processes started in their own sessions and stopped
by PID) and the ACL recorder's AclRecorder."""
import json, os, pwd, re, shlex, stat, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fleet"))
sys.path.insert(0, HERE)
from record_fleet import Fleet, SALT_BIN, log  # noqa: E402
from record_acl import AclRecorder, chmod  # noqa: E402

OP, OP_PW = "brineop", "pw1"
OP2, OP2_PW, OPS = "brineop2", "pw2", "brineops"
MINIONS = {"web1": {"roles": ["web"]}, "db1": {"roles": ["db"]}}
TOKEN_RE = re.compile(r"\b[0-9a-f]{40,128}\b")


def eauth_cfg(pwfile, filetype=None):
    fcfg = {"^filename": pwfile, "alice": ["test.ping"]}
    if filetype:
        fcfg["^filetype"] = filetype
    return {
        "external_auth": {
            "pam": {OP: [{"web*": ["test.*"]}, "@jobs"], OPS + "%": ["grains.item"]},
            "file": fcfg,
            "sharedsecret": {"ops": ["test.*"]},
        },
        "sharedsecret": "s3cret",
    }


class EauthRecorder(AclRecorder):
    def norm(self, s):
        if not isinstance(s, str):
            return s
        # before the port masking, which could hit digits inside a token
        s = super().norm(TOKEN_RE.sub("@TOKEN@", s))
        # jobs.list_jobs' StartTime, e.g. "2026, Nov 28 09:17:47.400967"
        return re.sub(r"\b\d{4}, [A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d\.\d+", "@TIME@", s)

    def run(self, label, user, exe, *argv, home=None, fs=None, timeout=120):
        fl = self.fl
        if user == "root":
            env = {"HOME": home} if home else {}
            cmd = (["env"] + ["%s=%s" % kv for kv in sorted(env.items())] if env else [])
            cmd += [fl.b(exe), "-c", fl.conf] + list(argv)
        else:
            env = dict(self.pyenv)
            if home:
                env["HOME"] = home
            cmd = ["runuser", "-u", user, "--", "env"]
            cmd += ["%s=%s" % kv for kv in sorted(env.items())]
            cmd += self.py + [fl.b(exe), "-c", fl.conf] + list(argv)
        mlog0 = fl.size(fl.master_log())
        t0 = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd="/",
                               stdin=subprocess.DEVNULL)
            out, err, code = p.stdout, p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
            code = "timeout after %ds (recorder's limit)" % timeout
        secs = round(time.time() - t0, 2)
        time.sleep(1)  # let the master's workers write their log lines
        step = {"label": label, "user": user, "env": {k: self.norm(v) for k, v in env.items()},
                "cmdline": self.norm(" ".join(shlex.quote(c) for c in cmd)),
                "argv": [exe] + [self.norm(a) for a in argv], "stdin": "/dev/null",
                "stdout": self.norm(out), "stderr": self.norm(err), "code": code,
                "seconds": secs, "master_log": self.master_log_since(mlog0)}
        if fs:
            step["fs"] = [self.norm(x) for x in fs]
        self.cur["steps"].append(step)
        log("%-48s code=%s %.1fs %s" % (label, code, secs,
                                        (out.strip() or err.strip()).splitlines()[:1]))
        return step

    def norm_obj(self, o):
        if isinstance(o, dict):
            return {self.norm(k): self.norm_obj(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [self.norm_obj(v) for v in o]
        return self.norm(o)

    def token_file(self, path):
        """Describe the token file after a -T step; attach it to the last step."""
        info = {"path": self.norm(path), "exists": os.path.exists(path)}
        if info["exists"]:
            st = os.stat(path)
            with open(path) as f:
                tok = f.read()
            info.update({"mode": "%04o" % stat.S_IMODE(st.st_mode),
                         "owner": pwd.getpwuid(st.st_uid).pw_name,
                         "length": len(tok), "is_hex": bool(re.fullmatch(r"[0-9a-f]+", tok)),
                         "trailing_newline": tok.endswith("\n")})
            tdir = os.path.join(self.fl.work, "mroot/var/cache/salt/master/tokens")
            tpath = os.path.join(tdir, tok.strip())
            info["master_has_it"] = os.path.exists(tpath)
            if info["master_has_it"]:
                import salt.payload
                with open(tpath, "rb") as f:
                    data = salt.payload.loads(f.read())
                for k in ("start", "expire"):
                    if isinstance(data.get(k), (int, float)):
                        data[k] = "@TIME@"
                info["master_token_data"] = self.norm_obj(data)
                info["expire_minus_start"] = "token_expire (default 43200 s)"
        self.cur["steps"][-1]["token_file"] = info
        log("token file:", info)
        return info


    def save(self, out, extra):
        doc = {"salt_version": "3007.8", "users": extra["users"], "python": self.norm(self.pynote),
               "fs": extra["fs"], "scenarios": self.scenarios,
               "tree": {k.replace("@TMP@", "@ROOT@"): v.replace("@TMP@", "@ROOT@")
                        for k, v in self.fl.tree().items()}}
        with open(os.path.join(out, "eauth.salt.json"), "w") as f:
            json.dump(doc, f, indent=1)


def make_users():
    subprocess.run(["groupadd", OPS], check=True)
    subprocess.run(["useradd", "-m", "-s", "/bin/sh", OP], check=True)
    subprocess.run(["useradd", "-m", "-s", "/bin/sh", "-G", OPS, OP2], check=True)
    subprocess.run(["chpasswd"], input="%s:%s\n%s:%s\n" % (OP, OP_PW, OP2, OP2_PW),
                   text=True, check=True)


def remove_users():
    for u in (OP, OP2):
        subprocess.run(["userdel", "-r", u], capture_output=True)
    subprocess.run(["groupdel", OPS], capture_output=True)


def open_for_users(fl):
    """What record_acl.py found a non-root CLI user needs, done at once."""
    W = fl.work
    M = os.path.join(W, "mroot")
    for d in (W, M, M + "/var"):
        chmod(d, 0o005)
    for d in (M + "/var/log", M + "/var/log/salt"):
        chmod(d, 0o001)
    sock = M + "/var/run/salt/master/master_event_pub.ipc"
    chmod(sock, 0o006)
    return ["chmod o+rx @ROOT@ @ROOT@/mroot @ROOT@/mroot/var",
            "chmod o+x @ROOT@/mroot/var/log @ROOT@/mroot/var/log/salt",
            "chmod o+rw @ROOT@/mroot/var/run/salt/master/master_event_pub.ipc "
            "(recreated 0660 root:root at each master start)"]


def restart_master(fl, cfg, env=None):
    fl.stop_master()
    fl.master_cfg.update(cfg)
    fl.write_master()
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        fl.start_master()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    fl.wait_ping(list(MINIONS))
    time.sleep(2)


def main(out):
    os.makedirs(out, exist_ok=True)
    remove_users()
    make_users()
    fl = Fleet("eauth", out, MINIONS)
    W = fl.work
    textfile = fl.write("etc/eauth-users.txt", "alice:secret\n")
    fl.master_cfg.update(eauth_cfg(textfile))
    fl.write_master()
    rec = EauthRecorder(fl)
    rhome = os.path.join(W, "home-root")
    os.makedirs(rhome)
    ohome, o2home = pwd.getpwnam(OP).pw_dir, pwd.getpwnam(OP2).pw_dir
    fs = []
    try:
        fl.start_master()
        for mid in MINIONS:
            fl.start_minion(mid)
        fl.accept_and_wait(list(MINIONS))
        time.sleep(2)
        fs = open_for_users(fl)
        cfg = eauth_cfg("@ROOT@/etc/eauth-users.txt")

        # -- pam / file / sharedsecret, run by root ------------------------
        rec.scenario("root", cfg)
        rec.note("root runs with HOME=@ROOT@/home-root; auth.pam.service is not set, so "
                 "PAM service 'login' (/etc/pam.d/login: pam_faildelay delay=3000000, "
                 "@include common-auth -> pam_unix); the master runs as root, so pam_unix "
                 "can read /etc/shadow for another user.  Every failed eauth answer is "
                 "padded by the master (LoadAuth.time_auth) to about the slowest failure "
                 "seen so far by that worker, +-25%, so refusals take ~1-5 s")
        R = ("-a", "pam", "--username", OP, "--password", OP_PW)
        rb = lambda label, *a: rec.run(label, "root", "salt", *a, home=rhome)  # noqa: E731
        rb("1 pam allowed: web1 test.ping", *R, "web1", "test.ping")
        rb("1 pam allowed --out json", "--out", "json", *R, "web1", "test.ping")
        rb("1 --eauth long form", "--eauth", "pam", "--username", OP, "--password", OP_PW,
           "web1", "test.ping")
        rb("2 pam wrong password", "-a", "pam", "--username", OP, "--password", "wrong",
           "web1", "test.ping")
        rb("2 pam wrong password --out json", "--out", "json", "-a", "pam", "--username", OP,
           "--password", "wrong", "web1", "test.ping")
        rb("2b pam unknown user", "-a", "pam", "--username", "nosuchuser", "--password", "x",
           "web1", "test.ping")
        rb("3 pam refused target: db1 test.ping", *R, "db1", "test.ping")
        rb("3 pam refused function: web1 cmd.run id", *R, "web1", "cmd.run", "id")
        rb("3 refused --out json", "--out", "json", *R, "web1", "cmd.run", "id")
        rb("3c glob over both: '*' test.ping", *R, "*", "test.ping")
        rb("3d root without -a: web1 cmd.run id", "web1", "cmd.run", "id")
        G = ("-a", "pam", "--username", OP2, "--password", OP2_PW)
        rb("4 group brineops%: web1 grains.item os", *G, "web1", "grains.item", "os")
        rb("4 group: db1 grains.item os", *G, "db1", "grains.item", "os")
        rb("4 group refused: web1 test.ping", *G, "web1", "test.ping")
        F = ("-a", "file", "--username", "alice")
        rb("6 file alice good", *F, "--password", "secret", "web1", "test.ping")
        rb("6 file alice bad password", *F, "--password", "nope", "web1", "test.ping")
        rb("6 file alice refused fn: test.echo", *F, "--password", "secret", "web1",
           "test.echo", "hi")
        rb("6 file unknown user bob", "-a", "file", "--username", "bob", "--password",
           "secret", "web1", "test.ping")
        S = ("-a", "sharedsecret", "--username", "ops")
        rb("6 sharedsecret good", *S, "--password", "s3cret", "web1", "test.ping")
        rb("6 sharedsecret bad", *S, "--password", "nope", "web1", "test.ping")
        rb("6 sharedsecret user not in acl", "-a", "sharedsecret", "--username", "dev",
           "--password", "s3cret", "web1", "test.ping")
        rb("7 eauth not configured: -a nosuch", "-a", "nosuch", "--username", OP,
           "--password", OP_PW, "web1", "test.ping")
        rb("7 eauth module exists but not in external_auth: -a auto", "-a", "auto",
           "--username", OP, "--password", OP_PW, "web1", "test.ping")
        rb("7 -a pam without --username/--password", "-a", "pam", "web1", "test.ping")
        rb("7 -a pam --username only", "-a", "pam", "--username", OP, "web1", "test.ping")
        rb("7 --username/--password without -a", "--username", OP, "--password", OP_PW,
           "web1", "cmd.run", "id")
        rb("7 -T without -a", "-T", "web1", "test.ping")
        rec.run("8 salt-run -a pam jobs.list_jobs (@jobs)", "root", "salt-run", *R,
                "jobs.list_jobs", home=rhome)
        rec.run("8 salt-run -a pam refused: test.arg", "root", "salt-run", *R, "test.arg",
                "x", home=rhome)
        rec.run("8 salt-run -a pam wrong password", "root", "salt-run", "-a", "pam",
                "--username", OP, "--password", "wrong", "jobs.list_jobs", home=rhome)

        # -- tokens as root ---------------------------------------------------
        rb("5r -T as root", "-T", *R, "web1", "test.ping")
        tf = os.path.join(rhome, "salt_token")
        rec.token_file(tf)
        rec.note("~/.config/salt exists for root's HOME: %s (token_file default is "
                 "~/salt_token, or $XDG_CONFIG_HOME|~/.config /salt/salt_token when that "
                 "folder exists)" % os.path.isdir(os.path.join(rhome, ".config/salt")))
        rb("5r root, token file present: web1 test.ping", "web1", "test.ping")
        rb("5r root, token file present: web1 cmd.run id", "web1", "cmd.run", "id")
        rb("5r root, token file present, -a pam wrong password: web1 cmd.run id",
           "-a", "pam", "--username", OP, "--password", "wrong", "web1", "cmd.run", "id")
        if os.path.exists(tf):
            os.unlink(tf)
        rec.note("deleted root's token file")

        # -- the same as the non-root user brineop -------------------------------
        rec.scenario("nonroot", cfg)
        rec.note("opened for the non-root users beforehand: " + "; ".join(fs))
        ob = lambda label, *a, **kw: rec.run(  # noqa: E731
            label, OP, "salt", *a, home=ohome, **kw)
        ob("0 brineop without -a (no publisher_acl)", "web1", "test.ping")
        ob("1 pam allowed: web1 test.ping", *R, "web1", "test.ping")
        ob("1 pam allowed --out json", "--out", "json", *R, "web1", "test.ping")
        ob("2 pam wrong password", "-a", "pam", "--username", OP, "--password", "wrong",
           "web1", "test.ping")
        ob("3 refused target: db1 test.ping", *R, "db1", "test.ping")
        ob("3 refused function: web1 cmd.run id", *R, "web1", "cmd.run", "id")
        rec.run("4 brineop2 as itself: web1 grains.item os", OP2, "salt", *G, "web1",
                "grains.item", "os", home=o2home)
        ob("6 file alice good (as brineop)", *F, "--password", "secret", "web1", "test.ping")
        ob("7 -a pam without --username/--password", "-a", "pam", "web1", "test.ping")
        ob("7 -a pam --username only", "-a", "pam", "--username", OP, "web1", "test.ping")
        ob("7 -a nosuch", "-a", "nosuch", "--username", OP, "--password", OP_PW,
           "web1", "test.ping")
        tf = os.path.join(ohome, "salt_token")
        ob("5 -T wrong password", "-T", "-a", "pam", "--username", OP, "--password", "wrong",
           "web1", "test.ping")
        rec.token_file(tf)
        rec.note("with -T the CLI first asks the master for a token (mk_token), then "
                 "publishes with the credentials anyway, so a wrong password is checked twice")
        ob("5 -T: web1 test.ping", "-T", *R, "web1", "test.ping")
        rec.token_file(tf)
        rec.note("~/.config/salt exists for brineop: %s" %
                 os.path.isdir(os.path.join(ohome, ".config/salt")))
        ob("5 token file, no -a: web1 test.ping", "web1", "test.ping")
        ob("5 token file, no -a --out json", "--out", "json", "web1", "test.ping")
        ob("5 token file, no -a: db1 test.ping", "db1", "test.ping")
        ob("5 token file, no -a: web1 cmd.run id", "web1", "cmd.run", "id")
        ob("5 token file + -a pam wrong password", "-a", "pam", "--username", OP,
           "--password", "wrong", "web1", "test.ping")
        ob("5 token file + -a file alice", *F, "--password", "secret", "web1", "test.echo",
           "x")
        rec.note("next: salt-run as a non-root user; it checks the config's `user: root` "
                 "before doing anything else")
        rec.run("8 salt-run with the token file: jobs.list_jobs", OP, "salt-run",
                "jobs.list_jobs", home=ohome)
        ob("5 -T again (second token)", "-T", *R, "web1", "test.ping")
        rec.token_file(tf)
        tdir = os.path.join(W, "mroot/var/cache/salt/master/tokens")
        rec.note("master token dir holds %d token file(s)" % len(os.listdir(tdir)))
        os.unlink(tf)
        rec.note("deleted %s" % tf)
        ob("5 token file deleted, no -a: web1 test.ping", "web1", "test.ping")
        with open(tf, "w") as f:
            f.write("0" * 64)
        os.chown(tf, pwd.getpwnam(OP).pw_uid, pwd.getpwnam(OP).pw_gid)
        os.chmod(tf, 0o600)
        rec.note("wrote %s with 64 zeros (a token the master does not know), owned by %s, "
                 "0600" % (tf, OP))
        ob("5 unknown token in the file, no -a", "web1", "test.ping")
        ob("5 unknown token in the file, -a pam good", *R, "web1", "test.ping")
        os.unlink(tf)
        rec.note("deleted %s" % tf)
        rec.run("8 salt-run -a pam jobs.list_jobs as brineop", OP, "salt-run", *R,
                "jobs.list_jobs", home=ohome)

        # -- file eauth with ^filetype: htpasswd --------------------------------
        hp = subprocess.run(["openssl", "passwd", "-apr1", "-salt", "brinesal", "secret"],
                            capture_output=True, text=True, check=True).stdout.strip()
        htfile = fl.write("etc/eauth-users.htpasswd", "alice:%s\n" % hp)
        restart_master(fl, eauth_cfg(htfile, "htpasswd"))
        rec.scenario("htpasswd-no-passlib", eauth_cfg("@ROOT@/etc/eauth-users.htpasswd",
                                                      "htpasswd"))
        rec.note("restarted the master; the htpasswd file was made with `openssl passwd "
                 "-apr1 -salt brinesal secret`; passlib is not installed in the venv")
        rb("6h htpasswd alice good, no passlib", *F, "--password", "secret", "web1",
           "test.ping")
        pl = os.path.join(W, "passlib")
        p = subprocess.run([os.path.join(SALT_BIN, "pip"), "install", "-q", "--target", pl,
                            "passlib"], capture_output=True, text=True)
        if p.returncode == 0:
            restart_master(fl, {}, env={"PYTHONPATH": pl})
            rec.scenario("htpasswd-passlib", eauth_cfg("@ROOT@/etc/eauth-users.htpasswd",
                                                       "htpasswd"))
            ver = subprocess.run([sys.executable, "-c", "import passlib;print(passlib.__version__)"],
                                 capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=pl)
                                 ).stdout.strip()
            rec.note("restarted the master with PYTHONPATH=@ROOT@/passlib (pip install "
                     "--target, passlib %s)" % ver)
            rb("6h htpasswd alice good", *F, "--password", "secret", "web1", "test.ping")
            rb("6h htpasswd alice bad", *F, "--password", "nope", "web1", "test.ping")
            rb("6h htpasswd unknown user", "-a", "file", "--username", "bob", "--password",
               "secret", "web1", "test.ping")
        else:
            rec.note("pip install passlib failed: " + p.stderr[-500:])
    finally:
        fl.close()
        rec.save(out, {"users": {
            OP: {"password": OP_PW, "note": "useradd -m -s /bin/sh; chpasswd"},
            OP2: {"password": OP2_PW, "groups": [OPS],
                  "note": "useradd -m -s /bin/sh -G %s; chpasswd" % OPS}}, "fs": fs})
        fl.cleanup()
        remove_users()
    log("wrote", os.path.join(out, "eauth.salt.json"))


if __name__ == "__main__":
    main(sys.argv[1])
