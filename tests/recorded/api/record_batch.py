#!/usr/bin/env python3
"""Record what a real Salt 3007.8 salt-api (rest_cherrypy, no TLS) answers
for the `local_batch` netapi client (LocalClient.cmd_batch behind
salt.cli.batch.Batch), in front of a real master and minions web1, web2
and db1 (db1 stopped for the last steps: a down minion).

usage: SALT_BIN=/tmp/saltvenv/bin /tmp/saltvenv/bin/python3 record_batch.py OUTDIR

Writes OUTDIR/batch.salt.json in api.salt.json's step format: `steps`, each
{label, method, path, headers (sent), body (sent), status, content_type,
response (parsed JSON, else text), seconds}; tokens, jids and times in
answers are written @TOKEN@, @JID@ and @TIME@.  `runner jobs.list_jobs`
answers are keyed by jid, so they are written as a list of the job
entries in jid order (jid masked) instead of a mapping.  Uses the fleet
recorder's Fleet (processes stopped by PID, the temporary folder removed)."""
import json, os, re, sys, time, urllib.error, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fleet"))
from record_fleet import Fleet, WEB_DB, free_port, log  # noqa: E402

EAUTH = {
    "auto": {
        "admin": [".*", "@runner", "@wheel", "@jobs"],
        "limited": ["test.*"],
    },
}
CLIENTS = ["local", "local_async", "local_batch", "runner", "runner_async",
           "wheel", "wheel_async"]


