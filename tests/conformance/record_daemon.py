#!/usr/bin/env python3
"""Record what a real Salt 3007.8 salt-master + salt-minion pair answers
for a conformance case, as expected-daemon/NN.json (the answers brine's
daemon mode is compared with; see tests/src/conformance.rs).

usage: record_daemon.py [--salt-bin DIR] [--only N,N] CASE_DIR...

The master gets the case's file_roots/, pillar_roots/ and the master-side
options (as tests/src/conformance.rs splits them), the minion its id,
grains and the rest; both on 127.0.0.1 ephemeral ports, the key
auto-accepted. Each command runs as `salt --out json -t 60 ID
WORDS...`; the minion's answer and salt's exit code are written. `@TMP@`
(a scratch folder with an empty `work/`) and `@CASE@` in config and
commands are replaced as gen.py replaces them, and the scratch path is
written back as `@TMP@` in the answers. Salt comes
from a venv (bench/compare.py --install-salt makes one in /tmp/saltvenv).
"""
import argparse, json, os, shlex, signal, socket, subprocess, sys, tempfile, time

MASTER_KEYS = ["file_roots", "pillar_roots", "ext_pillar", "pillar_safe_render_error",
               "pillar_opts", "nodegroups", "pillar_source_merging_strategy", "hiera_config"]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def roots(case, kind):
    d = os.path.join(case, kind)
    if not os.path.isdir(d):
        return {"base": [os.path.join(case, kind, "base")]}
    return {env: [os.path.join(d, env)] for env in sorted(os.listdir(d))}


def load_case(case):
    import yaml  # from the Salt venv's PyYAML, or the system's
    with open(os.path.join(case, "case.yaml")) as f:
        return yaml.safe_load(f)


def subst(obj, tmp, case):
    """@TMP@ (the scratch folder, with an empty work/) and @CASE@ in a
    case's config and commands, as gen.py and the brine runner read them."""
    if isinstance(obj, dict):
        return {subst(k, tmp, case): subst(v, tmp, case) for k, v in obj.items()}
    if isinstance(obj, list):
        return [subst(v, tmp, case) for v in obj]
    if isinstance(obj, str):
        return obj.replace("@TMP@", tmp).replace("@CASE@", case)
    return obj


def unsubst(obj, tmp):
    """The scratch path in an answer written back as @TMP@."""
    if isinstance(obj, dict):
        return {unsubst(k, tmp): unsubst(v, tmp) for k, v in obj.items()}
    if isinstance(obj, list):
        return [unsubst(v, tmp) for v in obj]
    if isinstance(obj, str):
        return obj.replace(tmp, "@TMP@")
    return obj


def record(salt_bin, case, only):
    spec = load_case(case)
    tmp = tempfile.mkdtemp(prefix="salt-record-")
    os.makedirs(os.path.join(tmp, "work"))
    pub, ret = free_port(), free_port()
    user = os.environ.get("USER", "root")
    master = {"interface": "127.0.0.1", "publish_port": pub, "ret_port": ret,
              "root_dir": os.path.join(tmp, "m"), "auto_accept": True, "user": user,
              "log_level": "warning", "file_roots": roots(case, "file_roots"),
              "pillar_roots": roots(case, "pillar_roots")}
    minion = {"id": spec["id"], "master": "127.0.0.1", "publish_port": pub,
              "master_port": ret, "root_dir": os.path.join(tmp, "n"), "user": user,
              "log_level": "warning", "acceptance_wait_time": 1,
              "grains": spec.get("grains") or {}}
    for k, v in subst(spec.get("config") or {}, tmp, case).items():
        (master if k in MASTER_KEYS else minion)[k] = v
    for name, conf in (("m", master), ("n", minion)):
        os.makedirs(os.path.join(tmp, name), exist_ok=True)
        with open(os.path.join(tmp, name, "master" if name == "m" else "minion"), "w") as f:
            json.dump(conf, f)
    log = open(os.path.join(tmp, "salt.log"), "w")
    procs = [subprocess.Popen([os.path.join(salt_bin, "salt-master"), "-c",
                               os.path.join(tmp, "m")], stdout=log, stderr=log)]
    salt = [os.path.join(salt_bin, "salt"), "-c", os.path.join(tmp, "m")]
    try:
        time.sleep(3)
        procs.append(subprocess.Popen([os.path.join(salt_bin, "salt-minion"), "-c",
                                       os.path.join(tmp, "n")], stdout=log, stderr=log))
        deadline = time.time() + 120
        while True:
            p = subprocess.run(salt + ["--out", "json", "--static", "-t", "5", spec["id"],
                                       "test.ping"], capture_output=True, text=True)
            if '"%s": true' % spec["id"] in p.stdout:
                break
            if time.time() > deadline:
                sys.exit("%s: the salt-minion never answered: %s" % (case, p.stdout + p.stderr))
            time.sleep(1)
        out_dir = os.path.join(case, "expected-daemon")
        os.makedirs(out_dir, exist_ok=True)
        for i, cmd in enumerate(spec["commands"]):
            if only and i not in only:
                continue
            words = shlex.split(subst(cmd, tmp, case))
            # Without --static: salt --static always exits 0, and the exit
            # code recorded is the one brine's daemon mode is checked against
            # (one minion prints one JSON document either way).
            p = subprocess.run(salt + ["--out", "json", "-t", "60", spec["id"]]
                               + words, capture_output=True, text=True)
            answer = unsubst(json.loads(p.stdout)[spec["id"]], tmp)
            with open(os.path.join(out_dir, "%02d.json" % i), "w") as f:
                json.dump({"command": cmd, "retcode": p.returncode, "return": answer}, f,
                          indent=2, sort_keys=False)
                f.write("\n")
            print("%s #%d %s: recorded" % (os.path.basename(case), i, cmd))
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--salt-bin", default="/tmp/saltvenv/bin")
    ap.add_argument("--only", default="")
    ap.add_argument("cases", nargs="+")
    a = ap.parse_args()
    only = {int(x) for x in a.only.split(",") if x}
    for c in a.cases:
        record(a.salt_bin, os.path.abspath(c), only)


if __name__ == "__main__":
    main()
