#!/usr/bin/env python3
"""Idle memory of a minion: brine-minion against Salt 3007.8's salt-minion.

usage: idle_rss.py [--brine DIR] [--salt DIR] [--idle SECONDS]

Each minion runs against its own master on 127.0.0.1 (free ports, a temp
folder): brine-master + brine-minion, salt-master + salt-minion. Once the
minion has answered `test.ping` through its master, the script waits
--idle seconds and reads VmRSS and VmHWM from /proc/PID/status of the
minion's processes (Salt's minion may fork: its process tree is summed).

For many minions (`brine-minion --swarm N` answering `brine '*' test.ping`)
see daemon.py.

Use a release build (--brine target/release, the default): a debug binary
maps tens of MB of unoptimized code and debug info.
"""
import argparse, json, os, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon import free_port, status_kb  # noqa: E402  (the benchmarks' helpers)

def tree(pid):
    """pid and its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            with open("/proc/%d/task/%d/children" % (p, p)) as f:
                todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return out

def wait_ping(argv, minion_id, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        p = subprocess.run(argv, capture_output=True, text=True)
        try:
            if json.loads(p.stdout).get(minion_id) is True:
                return
        except ValueError:
            pass
        time.sleep(0.5)
    sys.exit("%s never answered test.ping: %s" % (minion_id, p.stderr[-500:]))

def stop(procs):
    for p in reversed(procs):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()

def dump_yaml(d, path):
    # JSON is YAML: no PyYAML needed.
    with open(path, "w") as f:
        json.dump(d, f, indent=1)

def measure(pids):
    """VmRSS, VmHWM and RssAnon (heap and stacks, without mapped code) in MB."""
    kb = lambda key: sum(status_kb(p, key) for p in pids) / 1024.0
    return kb("VmRSS"), kb("VmHWM"), kb("RssAnon")

def brine(bindir, idle):
    tmp = tempfile.mkdtemp(prefix="brine-rss-")
    procs = []
    try:
        pub, ret = free_port(), free_port()
        etc = os.path.join(tmp, "etc")
        os.makedirs(etc)
        dump_yaml({"interface": "127.0.0.1", "publish_port": pub, "ret_port": ret,
                   "root_dir": os.path.join(tmp, "mroot"), "log_level": "warning",
                   "auto_accept": True}, os.path.join(etc, "master"))
        dump_yaml({"id": "bench", "master": "127.0.0.1", "publish_port": pub, "master_port": ret,
                   "root_dir": os.path.join(tmp, "nroot"), "log_level": "warning"},
                  os.path.join(etc, "minion"))
        b = lambda n: os.path.join(bindir, n)
        log = open(os.path.join(tmp, "daemons.log"), "w")
        procs.append(subprocess.Popen([b("brine-master"), "-c", etc], stdout=log, stderr=log))
        time.sleep(0.5)
        minion = subprocess.Popen([b("brine-minion"), "-c", etc], stdout=log, stderr=log)
        procs.append(minion)
        wait_ping([b("brine"), "-c", etc, "--out", "json", "-t", "10", "bench", "test.ping"],
                  "bench")
        time.sleep(idle)
        return measure(tree(minion.pid))
    finally:
        stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)

def salt(saltdir, idle):
    tmp = tempfile.mkdtemp(prefix="salt-rss-")
    procs = []
    try:
        pub, ret = free_port(), free_port()
        etc = os.path.join(tmp, "etc")
        os.makedirs(etc)
        common = {"root_dir": os.path.join(tmp, "root"), "log_level": "warning",
                  "user": __import__("getpass").getuser()}
        dump_yaml(dict(common, interface="127.0.0.1", publish_port=pub, ret_port=ret,
                       auto_accept=True, worker_threads=2), os.path.join(etc, "master"))
        dump_yaml(dict(common, id="saltbench", master="127.0.0.1", publish_port=pub,
                       master_port=ret), os.path.join(etc, "minion"))
        s = lambda n: os.path.join(saltdir, n)
        log = open(os.path.join(tmp, "daemons.log"), "w")
        procs.append(subprocess.Popen([s("salt-master"), "-c", etc], stdout=log, stderr=log))
        time.sleep(3)
        minion = subprocess.Popen([s("salt-minion"), "-c", etc], stdout=log, stderr=log)
        procs.append(minion)
        wait_ping([s("salt"), "-c", etc, "--out", "json", "-t", "10", "saltbench", "test.ping"],
                  "saltbench", timeout=120)
        time.sleep(idle)
        return measure(tree(minion.pid))
    finally:
        stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default=os.path.join(here, "..", "target", "release"))
    ap.add_argument("--salt", default="/tmp/saltvenv/bin")
    ap.add_argument("--idle", type=float, default=5.0)
    a = ap.parse_args()
    row = "%-19s VmRSS %6.1f MB  VmHWM %6.1f MB  RssAnon %6.1f MB"
    b_rss, b_hwm, b_anon = brine(a.brine, a.idle)
    print(row % ("brine-minion idle:", b_rss, b_hwm, b_anon))
    if os.path.exists(os.path.join(a.salt, "salt-minion")):
        s_rss, s_hwm, s_anon = salt(a.salt, a.idle)
        print(row % ("salt-minion idle:", s_rss, s_hwm, s_anon))
        print("brine / salt:       %.0f%% of the resident memory" % (100.0 * b_rss / s_rss))
    else:
        print("(no salt-minion in %s: Salt not measured)" % a.salt)

if __name__ == "__main__":
    main()
