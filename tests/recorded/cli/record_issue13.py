#!/usr/bin/env python3
"""Record what a real Salt 3007.8 pair prints for saltutil.running/find_job/
kill_job/term_job/signal_job and the jobs/manage runners (issue 13).
Pair as in ../shared/conformance/cli: web1 up, db1 accepted then stopped."""
import json, os, re, shutil, subprocess, sys, tempfile, time
CLI = "/work/shared/conformance/cli"
sys.path.insert(0, CLI)
import saltpair
from saltpair import SaltPair
import cli_side_by_side as sbs

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
work = tempfile.mkdtemp(prefix="rec13-")
tree = os.path.join(work, "tree")
shutil.copytree(os.path.join(CLI, "cli-tree"), tree)
m, n, g = sbs.common_cfg(tree)
pair = SaltPair(os.path.join(work, "salt"), "web1", grains=g, master_extra=m, minion_extra=n)
records = []
try:
    sbs.salt_extra_minion(pair, "db1", True)
    def run(label, exe, *argv):
        t0 = time.time()
        p = subprocess.run([pair.b(exe), "-c", pair.conf] + list(argv), capture_output=True,
                           text=True, timeout=200)
        rec = {"label": label, "argv": [exe] + list(argv), "stdout": p.stdout.replace(work, "@WORK@"),
               "stderr": p.stderr.replace(work, "@WORK@"), "rc": p.returncode,
               "secs": round(time.time() - t0, 2)}
        records.append(rec)
        print("%-28s rc=%s %.1fs" % (label, p.returncode, rec["secs"]), flush=True)
        with open(os.path.join(OUT, "records.json"), "w") as f:
            json.dump(records, f, indent=1)
        return p
    def jid_of(p):
        mm = re.search(r"\b(\d{20})\b", p.stdout)
        return mm.group(1) if mm else "NOJID"
    run("running-idle-json", "salt", "--out", "json", "web1", "saltutil.running")
    run("running-idle", "salt", "web1", "saltutil.running")
    a = jid_of(run("sleep-a", "salt", "--async", "web1", "test.sleep", "90"))
    b = jid_of(run("sleep-b", "salt", "--async", "web1", "test.sleep", "90"))
    c = jid_of(run("sleep-c", "salt", "--async", "web1", "test.sleep", "90"))
    time.sleep(3)
    run("running-json", "salt", "--out", "json", "web1", "saltutil.running")
    run("running", "salt", "web1", "saltutil.running")
    run("find-json", "salt", "--out", "json", "web1", "saltutil.find_job", a)
    run("find", "salt", "web1", "saltutil.find_job", a)
    run("find-none-json", "salt", "--out", "json", "web1", "saltutil.find_job", "20200101000000000000")
    run("find-none", "salt", "web1", "saltutil.find_job", "20200101000000000000")
    run("active", "salt-run", "jobs.active")
    run("active-json", "salt-run", "--out", "json", "jobs.active")
    run("list-job-running-json", "salt-run", "--out", "json", "jobs.list_job", a)
    run("kill-json", "salt", "--out", "json", "web1", "saltutil.kill_job", a)
    run("term", "salt", "web1", "saltutil.term_job", b)
    run("signal-json", "salt", "--out", "json", "web1", "saltutil.signal_job", c, "15")
    time.sleep(2)
    run("kill-again-json", "salt", "--out", "json", "web1", "saltutil.kill_job", a)
    run("kill-again", "salt", "web1", "saltutil.kill_job", a)
    run("term-none", "salt", "web1", "saltutil.term_job", "20200101000000000000")
    run("running-after-kill-json", "salt", "--out", "json", "web1", "saltutil.running")
    run("lookup-killed-json", "salt-run", "--out", "json", "jobs.lookup_jid", a)
    run("list-job-killed-json", "salt-run", "--out", "json", "jobs.list_job", a)
    run("list-job-killed", "salt-run", "jobs.list_job", a)
    run("exit-success-killed-json", "salt-run", "--out", "json", "jobs.exit_success", a)
    run("print-job-killed-json", "salt-run", "--out", "json", "jobs.print_job", a)
    run("print-job-killed", "salt-run", "jobs.print_job", a)
    e = jid_of(run("echo-v", "salt", "-v", "web1", "test.echo", "hi"))
    run("list-job-echo-json", "salt-run", "--out", "json", "jobs.list_job", e)
    run("list-job-echo", "salt-run", "jobs.list_job", e)
    run("print-job-echo-json", "salt-run", "--out", "json", "jobs.print_job", e)
    run("print-job-echo", "salt-run", "jobs.print_job", e)
    run("exit-success-echo-json", "salt-run", "--out", "json", "jobs.exit_success", e)
    run("exit-success-echo", "salt-run", "jobs.exit_success", e)
    l = jid_of(run("list-target-v", "salt", "-v", "-L", "web1,db1", "test.echo", "hi"))
    run("list-job-L-json", "salt-run", "--out", "json", "jobs.list_job", l)
    run("list-job-L", "salt-run", "jobs.list_job", l)
    run("print-job-L", "salt-run", "jobs.print_job", l)
    run("exit-success-L-json", "salt-run", "--out", "json", "jobs.exit_success", l)
    run("exit-success-L", "salt-run", "jobs.exit_success", l)
    run("lookup-L-json", "salt-run", "--out", "json", "jobs.lookup_jid", l)
    run("list-jobs-json", "salt-run", "--out", "json", "jobs.list_jobs")
    run("list-jobs", "salt-run", "jobs.list_jobs")
    run("list-job-unknown-json", "salt-run", "--out", "json", "jobs.list_job", "20200101000000000000")
    run("exit-success-unknown-json", "salt-run", "--out", "json", "jobs.exit_success", "20200101000000000000")
    run("active-idle", "salt-run", "jobs.active")
    run("active-idle-json", "salt-run", "--out", "json", "jobs.active")
    for f in ("up", "down", "status", "present", "not_present", "list_state",
              "list_not_state", "joined"):
        run("manage-%s" % f, "salt-run", "manage." + f)
        run("manage-%s-json" % f, "salt-run", "--out", "json", "manage." + f)
    run("down-running-json", "salt", "--out", "json", "db1", "saltutil.running")
    run("down-running", "salt", "db1", "saltutil.running")
    run("jobs-active-missing-arg", "salt-run", "jobs.list_job")
finally:
    pair.close()
    shutil.rmtree(work, ignore_errors=True)
print("done", flush=True)
