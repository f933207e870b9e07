#!/usr/bin/env python3
"""Record what a real Salt 3007.8 master prints for batch runs (`-b N`,
`-b N%`, `--batch-wait`, `--failhard`, `--out json`): minions web1, web2,
web3 up and db1 accepted then stopped (a down minion), as in
../shared/conformance/cli. Writes OUT/records.json: argv, stdout, stderr,
exit code per step.

usage: SALT_BIN=/tmp/saltvenv/bin record_batch.py OUT"""
import json, os, shutil, subprocess, sys, tempfile, time
CLI = "/work/shared/conformance/cli"
sys.path.insert(0, CLI)
from saltpair import SaltPair
import cli_side_by_side as sbs
import run as shared

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
work = tempfile.mkdtemp(prefix="recbatch-")
tree = os.path.join(work, "tree")
shutil.copytree(os.path.join(CLI, "cli-tree"), tree)
m, n, g = sbs.common_cfg(tree)
m.update({"timeout": 3, "gather_job_timeout": 3})
pair = SaltPair(os.path.join(work, "salt"), "web1", grains=g, master_extra=m, minion_extra=n)
extra = []


def start_minion(mid):
    conf = os.path.join(pair.tmp, "etc-" + mid)
    os.makedirs(conf, exist_ok=True)
    cfg = dict(pair.minion_cfg, id=mid, root_dir=os.path.join(pair.tmp, "nroot-" + mid))
    shared.dump_yaml(cfg, os.path.join(conf, "minion"))
    shutil.copy(os.path.join(pair.conf, "master"), os.path.join(conf, "master"))
    log = open(os.path.join(pair.tmp, "minion-%s.out" % mid), "w")
    p = subprocess.Popen([pair.b("salt-minion"), "-c", conf], stdout=log, stderr=log,
                         start_new_session=True)
    extra.append(p)
    deadline = time.time() + 120
    while time.time() < deadline:
        pair.key("-a", mid, "-y")
        r = pair.salt("--out", "json", "-t", "10", mid, "test.ping")
        try:
            if json.loads(r.stdout).get(mid) is True:
                return
        except Exception:
            pass
        time.sleep(1)
    raise RuntimeError(mid + " never answered")


records = []
try:
    sbs.salt_extra_minion(pair, "db1", True)
    start_minion("web2")
    start_minion("web3")

    def run(label, *argv):
        t0 = time.time()
        p = subprocess.run([pair.b("salt"), "-c", pair.conf] + list(argv), capture_output=True,
                           text=True, timeout=300)
        records.append({"label": label, "argv": ["salt"] + list(argv), "stdout": p.stdout,
                        "stderr": p.stderr, "rc": p.returncode,
                        "secs": round(time.time() - t0, 2)})
        print("%-28s rc=%s %.1fs" % (label, p.returncode, records[-1]["secs"]), flush=True)
        with open(os.path.join(OUT, "records.json"), "w") as f:
            json.dump(records, f, indent=1)

    run("b1-ping", "-b", "1", "web*", "test.ping")
    run("b2-ping-down", "-b", "2", "*", "test.ping")
    run("b50pct-ping", "-b", "50%", "web*", "test.ping")
    run("b10pct-ping", "-b", "10%", "web*", "test.ping")
    run("b2-json", "-b", "2", "--out", "json", "web*", "test.ping")
    run("b1-retcode", "-b", "1", "web*", "cmd.run", "exit 3", "python_shell=True")
    run("b1-failhard", "-b", "1", "--failhard", "web*", "cmd.run", "exit 3",
        "python_shell=True")
    run("b1-wait", "-b", "1", "--batch-wait", "1", "web*", "test.ping")
    run("b-invalid", "-b", "x", "web*", "test.ping")
    run("b-nomatch", "-b", "1", "nomatch*", "test.ping")
    run("b1-list", "-b", "1", "-L", "web1,web2", "test.echo", "hi")
    run("b1-static", "-b", "1", "--static", "web*", "test.ping")
    run("b3-state", "-b", "3", "web1", "state.apply", "test=True")
finally:
    for p in extra:
        sbs.stop(p)
    pair.close()
    shutil.rmtree(work, ignore_errors=True)
