#!/usr/bin/env python3
"""Record what a real Salt 3007.8 pair prints for the salt CLI's output
options (issue 13): --out-file, --out-file-append, --out-indent/--output-indent,
--state-output, --state-verbose, --hide-timeout, --show-jid, --summary,
-p/--progress and --failhard. Pair as in ../shared/conformance/cli: web1 up,
db1 accepted then stopped (the down minion). For --out-file steps the file's
content after the run is recorded as "file"."""
import json, os, shutil, subprocess, sys, tempfile, time
CLI = "/work/shared/conformance/cli"
sys.path.insert(0, CLI)
from saltpair import SaltPair
import cli_side_by_side as sbs

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
work = tempfile.mkdtemp(prefix="rec13o-")
tree = os.path.join(work, "tree")
shutil.copytree(os.path.join(CLI, "cli-tree"), tree)
m, n, g = sbs.common_cfg(tree)
# Shorter waits for the down minion: they change how long salt waits, not what it prints.
m.update({"timeout": 3, "gather_job_timeout": 3})
pair = SaltPair(os.path.join(work, "salt"), "web1", grains=g, master_extra=m, minion_extra=n)
records = []
outfile = os.path.join(work, "out.txt")
try:
    sbs.salt_extra_minion(pair, "db1", True)

    def run(label, *argv, exe="salt", before=None):
        if before is not None:
            with open(outfile, "w") as f:
                f.write(before)
        elif os.path.exists(outfile):
            os.remove(outfile)
        argv = [a.replace("@FILE@", outfile) for a in argv]
        t0 = time.time()
        p = subprocess.run([pair.b(exe), "-c", pair.conf] + list(argv), capture_output=True,
                           text=True, timeout=200)
        rec = {"label": label, "argv": [exe] + [a.replace(work, "@WORK@") for a in argv],
               "stdout": p.stdout.replace(work, "@WORK@"),
               "stderr": p.stderr.replace(work, "@WORK@"), "rc": p.returncode,
               "secs": round(time.time() - t0, 2)}
        if "@FILE@" in " ".join(argv) or outfile in " ".join(argv):
            rec["file"] = open(outfile).read() if os.path.exists(outfile) else None
        records.append(rec)
        print("%-32s rc=%s %.1fs" % (label, p.returncode, rec["secs"]), flush=True)
        with open(os.path.join(OUT, "records.json"), "w") as f:
            json.dump(records, f, indent=1)
        return p

    # --out-file / --out-file-append
    run("outfile", "--out-file", "@FILE@", "web1", "test.ping", before="old\n")
    run("outfile-eq-json", "--out-file=@FILE@", "--out", "json", "web1", "test.ping", before="old\n")
    run("outfile-new", "--out-file", "@FILE@", "web1", "test.echo", "hi")
    run("outfile-append", "--out-file", "@FILE@", "--out-file-append", "web1", "test.ping",
        before="old\n")
    run("outfile-append-json", "--out-file", "@FILE@", "--out-file-append", "--out", "json",
        "web1", "test.ping", before="old\n")
    run("output-file-alias", "--output-file", "@FILE@", "--output-file-append", "web1",
        "test.ping", before="old\n")
    run("outfile-down", "--out-file", "@FILE@", "-L", "web1,db1", "test.ping")
    run("outfile-down-json", "--out-file", "@FILE@", "--out", "json", "-L", "web1,db1",
        "test.ping")
    run("outfile-state", "--out-file", "@FILE@", "web1", "state.apply")
    run("outfile-static", "--out-file", "@FILE@", "--static", "web1", "test.ping")
    run("outfile-summary", "--out-file", "@FILE@", "--summary", "web1", "test.ping")
    run("outfile-show-jid", "--out-file", "@FILE@", "--show-jid", "web1", "test.ping")
    run("outfile-append-only", "--out-file-append", "web1", "test.ping")
    run("outfile-nodir", "--out-file", "/nonexistent-dir/x/out.txt", "web1", "test.ping")
    # --out-indent / --output-indent
    run("indent-json-2", "--out", "json", "--out-indent", "2", "web1", "grains.item", "os", "role")
    run("indent-json-0", "--out", "json", "--out-indent=0", "web1", "grains.item", "os", "role")
    run("indent-json-neg", "--out", "json", "--out-indent", "-1", "web1", "grains.item", "os",
        "role")
    run("output-indent-json-1", "--out", "json", "--output-indent", "1", "web1", "grains.item",
        "os", "role")
    run("indent-yaml-4", "--out", "yaml", "--out-indent", "4", "web1", "grains.item", "os", "role")
    run("indent-yaml-neg", "--out", "yaml", "--out-indent", "-1", "web1", "grains.item", "os",
        "role")
    run("indent-nested-8", "--out-indent", "8", "web1", "grains.item", "os", "role")
    run("indent-bad", "--out-indent", "x", "web1", "test.ping")
    run("json-plain", "--out", "json", "web1", "grains.item", "os", "role")
    # --state-output / --state-verbose
    for so in ("full", "terse", "mixed", "changes", "filter", "full_id", "terse_id",
               "mixed_id", "changes_id", "bogus"):
        run("state-output-" + so, "--state-output=" + so, "web1", "state.apply")
    run("state-output-underscore", "--state_output", "terse", "web1", "state.apply")
    run("state-output-terse-fail", "--state-output", "terse", "web1", "state.apply", "fail")
    run("state-output-changes-fail", "--state-output", "changes", "web1", "state.apply", "fail")
    run("state-output-mixed-fail", "--state-output", "mixed", "web1", "state.apply", "fail")
    run("state-verbose-false", "--state-verbose=False", "web1", "state.apply")
    run("state-verbose-lower-false", "--state-verbose", "false", "web1", "state.apply")
    run("state-verbose-true", "--state-verbose=True", "web1", "state.apply")
    run("state-verbose-bogus", "--state-verbose=no", "web1", "state.apply")
    run("state-verbose-false-fail", "--state_verbose=False", "web1", "state.apply", "fail")
    run("state-terse-verbose-false", "--state-output=terse", "--state-verbose=False", "web1",
        "state.apply")
    run("state-output-json", "--state-output=terse", "--out", "json", "web1", "state.apply")
    run("state-output-test-ping", "--state-output=terse", "web1", "test.ping")
    # --hide-timeout
    run("hide-timeout", "--hide-timeout", "-L", "web1,db1", "test.ping")
    run("hide-timeout-json", "--hide-timeout", "--out", "json", "-L", "web1,db1", "test.ping")
    run("hide-timeout-only-down", "--hide-timeout", "db1", "test.ping")
    run("hide-timeout-up", "--hide-timeout", "web1", "test.ping")
    run("hide-timeout-verbose", "--hide-timeout", "-v", "-L", "web1,db1", "test.ping")
    # --show-jid
    run("show-jid", "--show-jid", "web1", "test.ping")
    run("show-jid-json", "--show-jid", "--out", "json", "web1", "test.ping")
    run("show-jid-down", "--show-jid", "-L", "web1,db1", "test.ping")
    run("show-jid-verbose", "--show-jid", "-v", "web1", "test.ping")
    run("show-jid-static", "--show-jid", "--static", "web1", "test.ping")
    # --summary
    run("summary", "--summary", "web1", "test.ping")
    run("summary-down", "--summary", "-L", "web1,db1", "test.ping")
    run("summary-down-verbose", "--summary", "-v", "-L", "web1,db1", "test.ping")
    run("summary-json", "--summary", "--out", "json", "web1", "test.ping")
    run("summary-state-fail", "--summary", "web1", "state.apply", "fail")
    run("summary-state-fail-verbose", "--summary", "-v", "web1", "state.apply", "fail")
    run("summary-hide-timeout", "--summary", "--hide-timeout", "-L", "web1,db1", "test.ping")
    run("summary-static", "--summary", "--static", "web1", "test.ping")
    # -p / --progress (the progressbar package is not installed in this venv)
    run("progress", "-p", "web1", "test.ping")
    run("progress-long", "--progress", "-L", "web1,db1", "test.ping")
    run("progress-json", "-p", "--out", "json", "web1", "test.ping")
    run("progress-down", "-p", "db1", "test.ping")
    # --failhard
    run("failhard", "--failhard", "web1", "state.apply", "fail")
    run("failhard-down", "--failhard", "-L", "web1,db1", "test.ping")
    run("failhard-static", "--failhard", "--static", "-L", "web1,db1", "test.ping")
    run("static-fail", "--static", "web1", "state.apply", "fail")
    run("failhard-static-fail", "--failhard", "--static", "web1", "state.apply", "fail")
    run("failhard-batch", "--failhard", "-b", "1", "-L", "web1,db1", "test.ping")
    run("failhard-batch-fail", "--failhard", "-b", "1", "web1", "state.apply", "fail")
    run("failhard-retcode", "--failhard", "-L", "web1,db1", "test.retcode", "3")
finally:
    pair.close()
    shutil.rmtree(work, ignore_errors=True)
print("done", flush=True)
