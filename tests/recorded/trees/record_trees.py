#!/usr/bin/env python3
"""Record what a real Salt 3007.8 answers for the gpg renderer in pillar and
states, decrypt_pillar, sdb, git_pillar and gitfs.

usage: SALT_BIN=/tmp/saltvenv/bin /tmp/saltvenv/bin/python3 record_trees.py OUTDIR [SCENARIO...]

SCENARIO is any of gpg_pillar, gpg_pillar_master, decrypt_pillar, sdb,
sdb_master, git_pillar, gitfs
(default: all, in that order).  Writes OUTDIR/<scenario>.salt.json in the
format of ../fleet/record_fleet.py (whose Fleet class this imports):

  steps   each command in order: argv (without `-c DIR`; salt-call steps name
          their config dir under `conf`; steps run with extra environment
          variables name them under `env`), stdout, stderr, code, seconds, label
  tree    the master/minion configs and the files the scenario used (sls,
          ext_pillar and sdb files), @TMP@ for the temporary folder
  notes   what was done between steps
  logs    grep results of the master/minion log files
  fixtures  where each file of the tree came from (a file of this folder)
  git     (git_pillar, gitfs) the environment and the shell script that built
          each repository from repos/<name>/<ref>/, and the ids it got

Fixtures (committed next to this script, so that tests can rebuild
everything without Python):

  gpgkeys/main/   GnuPG home with the secret key "brine test <test@example.invalid>"
                  (no passphrase); every scenario copies it into @TMP@ before use
  gpgkeys/other/  a second home/key ("brine other <other@example.invalid>")
                  which is never given to Salt: ciphertexts for it cannot be
                  decrypted
  fixtures/<scenario>/...  sls, pillar, ext_pillar and sdb files with the
                  ciphertexts in them; `@TMP@` in them is replaced by the
                  temporary folder when copied
  repos/<repo>/<ref>/...   the plain files of each git ref

gpg-agent daemons started (by gpg, for each GnuPG home in @TMP@) are stopped
at the end with `gpgconf --homedir H --kill gpg-agent`, then any process left
whose command line names the temporary folder is killed by PID."""
import json, os, re, shutil, signal, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fleet"))
from record_fleet import Fleet, log, SALT_BIN  # noqa: E402

import yaml  # noqa: E402

FIX = os.path.join(HERE, "fixtures")
KEYS = os.path.join(HERE, "gpgkeys")
REPOS = os.path.join(HERE, "repos")

# Fixed identity and dates: the commit ids depend only on these and the files.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "brine test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_AUTHOR_DATE": "1704067200 +0000",
    "GIT_COMMITTER_NAME": "brine test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_DATE": "1704067200 +0000",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "TZ": "UTC",
    "LC_ALL": "C",
}

# repo -> (first branch, [(ref, kind)])  (kind: branch or tag).  The first
# branch is the root commit; every other ref is one commit on top of it whose
# tree is exactly repos/<repo>/<ref>/ (a tag's temporary branch is deleted).
REPO_LAYOUT = {
    "pillar": ("main", [("dev", "branch"), ("multi", "branch")]),
    "pillar_root": ("main", []),
    "pillar_mount": ("main", []),
    "states": ("master", [("dev", "branch"), ("v1.0", "tag")]),
    "states_main": ("main", []),
    "states_mount": ("master", []),
}


def repo_script(name):
    """The sh script that builds @TMP@/repos/<name> from @TREES@/repos/<name>/."""
    first, refs = REPO_LAYOUT[name]
    src = "@TREES@/repos/%s" % name
    lines = [
        "set -e",
        "rm -rf @TMP@/repos/%s" % name,
        "mkdir -p @TMP@/repos/%s" % name,
        "cd @TMP@/repos/%s" % name,
        "git init -q -b %s ." % first,
        "cp -R %s/%s/. ." % (src, first),
        "git add -A",
        "git commit -q -m %s" % first,
    ]
    for ref, kind in refs:
        br = ref if kind == "branch" else "tmp-" + ref
        lines += [
            "git checkout -q -b %s %s" % (br, first),
            "git rm -q -r -f .",
            "cp -R %s/%s/. ." % (src, ref),
            "git add -A",
            "git commit -q -m %s" % ref,
        ]
        if kind == "tag":
            lines += ["git tag %s" % ref, "git checkout -q %s" % first,
                      "git branch -q -D %s" % br]
    lines += ["git checkout -q %s" % first, "git show-ref"]
    return "\n".join(lines) + "\n"


