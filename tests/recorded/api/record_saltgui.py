#!/usr/bin/env python3
"""Record what a real Salt 3007.8 salt-api (rest_cherrypy, no TLS, serving
the SaltGUI app: `app`, `static`, `static_path`) answers to the requests
SaltGUI (github.com/erwindon/SaltGUI) makes, sent the way SaltGUI's
`API.apiRequest` sends them: `window.fetch` with a JSON *string* body (so
the browser's `Content-Type: text/plain;charset=UTF-8`), one lowstate
*mapping* (not a list), headers `Accept`, `Cache-Control: no-cache` and
`X-Auth-Token` (empty before login). Independent of record_api.py.

usage: SALT_BIN=/tmp/saltvenv/bin SALTGUI=/tmp/saltgui/saltgui \
       /tmp/saltvenv/bin/python3 record_saltgui.py OUTDIR

Writes OUTDIR/saltgui.salt.json: `steps`, each {label, method, path,
headers (sent), body (sent), status, content_type, set_cookie, response
(parsed JSON, else text; static files: their length and first bytes)};
tokens, session ids, jids, times, cookie dates and the API port are
written @TOKEN@, @SESSION@, @JID@, @TIME@, @DATE@ and @API@. Uses the
fleet recorder's Fleet (processes stopped by PID)."""
import json, os, re, sys, threading, time, urllib.error, urllib.parse, urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fleet"))
from record_fleet import Fleet, free_port, log  # noqa: E402

