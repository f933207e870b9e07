#!/usr/bin/env python3
"""Fleet benchmark: one brine-master and N minions (`brine-minion --swarm`
processes) on the benchmark tree, on this machine's loopback.

usage: fleet.py [--minions N] [--swarms S] [--brine DIR] [--tree DIR] [--gitfs]
                [--timeout T] [--skip-apply | --ping-only] [--repeat R]
                [--hold SECONDS] [--postgres [both]]

Generates the tree with mktree.py (2000 states, 500 pillar SLS, a 200-file
PillarStack) unless --tree names one; starts the master (file_roots,
pillar_roots and the stack from the tree, auto_accept) and S swarm
processes sharing N minion identities; waits until every minion answers
`test.ping`. Then, for each of `test.ping`, `saltutil.refresh_pillar`,
`state.apply` and `state.apply test=True`, it runs
`brine --out json --out-indent -1 -t T '*' FUN` — and then the same
highstate as an orchestration, `brine-run state.orchestrate orch.fleet`
(one `salt.state` step with `tgt: '*'`, `highstate: True`, counting the
minions the step reports) — and prints:

  - seconds until the CLI exits (it exits when the last return is shown),
  - returns the CLI printed (one JSON document per minion, read as a
    stream: the script never holds the output),
  - master and swarm peak RSS during that command (VmHWM, reset through
    /proc/PID/clear_refs before it),
  - the master's CPU seconds per minion for that command (and the
    swarms', and the command's own: the CLI printing every return),
  - returns stored per second (returns shown / seconds).

--postgres keeps jobs, returns and keys in a private PostgreSQL server
(initdb in the run's temporary folder, a Unix socket, Debian's postgresql
package; run as the postgres user when the script runs as root) through
`master_job_cache: pgjsonb`, instead of the default SQLite file.

--postgres both runs the whole fleet twice, on SQLite and then on
PostgreSQL, and ends with the two side by side.

Each line says whether it is the command's first run since the master
started ("first": nothing kept from an earlier compile) or a repeated one
("again": compiled states and pillars may be sent again); with --repeat,
a closing table gives per command the first run and the median of the
repeated ones, one column pair per job cache.

It also prints the master's RSS once every minion is up and idle.
--repeat runs each command R times (one line each); --hold keeps the fleet
up that long afterwards and prints the CLI's command line, to try commands
or attach a profiler by hand.
Needs a release build (cargo build --release); numbers from a debug build
say little.
"""
import argparse, json, os, resource, shutil, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from daemon import bench_tree, free_port, status_kb, stop, write_tree_master  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def reset_peak(pid):
    """Linux resets VmHWM to the current RSS when 5 is written here."""
    try:
        with open("/proc/%d/clear_refs" % pid, "w") as f:
            f.write("5")
    except OSError:
        pass


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def more_descriptors():
    """Each minion holds two connections to the master: past a few
    thousand, the master and swarms need more descriptors than a shell's
    usual limit (raised as far as this user may)."""
    want = 1 << 16
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for limit in ((want, max(want, hard)), (min(want, hard), hard)):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, limit)
            return
        except (ValueError, OSError):
            continue


def wait_quiet(master, limit=900):
    """Until the master uses less than a tenth of a core over 2 s: work a
    command left behind (a refresh_pillar's compiles go on after its
    returns) is not counted in the next one."""
    start = time.time()
    while time.time() - start < limit:
        c0 = cpu_seconds(master.pid)
        time.sleep(2)
        if cpu_seconds(master.pid) - c0 < 0.2:
            return


