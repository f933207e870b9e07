#!/usr/bin/env python3
"""Record what salt -p prints when Salt 3007.8 has its optional progressbar
package (issue 13). Run with SALT_BIN pointing at a venv that has Salt 3007.8
and progressbar 2.5. Pair as in ../shared/conformance/cli: web1 up, db1
accepted then stopped."""
import json, os, shutil, subprocess, sys, tempfile, time
CLI = "/work/shared/conformance/cli"
sys.path.insert(0, CLI)
from saltpair import SaltPair
import cli_side_by_side as sbs

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
work = tempfile.mkdtemp(prefix="rec13p-")
tree = os.path.join(work, "tree")
shutil.copytree(os.path.join(CLI, "cli-tree"), tree)
m, n, g = sbs.common_cfg(tree)
m.update({"timeout": 3, "gather_job_timeout": 3})
pair = SaltPair(os.path.join(work, "salt"), "web1", grains=g, master_extra=m, minion_extra=n)
records = []
try:
    sbs.salt_extra_minion(pair, "db1", True)

    def run(label, *argv, env=None):
        t0 = time.time()
        # Bytes, decoded without newline translation: the bar ends its
        # redraws with a carriage return.
        p = subprocess.run([pair.b("salt"), "-c", pair.conf] + list(argv), capture_output=True,
                           timeout=200, env=dict(os.environ, **(env or {})))
        rec = {"label": label, "argv": ["salt"] + list(argv), "env": env or {},
               "stdout": p.stdout.decode().replace(work, "@WORK@"),
               "stderr": p.stderr.decode().replace(work, "@WORK@"), "rc": p.returncode,
               "secs": round(time.time() - t0, 2)}
        records.append(rec)
        print("%-32s rc=%s %.1fs" % (label, p.returncode, rec["secs"]), flush=True)
        with open(os.path.join(OUT, "records.json"), "w") as f:
            json.dump(records, f, indent=1)

    run("pb-progress", "-p", "web1", "test.ping")
    run("pb-progress-down", "-p", "-L", "web1,db1", "test.ping")
    run("pb-progress-only-down", "-p", "db1", "test.ping")
    run("pb-progress-json", "-p", "--out", "json", "web1", "test.ping")
    run("pb-progress-verbose", "-p", "-v", "-L", "web1,db1", "test.ping")
    run("pb-progress-summary", "-p", "--summary", "web1", "test.ping")
    run("pb-progress-state-fail", "-p", "web1", "state.apply", "fail")
    run("pb-progress-show-jid", "-p", "--show-jid", "web1", "test.ping")
    run("pb-progress-hide-timeout", "-p", "--hide-timeout", "-L", "web1,db1", "test.ping")
    run("pb-progress-columns", "-p", "-L", "web1,db1", "test.ping", env={"COLUMNS": "60"})
finally:
    pair.close()
    shutil.rmtree(work, ignore_errors=True)
print("done", flush=True)
