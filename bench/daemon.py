#!/usr/bin/env python3
"""Daemon benchmark: `brine '*' test.ping` to many minions on this machine,
latency until the last return, side by side with Salt 3007.8 where feasible.

usage: daemon.py [--minions N] [--runs R] [--brine DIR]
                 [--salt-minions M] [--salt-bin DIR]

brine: one brine-master and one `brine-minion --swarm N` process (N minion
identities, each with its own keys, sharing one connection), all on
127.0.0.1 ephemeral ports, keys auto-accepted. After every minion answered a
warm-up ping, each run times `brine --out quiet -t 60 '*' test.ping` from
start to exit; brine exits as soon as the last expected minion returned.

Salt (--salt-minions M > 0, salt-master/salt-minion/salt from --salt-bin,
default /tmp/saltvenv/bin): one salt-master and M salt-minion processes
(Salt has no swarm mode: a minion is one Python process of ~60 MB, so 500 do
not fit 2 cores), timed the same way with `salt --out quiet -t 60`.
Prints median/min/max per system. Everything runs on the loopback interface
and is stopped at the end.

Build: the workspace's debug profile optimizes the crypto crates, so a plain
`cargo build -p brine-master -p brine-minion --bins` is representative
(unoptimized curve25519 made a debug run ~20x slower); pass
--brine target/debug.

Measured on the 2-core build machine (brine: debug build, crypto optimized):
  brine  500 minions: median 0.39 s (crypto unoptimized: 8.8 s)
  brine  100 minions: median 0.18 s; 20 minions: 0.03 s
  salt   100 minions: median 18.4 s; 20 minions: 4.6 s (500 salt-minion
         processes do not fit this machine)
"""
import argparse, json, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def stop(procs):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def status_kb(pid, key):
    """A /proc/PID/status field in kB (VmRSS, VmHWM); 0 when gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def bench_tree(here, tmp, tree):
    """The benchmark tree: `tree` if given, else one made by mktree.py."""
    if not tree:
        tree = os.path.join(tmp, "tree")
        subprocess.check_call([sys.executable, os.path.join(here, "mktree.py"), tree],
                              stdout=subprocess.DEVNULL)
    return os.path.abspath(tree)


def git_repo(src, dest):
    """A git repository at dest holding src's files on branch master (one
    commit, fixed identity): gitfs and git_pillar benchmarks serve it."""
    shutil.copytree(src, dest)
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid",
               GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    for argv in (["git", "init", "-q", "-b", "master", "."], ["git", "add", "-A"],
                 ["git", "commit", "-q", "-m", "bench tree"]):
        subprocess.run(argv, cwd=dest, env=env, check=True)
    return "file://" + dest


def write_tree_master(path, tree, pub, ret, root, gitfs=None):
    """CONF/master serving the bench tree: roots and the stack the tree's
    own minion config names (the master compiles, so it reads them). With
    gitfs (a scratch folder), the states are served by gitfs and the
    pillar SLS by git_pillar from git repositories made of the tree."""
    with open(path, "w") as f:
        if gitfs:
            states = git_repo(os.path.join(tree, "salt"), os.path.join(gitfs, "states.git"))
            pillar = git_repo(os.path.join(tree, "pillar"), os.path.join(gitfs, "pillar.git"))
            # roots after gitfs, empty: where fleet.py adds its orchestration.
            f.write("fileserver_backend: [gitfs, roots]\ngitfs_remotes: ['%s']\n"
                    "file_roots: {base: []}\npillar_roots: {}\n"
                    "ext_pillar:\n  - git: ['master %s']\n  - stack: %s/stack/stack.cfg\n"
                    % (states, pillar, tree))
        else:
            f.write("file_roots: {base: [%s/salt]}\npillar_roots: {base: [%s/pillar]}\n"
                    "ext_pillar:\n  - stack: %s/stack/stack.cfg\n" % (tree, tree, tree))
        f.write("interface: 127.0.0.1\npublish_port: %d\nret_port: %d\nroot_dir: %s\n"
                "auto_accept: True\nlog_level: warning\n" % (pub, ret, root))


def timed(argv):
    start = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return time.perf_counter() - start, p


def count_true(stdout):
    try:
        return sum(1 for v in json.loads(stdout).values() if v is True)
    except (ValueError, AttributeError):
        return 0


def wait_all(ping, n, deadline_s):
    """Ping until all n minions answer; returns the seconds it took."""
    start = time.time()
    seen = 0
    while time.time() - start < deadline_s:
        _, p = timed(ping)
        seen = count_true(p.stdout)
        if seen >= n:
            return time.time() - start
        time.sleep(1)
    sys.exit("only %d of %d minions answered within %ds" % (seen, n, deadline_s))


def summary(name, n, times):
    return "%-6s %4d minions: median %.3f s  min %.3f s  max %.3f s  (%d runs)" % (
        name, n, statistics.median(times), min(times), max(times), len(times))


def bench_brine(bindir, n, runs, tmp):
    pub, ret = free_port(), free_port()
    etc = os.path.join(tmp, "brine-etc")
    os.makedirs(etc)
    with open(os.path.join(etc, "master"), "w") as f:
        f.write("interface: 127.0.0.1\npublish_port: %d\nret_port: %d\nroot_dir: %s\n"
                "auto_accept: True\nlog_level: warning\nworker_threads: 4\n"
                % (pub, ret, os.path.join(tmp, "brine-m")))
    with open(os.path.join(etc, "minion"), "w") as f:
        f.write("id: bench\nmaster: 127.0.0.1\npublish_port: %d\nmaster_port: %d\n"
                "root_dir: %s\nacceptance_wait_time: 1\nlog_level: warning\n"
                % (pub, ret, os.path.join(tmp, "brine-n")))
    log = open(os.path.join(tmp, "brine.log"), "w")
    procs = [subprocess.Popen([os.path.join(bindir, "brine-master"), "-c", etc],
                              stdout=log, stderr=log)]
    try:
        time.sleep(0.5)
        start = time.time()
        procs.append(subprocess.Popen(
            [os.path.join(bindir, "brine-minion"), "-c", etc, "--swarm", str(n)],
            stdout=log, stderr=log))
        brine = os.path.join(bindir, "brine")
        took = wait_all([brine, "-c", etc, "--out", "json", "--static", "-t", "30", "*", "test.ping"],
                        n, 600)
        print("brine: %d minions up and answering after %.1f s" % (n, time.time() - start))
        times = []
        for _ in range(runs):
            t, p = timed([brine, "-c", etc, "--out", "json", "--static", "-t", "60", "*",
                          "test.ping"])
            got = count_true(p.stdout)
            if got != n:
                print("  run: only %d/%d returned (%s)" % (got, n, p.stderr.strip()[:200]))
            times.append(t)
        return times
    finally:
        stop(procs)


def bench_salt(saltbin, m, runs, tmp):
    pub, ret = free_port(), free_port()
    root = os.path.join(tmp, "salt")
    etc = os.path.join(root, "etc")
    os.makedirs(etc)
    common = "user: %s\nlog_level: warning\n" % os.environ.get("USER", "root")
    with open(os.path.join(etc, "master"), "w") as f:
        f.write("interface: 127.0.0.1\npublish_port: %d\nret_port: %d\nroot_dir: %s\n"
                "auto_accept: True\nworker_threads: 4\n" % (pub, ret, os.path.join(root, "m"))
                + common)
    log = open(os.path.join(tmp, "salt.log"), "w")
    procs = [subprocess.Popen([os.path.join(saltbin, "salt-master"), "-c", etc],
                              stdout=log, stderr=log)]
    try:
        time.sleep(5)
        start = time.time()
        for i in range(m):
            d = os.path.join(root, "minion%03d" % i)
            os.makedirs(d)
            with open(os.path.join(d, "minion"), "w") as f:
                f.write("id: salt-%03d\nmaster: 127.0.0.1\npublish_port: %d\nmaster_port: %d\n"
                        "root_dir: %s\nacceptance_wait_time: 1\n" % (i, pub, ret, d) + common)
            procs.append(subprocess.Popen([os.path.join(saltbin, "salt-minion"), "-c", d],
                                          stdout=log, stderr=log))
        salt = os.path.join(saltbin, "salt")
        wait_all([salt, "-c", etc, "--out", "json", "--static", "-t", "30", "*", "test.ping"],
                 m, 900)
        print("salt:  %d minions up and answering after %.1f s" % (m, time.time() - start))
        times = []
        for _ in range(runs):
            t, p = timed([salt, "-c", etc, "--out", "json", "--static", "-t", "60", "*",
                          "test.ping"])
            got = count_true(p.stdout)
            if got != m:
                print("  run: only %d/%d returned" % (got, m))
            times.append(t)
        return times
    finally:
        stop(procs)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--minions", type=int, default=500)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--brine", default=os.path.join(here, "..", "target", "release"))
    ap.add_argument("--salt-minions", type=int, default=0)
    ap.add_argument("--salt-bin", default="/tmp/saltvenv/bin")
    a = ap.parse_args()
    bindir = os.path.abspath(a.brine)
    tmp = tempfile.mkdtemp(prefix="brine-bench-")
    lines = []
    try:
        if a.minions > 0:
            lines.append(summary("brine", a.minions, bench_brine(bindir, a.minions, a.runs, tmp)))
        if a.salt_minions > 0:
            lines.append(summary("salt", a.salt_minions,
                                 bench_salt(a.salt_bin, a.salt_minions, a.runs, tmp)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