def run_cli(argv, timeout):
    """Run the CLI; count the JSON documents it prints, one per line,
    without keeping them. Returns (seconds, documents, exit code)."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    docs = 0
    for line in p.stdout:
        if line.startswith(b"{"):
            docs += 1
    rc = p.wait(timeout)
    return time.perf_counter() - start, docs, rc


def pg_bin():
    """The folder of PostgreSQL's server programs (Debian's layout first)."""
    import glob
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return os.path.dirname(found[-1])
    path = shutil.which("initdb")
    if path:
        return os.path.dirname(path)
    sys.exit("--postgres needs PostgreSQL's server programs: apt-get install postgresql")


def start_postgres(tmp):
    """A private server in TMP/pg (socket there too) with a database `salt`;
    returns (socket dir, stop function)."""
    bindir = pg_bin()
    d = os.path.join(tmp, "pg")
    os.makedirs(d)
    as_user = []
    if os.geteuid() == 0:
        shutil.chown(d, "postgres", "postgres")
        os.chmod(tmp, 0o755)
        as_user = ["runuser", "-u", "postgres", "--"]
    run = lambda *argv: subprocess.run(as_user + list(argv), check=True, cwd=d,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    data = os.path.join(d, "data")
    run(os.path.join(bindir, "initdb"), "-D", data, "-U", "brine", "--auth=trust", "-E", "UTF8",
        "--locale=C")
    run(os.path.join(bindir, "pg_ctl"), "-D", data, "-o",
        "-k %s -c listen_addresses='' -p 5432" % d, "-l", os.path.join(d, "log"), "-w", "start")
    run(os.path.join(bindir, "createdb"), "-h", d, "-p", "5432", "-U", "brine", "salt")

    def stop_pg():
        subprocess.run(as_user + [os.path.join(bindir, "pg_ctl"), "-D", data, "-m", "fast",
                                  "stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return d, stop_pg


# The orchestration's line: `brine-run state.orchestrate orch.fleet`.
ORCHESTRATE = ["state.orchestrate", "orch.fleet"]


def orchestrate(bindir, etc, timeout):
    """Run the fleet orchestration (one salt.state step, highstate on '*');
    its seconds, the minions the step reports (changed or not), and the
    exit code."""
    argv = [os.path.join(bindir, "brine-run"), "-c", etc, "--out", "json",
            "state.orchestrate", "orch.fleet"]
    t0 = time.time()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       timeout=timeout * 2 + 120)
    secs = time.time() - t0
    shown = 0
    try:
        data = json.loads(p.stdout)["data"]
        step = next(iter(next(iter(data.values())).values()))
        shown = len(step.get("changes", {}).get("ret", {}))
        comment = step.get("comment", "")
        if "No changes made to " in comment:
            shown += len(comment.split("No changes made to ", 1)[1].rstrip(".").split(", "))
        if step.get("result") is False:
            print("  the step failed: %.300s" % comment)
    except (ValueError, KeyError, StopIteration, AttributeError):
        pass
    return secs, shown, p.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minions", type=int, default=1000)
    ap.add_argument("--swarms", type=int, default=1)
    ap.add_argument("--brine", default=os.path.join(here, "..", "target", "release"))
    ap.add_argument("--tree")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--skip-apply", action="store_true",
                    help="only test.ping and saltutil.refresh_pillar")
    ap.add_argument("--ping-only", action="store_true", help="only test.ping")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--hold", type=float, default=0)
    ap.add_argument("--mine", action="store_true",
                    help="also mine.update on every minion and the mine.get runner over all")
    ap.add_argument("--events", action="store_true",
                    help="count the job events a state.event listener sees per command")
    ap.add_argument("--gitfs", action="store_true",
                    help="serve the states through gitfs and the pillar SLS through git_pillar")
    ap.add_argument("--postgres", nargs="?", const="only", choices=["only", "both"],
                    help="keep jobs, returns and keys in a private PostgreSQL (pgjsonb); "
                         "'both': run the fleet on SQLite, then on PostgreSQL, and "
                         "print the two side by side")
    a = ap.parse_args()
    caches = {None: [False], "only": [True], "both": [False, True]}[a.postgres]
    results = [(pg, fleet(a, pg)) for pg in caches]
    summary(results)


def summary(results):
    """Per command, the first run after start and the median of the runs
    after it, for each job cache run."""
    import statistics
    print()
    names = ["PostgreSQL" if pg else "SQLite" for pg, _ in results]
    print("%-26s %s" % ("seconds", " ".join("%22s" % n for n in names)))
    print("%-26s %s" % ("", " ".join("%10s %11s" % ("first", "repeated") for _ in names)))
    order = []
    for _, rows in results:
        for r in rows:
            if r["command"] not in order:
                order.append(r["command"])
    for cmd in order:
        cells = []
        for _, rows in results:
            secs = [r["seconds"] for r in rows if r["command"] == cmd]
            again = "%11.2f" % statistics.median(secs[1:]) if len(secs) > 1 else "%11s" % "-"
            cells.append(("%10.2f" % secs[0] if secs else "%10s" % "-") + " " + again)
        print("%-26s %s" % (cmd, " ".join(cells)))


def fleet(a, postgres):
    """One fleet up, its commands run, and down; a row per command run."""
    rows = []
    tmp = tempfile.mkdtemp(prefix="brine-fleet-")
    tree = bench_tree(here, tmp, a.tree)
    pub, ret = free_port(), free_port()
    etc = os.path.join(tmp, "etc")
    os.makedirs(etc)
    write_tree_master(os.path.join(etc, "master"), tree, pub, ret, os.path.join(tmp, "m"),
                      gitfs=tmp if a.gitfs else None)
    # The orchestration the fleet runs next to the plain state.apply: one
    # step applying the highstate to every minion, from a root of its own
    # beside the tree's (a --tree given is not written to).
    orch_root = os.path.join(tmp, "orch_root")
    os.makedirs(os.path.join(orch_root, "orch"))
    with open(os.path.join(orch_root, "orch", "fleet.sls"), "w") as f:
        # The step waits as long as the CLI's commands do (-t).
        f.write("fleet_highstate:\n  salt.state:\n    - tgt: '*'\n    - highstate: True\n"
                "    - timeout: %d\n" % a.timeout)
    with open(os.path.join(etc, "master")) as f:
        text = f.read()
    with open(os.path.join(etc, "master"), "w") as f:
        f.write(text.replace("file_roots: {base: [%s/salt]}" % tree,
                             "file_roots: {base: [%s/salt, %s]}" % (tree, orch_root))
                .replace("file_roots: {base: []}", "file_roots: {base: [%s]}" % orch_root))
    if a.minions > 900:
        # The swarms connect from one address: room for all of them.
        with open(os.path.join(etc, "master"), "a") as f:
            f.write("max_connections: %d\nmax_connections_per_address: %d\n"
                    % (a.minions + 100, a.minions + 100))
    stop_pg = None
    if postgres:
        sock, stop_pg = start_postgres(tmp)
        with open(os.path.join(etc, "master"), "a") as f:
            f.write("master_job_cache: pgjsonb\nreturner.pgjsonb.host: %s\n"
                    "returner.pgjsonb.port: 5432\nreturner.pgjsonb.user: brine\n"
                    "returner.pgjsonb.pass: ''\nreturner.pgjsonb.db: salt\n" % sock)
        print("job cache and keys: PostgreSQL at %s" % sock)
    bindir = os.path.abspath(a.brine)
    log = open(os.path.join(tmp, "fleet.log"), "w")
    master = subprocess.Popen([os.path.join(bindir, "brine-master"), "-c", etc],
                              stdout=log, stderr=log, preexec_fn=more_descriptors)
    procs = [master]
    swarms = []
    try:
        time.sleep(0.5)
        per = [a.minions // a.swarms + (1 if i < a.minions % a.swarms else 0)
               for i in range(a.swarms)]
        start = time.time()
        for i, n in enumerate(per):
            d = os.path.join(tmp, "swarm%d" % i)
            os.makedirs(d)
            shutil.copy(os.path.join(etc, "master"), os.path.join(d, "master"))
            with open(os.path.join(d, "minion"), "w") as f:
                f.write("id: fleet%d\nmaster: 127.0.0.1\npublish_port: %d\nmaster_port: %d\n"
                        "root_dir: %s\nacceptance_wait_time: 1\nlog_level: warning\n"
                        % (i, pub, ret, os.path.join(d, "root")))
                if a.mine:
                    f.write("mine_functions:\n  test.ping: []\n  grains.item: [os]\n")
            s = subprocess.Popen([os.path.join(bindir, "brine-minion"), "-c", d, "--swarm",
                                  str(n)], stdout=log, stderr=log, preexec_fn=more_descriptors)
            swarms.append(s)
            procs.append(s)
        brine = [os.path.join(bindir, "brine"), "-c", etc]
        while True:
            _, docs, _ = run_cli(brine + ["--out", "json", "--out-indent", "-1", "-t", "30",
                                          "*", "test.ping"], 120)
            if docs >= a.minions:
                break
            if time.time() - start > 900:
                sys.exit("only %d of %d minions answered" % (docs, a.minions))
            time.sleep(1)
        if a.gitfs:
            # The master's own first gitfs update runs beside its start.
            run_cli([os.path.join(bindir, "brine-run"), "-c", etc, "fileserver.update"], 600)
        print("%d minions (%d swarm process%s) up after %.1f s" % (
            a.minions, a.swarms, "" if a.swarms == 1 else "es", time.time() - start))
        # Minions answer test.ping before their start-up pillar arrives:
        # wait for the master to go quiet (start-up pillars compiled).
        settle = time.time()
        wait_quiet(master)
        print("master quiet (start-up pillars compiled) %.1f s later" % (time.time() - settle))
        print("master RSS, every minion up and idle: %.0f MB" % (status_kb(master.pid, "VmRSS")
                                                                   / 1024))
        funs = [["test.ping"]]
        if not a.ping_only:
            funs += [["saltutil.refresh_pillar"]]
        if not (a.skip_apply or a.ping_only):
            funs += [["state.apply"], ["state.apply", "test=True"], ORCHESTRATE]
        if a.mine:
            funs += [["mine.update"]]
        funs = [f for f in funs for _ in range(a.repeat)]
        print("%-26s %6s %9s %9s %12s %11s %13s %12s %10s %11s" % ("command", "run", "seconds",
                                                               "shown",
                                                               "master peak", "swarm peak",
                                                               "master cpu/m", "swarm cpu/m",
                                                               "returns/s", "cli cpu/m"))
        cuts_before = 0
        for fun in funs:
            wait_quiet(master)
            for p in [master] + swarms:
                reset_peak(p.pid)
            cpu0 = cpu_seconds(master.pid)
            scpu0 = sum(cpu_seconds(s.pid) for s in swarms)
            # The command's own CPU (brine or brine-run, printing every
            # return; with --events the listener's too): it shares the
            # cores with the daemons.
            kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            listener = None
            if a.events:
                # To a file: a pipe nobody reads would stall the listener.
                seen_path = os.path.join(tmp, "events.txt")
                seen_file = open(seen_path, "wb")
                listener = subprocess.Popen(
                    [os.path.join(bindir, "brine-run"), "-c", etc, "state.event",
                     "salt/job/*"], stdout=seen_file, stderr=log)
                time.sleep(1)
            if fun is ORCHESTRATE:
                secs, docs, rc = orchestrate(bindir, etc, a.timeout)
            else:
                secs, docs, rc = run_cli(brine + ["--out", "json", "--out-indent", "-1", "-t",
                                                  str(a.timeout), "*"] + fun, a.timeout + 120)
            if listener:
                # The listener may still be writing what the bus holds for
                # it: wait until its file stops growing (at most a minute).
                last, still = -1, time.time()
                while time.time() - still < 60:
                    size = os.path.getsize(seen_path)
                    if size == last:
                        break
                    last = size
                    time.sleep(2)
                listener.terminate()
                listener.wait()
                seen_file.close()
                with open(seen_path, "rb") as f:
                    lines = f.read().decode(errors="replace").splitlines()
                rets = sum(1 for l in lines if "/ret/" in l.split("\t", 1)[0])
                news = sum(1 for l in lines if l.split("\t", 1)[0].endswith("/new"))
                log.flush()
                with open(os.path.join(tmp, "fleet.log"), errors="replace") as f:
                    cut = sum(1 for l in f if "event subscriber" in l and "; cut" in l)
                print("  events seen by state.event: %d new, %d ret (of %d returns shown)%s"
                      % (news, rets, docs, ", listener cut (slow subscriber)" if cut > cuts_before else ""))
                cuts_before = cut
            kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            ccpu = (kids1.ru_utime + kids1.ru_stime) - (kids0.ru_utime + kids0.ru_stime)
            cpu = cpu_seconds(master.pid) - cpu0
            scpu = sum(cpu_seconds(s.pid) for s in swarms) - scpu0
            mpeak = status_kb(master.pid, "VmHWM") / 1024
            speak = sum(status_kb(s.pid, "VmHWM") for s in swarms) / 1024
            name = " ".join(fun)
            runs = sum(1 for r in rows if r["command"] == name)
            rows.append({"command": name, "seconds": secs})
            print("%-26s %6s %9.2f %9d %9.0f MB %8.0f MB %11.2f ms %9.2f ms %10.0f %8.2f ms" % (
                name, "first" if runs == 0 else "again", secs, docs, mpeak, speak,
                cpu / a.minions * 1000, scpu / a.minions * 1000,
                docs / secs if secs > 0 else 0, ccpu / a.minions * 1000), flush=True)
            if rc not in (0, 1):
                print("  (brine exited %d)" % rc)
        if a.mine:
            wait_quiet(master)
            reset_peak(master.pid)
            t0 = time.time()
            p = subprocess.run([os.path.join(bindir, "brine-run"), "-c", etc, "--out", "json",
                                "mine.get", "*", "test.ping"], capture_output=True, timeout=300)
            secs = time.time() - t0
            try:
                n = len(json.loads(p.stdout))
            except ValueError:
                n = -1
            print("%-26s %9.2f %9d %9.0f MB" % ("brine-run mine.get * test.ping", secs, n,
                                               status_kb(master.pid, "VmHWM") / 1024), flush=True)
        if a.hold > 0:
            print("fleet up for %.0f s more: %s '*' test.ping  (master pid %d)" % (
                a.hold, " ".join(brine), master.pid), flush=True)
            time.sleep(a.hold)
    finally:
        stop(procs)
        if stop_pg:
            stop_pg()
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


if __name__ == "__main__":
    main()
