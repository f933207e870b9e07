#!/usr/bin/env python3
"""Side-by-side benchmark: brine-call against Salt 3007.8's salt-call.

usage: compare.py [--function FUN] [--runs N] [--brine DIR] [--salt-call PATH]
                  [--tree DIR] [--install-salt]

Generates the benchmark tree with mktree.py (2000 states, 500 pillar SLS, a
200-file PillarStack) unless --tree names one, then alternates
`brine-call -c TREE/etc --local FUN --out quiet` and
`salt-call -c TREE/etc --local FUN --out quiet`, N runs each, and prints the
median wall time, peak RSS of each and the ratios. Needs a release build
(cargo build --release) and Salt in a venv (--install-salt makes one in
/tmp/saltvenv the way ../shared/conformance/README.md says).
"""
import argparse, os, statistics, subprocess, sys, tempfile, time

SALT_DEPS = ["tornado", "pyzmq", "pyyaml", "jinja2", "msgpack", "markupsafe", "psutil",
             "requests", "distro", "looseversion", "packaging", "pycryptodomex",
             "cryptography", "aiohttp", "croniter", "python-dateutil", "setuptools<70"]

def install_salt(venv):
    if not os.path.exists(os.path.join(venv, "bin", "salt-call")):
        subprocess.check_call([sys.executable, "-m", "venv", venv])
        pip = os.path.join(venv, "bin", "pip")
        subprocess.check_call([pip, "install", "-q", "--no-deps", "salt==3007.8"])
        subprocess.check_call([pip, "install", "-q"] + SALT_DEPS)
    return os.path.join(venv, "bin", "salt-call")

def measure(argv):
    """Wall seconds and peak RSS (MB) of one run of argv."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) not in (0, 1, 2):
        sys.exit("%s failed (%d): %s" % (argv[0], os.waitstatus_to_exitcode(status), err[:500]))
    return wall, usage.ru_maxrss / 1024.0

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--function", default="pillar.items")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--brine", default=os.path.join(here, "..", "target", "release"))
    ap.add_argument("--salt-call", default="/tmp/saltvenv/bin/salt-call")
    ap.add_argument("--tree")
    ap.add_argument("--install-salt", action="store_true")
    a = ap.parse_args()
    salt_call = install_salt("/tmp/saltvenv") if a.install_salt else a.salt_call
    if not os.path.exists(salt_call):
        sys.exit("no salt-call at %s (use --install-salt)" % salt_call)
    brine_call = os.path.join(a.brine, "brine-call")
    if not os.path.exists(brine_call):
        sys.exit("no brine-call at %s (cargo build --release)" % brine_call)
    tree = a.tree or tempfile.mkdtemp(prefix="brine-bench-")
    if not a.tree:
        subprocess.check_call([sys.executable, os.path.join(here, "mktree.py"), tree])
    conf = os.path.join(tree, "etc")
    fun = a.function.split()
    brine = [brine_call, "-c", conf, "--local", "--out", "quiet"] + fun
    salt = [salt_call, "-c", conf, "--local", "--out", "quiet"] + fun
    measure(brine); measure(salt)  # warm the page cache for both
    bw, br, sw, sr = [], [], [], []
    for _ in range(a.runs):
        w, r = measure(brine); bw.append(w); br.append(r)
        w, r = measure(salt); sw.append(w); sr.append(r)
    b_t, s_t = statistics.median(bw), statistics.median(sw)
    b_m, s_m = max(br), max(sr)
    print("function: %s  (tree %s, %d runs each, alternated)" % (a.function, tree, a.runs))
    print("| | wall time (median) | peak RSS |")
    print("|---|---|---|")
    print("| brine-call | %.4f s | %.1f MB |" % (b_t, b_m))
    print("| salt-call 3007.8 | %.3f s | %.1f MB |" % (s_t, s_m))
    print("speed: brine is %.0fx faster; memory: brine uses %.1f%% of Salt's peak RSS"
          % (s_t / b_t, 100.0 * b_m / s_m))

if __name__ == "__main__":
    main()
