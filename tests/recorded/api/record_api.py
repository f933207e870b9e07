#!/usr/bin/env python3
"""Record what a real Salt 3007.8 salt-api (rest_cherrypy, no TLS) in front
of a real master and one minion answers over HTTP: logins good and bad,
calls with and without a token, within and outside the caller's
permissions, the lowstate clients, /minions, /jobs, /keys, logout.

usage: SALT_BIN=/tmp/saltvenv/bin /tmp/saltvenv/bin/python3 record_api.py OUTDIR

Writes OUTDIR/api.salt.json: `steps`, each {label, method, path, headers
(what was sent), body (what was sent), status, content_type, response
(parsed JSON, else text)}; tokens, jids and times in answers are written
@TOKEN@, @JID@ and @TIME@. Uses the fleet recorder's Fleet (same folder
layout, ports @PUB@/@RET@, processes stopped by PID)."""
import json, os, re, sys, time, urllib.parse, urllib.request, urllib.error

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fleet"))
from record_fleet import Fleet, free_port, log  # noqa: E402

EAUTH = {
    "auto": {
        "admin": [".*", "@runner", "@wheel", "@jobs"],
        "limited": ["test.*", {"web*": ["grains.item"]}],
    },
    "sharedsecret": {"ops": ["test.ping", "@jobs"]},
}