SALTGUI = os.environ.get("SALTGUI", "/tmp/saltgui/saltgui")
EAUTH = {"auto": {"admin": [".*", "@runner", "@wheel", "@jobs"]}}
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def main(out):
    api_port = free_port()
    fl = Fleet("saltgui", out, {"web1": {"roles": ["web"]}}, master_extra={
        "external_auth": EAUTH,
        "netapi_enable_clients": ["local", "local_async", "runner", "runner_async",
                                  "wheel", "wheel_async"],
        "nodegroups": {"webs": "L@web1"},
        "saltgui_templates": {"ping": {"command": "test.ping", "target": "*"}},
        "rest_cherrypy": {"port": api_port, "host": "127.0.0.1", "disable_ssl": True,
                          "app": os.path.join(SALTGUI, "index.html"),
                          "static": os.path.join(SALTGUI, "static"),
                          "static_path": "/static"},
    })
    steps = []
    base = "http://127.0.0.1:%d" % api_port
    secrets = {}  # value -> placeholder

    def mask(o):
        if isinstance(o, dict):
            return {mask(k): mask_value(k, v) for k, v in o.items()}
        if isinstance(o, list):
            return [mask(v) for v in o]
        if isinstance(o, str):
            for v, ph in secrets.items():
                o = o.replace(v, ph)
            o = re.sub(r"session_id=[0-9a-f]{40}\b", "session_id=@SESSION@", o)
            o = re.sub(r"expires=[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} [\d:]{8} GMT",
                       "expires=@DATE@", o)
            o = re.sub(r"(?<!\d)%d(?!\d)" % api_port, "@API@", o)
            return re.sub(r"\b20\d{18}\b", "@JID@", o)
        if isinstance(o, int) and not isinstance(o, bool) and o == api_port:
            return "@API@"
        return o

    def mask_value(k, v):
        if k == "token" and isinstance(v, str):
            return "@TOKEN@"
        if k in ("start", "expire", "_stamp", "StartTime") and isinstance(v, (int, float, str)):
            return "@TIME@"
        return mask(v)

    state = {"token": ""}

    def request(method, path, body=None, accept="application/json", token=True,
                extra=None):
        headers = {"Accept": accept, "Cache-Control": "no-cache"}
        if token:
            headers["X-Auth-Token"] = state["token"]
        data = None
        if method == "POST":
            data = json.dumps(body).encode()
            headers["Content-Type"] = "text/plain;charset=UTF-8"
        headers.update(extra or {})
        req = urllib.request.Request(base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return headers, r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return headers, e.code, e.headers, e.read()

    def shown_headers(headers):
        h = dict(headers)
        if h.get("X-Auth-Token"):
            h["X-Auth-Token"] = "@TOKEN@"
        if "Cookie" in h:
            h["Cookie"] = "session_id=@SESSION@"
        return h

    def call(label, method, path, body=None, keys_only=False, **kw):
        headers, status, rh, raw = request(method, path, body, **kw)
        text = raw.decode("utf-8", "replace")
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
        if keys_only and isinstance(parsed, dict):
            # machine-specific values (thread names, addresses): the shape only
            parsed = {"@keys@": sorted(re.sub(r"\d+", "N", k) for k in parsed)}
        step = {"label": label, "method": method, "path": path,
                "headers": shown_headers(headers), "body": body, "status": status,
                "content_type": rh.get("Content-Type"),
                "set_cookie": mask(rh.get("Set-Cookie")), "response": mask(parsed)}
        steps.append(step)
        log(label, status)
        return parsed, rh

    def static(label, path, accept=BROWSER_ACCEPT):
        headers, status, rh, raw = request("GET", path, accept=accept, token=False)
        steps.append({"label": label, "method": "GET", "path": path,
                      "headers": shown_headers(headers), "status": status,
                      "content_type": rh.get("Content-Type"),
                      "length": len(raw), "head": raw[:80].decode("utf-8", "replace")})
        log(label, status)

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

        # The app and its static files (a browser's navigation and loads).
        static("app: GET / as a browser", "/")
        static("app: GET /?reason=no-session&page= as a browser", "/?reason=no-session&page=")
        static("app: GET /app", "/app")
        static("app: GET /app/some/path", "/app/some/path")
        static("app: GET /login as a browser", "/login")
        static("static: index.js", "/static/scripts/index.js", accept="*/*")
        static("static: Api.js", "/static/scripts/Api.js", accept="*/*")
        static("static: main.css", "/static/stylesheets/main.css", accept="text/css,*/*;q=0.1")
        static("static: icon.png", "/static/images/icon.png", accept="image/*")
        static("static: missing salt-auth.txt", "/static/salt-auth.txt", accept="text/plain")
        static("static: missing salt-motd.html", "/static/salt-motd.html", accept="text/html")
        static("static: missing minions.txt", "/static/minions.txt", accept="text/plain")
        call("GET / as fetch (json) without login", "GET", "/")

        # Login as LoginPanel does it.
        r, rh = call("login (saltgui)", "POST", "/login",
                     {"eauth": "auto", "password": "x", "username": "admin"})
        state["token"] = r["return"][0]["token"]
        secrets[state["token"]] = "@TOKEN@"
        cookie = rh.get("Set-Cookie") or ""
        m = re.search(r"session_id=([^;]+)", cookie)
        session_id = m.group(1) if m else None
        if session_id and session_id != state["token"]:
            secrets[session_id] = "@SESSION@"
        steps.append({"label": "login cookie vs token",
                      "session_cookie_is_token": session_id == state["token"],
                      "set_cookie": mask(cookie)})
        # Re-mask the login step now that the token is known.
        steps[-2]["set_cookie"] = mask(steps[-2]["set_cookie"])

        # What LoginPanel._onLoginSuccess asks.
        call("wheel config.values", "POST", "/", {"client": "wheel", "fun": "config.values"})
        call("runner state.orchestrate_show_sls", "POST", "/",
             {"arg": ["*"], "client": "runner", "fun": "state.orchestrate_show_sls"})
        call("wheel key.list_all (mapping body)", "POST", "/",
             {"client": "wheel", "fun": "key.list_all"})
        call("local beacons.list_available", "POST", "/",
             {"client": "local", "fun": "beacons.list_available",
              "kwarg": {"return_yaml": False}, "tgt_type": "glob", "tgt": "*"})

        # The minions page (MinionsPanel + JobsSummaryPanel).
        call("wheel minions.connected", "POST", "/", {"client": "wheel", "fun": "minions.connected"})
        call("local grains.items", "POST", "/",
             {"client": "local", "fun": "grains.items", "tgt_type": "glob", "tgt": "*"})
        call("runner manage.versions", "POST", "/", {"client": "runner", "fun": "manage.versions"})
        call("runner jobs.list_jobs", "POST", "/", {"client": "runner", "fun": "jobs.list_jobs"})
        call("runner jobs.active", "POST", "/", {"client": "runner", "fun": "jobs.active"})

        # The command box: test.providers when it opens, then test.ping.
        call("local test.providers", "POST", "/",
             {"client": "local", "fun": "test.providers", "tgt": "*", "tgt_type": "glob"})
        call("local test.ping (command box, normal)", "POST", "/",
             {"client": "local", "fun": "test.ping", "tgt": "*", "full_return": False,
              "tgt_type": "glob"})
        call("local test.ping full_return", "POST", "/",
             {"client": "local", "fun": "test.ping", "tgt": "*", "full_return": True,
              "tgt_type": "glob"})
        call("local test.arg with arg and kwarg (command box)", "POST", "/",
             {"client": "local", "fun": "test.arg", "tgt": "web1", "full_return": False,
              "tgt_type": "glob", "arg": ["a", 1], "kwarg": {"k": "v"}})

        # Async from the command box, with the event stream SaltGUI opens
        # (EventSource: no token, the session cookie only).
        sse = []
        def listen():
            hdrs = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
            if session_id:
                hdrs["Cookie"] = "session_id=" + session_id
            req = urllib.request.Request(base + "/events", headers=hdrs)
            try:
                with urllib.request.urlopen(req, timeout=8) as r:
                    steps.append({"label": "events (cookie only) headers", "status": r.status,
                                  "content_type": r.headers.get("Content-Type")})
                    while True:
                        line = r.readline()
                        if not line:
                            break
                        sse.append(line.decode("utf-8", "replace"))
            except urllib.error.HTTPError as e:
                steps.append({"label": "events (cookie only) headers", "status": e.code,
                              "content_type": e.headers.get("Content-Type")})
            except Exception as e:  # the read times out: the end of the recording
                sse.append("#end: %s" % type(e).__name__)
        t = threading.Thread(target=listen)
        t.start()
        time.sleep(2)
        r, _ = call("local_async test.ping (command box, async)", "POST", "/",
                    {"client": "local_async", "fun": "test.ping", "tgt": "*",
                     "full_return": False, "tgt_type": "glob"})
        t.join(20)
        steps.append({"label": "events (cookie only) stream",
                      "lines": [mask(l) for l in sse if "salt/job/" in l or l.startswith("#")
                                or l.startswith("retry")]})
        jid = None
        try:
            jid = r["return"][0]["jid"]
        except (KeyError, IndexError, TypeError):
            pass
        time.sleep(2)

        # The job page.
        if jid:
            call("runner jobs.list_job (top-level jid)", "POST", "/",
                 {"client": "runner", "fun": "jobs.list_job", "jid": jid})
            call("runner jobs.list_job (kwarg jid)", "POST", "/",
                 {"client": "runner", "fun": "jobs.list_job", "kwarg": {"jid": jid}})
        call("runner jobs.list_job unknown jid", "POST", "/",
             {"client": "runner", "fun": "jobs.list_job", "jid": "20000101000000000000"})
        call("runner jobs.active (job page)", "POST", "/", {"client": "runner", "fun": "jobs.active"})

        # Other pages and command-box forms.
        call("runner jobs.list_jobs search_function", "POST", "/",
             {"client": "runner", "fun": "jobs.list_jobs", "search_function": "test.ping"})
        call("runner test.arg (command box: runners.test.arg a k=v)", "POST", "/",
             {"k": "v", "client": "runner", "full_return": False, "fun": "test.arg",
              "arg": ["a"]})
        call("runner test.arg full_return", "POST", "/",
             {"client": "runner", "full_return": True, "fun": "test.arg", "arg": ["a"]})
        call("wheel key.finger match *", "POST", "/",
             {"client": "wheel", "fun": "key.finger", "match": "*"})
        call("wheel key.list_all with match (command box: wheel.key.list_all)", "POST", "/",
             {"client": "wheel", "fun": "key.list_all", "match": "*"})
        call("runner cache.grains", "POST", "/", {"client": "runner", "fun": "cache.grains", "tgt": "*"})
        call("local test.version nodegroup full_return", "POST", "/",
             {"client": "local", "full_return": True, "fun": "test.version",
              "tgt": "N@webs", "tgt_type": "compound"})
        call("local schedule.list", "POST", "/",
             {"client": "local", "fun": "schedule.list", "kwarg": {"return_yaml": False},
              "tgt_type": "glob", "tgt": "*"})
        call("local pillar.items", "POST", "/",
             {"client": "local", "fun": "pillar.items", "tgt_type": "glob", "tgt": "*"})
        call("stats (shape only)", "GET", "/stats", keys_only=True)
        call("logout (saltgui)", "POST", "/logout", {})
        call("after logout", "POST", "/",
             {"client": "local", "fun": "test.ping", "tgt": "*", "tgt_type": "glob"})
    finally:
        fl.close()
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "saltgui.salt.json"), "w") as f:
        json.dump({"eauth": EAUTH, "saltgui": "erwindon/SaltGUI (saltgui/ folder)",
                   "steps": fl.normobj(steps)}, f, indent=1, sort_keys=True)
    log("wrote", os.path.join(out, "saltgui.salt.json"))


if __name__ == "__main__":
    main(sys.argv[1])