class Trees(Fleet):
    def __init__(self, name, out, minions=None, master_extra=None, minion_extra=None,
                 master=True):
        super().__init__(name, out, minions or {}, master_extra, minion_extra)
        self.use_master = master
        self.homedirs = []
        self.fixtures = {}
        self.git = None

    # ---- normalisation: without a master the ports are not replaced ------
    def norm(self, s):
        if not isinstance(s, str):
            return s
        if getattr(self, "use_master", True):
            return super().norm(s)
        return s.replace(self.work, "@TMP@")

    # ---- fixtures ---------------------------------------------------------
    def fixture(self, src_rel, dest_rel):
        """Copy fixtures/<src_rel> to @TMP@/<dest_rel>, @TMP@ substituted."""
        with open(os.path.join(FIX, src_rel)) as f:
            text = f.read()
        self.write(dest_rel, text.replace("@TMP@", self.work))
        self.fixtures["@TMP@/" + dest_rel] = "fixtures/" + src_rel

    def fixture_dir(self, src_rel, dest_rel):
        base = os.path.join(FIX, src_rel)
        for root, _, files in os.walk(base):
            for fn in sorted(files):
                rel = os.path.relpath(os.path.join(root, fn), base)
                self.fixture(os.path.join(src_rel, rel), os.path.join(dest_rel, rel))

    def keyring(self, which, dest_rel):
        """Copy gpgkeys/<which> (a GnuPG home) to @TMP@/<dest_rel>, mode 0700."""
        dest = os.path.join(self.work, dest_rel)
        if os.path.exists(dest):
            shutil.rmtree(dest)
        shutil.copytree(os.path.join(KEYS, which), dest)
        for root, dirs, files in os.walk(dest):
            os.chmod(root, 0o700)
            for fn in files:
                os.chmod(os.path.join(root, fn), 0o600)
        self.homedirs.append(dest)
        self.note("copied the GnuPG home gpgkeys/%s to %s" % (which, dest))
        return dest

    # ---- configs ----------------------------------------------------------
    def local_conf(self, name, extra=None):
        """A masterless minion config dir @TMP@/etc-<name>/ (salt-call --local)."""
        cfg = {
            "id": "local1", "file_client": "local",
            "root_dir": os.path.join(self.work, "lroot-" + name),
            "user": os.environ.get("USER") or "root",
            "log_level": "warning", "log_level_logfile": "info",
            "file_roots": {"base": [self.srv + "/salt"]},
            "pillar_roots": {"base": [self.srv + "/pillar"]},
        }
        cfg.update(extra or {})
        d = os.path.join(self.work, "etc-" + name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "minion"), "w") as f:
            yaml.safe_dump(cfg, f, default_flow_style=False)
        return d

    def local_log(self, name):
        return os.path.join(self.work, "lroot-" + name, "var", "log", "salt", "minion")

    # ---- commands ---------------------------------------------------------
    def run(self, label, exe, *argv, conf=None, timeout=400, env_add=None):
        env = None
        if env_add:
            env = dict(os.environ)
            env.update(env_add)
        step = super().run(label, exe, *argv, conf=conf, timeout=timeout, env=env)
        if env_add:
            step["env"] = {k: self.norm(v) for k, v in env_add.items()}
            self.save()
        return step

    def lcall(self, label, name, *argv, **kw):
        """salt-call --local --out json --retcode-passthrough with etc-<name>."""
        return self.run(label, "salt-call", "--local", "--out", "json",
                        "--retcode-passthrough", *argv,
                        conf=os.path.join(self.work, "etc-" + name), **kw)

    def salt(self, label, mid, *argv, **kw):
        return self.run(label, "salt", "--out", "json", "-t", "60", mid, *argv, **kw)

    def srun(self, label, *argv, **kw):
        return self.run(label, "salt-run", "--out", "json", *argv, **kw)

    # ---- git --------------------------------------------------------------
    def build_repos(self, names):
        self.git = {"env": GIT_ENV, "layout": {}, "scripts": {}, "show_ref": {}}
        for n in names:
            first, refs = REPO_LAYOUT[n]
            self.git["layout"][n] = {"first_branch": first,
                                     "refs": [{"ref": r, "kind": k} for r, k in refs]}
            script = repo_script(n)
            self.git["scripts"][n] = script
            step = self.run("git-build-" + n, "sh", "-c",
                            script.replace("@TREES@", HERE), env_add=GIT_ENV)
            step["argv"] = ["sh", "-c", script]  # @TREES@ kept symbolic
            self.git["show_ref"][n] = step["stdout"]
            if step["code"] != 0:
                raise RuntimeError("building repo %s failed: %s" % (n, step["stderr"]))
        self.save()

    def url(self, name):
        return "file://" + os.path.join(self.work, "repos", name)

    # ---- master with a fresh config ---------------------------------------
    def restart_master(self, ids, **changes):
        self.stop_master()
        for k, v in changes.items():
            if v is None:
                self.master_cfg.pop(k, None)
            else:
                self.master_cfg[k] = v
        self.write_master()
        self.note("master (re)started with: " + json.dumps(
            {k: self.normobj(v) for k, v in changes.items()}))
        self.start_master()
        if ids:
            self.wait_ping(ids)

    def master_preflight(self, label, wait=90):
        """Start salt-master with the current config expecting it to refuse
        it: record how it ended (code, its console output) as a step."""
        self.stop_master()
        self.write_master()
        t0 = time.time()
        p = subprocess.Popen([self.b("salt-master"), "-c", self.conf], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = p.communicate(timeout=wait)
            code = p.returncode
        except subprocess.TimeoutExpired:
            self.procs["salt-master"] = p
            self.stop_master()
            out, err = p.communicate()
            code = "still running after %ds (stopped by the recorder)" % wait
        step = {"label": label, "argv": ["salt-master"], "stdout": self.norm(out),
                "stderr": self.norm(err), "code": code, "seconds": round(time.time() - t0, 2)}
        self.steps.append(step)
        log("%-8s %-34s code=%s" % (self.name, label, code))
        self.save()
        return step

    # ---- tree and saving --------------------------------------------------
    def tree(self):
        t = {}
        for base, dirs, files in os.walk(self.work):
            rel = os.path.relpath(base, self.work)
            parts = rel.split(os.sep)
            top = parts[0]
            if not (top in ("srv", "etc", "ext", "sdb") or top.startswith("etc-")):
                continue
            if "gpgkeys" in parts or any(p.startswith("gpgkeys") for p in parts):
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
        self.result["fixtures"] = self.fixtures
        if self.git:
            self.result["git"] = self.git
        super().save()

    def close(self):
        super().close()
        for h in self.homedirs:
            if os.path.isdir(h):
                subprocess.run(["gpgconf", "--homedir", h, "--kill", "gpg-agent"],
                               capture_output=True, timeout=60)
        time.sleep(1)
        me = os.getpid()
        for d in os.listdir("/proc"):
            if not d.isdigit() or int(d) == me:
                continue
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    cmd = f.read().decode(errors="replace")
            except OSError:
                continue
            if self.work in cmd:
                log("%-8s killing leftover pid %s: %s" % (self.name, d, cmd.replace("\0", " ")[:120]))
                try:
                    os.kill(int(d), signal.SIGKILL)
                except ProcessLookupError:
                    pass


def start(fl, ids):
    fl.start_master()
    for mid in ids:
        fl.start_minion(mid)
    fl.accept_and_wait(ids)
    time.sleep(2)


# ---------------------------------------------------------------------------
def gpg_pillar_files(fl):
    for fn in ("top.sls", "top_foreign.sls", "one.sls", "several.sls", "templated.sls",
               "foreign.sls"):
        fl.fixture("gpg_pillar/pillar/" + fn, "srv/pillar/" + fn)
    for fn in ("secret_file.sls", "secret_pillar_file.sls"):
        fl.fixture("gpg_pillar/salt/" + fn, "srv/salt/" + fn)


def cli_cipher(escaped=True):
    with open(os.path.join(FIX, "gpg_pillar", "cli_cipher.asc")) as f:
        text = f.read()
    return text.replace("\n", "\\n") if escaped else text


def scenario_gpg_pillar(out):
    # ---- masterless ------------------------------------------------------
    fl = Trees("gpg_pillar", out, master=False)
    gpg_pillar_files(fl)
    try:
        kd = fl.keyring("main", "gpgkeys")
        fl.local_conf("explicit", {"gpg_keydir": kd})
        fl.local_conf("default")  # no gpg_keydir: Salt uses <config dir>/gpgkeys
        fl.local_conf("foreign-default", {"gpg_keydir": kd, "state_top": "top_foreign.sls"})
        fl.local_conf("foreign-false", {"gpg_keydir": kd, "state_top": "top_foreign.sls",
                                        "gpg_decrypt_must_succeed": False})
        fl.local_conf("foreign-true", {"gpg_keydir": kd, "state_top": "top_foreign.sls",
                                       "gpg_decrypt_must_succeed": True})
        L = "explicit"
        fl.lcall("local-pillar-items", L, "pillar.items")
        fl.lcall("local-pillar-get-secret_one", L, "pillar.get", "secret_one")
        fl.lcall("local-pillar-get-db:password", L, "pillar.get", "db:password")
        fl.lcall("local-pillar-get-users", L, "pillar.get", "users")
        fl.lcall("local-pillar-get-multiline", L, "pillar.get", "multiline")
        fl.lcall("local-pillar-get-mixed", L, "pillar.get", "mixed")
        fl.lcall("local-pillar-get-number_secret", L, "pillar.get", "number_secret")
        fl.lcall("local-pillar-get-two_blocks", L, "pillar.get", "two_blocks")
        fl.lcall("local-pillar-get-loop", L, "pillar.get", "loop")
        fl.lcall("local-pillar-item-jinja_secret", L, "pillar.item", "jinja_secret", "who")
        fl.lcall("local-pillar-items-cli-pillar_enc", L, "pillar.items",
                 "pillar={\"cli_secret\": \"%s\", \"cli_plain\": \"p\"}" % cli_cipher(),
                 "pillar_enc=gpg")
        fl.lcall("local-pillar-items-cli-no-pillar_enc", L, "pillar.items",
                 "pillar={\"cli_secret\": \"%s\"}" % cli_cipher())
        fl.lcall("local-show-sls-secret_file", L, "state.show_sls", "secret_file")
        fl.lcall("local-apply-secret_file", L, "state.apply", "secret_file")
        fl.run("cat-secret.txt", "cat", "@TMP@/out/secret.txt")
        fl.lcall("local-apply-secret_pillar_file", L, "state.apply", "secret_pillar_file")
        fl.run("cat-from_pillar.txt", "cat", "@TMP@/out/from_pillar.txt")
        # Salt's default location: <dir of the config file>/gpgkeys, missing first
        fl.lcall("default-keydir-missing-pillar-items", "default", "pillar.items")
        fl.keyring("main", "etc-default/gpgkeys")
        fl.lcall("default-keydir-present-pillar-items", "default", "pillar.items")
        fl.lcall("default-keydir-show-sls-secret_file", "default", "state.show_sls",
                 "secret_file")
        # a block for a key that is not in the keyring
        for n in ("foreign-default", "foreign-true", "foreign-false"):
            fl.lcall(n + "-pillar-items", n, "pillar.items")
            fl.lcall(n + "-pillar-get-foreign_secret", n, "pillar.get", "foreign_secret")
            fl.grep(n + "-log", fl.local_log(n), r"(?i)decrypt|render|gpg|\[ERROR|\[CRITICAL")
        fl.grep("explicit-log", fl.local_log("explicit"), r"(?i)decrypt|gpg|\[WARNING|\[ERROR")
        fl.grep("default-log", fl.local_log("default"), r"(?i)decrypt|gpg|\[WARNING|\[ERROR")
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


def scenario_gpg_pillar_master(out):
    fl = Trees("gpg_pillar_master", out, {"web1": {}})
    gpg_pillar_files(fl)
    try:
        mk = fl.keyring("main", "gpgkeys-master")
        fl.master_cfg["gpg_keydir"] = mk
        fl.write_master()
        start(fl, ["web1"])
        J = "web1"
        fl.salt("master-pillar-items", J, "pillar.items")
        fl.salt("master-pillar-get-db:password", J, "pillar.get", "db:password")
        fl.salt("master-pillar-get-multiline", J, "pillar.get", "multiline")
        fl.salt("master-pillar-items-cli-pillar_enc", J, "pillar.items",
                "pillar={\"cli_secret\": \"%s\"}" % cli_cipher(), "pillar_enc=gpg")
        # the state is rendered by the minion: its own keydir (default
        # <minion config dir>/gpgkeys, absent)
        fl.salt("minion-no-keys-show-sls-secret_file", J, "state.show_sls", "secret_file")
        fl.keyring("main", "etc-web1/gpgkeys")
        fl.salt("minion-default-keydir-show-sls-secret_file", J, "state.show_sls",
                "secret_file")
        fl.salt("minion-apply-secret_pillar_file", J, "state.apply", "secret_pillar_file")
        fl.run("cat-from_pillar.txt", "cat", "@TMP@/out/from_pillar.txt")
        # master's default keydir: <master config dir>/gpgkeys
        fl.restart_master(["web1"], gpg_keydir=None)
        fl.salt("master-default-keydir-missing-pillar-items", J, "pillar.items")
        fl.keyring("main", "etc/gpgkeys")
        fl.salt("master-default-keydir-present-pillar-items", J, "pillar.items")
        fl.salt("minion-in-memory-pillar-get-secret_one", J, "pillar.get", "secret_one")
        # foreign block
        mlog = fl.size(fl.master_log())
        fl.restart_master(["web1"], gpg_keydir=mk, state_top="top_foreign.sls")
        fl.salt("master-foreign-default-pillar-items", J, "pillar.items")
        fl.grep("master-foreign-default-log", fl.master_log(),
                r"(?i)decrypt|render|\[ERROR|\[CRITICAL", since=mlog)
        mlog = fl.size(fl.master_log())
        fl.restart_master(["web1"], gpg_decrypt_must_succeed=False)
        fl.salt("master-foreign-false-pillar-items", J, "pillar.items")
        fl.grep("master-foreign-false-log", fl.master_log(),
                r"(?i)decrypt|render|\[WARNING|\[ERROR|\[CRITICAL", since=mlog)
        fl.grep("minion-log", fl.minion_log("web1"), r"(?i)decrypt|gpg|render|\[ERROR")
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


# ---------------------------------------------------------------------------
def scenario_decrypt_pillar(out):
    fl = Trees("decrypt_pillar", out, master=False)
    fl.fixture_dir("decrypt_pillar/pillar", "srv/pillar")
    fl.fixture("decrypt_pillar/ext/ext.yaml", "ext/ext.yaml")
    try:
        kd = fl.keyring("main", "gpgkeys")
        ext = [{"cmd_yaml": "cat " + os.path.join(fl.work, "ext", "ext.yaml")}]
        base = {"gpg_keydir": kd, "ext_pillar": ext}

        def conf(name, **kw):
            c = dict(base)
            c.update(kw)
            fl.local_conf(name, c)

        conf("none")
        conf("basic", decrypt_pillar=["secrets:db", {"secrets:nested": "gpg"}, "top_ct",
                                      {"ext_secret": "gpg"}, "no:such:key"])
        conf("dict-form", decrypt_pillar={"secrets:db": "gpg", "top_ct": None})
        conf("delimiter", decrypt_pillar=["secrets/db", "secrets:nested"],
             decrypt_pillar_delimiter="/")
        conf("bad-renderer", decrypt_pillar=[{"top_ct": "yaml"}, "secrets:db"])
        conf("no-such-renderer", decrypt_pillar=[{"top_ct": "nosuch"}],
             decrypt_pillar_renderers=["gpg", "nosuch"])
        conf("yaml-renderer", decrypt_pillar=[{"yaml_str": "yaml"}, "top_ct"],
             decrypt_pillar_renderers=["gpg", "yaml"])
        conf("default-yaml", decrypt_pillar=["yaml_str"], decrypt_pillar_default="yaml",
             decrypt_pillar_renderers=["gpg", "yaml"])
        conf("foreign-default", decrypt_pillar=["foreign_ct", "top_ct"])
        conf("foreign-false", decrypt_pillar=["foreign_ct", "top_ct"],
             gpg_decrypt_must_succeed=False)
        conf("malformed-string", decrypt_pillar="top_ct")
        conf("malformed-list", decrypt_pillar=[["top_ct"]])
        for n in ("none", "basic", "dict-form", "delimiter", "bad-renderer",
                  "no-such-renderer", "yaml-renderer", "default-yaml", "foreign-default",
                  "foreign-false", "malformed-string", "malformed-list"):
            fl.lcall(n + "-pillar-items", n, "pillar.items")
            fl.grep(n + "-log", fl.local_log(n),
                    r"(?i)decrypt|pillar|\[WARNING|\[ERROR|\[CRITICAL")
        fl.lcall("basic-pillar-get-secrets:db", "basic", "pillar.get", "secrets:db")
        fl.lcall("basic-pillar-get-ext_secret", "basic", "pillar.get", "ext_secret")
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


# ---------------------------------------------------------------------------
SDB_ENV = {"BRINE_SDB_VAR": "from-environment"}


def sdb_profiles(fl, kd=None):
    d = os.path.join(fl.work, "sdb")
    return {
        "myyaml": {"driver": "yaml", "files": [d + "/one.yaml", d + "/two.yaml"]},
        "myyaml_merge": {"driver": "yaml", "files": [d + "/one.yaml", d + "/two.yaml",
                                                     d + "/missing.yaml"],
                         "merge": {"strategy": "recurse"}},
        "mygpgyaml": {"driver": "yaml", "files": [d + "/secret.yaml"], "gpg": True},
        "myyaml_nogpg": {"driver": "yaml", "files": [d + "/secret.yaml"]},
        "myenv": {"driver": "env"},
        "sdb_option": "sdb://myyaml/app:user",
        "sdb_list_option": "sdb://myyaml/app:list",
        "sdb_list_index_option": "sdb://myyaml/app:list:1",
        "sdb_env_option": "sdb://myenv/BRINE_SDB_VAR",
        "sdb_gpg_option": "sdb://mygpgyaml/db:password",
        "sdb_nested_option": {"inner": "sdb://myyaml/shared", "deeper": ["sdb://myyaml/only_two"]},
        "sdb_missing_key_option": "sdb://myyaml/no:such",
        "sdb_missing_profile_option": "sdb://nosuchprofile/x",
        "sdb_noslash_option": "sdb://myyaml",
    }


def scenario_sdb(out):
    fl = Trees("sdb", out, master=False)
    fl.fixture_dir("sdb/sdb", "sdb")
    fl.fixture_dir("sdb/pillar", "srv/pillar")
    fl.fixture_dir("sdb/salt", "srv/salt")
    try:
        kd = fl.keyring("main", "gpgkeys")
        cfg = {"gpg_keydir": kd}
        cfg.update(sdb_profiles(fl))
        fl.local_conf("local", cfg)
        E = {"env_add": SDB_ENV}

        def c(label, *argv):
            return fl.lcall(label, "local", *argv, **E)
        c("sdb-get-yaml", "sdb.get", "sdb://myyaml/app:user")
        c("sdb-get-yaml-dict", "sdb.get", "sdb://myyaml/app")
        c("sdb-get-yaml-list-index", "sdb.get", "sdb://myyaml/app:list:0")
        c("sdb-get-yaml-merged-later-file-wins", "sdb.get", "sdb://myyaml/shared")
        c("sdb-get-yaml-second-file", "sdb.get", "sdb://myyaml/only_two")
        c("sdb-get-yaml-merge-recurse-missing-file", "sdb.get", "sdb://myyaml_merge/shared")
        c("sdb-get-yaml-missing-key", "sdb.get", "sdb://myyaml/no:such")
        c("sdb-get-yaml-gpg", "sdb.get", "sdb://mygpgyaml/db:password")
        c("sdb-get-yaml-gpg-plain", "sdb.get", "sdb://mygpgyaml/plain")
        c("sdb-get-yaml-no-gpg-flag", "sdb.get", "sdb://myyaml_nogpg/db:password")
        c("sdb-get-env", "sdb.get", "sdb://myenv/BRINE_SDB_VAR")
        c("sdb-get-env-unset", "sdb.get", "sdb://myenv/BRINE_NOT_SET")
        c("sdb-get-missing-profile", "sdb.get", "sdb://nosuchprofile/x")
        c("sdb-get-missing-profile-strict", "sdb.get", "sdb://nosuchprofile/x", "strict=True")
        c("sdb-get-not-sdb", "sdb.get", "plainstring")
        c("sdb-get-not-sdb-strict", "sdb.get", "plainstring", "strict=True")
        c("sdb-get-no-key", "sdb.get", "sdb://myyaml/")
        c("sdb-get-pillar-profile", "sdb.get", "sdb://pillar_env_profile/BRINE_SDB_VAR")
        c("sdb-set-env", "sdb.set", "sdb://myenv/BRINE_NEW_VAR", "newvalue")
        c("sdb-set-env-existing", "sdb.set", "sdb://myenv/BRINE_SDB_VAR", "other")
        c("sdb-set-yaml", "sdb.set", "sdb://myyaml/app:user", "x")
        c("sdb-set-missing-profile", "sdb.set", "sdb://nosuchprofile/x", "v")
        c("sdb-set-not-sdb", "sdb.set", "plainstring", "v")
        c("sdb-delete-env", "sdb.delete", "sdb://myenv/BRINE_SDB_VAR")
        c("sdb-delete-yaml", "sdb.delete", "sdb://myyaml/app:user")
        c("sdb-delete-missing-profile", "sdb.delete", "sdb://nosuchprofile/x")
        c("sdb-get-or-set-hash-env", "sdb.get_or_set_hash", "sdb://myenv/BRINE_HASH_VAR")
        for opt in ("sdb_option", "sdb_list_option", "sdb_list_index_option",
                    "sdb_env_option", "sdb_gpg_option", "sdb_nested_option",
                    "sdb_missing_key_option", "sdb_missing_profile_option",
                    "sdb_noslash_option", "myyaml"):
            c("config-get-" + opt, "config.get", opt)
        c("config-get-sdb_nested_option:inner", "config.get", "sdb_nested_option:inner")
        c("config-option-sdb_option", "config.option", "sdb_option")
        fl.lcall("config-get-sdb_env_option-without-env", "local", "config.get",
                 "sdb_env_option")
        c("pillar-get-pillar_sdb_ref", "pillar.get", "pillar_sdb_ref")
        c("pillar-items", "pillar.items")
        c("config-get-pillar_sdb_ref", "config.get", "pillar_sdb_ref")
        # slsutil.renderer
        c("renderer-string-default", "slsutil.renderer", "string=a: {{ 6 * 7 }}")
        c("renderer-string-jinja", "slsutil.renderer", "string=a: {{ 6 * 7 }}",
          "default_renderer=jinja")
        c("renderer-string-yaml", "slsutil.renderer", "string=a: {{ 6 * 7 }}",
          "default_renderer=yaml")
        c("renderer-string-json", "slsutil.renderer", 'string={"a": [1, 2]}',
          "default_renderer=json")
        c("renderer-string-shebang", "slsutil.renderer", "string=#!yaml\nb: {{ x }}\n")
        c("renderer-string-kwarg", "slsutil.renderer", "string=greet: Hello {{ name }}",
          "name=world")
        c("renderer-string-gpg", "slsutil.renderer", "string=" + cli_cipher(escaped=False),
          "default_renderer=gpg")
        c("renderer-salt-path", "slsutil.renderer", "salt://render_me.sls")
        c("renderer-salt-path-jinja", "slsutil.renderer", "salt://render_plain.txt",
          "default_renderer=jinja")
        c("renderer-salt-path-gpg", "slsutil.renderer", "salt://render_gpg.sls")
        c("renderer-local-path", "slsutil.renderer", "@TMP@/srv/salt/render_me.sls")
        c("renderer-positional-path-jinja", "slsutil.renderer", "@TMP@/srv/salt/render_plain.txt",
          "jinja")
        c("renderer-missing-path", "slsutil.renderer", "salt://nosuch.sls")
        c("renderer-nothing", "slsutil.renderer")
        c("renderer-both", "slsutil.renderer", "salt://render_me.sls", "string=x: 1")
        fl.grep("local-log", fl.local_log("local"), r"(?i)sdb|\[WARNING|\[ERROR|\[CRITICAL")
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


def scenario_sdb_master(out):
    fl = Trees("sdb_master", out, {"web1": {}})
    fl.fixture_dir("sdb/sdb", "sdb")
    fl.fixture_dir("sdb/pillar", "srv/pillar")
    fl.fixture_dir("sdb/salt", "srv/salt")
    try:
        kd = fl.keyring("main", "gpgkeys")
        prof = sdb_profiles(fl)
        mprof = {"masteryaml": prof["myyaml"], "masterenv": {"driver": "env"},
                 "mastergpg": prof["mygpgyaml"], "gpg_keydir": kd,
                 "master_sdb_option": "sdb://masteryaml/app:user",
                 "master_sdb_env_option": "sdb://masterenv/BRINE_SDB_VAR",
                 "master_sdb_gpg_option": "sdb://mastergpg/db:password"}
        fl.master_cfg.update(mprof)
        fl.write_master()
        mc = dict(fl.minion_cfgs["web1"])
        mc.update(prof)
        mc["gpg_keydir"] = kd
        fl.minion_cfg("web1", {}, mc)
        fl.spawn("salt-master", [fl.b("salt-master"), "-c", fl.conf],
                 env=dict(os.environ, **SDB_ENV))
        fl.note("salt-master and salt-minion started with BRINE_SDB_VAR=from-environment "
                "in their environment")
        import socket
        deadline = time.time() + 180
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", fl.ret), 1).close()
                break
            except OSError:
                time.sleep(0.5)
        fl.start_minion("web1", env=SDB_ENV)
        fl.accept_and_wait(["web1"])
        E = {"env_add": SDB_ENV}
        fl.srun("run-config-get-master_sdb_option", "config.get", "master_sdb_option", **E)
        fl.srun("run-config-get-master_sdb_env_option", "config.get", "master_sdb_env_option", **E)
        fl.srun("run-config-get-master_sdb_gpg_option", "config.get", "master_sdb_gpg_option", **E)
        fl.srun("run-config-get-master_sdb_env_option-without-env", "config.get",
                "master_sdb_env_option")
        fl.srun("run-sdb-get-yaml", "sdb.get", "sdb://masteryaml/app:user", **E)
        fl.srun("run-sdb-get-gpg", "sdb.get", "sdb://mastergpg/db:password", **E)
        fl.srun("run-sdb-get-env", "sdb.get", "sdb://masterenv/BRINE_SDB_VAR", **E)
        fl.srun("run-sdb-get-minion-only-profile", "sdb.get", "sdb://myyaml/app:user", **E)
        fl.srun("run-sdb-set-env", "sdb.set", "sdb://masterenv/BRINE_NEW_VAR", "v", **E)
        fl.srun("run-sdb-set-yaml", "sdb.set", "sdb://masteryaml/app:user", "v", **E)
        fl.srun("run-sdb-delete-env", "sdb.delete", "sdb://masterenv/BRINE_SDB_VAR", **E)
        fl.srun("run-sdb-delete-yaml", "sdb.delete", "sdb://masteryaml/app:user", **E)
        J = "web1"
        fl.salt("minion-sdb-get-yaml", J, "sdb.get", "sdb://myyaml/app:user")
        fl.salt("minion-sdb-get-gpg", J, "sdb.get", "sdb://mygpgyaml/db:password")
        fl.salt("minion-sdb-get-env", J, "sdb.get", "sdb://myenv/BRINE_SDB_VAR")
        fl.salt("minion-sdb-get-master-only-profile", J, "sdb.get",
                "sdb://masteryaml/app:user")
        fl.salt("minion-sdb-get-pillar-profile", J, "sdb.get",
                "sdb://pillar_env_profile/BRINE_SDB_VAR")
        fl.salt("minion-sdb-set-env", J, "sdb.set", "sdb://myenv/BRINE_NEW_VAR", "v")
        fl.salt("minion-sdb-get-env-after-set", J, "sdb.get", "sdb://myenv/BRINE_NEW_VAR")
        fl.salt("minion-sdb-delete-env", J, "sdb.delete", "sdb://myenv/BRINE_SDB_VAR")
        fl.salt("minion-config-get-sdb_option", J, "config.get", "sdb_option")
        fl.salt("minion-config-get-sdb_gpg_option", J, "config.get", "sdb_gpg_option")
        fl.salt("minion-config-get-sdb_nested_option", J, "config.get", "sdb_nested_option")
        fl.salt("minion-config-get-master_sdb_option", J, "config.get", "master_sdb_option")
        fl.salt("minion-pillar-get-pillar_sdb_ref", J, "pillar.get", "pillar_sdb_ref")
        fl.salt("minion-config-get-pillar_sdb_ref", J, "config.get", "pillar_sdb_ref")
        fl.salt("minion-renderer-salt-path", J, "slsutil.renderer", "salt://render_me.sls")
        fl.salt("minion-renderer-salt-path-gpg", J, "slsutil.renderer", "salt://render_gpg.sls")
        fl.salt("minion-renderer-string-yaml", J, "slsutil.renderer",
                "string=a: {{ 6 * 7 }}", "default_renderer=yaml")
        fl.grep("master-log", fl.master_log(), r"(?i)sdb|\[ERROR|\[CRITICAL")
        fl.grep("minion-log", fl.minion_log("web1"), r"(?i)sdb|\[ERROR|\[CRITICAL")
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


# ---------------------------------------------------------------------------
def scenario_git_pillar(out):
    fl = Trees("git_pillar", out, {"web1": {}},
               master_extra={"git_pillar_provider": "gitpython", "ext_pillar": []})
    try:
        fl.build_repos(["pillar", "pillar_root", "pillar_mount"])
        P, PR, PM = fl.url("pillar"), fl.url("pillar_root"), fl.url("pillar_mount")
        J = "web1"
        configs = [
            ("env-base", [{"git": [
                {"main " + P: [{"env": "base"}]},
                "dev " + P,
                {"main " + PR: [{"root": "pillar"}, {"env": "base"}, {"name": "rootrepo"}]},
                {"main " + PM: [{"mountpoint": "mnt/sub"}, {"env": "base"}]},
            ]}], ["", "dev", "base", "main"]),
            ("plain", [{"git": ["main " + P, "dev " + P]}], ["", "main", "dev", "base"]),
            ("env-mapping", [{"git": ["__env__ " + P]}], ["", "dev", "main", "multi", "nosuch"]),
            ("env-mapping-base-main", [{"git": [{"__env__ " + P: [{"base": "main"}]}]}],
             ["", "dev", "base", "nosuch"]),
            ("all-saltenvs", [{"git": [{"__env__ " + P: [{"all_saltenvs": "multi"}]}]}],
             ["", "dev", "prod"]),
        ]
        bad = [
            ("base-on-branch", [{"git": [{"main " + P: [{"base": "main"}]}]}]),
            ("bad-param", [{"git": [{"main " + P: [{"saltenv": "base"}]}]}]),
        ]
        first = True
        for name, ext, envs in configs:
            mlog = fl.size(fl.master_log())
            if first:
                fl.master_cfg["ext_pillar"] = ext
                fl.write_master()
                fl.note("master config ext_pillar for %s: %s" % (name, json.dumps(fl.normobj(ext))))
                start(fl, ["web1"])
                first = False
            else:
                fl.restart_master(["web1"], ext_pillar=ext)
            fl.srun(name + "-git_pillar-update", "git_pillar.update")
            for env in envs:
                extra = ["pillarenv=" + env] if env else []
                fl.salt("%s-pillar-items%s" % (name, "-pillarenv-" + env if env else ""),
                        J, "pillar.items", *extra)
            if name == "env-base":
                fl.salt(name + "-pillar-get-common", J, "pillar.get", "common")
                fl.srun(name + "-git_pillar-update-again", "git_pillar.update")
                fl.srun(name + "-git_pillar-update-branch-dev", "git_pillar.update",
                        "branch=dev")
                fl.srun(name + "-git_pillar-update-repo-name", "git_pillar.update",
                        "repo=rootrepo")
                fl.srun(name + "-git_pillar-update-no-match", "git_pillar.update",
                        "branch=nosuch")
                script = ("set -e\ncd @TMP@/repos/pillar\ngit checkout -q dev\n"
                          "printf 'updated: true\\n' > dev_only.sls\n"
                          "git commit -q -a -m update\ngit checkout -q main\ngit show-ref\n")
                step = fl.run(name + "-git-commit-on-dev", "sh", "-c", script, env_add=GIT_ENV)
                step["argv"] = ["sh", "-c", script]
                fl.git["scripts"]["pillar-update-dev"] = script
                fl.srun(name + "-git_pillar-update-after-commit", "git_pillar.update")
                fl.salt(name + "-pillar-items-pillarenv-dev-after-update", J, "pillar.items",
                        "pillarenv=dev")
                fl.run(name + "-ls-cache", "sh", "-c",
                       "cd @TMP@/mroot/var/cache/salt/master/git_pillar && "
                       "find . -maxdepth 3 -not -path '*/.git/*' -not -name .git | sort")
            fl.grep(name + "-master-log", fl.master_log(),
                    r"(?i)git|pillar|\[ERROR|\[CRITICAL|\[WARNING", since=mlog)
        for name, ext in bad:
            mlog = fl.size(fl.master_log())
            fl.master_cfg["ext_pillar"] = ext
            fl.note("master config ext_pillar for %s: %s" % (name, json.dumps(fl.normobj(ext))))
            fl.master_preflight(name + "-salt-master-start")
            fl.grep(name + "-master-log", fl.master_log(),
                    r"(?i)git|pillar|\[ERROR|\[CRITICAL|\[WARNING", since=mlog)
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


# ---------------------------------------------------------------------------
def scenario_gitfs(out):
    fl = Trees("gitfs", out, {"web1": {}},
               master_extra={"gitfs_provider": "gitpython"})
    fl.fixture_dir("gitfs/salt", "srv/salt")
    try:
        fl.minion_cfg("web1", {"outdir": os.path.join(fl.work, "out")})
        fl.build_repos(["states", "states_main", "states_mount"])
        S, SM, SMT = fl.url("states"), fl.url("states_main"), fl.url("states_mount")
        remotes = [
            {S: [{"saltenv": [{"prod": [{"ref": "v1.0"}]}]}]},
            {SM: [{"base": "main"}, {"name": "mainrepo"}]},
            {SMT: [{"root": "srv"}, {"mountpoint": "salt://mnt/here"}]},
        ]
        runs = [
            ("roots-gitfs", {"fileserver_backend": ["roots", "gitfs"], "gitfs_remotes": remotes}),
            ("gitfs-roots-wl-bl", {"fileserver_backend": ["gitfs", "roots"],
                                   "gitfs_remotes": remotes,
                                   "gitfs_saltenv_whitelist": ["base", "dev", "prod"],
                                   "gitfs_saltenv_blacklist": ["dev"]}),
            ("gitfs-only", {"fileserver_backend": ["gitfs"], "gitfs_remotes": remotes,
                            "gitfs_saltenv_whitelist": None,
                            "gitfs_saltenv_blacklist": None}),
            ("gitfs-global-options", {"fileserver_backend": ["gitfs"],
                                      "gitfs_remotes": [S],
                                      "gitfs_root": "", "gitfs_mountpoint": "salt://gm",
                                      "gitfs_base": "dev",
                                      "gitfs_saltenv": [{"stage": [{"ref": "dev"}]}]}),
        ]
        J = "web1"
        for i, (name, cfg) in enumerate(runs):
            mlog = fl.size(fl.master_log())
            if i == 0:
                fl.master_cfg.update(cfg)
                fl.write_master()
                fl.note("master config for %s: %s" % (name, json.dumps(fl.normobj(cfg))))
                start(fl, ["web1"])
            else:
                fl.restart_master(["web1"], **cfg)
            fl.srun(name + "-fileserver-update", "fileserver.update")
            fl.srun(name + "-fileserver-update-gitfs", "fileserver.update", "backend=gitfs")
            fl.srun(name + "-fileserver-envs", "fileserver.envs")
            fl.srun(name + "-fileserver-envs-gitfs", "fileserver.envs", "backend=gitfs")
            envs = ["base", "dev", "v1.0", "prod", "main", "master"]
            if name == "gitfs-global-options":
                envs = ["base", "dev", "stage", "master"]
            for env in envs:
                fl.srun("%s-file_list-%s" % (name, env), "fileserver.file_list",
                        "saltenv=" + env)
            fl.srun(name + "-file_list-base-gitfs", "fileserver.file_list", "saltenv=base",
                    "backend=gitfs")
            fl.srun(name + "-dir_list-base", "fileserver.dir_list", "saltenv=base")
            if name != "gitfs-global-options":
                fl.srun(name + "-symlink_list-base", "fileserver.symlink_list", "saltenv=base")
                fl.srun(name + "-empty_dir_list-base", "fileserver.empty_dir_list",
                        "saltenv=base")
            fl.salt(name + "-cp-list_master-base", J, "cp.list_master")
            fl.salt(name + "-cp-list_master-dev", J, "cp.list_master", "saltenv=dev")
            fl.salt(name + "-cp-list_master-prod", J, "cp.list_master", "saltenv=prod")
            fl.salt(name + "-cp-list_master_dirs-base", J, "cp.list_master_dirs")
            fl.salt(name + "-cp-get_file_str-both", J, "cp.get_file_str", "salt://both.txt")
            fl.salt(name + "-cp-get_file_str-both-dev", J, "cp.get_file_str", "salt://both.txt",
                    "saltenv=dev")
            fl.salt(name + "-cp-get_file-both", J, "cp.get_file", "salt://both.txt",
                    "@TMP@/got/%s/both.txt" % name, "makedirs=True")
            fl.salt(name + "-cp-get_file-devonly-dev", J, "cp.get_file", "salt://devonly.txt",
                    "@TMP@/got/%s/devonly.txt" % name, "saltenv=dev", "makedirs=True")
            fl.salt(name + "-cp-get_file_str-rootsonly", J, "cp.get_file_str",
                    "salt://rootsonly.txt")
            fl.salt(name + "-cp-get_file_str-mounted", J, "cp.get_file_str",
                    "salt://mnt/here/mounted.txt")
            fl.salt(name + "-cp-get_file_str-tagged-prod", J, "cp.get_file_str",
                    "salt://tagged.txt", "saltenv=prod")
            fl.salt(name + "-cp-get_file_str-tagged-v1.0", J, "cp.get_file_str",
                    "salt://tagged.txt", "saltenv=v1.0")
            fl.salt(name + "-cp-get_file_str-mainbase", J, "cp.get_file_str",
                    "salt://mainbase.txt")
            if name == "gitfs-global-options":
                fl.salt(name + "-cp-list_master-stage", J, "cp.list_master", "saltenv=stage")
                fl.salt(name + "-cp-get_file_str-gm-both", J, "cp.get_file_str",
                        "salt://gm/both.txt")
            fl.salt(name + "-state-show_sls-hello-dev", J, "state.show_sls", "hello",
                    "saltenv=dev")
            fl.salt(name + "-state-apply-hello-dev", J, "state.apply", "hello", "saltenv=dev")
            fl.salt(name + "-state-apply-hello-prod", J, "state.apply", "hello",
                    "saltenv=prod")
            fl.salt(name + "-state-apply-hello-base", J, "state.apply", "hello")
            fl.salt(name + "-state-apply-mnt.here.m", J, "state.apply", "mnt.here.m")
            fl.run(name + "-ls-out", "sh", "-c",
                   "cd @TMP@ && for f in $(find out got -type f 2>/dev/null | sort); do "
                   "echo \"== $f\"; cat \"$f\"; done; rm -rf out got")
            fl.note("listed and removed @TMP@/out and @TMP@/got")
            fl.grep(name + "-master-log", fl.master_log(),
                    r"(?i)git|fileserver|\[ERROR|\[CRITICAL|\[WARNING", since=mlog)
        fl.run("ls-gitfs-cache", "sh", "-c",
               "cd @TMP@/mroot/var/cache/salt/master/gitfs && "
               "find . -maxdepth 2 -not -path '*/.git/*' | sort")
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


# ---------------------------------------------------------------------------
def scenario_git_masterless(out):
    """gitfs and git_pillar on a masterless minion (salt-call --local):
    gitfs updated once per salt-call, git_pillar fetched at each pillar
    compile, so a commit is seen by the next call."""
    fl = Trees("git_masterless", out, master=False)
    try:
        fl.build_repos(["states", "pillar"])
        S, P = fl.url("states"), fl.url("pillar")
        fl.local_conf("local", {
            "fileserver_backend": ["gitfs"], "gitfs_provider": "gitpython",
            "gitfs_remotes": [S], "git_pillar_provider": "gitpython",
            "ext_pillar": [{"git": ["main " + P, "dev " + P]}],
            "grains": {"outdir": os.path.join(fl.work, "out")},
        })

        def c(label, *argv):
            return fl.lcall(label, "local", *argv)
        c("pillar-items", "pillar.items")
        c("pillar-items-pillarenv-dev", "pillar.items", "pillarenv=dev")
        c("pillar-items-pillarenv-main", "pillar.items", "pillarenv=main")
        c("pillar-get-common", "pillar.get", "common")
        c("cp-list-master", "cp.list_master")
        c("cp-list-master-dev", "cp.list_master", "saltenv=dev")
        c("cp-list-master-tag", "cp.list_master", "saltenv=v1.0")
        c("cp-get-file-str-both", "cp.get_file_str", "salt://both.txt")
        c("cp-get-file-str-both-dev", "cp.get_file_str", "salt://both.txt", "saltenv=dev")
        c("cp-get-file-str-deep", "cp.get_file_str", "salt://sub/deep.txt")
        c("cp-get-file-str-missing", "cp.get_file_str", "salt://devonly.txt")
        c("show-top", "state.show_top")
        c("show-sls-hello-dev", "state.show_sls", "hello", "saltenv=dev")
        c("apply", "state.apply")
        fl.run("cat-hello-base", "cat", os.path.join(fl.work, "out", "hello-base.txt"))
        script = ("set -e\ncd @TMP@/repos/pillar\ngit checkout -q dev\n"
                  "printf 'updated: true\\n' > dev_only.sls\n"
                  "git commit -q -a -m update\ngit checkout -q main\n"
                  "cd @TMP@/repos/states\nprintf 'both, changed\\n' > both.txt\n"
                  "git commit -q -a -m change\ngit show-ref\n")
        step = fl.run("git-commit-on-both", "sh", "-c", script.replace("@TMP@", fl.work),
                      env_add=GIT_ENV)
        step["argv"] = ["sh", "-c", script]
        fl.git["scripts"]["commit-on-both"] = script
        c("pillar-items-pillarenv-dev-after-commit", "pillar.items", "pillarenv=dev")
        c("cp-get-file-str-both-after-commit", "cp.get_file_str", "salt://both.txt")
        fl.grep("local-log", fl.local_log("local"), r"(?i)git|\[WARNING|\[ERROR|\[CRITICAL")
    finally:
        fl.close()
        fl.save()
        fl.cleanup()


SCENARIOS = {"gpg_pillar": scenario_gpg_pillar,
             "gpg_pillar_master": scenario_gpg_pillar_master, "decrypt_pillar": scenario_decrypt_pillar,
             "sdb": scenario_sdb, "sdb_master": scenario_sdb_master,
             "git_pillar": scenario_git_pillar, "gitfs": scenario_gitfs,
             "git_masterless": scenario_git_masterless}


def main():
    out = os.path.abspath(sys.argv[1])
    os.makedirs(out, exist_ok=True)
    names = sys.argv[2:] or list(SCENARIOS)
    failed = []
    for n in names:
        log("=== scenario", n)
        try:
            SCENARIOS[n](out)
        except Exception:  # keep going with the next scenario
            import traceback
            traceback.print_exc()
            failed.append(n)
    log("done; failed:", failed)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
