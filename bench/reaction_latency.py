#!/usr/bin/env python3
"""How soon the reactor acts: a master (with a reactor map) and one minion
on 127.0.0.1; `brine-run event.send react/N` N times; a `state.event`
listener records every event with the master's `_stamp`. Latency = the
`_stamp` of the job the reaction published (`salt/job/<jid>/new`) minus the
`_stamp` of the event that started it — both stamped by the master's bus.

usage: python3 bench/reaction_latency.py [--brine target/release] [--events 20]
"""
import argparse, datetime, json, os, shutil, socket, subprocess, sys, tempfile, time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def stamp(s):
    return datetime.datetime.fromisoformat(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--brine", default=os.path.join(os.path.dirname(__file__), "..", "target", "release"))
    ap.add_argument("--events", type=int, default=20)
    a = ap.parse_args()
    b = lambda n: os.path.join(os.path.abspath(a.brine), n)
    tmp = tempfile.mkdtemp(prefix="brine-react-")
    etc = os.path.join(tmp, "etc")
    os.makedirs(etc)
    pub, ret = free_port(), free_port()
    with open(os.path.join(tmp, "react.sls"), "w") as f:
        f.write("ping:\n  local.test.ping:\n    - tgt: lat1\n")
    with open(os.path.join(etc, "master"), "w") as f:
        f.write("interface: 127.0.0.1\npublish_port: %d\nret_port: %d\nroot_dir: %s\n"
                "auto_accept: True\nlog_level: warning\nreactor:\n- react/*:\n  - %s\n"
                % (pub, ret, os.path.join(tmp, "m"), os.path.join(tmp, "react.sls")))
    with open(os.path.join(etc, "minion"), "w") as f:
        f.write("id: lat1\nmaster: 127.0.0.1\npublish_port: %d\nmaster_port: %d\nroot_dir: %s\n"
                "acceptance_wait_time: 1\nlog_level: warning\n" % (pub, ret, os.path.join(tmp, "n")))
    log = open(os.path.join(tmp, "log"), "w")
    procs = [subprocess.Popen([b("brine-master"), "-c", etc], stderr=log, stdout=log)]
    try:
        time.sleep(1)
        procs.append(subprocess.Popen([b("brine-minion"), "-c", etc], stderr=log, stdout=log))
        deadline = time.time() + 60
        while time.time() < deadline:
            p = subprocess.run([b("brine"), "-c", etc, "--out", "json", "lat1", "test.ping"],
                               capture_output=True, text=True)
            if '"lat1": true' in p.stdout:
                break
            time.sleep(0.5)
        else:
            sys.exit("the minion never answered")
        seen_path = os.path.join(tmp, "events.txt")
        seen = open(seen_path, "w")
        listener = subprocess.Popen([b("brine-run"), "-c", etc, "state.event"], stdout=seen)
        time.sleep(1)
        for i in range(a.events):
            subprocess.run([b("brine-run"), "-c", etc, "event.send", "react/%d" % i, "{}"],
                           capture_output=True)
            time.sleep(0.3)
        time.sleep(2)
        listener.terminate()
        listener.wait()
        seen.close()
        events = []
        for line in open(seen_path):
            tag, _, data = line.rstrip("\n").partition("\t")
            try:
                events.append((tag, json.loads(data)))
            except ValueError:
                pass
        lat = []
        for i, (tag, data) in enumerate(events):
            if not tag.startswith("react/"):
                continue
            t0 = stamp(data["_stamp"])
            for tag2, data2 in events[i + 1:]:
                if tag2.startswith("salt/job/") and tag2.endswith("/new"):
                    lat.append((stamp(data2["_stamp"]) - t0).total_seconds() * 1000)
                    break
        lat.sort()
        if not lat:
            sys.exit("no reaction seen")
        print("%d reactions of %d events: latency min %.1f ms, median %.1f ms, max %.1f ms"
              % (len(lat), a.events, lat[0], lat[len(lat) // 2], lat[-1]))
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
