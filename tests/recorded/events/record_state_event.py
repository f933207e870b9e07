"""Record how `salt-run state.event` prints (count, pretty, a glob and a regex
TAGMATCH, quiet) while `salt-run event.send` fires events on a real Salt 3007.8
master (no minion), and what `event.send` answers.

usage: SALT_BIN=/tmp/saltvenv/bin /tmp/saltvenv/bin/python3 record_state_event.py OUT.json
"""
import json, os, subprocess, sys, tempfile, time
sys.path.insert(0, "/work/shared/conformance/cli")
from saltpair import SaltPair
work = tempfile.mkdtemp(prefix="sev-")
pair = SaltPair(work, "web1", start=False)
pair.start_master()
time.sleep(6)
out = {}
for name, args in [("count1", ["count=1"]), ("pretty_count2", ["pretty=True", "count=2"]), ("match", ["my/*", "count=1"]), ("quiet", ["quiet=True", "count=1"]), ("regex", ["my/[a-z]+/two", "count=1"])]:
    lst = subprocess.Popen([pair.b("salt-run"), "-c", pair.conf, "state.event"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    for tag, data in [("other/tag", {"x": 1}), ("my/tag/one", {"b": 2, "a": [1, "é"]}), ("my/tag/two", {"c": None})]:
        subprocess.run([pair.b("salt-run"), "-c", pair.conf, "event.send", tag, json.dumps(data)], capture_output=True, text=True)
    try:
        so, se = lst.communicate(timeout=20)
        out[name] = {"args": args, "stdout": so, "stderr": se[-500:], "code": lst.returncode}
    except subprocess.TimeoutExpired:
        lst.kill(); so, se = lst.communicate()
        out[name] = {"args": args, "stdout": so, "stderr": se[-500:], "code": None}
# event.send runner's own output
p = subprocess.run([pair.b("salt-run"), "-c", pair.conf, "event.send", "x/y", '{"k": 1}'], capture_output=True, text=True)
out["event_send_runner"] = {"stdout": p.stdout, "code": p.returncode}
json.dump(out, open(sys.argv[1], "w"), indent=1, ensure_ascii=False)
pair.close()