def main(out):
    api_port = free_port()
    fl = Fleet("batch", out, WEB_DB, master_extra={
        "external_auth": EAUTH,
        "netapi_enable_clients": CLIENTS,
        "rest_cherrypy": {"port": api_port, "host": "127.0.0.1", "disable_ssl": True},
    })
    steps = []
    base = "http://127.0.0.1:%d" % api_port
    tokens = {}

    def mask(o):
        if isinstance(o, dict):
            return {mask(k): mask_value(k, v) for k, v in o.items()}
        if isinstance(o, list):
            return [mask(v) for v in o]
        if isinstance(o, str):
            for t in tokens.values():
                o = o.replace(t, "@TOKEN@")
            o = re.sub(r"\d{4}, [A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d\.\d+", "@TIME@", o)
            return re.sub(r"\b20\d{18}\b", "@JID@", o)
        return o

    def mask_value(k, v):
        if k in ("token",) and isinstance(v, str):
            return "@TOKEN@"
        if k in ("start", "expire", "_stamp", "StartTime") and isinstance(v, (int, float, str)):
            return "@TIME@"
        return mask(v)

    def jobs_list(parsed):
        # {"return": [{jid: entry, ...}]} -> {"return": [[entry+{"jid"}, ...]]}
        try:
            jobs = parsed["return"][0]
            return {"return": [[dict(jobs[j], jid=j) for j in sorted(jobs)]],
                    "@note@": "jid-keyed mapping written as a list in jid order"}
        except (KeyError, IndexError, TypeError):
            return parsed

    def call(label, method, path, body=None, token=None, accept="application/json",
             transform=None):
        headers = {"Accept": accept}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["X-Auth-Token"] = tokens[token]
        req = urllib.request.Request(base + path, data=data, headers=headers, method=method)
        t0 = time.time()
        try:
            with urllib.request.urlopen(req, timeout=180) as r:
                status, rh, raw = r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            status, rh, raw = e.code, dict(e.headers), e.read()
        secs = round(time.time() - t0, 2)
        text = raw.decode("utf-8", "replace")
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
        if transform:
            parsed = transform(parsed)
        shown = dict(headers)
        if "X-Auth-Token" in shown:
            shown["X-Auth-Token"] = "@TOKEN:%s@" % token
        steps.append({"label": label, "method": method, "path": path, "headers": shown,
                      "body": body, "form": False, "status": status,
                      "content_type": rh.get("Content-Type"), "response": mask(parsed),
                      "seconds": secs})
        log(label, status, "%.1fs" % secs, text[:160].replace("\n", " "))
        return parsed

    def batch(label, low, token="admin", **kw):
        low = dict({"client": "local_batch"}, **low)
        return call(label, "POST", "/", [low], token=token, **kw)

    try:
        fl.start_master()
        for mid in WEB_DB:
            fl.start_minion(mid)
        fl.accept_and_wait(list(WEB_DB))
        fl.spawn("salt-api", [fl.b("salt-api"), "-c", fl.conf])
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                urllib.request.urlopen(base + "/", timeout=2)
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                time.sleep(0.5)
        for user in ("admin", "limited"):
            r = call("login %s (auto)" % user, "POST", "/login",
                     {"username": user, "password": "x", "eauth": "auto"})
            tokens[user] = r["return"][0]["token"]

        # 1. all three up
        batch("batch '1' test.ping *", {"tgt": "*", "fun": "test.ping", "batch": "1"})
        batch("batch '1' test.ping * (again: order)", {"tgt": "*", "fun": "test.ping",
                                                      "batch": "1"})
        batch("batch '50%' test.ping *", {"tgt": "*", "fun": "test.ping", "batch": "50%"})
        batch("batch 2 (integer) test.ping *", {"tgt": "*", "fun": "test.ping", "batch": 2})
        # 2. arg and kwarg
        batch("batch '1' test.arg web* arg+kwarg",
              {"tgt": "web*", "fun": "test.arg", "arg": ["a"], "kwarg": {"k": "v"},
               "batch": "1"})
        # 3. no batch (cmd_batch's default batch='10%')
        batch("no batch key", {"tgt": "*", "fun": "test.ping"})
        batch("batch 'x' (not a number)", {"tgt": "*", "fun": "test.ping", "batch": "x"})
        # 4. batch_wait, full_return, raw
        batch("batch '1' batch_wait 1", {"tgt": "web*", "fun": "test.ping", "batch": "1",
                                         "batch_wait": 1})
        batch("batch '1' full_return true", {"tgt": "web*", "fun": "test.ping", "batch": "1",
                                             "full_return": True})
        batch("batch '1' raw true", {"tgt": "web1", "fun": "test.ping", "batch": "1",
                                     "raw": True})
        batch("batch '1' test.retcode 3 (non-zero retcode)",
              {"tgt": "web1", "fun": "test.retcode", "arg": [3], "batch": "1"})
        # 5. eauth
        batch("limited: batch cmd.run (refused)",
              {"tgt": "*", "fun": "cmd.run", "arg": ["id"], "batch": "1"}, token="limited")
        batch("limited: batch test.ping (allowed)",
              {"tgt": "web1", "fun": "test.ping", "batch": "1"}, token="limited")
        # 6. no match
        batch("batch '1' tgt matching no minion",
              {"tgt": "nosuch*", "fun": "test.ping", "batch": "1"})
        batch("batch '1' list tgt with an unknown id",
              {"tgt": "web1,ghost", "tgt_type": "list", "fun": "test.ping", "batch": "1"})
        # 7. YAML
        batch("batch '1' test.ping * (Accept: application/x-yaml)",
              {"tgt": "*", "fun": "test.ping", "batch": "1"}, accept="application/x-yaml")
        # two chunks in one request
        call("two chunks: local_batch then local", "POST", "/",
             [{"client": "local_batch", "tgt": "web*", "fun": "test.ping", "batch": "1"},
              {"client": "local", "tgt": "web*", "fun": "test.ping"}], token="admin")
        call("runner jobs.list_jobs (all up)", "POST", "/",
             [{"client": "runner", "fun": "jobs.list_jobs"}], token="admin",
             transform=jobs_list)

        # down minion
        fl.stop("minion-db1")
        steps.append({"label": "note", "note": "minion db1 stopped (key still accepted)"})
        log("db1 stopped")
        batch("db1 down: batch '1' test.ping *", {"tgt": "*", "fun": "test.ping",
                                                   "batch": "1"})
        batch("db1 down: batch '1' test.ping db1", {"tgt": "db1", "fun": "test.ping",
                                                     "batch": "1"})
        call("runner jobs.list_jobs (end)", "POST", "/",
             [{"client": "runner", "fun": "jobs.list_jobs"}], token="admin",
             transform=jobs_list)
    finally:
        fl.close()
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "batch.salt.json"), "w") as f:
            json.dump({"eauth": EAUTH, "netapi_enable_clients": CLIENTS,
                       "salt_version": "3007.8", "minions": list(WEB_DB),
                       "steps": fl.normobj(steps)}, f, indent=1, sort_keys=True)
        log("wrote", os.path.join(out, "batch.salt.json"))
        fl.cleanup()


if __name__ == "__main__":
    main(sys.argv[1])
