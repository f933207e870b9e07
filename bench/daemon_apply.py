#!/usr/bin/env python3
"""Daemon benchmark: `brine bench1 state.apply` of the benchmark tree
through a real brine-master and brine-minion on 127.0.0.1, beside
`brine-call --local state.apply` on the same tree (the work without the bus).

usage: daemon_apply.py [--runs R] [--brine DIR] [--tree DIR] [--gitfs]

Generates the tree with mktree.py (2000 states, 500 pillar SLS, a 200-file
PillarStack) unless --tree names one, starts the master (file_roots and
pillar_roots from the tree, auto_accept) and one minion, waits for it to
answer, then times R runs of each command from start to exit and prints
median/min/max. Needs a release build (cargo build --release).
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from daemon import bench_tree, free_port, stop, timed, write_tree_master  # noqa: E402


def summary(name, times):
    return "%-40s median %.3f s  min %.3f s  max %.3f s  (%d runs)" % (
        name, statistics.median(times), min(times), max(times), len(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--brine", default=os.path.join(here, "..", "target", "release"))
    ap.add_argument("--tree")
    ap.add_argument("--gitfs", action="store_true",
                    help="serve the states through gitfs and the pillar SLS through git_pillar")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="brine-apply-")
    tree = bench_tree(here, tmp, a.tree)
    pub, ret = free_port(), free_port()
    etc = os.path.join(tmp, "etc")
    os.makedirs(etc)
    write_tree_master(os.path.join(etc, "master"), tree, pub, ret, os.path.join(tmp, "m"),
                      gitfs=tmp if a.gitfs else None)
    with open(os.path.join(etc, "minion"), "w") as f:
        f.write("id: bench1\nmaster: 127.0.0.1\npublish_port: %d\nmaster_port: %d\n"
                "root_dir: %s\nacceptance_wait_time: 1\nlog_level: warning\n"
                % (pub, ret, os.path.join(tmp, "n")))
    log = open(os.path.join(tmp, "daemons.log"), "w")
    b = lambda name: os.path.join(a.brine, name)
    procs = [subprocess.Popen([b("brine-master"), "-c", etc], stdout=log, stderr=log)]
    try:
        time.sleep(0.5)
        procs.append(subprocess.Popen([b("brine-minion"), "-c", etc], stdout=log, stderr=log))
        deadline = time.time() + 60
        while True:
            _, p = timed([b("brine"), "-c", etc, "--out", "json", "-t", "5", "bench1", "test.ping"])
            if '"bench1": true' in p.stdout:
                break
            if time.time() > deadline:
                sys.exit("the minion never answered: " + p.stdout + p.stderr)
            time.sleep(0.5)
        if a.gitfs:
            # The master's own first gitfs update runs beside its start.
            timed([b("brine-run"), "-c", etc, "fileserver.update"])
        daemon, local_t = [], []
        for _ in range(a.runs):
            t, p = timed([b("brine"), "-c", etc, "--out", "quiet", "-t", "60", "bench1",
                          "state.apply"])
            if p.returncode != 0:
                sys.exit("state.apply failed (%d): %s" % (p.returncode, p.stderr[:500]))
            daemon.append(t)
            t, p = timed([b("brine-call"), "-c", os.path.join(tree, "etc"), "--local",
                          "--out", "quiet", "state.apply"])
            local_t.append(t)
        print(summary("brine bench1 state.apply (daemons)", daemon))
        print(summary("brine-call --local state.apply", local_t))
    finally:
        stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