def main(out):
    api_port = free_port()
    fl = Fleet("api", out, {"web1": {"roles": ["web"]}}, master_extra={
        "external_auth": EAUTH,
        "sharedsecret": "s3cret",
        # Salt 3007 serves no client until they are named here.
        "netapi_enable_clients": ["local", "local_async", "runner", "runner_async",
                                  "wheel", "wheel_async"],
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
            return re.sub(r"\b20\d{18}\b", "@JID@", o)
        return o

    def mask_value(k, v):
        if k in ("token",) and isinstance(v, str):
            return "@TOKEN@"
        if k in ("start", "expire", "_stamp", "StartTime") and isinstance(v, (int, float, str)):
            return "@TIME@"
        return mask(v)

    def call(label, method, path, body=None, token=None, ctype="application/json",
             accept="application/json", form=False):
        headers = {"Accept": accept}
        data = None
        if body is not None:
            if form:
                data = urllib.parse.urlencode(body, doseq=True).encode()
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            else:
                data = json.dumps(body).encode()
                headers["Content-Type"] = ctype
        if token:
            headers["X-Auth-Token"] = tokens[token]
        req = urllib.request.Request(base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                status, rh, raw = r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            status, rh, raw = e.code, dict(e.headers), e.read()
        text = raw.decode("utf-8", "replace")
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
        shown = dict(headers)
        if "X-Auth-Token" in shown:
            shown["X-Auth-Token"] = "@TOKEN:%s@" % token
        step = {"label": label, "method": method, "path": path, "headers": shown,
                "body": body, "form": form, "status": status,
                "content_type": rh.get("Content-Type"), "response": mask(parsed)}
        steps.append(step)
        log(label, status)
        return parsed

    try:
        fl.start_master()
        fl.start_minion("web1")
        fl.accept_and_wait(["web1"])
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
        call("index without login", "GET", "/")
        call("lowstate before netapi check: no token", "GET", "/minions")
        r = call("login admin (auto)", "POST", "/login",
                 {"username": "admin", "password": "x", "eauth": "auto"})
        tokens["admin"] = r["return"][0]["token"]
        r = call("login limited (auto)", "POST", "/login",
                 {"username": "limited", "password": "x", "eauth": "auto"})
        tokens["limited"] = r["return"][0]["token"]
        call("login unknown user (auto)", "POST", "/login",
             {"username": "nobody", "password": "x", "eauth": "auto"})
        call("login sharedsecret wrong", "POST", "/login",
             {"username": "ops", "password": "wrong", "eauth": "sharedsecret"})
        r = call("login sharedsecret right (form)", "POST", "/login",
                 {"username": "ops", "password": "s3cret", "eauth": "sharedsecret"}, form=True)
        tokens["ops"] = r["return"][0]["token"]
        call("login bad eauth", "POST", "/login",
             {"username": "admin", "password": "x", "eauth": "nosuch"})
        call("lowstate without token", "POST", "/",
             [{"client": "local", "tgt": "*", "fun": "test.ping"}])
        call("lowstate local test.ping", "POST", "/",
             [{"client": "local", "tgt": "*", "fun": "test.ping"}], token="admin")
        call("lowstate local with args", "POST", "/",
             [{"client": "local", "tgt": "web1", "fun": "test.arg", "arg": ["a", 1],
               "kwarg": {"k": "v"}}], token="admin")
        call("lowstate two chunks", "POST", "/",
             [{"client": "local", "tgt": "web1", "fun": "test.echo", "arg": "hi"},
              {"client": "runner", "fun": "test.arg", "arg": ["r"]}], token="admin")
        call("lowstate local_async", "POST", "/",
             [{"client": "local_async", "tgt": "*", "fun": "test.ping"}], token="admin")
        call("lowstate wheel key.list_all", "POST", "/",
             [{"client": "wheel", "fun": "key.list_all"}], token="admin")
        call("lowstate runner manage.up", "POST", "/",
             [{"client": "runner", "fun": "manage.up"}], token="admin")
        call("limited: allowed test.ping", "POST", "/",
             [{"client": "local", "tgt": "*", "fun": "test.ping"}], token="limited")
        call("limited: forbidden cmd.run", "POST", "/",
             [{"client": "local", "tgt": "*", "fun": "cmd.run", "arg": ["id"]}], token="limited")
        call("limited: grains.item on web*", "POST", "/",
             [{"client": "local", "tgt": "web1", "fun": "grains.item", "arg": ["roles"]}],
             token="limited")
        call("limited: forbidden runner", "POST", "/",
             [{"client": "runner", "fun": "manage.up"}], token="limited")
        call("limited: forbidden wheel", "POST", "/",
             [{"client": "wheel", "fun": "key.list_all"}], token="limited")
        call("ops: jobs", "GET", "/jobs", token="ops")
        tokens["bogus"] = "0123456789abcdef0123456789abcdef01234567"
        call("bad token", "POST", "/",
             [{"client": "local", "tgt": "*", "fun": "test.ping"}], token="bogus")
        tokens["nothex"] = "not-a-hex-token"
        call("token not hex", "POST", "/",
             [{"client": "local", "tgt": "*", "fun": "test.ping"}], token="nothex")
        call("minions/web1", "GET", "/minions/web1", token="admin")
        r = call("minions POST (async)", "POST", "/minions",
                 [{"tgt": "web1", "fun": "test.echo", "arg": ["m"]}], token="admin")
        call("keys", "GET", "/keys", token="admin")
        call("keys/web1", "GET", "/keys/web1", token="admin")
        time.sleep(3)
        jid = None
        try:
            jid = r["return"][0]["jid"]
        except (KeyError, IndexError, TypeError):
            pass
        if jid:
            call("jobs/<jid>", "GET", "/jobs/" + jid, token="admin")
        call("yaml accept", "POST", "/",
             [{"client": "local", "tgt": "*", "fun": "test.ping"}], token="admin",
             accept="application/x-yaml")
        call("run with credentials", "POST", "/run",
             [{"client": "local", "tgt": "*", "fun": "test.ping", "username": "admin",
               "password": "x", "eauth": "auto"}])
        call("run with bad credentials", "POST", "/run",
             [{"client": "local", "tgt": "*", "fun": "test.ping", "username": "ops",
               "password": "nope", "eauth": "sharedsecret"}])
        call("not a list", "POST", "/", {"client": "local", "tgt": "*", "fun": "test.ping"},
             token="admin")
        call("unknown client", "POST", "/", [{"client": "nosuch", "fun": "test.ping"}],
             token="admin")
        # The event stream (SSE) while a hook is posted and a job runs.
        import threading
        sse_lines = []
        def listen():
            req = urllib.request.Request(base + "/events?token=" + tokens["admin"])
            try:
                with urllib.request.urlopen(req, timeout=8) as r:
                    steps.append({"label": "events stream headers", "status": r.status,
                                  "content_type": r.headers.get("Content-Type"),
                                  "cache_control": r.headers.get("Cache-Control")})
                    while True:
                        line = r.readline()
                        if not line:
                            break
                        sse_lines.append(line.decode("utf-8", "replace"))
            except Exception as e:  # the read times out: the end of the recording
                sse_lines.append("#end: %s" % type(e).__name__)
        t = threading.Thread(target=listen)
        t.start()
        time.sleep(2)
        call("events without token", "GET", "/events")
        call("hook without token", "POST", "/hook/mycompany/build/success",
             {"revision": "aa22", "result": True})
        hook_headers = {"Accept": "application/json", "Content-Type": "application/json",
                        "X-Auth-Token": tokens["admin"], "X-My-Secret-Key": "F0fAgo"}
        req = urllib.request.Request(base + "/hook/mycompany/build/success",
                                     data=json.dumps({"revision": "aa22", "result": True}).encode(),
                                     headers=hook_headers, method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            steps.append({"label": "hook", "status": r.status,
                          "content_type": r.headers.get("Content-Type"),
                          "response": json.loads(r.read())})
        call("lowstate local during events", "POST", "/",
             [{"client": "local", "tgt": "web1", "fun": "test.echo", "arg": ["sse"]}],
             token="admin")
        t.join(20)
        steps.append({"label": "events stream", "lines": [mask(l) for l in sse_lines]})
        call("logout", "POST", "/logout", token="admin")
        call("after logout", "POST", "/",
             [{"client": "local", "tgt": "*", "fun": "test.ping"}], token="admin")
    finally:
        fl.close()
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "api.salt.json"), "w") as f:
        json.dump({"eauth": EAUTH, "steps": fl.normobj(steps)}, f, indent=1, sort_keys=True)
    log("wrote", os.path.join(out, "api.salt.json"))


if __name__ == "__main__":
    main(sys.argv[1])
