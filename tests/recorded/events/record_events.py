#!/usr/bin/env python3
"""Record the event bus of a real Salt 3007.8 pair: what `salt-run
state.event` prints while a minion authenticates, its key is accepted,
jobs run and return, the minion fires events, a runner runs and the key
is deleted; and how `state.event` prints with `pretty=True` and `count=`.

usage: SALT_BIN=/tmp/saltvenv/bin /tmp/saltvenv/bin/python3 record_events.py OUT

Writes OUT/events.salt.json: `steps` (argv, stdout, stderr, exit code of
each command, in order) and `events` (each line the listener printed:
tag and data), plus `pretty` and `count` (the listener's own output for
those forms). Uses ../shared/conformance/cli (saltpair.py): master and
minion on 127.0.0.1 free ports under a temporary folder."""
import json, os, subprocess, sys, tempfile, time

CLI = "/work/shared/conformance/cli"
sys.path.insert(0, CLI)
from saltpair import SaltPair  # noqa: E402

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
work = tempfile.mkdtemp(prefix="recevents-")
pair = SaltPair(
    work, "web1",
    grains={"roles": ["web"]},
    master_extra={"presence_events": True, "loop_interval": 2, "timeout": 5},
    minion_extra={"mine_functions": {"test.ping": [], "grains.item": ["roles"]},
                  "mine_interval": 60},
    start=False,
)
steps = []


def run(*argv, timeout=120):
    t0 = time.time()
    p = subprocess.run([pair.b(argv[0]), "-c", pair.conf] + list(argv[1:]),
                       capture_output=True, text=True, timeout=timeout)
    steps.append({"argv": list(argv), "stdout": p.stdout, "stderr": p.stderr,
                  "code": p.returncode, "seconds": round(time.time() - t0, 2)})
    return p


listeners = []
try:
    pair.start_master()
    out = open(os.path.join(work, "events.txt"), "w")
    lst = subprocess.Popen([pair.b("salt-run"), "-c", pair.conf, "state.event", "pretty=False"],
                           stdout=out, stderr=subprocess.DEVNULL, start_new_session=True)
    listeners.append(lst)
    time.sleep(5)
    pair.start_minion()
    time.sleep(8)                      # pending auths
    run("salt-key", "-L")
    run("salt-key", "-a", "web1", "-y")
    deadline = time.time() + 90
    while time.time() < deadline:
        p = subprocess.run([pair.b("salt"), "-c", pair.conf, "--out", "json", "-t", "5",
                            "web1", "test.ping"], capture_output=True, text=True)
        try:
            if json.loads(p.stdout).get("web1") is True:
                break
        except Exception:
            pass
        time.sleep(1)
    time.sleep(3)
    run("salt", "web1", "test.ping")
    run("salt", "--out", "json", "web1", "test.arg", "1", "a=b")
    run("salt", "web1", "cmd.run", "exit 3", "python_shell=True")
    run("salt", "web1", "event.send", "my/custom/tag", '{"a": 1}')
    run("salt", "web1", "event.send", "my/other/tag", '{"b": 2}', "with_grains=True")
    run("salt", "web1", "event.fire_master", '{"c": 3}', "my/fired/tag")
    run("salt", "--out", "json", "web1", "mine.update")
    run("salt", "--out", "json", "web1", "mine.get", "*", "test.ping")
    run("salt", "--out", "json", "web1", "mine.get", "*", "grains.item")
    run("salt-run", "test.arg", "x", "y=z")
    time.sleep(6)                      # a presence round
    run("salt-key", "-d", "web1", "-y")
    time.sleep(3)
    # state.event's own forms: pretty, and count ending the runner.
    pretty_out = os.path.join(work, "pretty.txt")
    count_out = os.path.join(work, "count.txt")
    pl = subprocess.Popen([pair.b("salt-run"), "-c", pair.conf, "state.event", "my/*",
                           "pretty=True"], stdout=open(pretty_out, "w"),
                          stderr=subprocess.DEVNULL, start_new_session=True)
    cl = subprocess.Popen([pair.b("salt-run"), "-c", pair.conf, "state.event", "my/*",
                           "count=1"], stdout=open(count_out, "w"),
                          stderr=subprocess.STDOUT, start_new_session=True)
    listeners += [pl]
    time.sleep(5)
    run("salt-key", "-a", "web1", "-y")
    time.sleep(8)
    run("salt", "web1", "event.send", "my/last/tag", '{"n": [1, 2], "s": "x"}')
    try:
        count_code = cl.wait(30)
    except subprocess.TimeoutExpired:
        cl.kill()
        count_code = None
    time.sleep(2)
finally:
    for l in listeners:
        l.terminate()
        try:
            l.wait(10)
        except subprocess.TimeoutExpired:
            l.kill()
    pair.close()

events = []
with open(os.path.join(work, "events.txt")) as f:
    for line in f:
        tag, _, data = line.rstrip("\n").partition("\t")
        try:
            data = json.loads(data)
        except ValueError:
            pass
        events.append({"tag": tag, "data": data, "line": line.rstrip("\n")})
result = {
    "steps": steps,
    "events": events,
    "pretty": open(pretty_out).read(),
    "count": {"stdout": open(count_out).read(), "code": count_code},
}
with open(os.path.join(OUT, "events.salt.json"), "w") as f:
    json.dump(result, f, indent=1)
print("events:", len(events), "steps:", len(steps), "work:", work)
