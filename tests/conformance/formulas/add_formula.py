#!/usr/bin/env python3
"""Add a public formula to the conformance suite in one command.

usage: add_formula.py REPO [--formula NAME] [--name CASE] [--pillar FILE] [--rev REV]
                      [--no-apply] --salt-venv DIR [--daemon] [--brine-bin DIR]
                      [--work DIR] [--runner PATH]
       add_formula.py --add-command CMD CASE_DIR... --salt-venv DIR [--daemon]
                      [--brine-bin DIR] [--work DIR] [--runner PATH] [--answer FILE]
       add_formula.py --check --brine-bin DIR [-v] CASE_DIR...

REPO is the formula's git repository: a directory (a bare mirror, a .git,
or a work tree) or a URL (`owner/name` means https://github.com/owner/name),
which is cloned (`git clone --mirror`) under --work first. Then:

 1. make_case.py: the formula folder and pillar.example at REV (default
    HEAD) become a case under --work (default /tmp/brine-formulas), with
    pillar.items, state.show_sls FORMULA, state.show_lowstate,
    state.show_sls FORMULA._mapdata where the formula has it, and
    state.apply test=True (not with --no-apply);
 2. Salt 3007.8 answers every command: the shared runner's
    `run_formulas.py --record --salt-venv DIR` (--runner, default
    ../shared/conformance/formulas/run_formulas.py beside the repository);
 3. what Salt answered is printed: exit code, error or not, and for
    state.apply how many states succeed, would change, fail, and why
    (state functions Salt lacks, exceptions);
 4. masks for host-dependent words are added where the answers have them
    (see MASKS below), each with a comment in case.yaml saying why;
 5. import_case.py copies it to tests/conformance/cases/formula-CASE (CASE:
    the formula's name unless --name);
 6. with --daemon, tests/conformance/record_daemon.py records what a real
    salt-master + salt-minion pair answers (expected-daemon/), as every
    formula case has;
 7. with --brine-bin DIR (a folder holding brine-call), brine runs the case
    and each command's PASS / FAIL is printed (as --check does).

--add-command CMD adds one command (e.g. 'state.apply test=True') to
existing cases of the suite: Salt's answer to it alone is recorded (and
over a pair with --daemon), masks added as above, and brine checked.
--answer FILE takes Salt's answer from FILE (an NN.json that
run_formulas.py --record wrote for that command on a copy of the case)
instead of recording it again.

--check runs brine-call --local on suite cases and compares its answers as
the suite's local-mode test (tests/src/conformance.rs) does: volatile keys
dropped, failed-requisite lists and file.recurse sections sorted, the
case's masks applied, exit codes of state.* commands zero alike. Where a
state.apply answer differs, it says state by state how: the state
functions brine lacks, states missing or unexpected, the first difference
of each other state (-v: all of them, and whole messages).

Nothing runs state.apply without test=True. Salt must be 3007.8 in a
virtualenv (../shared/conformance/README.md says how to make one).
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import import_case  # noqa: E402
import make_case  # noqa: E402

RUNNER = os.path.join(ROOT, "..", "shared", "conformance", "formulas", "run_formulas.py")
RECORD_DAEMON = os.path.join(ROOT, "tests", "conformance", "record_daemon.py")

# MASKS: regexes (Python and Rust syntax alike: no group references) applied
# to every string of both answers before comparing, added only where the
# recorded answers need them.
VERSION = {"regex": r"^(\d+:)?\d[\w.+~]*-\d[\w.+~]*$", "replace": "@VERSION@"}
VERSION_WHY = ["state.apply test=True names the candidate version apt would install,",
               "which moves with the host's package lists: compared as @VERSION@."]
TRACEBACK = [
    {"regex": r"(?m)^  File .*\n(?:    .*\n)*", "replace": ""},
    {"regex": r"Traceback \(most recent call last\):\n", "replace": ""},
    {"regex": r"(?s)^An exception occurred in this state: .*\n\nDuring handling of the above "
              r"exception, another exception occurred:\n\n",
     "replace": "An exception occurred in this state: "},
]
TRACEBACK_WHY = ["Where a state raised, Salt's comment is 'An exception occurred in this state:'",
                 "and a Python traceback: its frames (Salt's own source lines, under the venv",
                 "it runs from) are dropped, and of a chain of exceptions the last is kept, so",
                 "'An exception occurred in this state: EXCEPTION: MESSAGE' is compared."]


def git_dir_of(repo, work):
    """A git directory for REPO (a path or a URL), cloned under `work` if a URL."""
    if os.path.isdir(repo):
        for cand in (os.path.join(repo, ".git"), repo):
            if subprocess.run(["git", "--git-dir", cand, "rev-parse", "--git-dir"],
                              capture_output=True).returncode == 0:
                return os.path.abspath(cand)
        sys.exit("%s is not a git repository" % repo)
    url = repo
    if re.fullmatch(r"[\w.-]+/[\w.-]+", repo):
        url = "https://github.com/" + repo
    dst = os.path.join(work, "mirrors", re.sub(r"\.git$", "", url.rstrip("/").split("/")[-1])
                       + ".git")
    if not os.path.isdir(dst):
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        print("cloning", url)
        subprocess.run(["git", "clone", "--quiet", "--mirror", url, dst], check=True)
    return dst


def formula_of(git_dir, rev):
    """The formula's folder: the repository's name less -formula, else its FORMULA
    file's `name:` (some repositories' FORMULA still says `template`)."""
    top = subprocess.check_output(["git", "--git-dir", git_dir, "ls-tree", "-d", "--name-only",
                                   rev], text=True).split()
    url = subprocess.run(["git", "--git-dir", git_dir, "config", "--get", "remote.origin.url"],
                         capture_output=True, text=True).stdout.strip()
    parts = [x for x in re.split(r"[/+:]", url or os.path.abspath(git_dir))
             if x not in ("", ".git", "repo")]
    names = [re.sub(r"(\.git)?$", "", parts[-1]).replace("-formula", "")]
    p = subprocess.run(["git", "--git-dir", git_dir, "show", "%s:FORMULA" % rev],
                       capture_output=True, text=True)
    if p.returncode == 0:
        meta = yaml.safe_load(p.stdout) or {}
        if isinstance(meta, dict) and meta.get("name"):
            names.append(str(meta["name"]))
    for n in names:
        if n in top:
            return n
    sys.exit("which folder is the formula? (%s): give --formula" % " ".join(top))


def record(runner, venv, case_dir):
    """Salt's answers to every command of `case_dir` (run_formulas.py --record)."""
    p = subprocess.run([sys.executable, runner, "--record", "--salt-venv", venv, case_dir],
                       capture_output=True, text=True)
    sys.stdout.write(p.stdout)
    if p.returncode:
        sys.exit("recording failed: " + p.stderr[-2000:])


def answers(case_dir):
    d = os.path.join(case_dir, "expected")
    return [json.load(open(os.path.join(d, f))) for f in sorted(os.listdir(d))
            if f.endswith(".json")]


def strings(v):
    if isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)
    elif isinstance(v, str):
        yield v


def state_results(ret):
    if isinstance(ret, dict) and ret and all("_|-" in k for k in ret):
        return sorted(ret.items(), key=lambda kv: kv[1].get("__run_num__", 0))
    return None


def summarize(rec):
    """One paragraph on what Salt answered to one command."""
    ret, cmd = rec["return"], rec["command"]
    out = ["  %s: rc=%d" % (cmd, rec["retcode"])]
    states = state_results(ret)
    if isinstance(ret, dict) and "__unparsed_stdout__" in ret:
        out[0] += " Salt CRASHED (no JSON): " + ret.get("__stderr_tail__", "")[-300:].replace(
            "\n", " / ")
    elif isinstance(ret, str) or (isinstance(ret, list) and ret
                                  and all(isinstance(x, str) for x in ret)):
        out[0] += " error: " + json.dumps(ret)[:300]
    elif isinstance(ret, list):
        out[0] += " %d items" % len(ret)
    elif states is not None:
        res = {True: 0, None: 0, False: 0}
        for _, v in states:
            res[v.get("result")] = res.get(v.get("result"), 0) + 1
        out[0] += " %d states: %d ok, %d would change, %d failed" % (
            len(states), res[True], res[None], res[False])
        for k, v in states:
            if v.get("result") is False:
                c = str(v.get("comment", ""))
                if "Traceback" in c:
                    c = "RAISED " + [x for x in c.splitlines() if x.strip() and not x[0].isspace()][-1]
                out.append("     FAILED %s: %s" % (k.split("_|-")[0] + "." + k.split("_|-")[-1]
                                                   + " " + k.split("_|-")[1], c[:240].replace(
                                                       "\n", " / ")))
    elif isinstance(ret, dict):
        out[0] += " %d keys" % len(ret)
    return "\n".join(out)


def masks_for(recs):
    """The masks (and why) the recorded answers need."""
    masks, why = [], []
    for rec in recs:
        states = state_results(rec["return"]) or []
        for k, v in states:
            if k.startswith("pkg_|-") and any(re.match(VERSION["regex"], s)
                                             for s in strings(v.get("changes", {}))):
                if VERSION not in masks:
                    masks.append(VERSION)
                    why += VERSION_WHY
            if "Traceback (most recent call last)" in str(v.get("comment", "")):
                if TRACEBACK[0] not in masks:
                    masks += TRACEBACK
                    why += TRACEBACK_WHY
    return masks, why


VOLATILE = ("start_time", "duration", "pid")
REQ_FAILED = "One or more requisite failed: "


def _norm_str(s):
    """tests/src/conformance.rs's normalize on one string: failed requisites and
    file.recurse's per-file sections compared sorted (Python sets order them)."""
    if s.startswith(REQ_FAILED) and ", " in s:
        s = REQ_FAILED + ", ".join(sorted(s[len(REQ_FAILED):].split(", ")))
    if s.startswith("#### ") and "\n\n#### " in s:
        parts = [p.rstrip("\n") if i == 0 else "#### " + p.rstrip("\n")
                 for i, p in enumerate(s.split("\n\n#### "))]
        s = "\n\n".join(sorted(parts))
    return s


def normalize(v, subs):
    if isinstance(v, dict):
        return {normalize(k, subs): normalize(x, subs) for k, x in v.items() if k not in VOLATILE}
    if isinstance(v, list):
        return [normalize(x, subs) for x in v]
    if isinstance(v, str):
        for a, b in subs:
            v = v.replace(a, b)
        return _norm_str(v)
    return v


def apply_masks(v, masks):
    """The case's masks: {regex, replace} on every string (keys too; `$1` as
    Rust writes a group), {key, replace} on every value under that key."""
    if not masks:
        return v
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            km = [m for m in masks if m.get("key") == k]
            out[apply_masks(k, masks)] = km[0].get("replace", "") if km else apply_masks(x, masks)
        return out
    if isinstance(v, list):
        return [apply_masks(x, masks) for x in v]
    if isinstance(v, str):
        for m in masks:
            if "regex" in m and "key" not in m:
                rep = re.sub(r"\$\{?(\d+)\}?", r"\\g<\1>", str(m.get("replace", "")))
                v = re.sub(m["regex"], rep, v)
        return v
    return v


def first_diff(exp, got, path="$"):
    """tests/src/conformance.rs's diff: key order ignored, list order kept."""
    num = (int, float)
    if isinstance(exp, num) and isinstance(got, num) and not isinstance(exp, bool) \
            and not isinstance(got, bool):
        return None if exp == got else "%s: expected %r, got %r" % (path, exp, got)
    if type(exp) != type(got):
        return "%s: expected %r, got %r" % (path, exp, got)
    if isinstance(exp, dict):
        for k in exp:
            if k not in got:
                return "%s: missing key %r" % (path, k)
        for k in got:
            if k not in exp:
                return "%s: unexpected key %r" % (path, k)
        for k in exp:
            d = first_diff(exp[k], got[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(exp, list):
        if len(exp) != len(got):
            return "%s: expected %d items, got %d" % (path, len(exp), len(got))
        for i, (a, b) in enumerate(zip(exp, got)):
            d = first_diff(a, b, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if exp == got else "%s: expected %r, got %r" % (path, exp, got)


def state_fn(key):
    parts = key.split("_|-")
    return "%s.%s" % (parts[0], parts[-1])


def states_report(exp, got):
    """Where two state.apply answers differ, state by state: lines."""
    lines = []
    missing = [k for k in exp if k not in got]
    extra = [k for k in got if k not in exp]
    for k in missing[:5]:
        lines.append("missing state %s" % k[:150])
    for k in extra[:5]:
        lines.append("unexpected state %s" % k[:150])
    lacks = set()
    for k in exp:
        if k not in got:
            continue
        e, g = exp[k], got[k]
        if not isinstance(e, dict) or not isinstance(g, dict):
            continue
        c = str(g.get("comment", ""))
        m = re.match(r"State '([\w.]+)' was not found", c)
        if m and not str(e.get("comment", "")).startswith("State '%s' was not found" % m.group(1)):
            lacks.add(m.group(1))
            continue
        d = first_diff(e, g, state_fn(k) + " " + e.get("__id__", k.split("_|-")[1])[:60])
        if d:
            lines.append(d[:400])
    if lacks:
        lines.insert(0, "brine lacks state function(s): " + ", ".join(sorted(lacks)))
    return lines


def check_case(case_dir, brine_call, verbose=False):
    """brine-call --local on every command of a suite case, compared as
    tests/src/conformance.rs (local mode) compares: [(command, failure or None,
    detail lines)]."""
    spec = yaml.safe_load(open(os.path.join(case_dir, "case.yaml")))
    masks = spec.get("masks") or []
    tmp = tempfile.mkdtemp(prefix="brine-conf-")
    case_abs = os.path.realpath(case_dir)
    out = []
    try:
        os.makedirs(os.path.join(tmp, "work"))
        os.makedirs(os.path.join(tmp, "etc"))

        def roots(kind):
            base = os.path.join(case_dir, kind)
            envs = sorted(e for e in os.listdir(base) if os.path.isdir(os.path.join(base, e))) \
                if os.path.isdir(base) else []
            return {e: [os.path.join(case_abs, kind, e)] for e in envs} or \
                {"base": [os.path.join(tmp, "empty_" + kind)]}
        cfg = {"id": spec.get("id", "minion1"), "root_dir": os.path.join(tmp, "root"),
               "file_client": "local", "log_level": "quiet",
               "cachedir": os.path.join(tmp, "cache"), "file_roots": roots("file_roots"),
               "pillar_roots": roots("pillar_roots"), "grains": spec.get("grains") or {}}
        cfg.update(spec.get("config") or {})
        cfg = json.loads(json.dumps(cfg).replace("@TMP@", tmp).replace("@CASE@", case_abs))
        with open(os.path.join(tmp, "etc", "minion"), "w") as f:
            json.dump(cfg, f)
        subs = [(tmp, "@TMP@")]
        for i, cmd in enumerate(spec["commands"]):
            exp = json.load(open(os.path.join(case_dir, "expected", "%02d.json" % i)))
            p = subprocess.run([brine_call, "-c", os.path.join(tmp, "etc"), "--local", "--out",
                                "json"] + shlex.split(cmd.replace("@TMP@", tmp)),
                               capture_output=True, text=True)
            ret = exp["return"]
            crashed = (isinstance(ret, dict) and "__unparsed_stdout__" in ret) or (
                isinstance(ret, str) and ret.startswith("The minion function caused an exception"))
            try:
                got = json.loads(p.stdout)["local"]
            except Exception:
                got = None
                if not crashed:
                    out.append((cmd, "no JSON answer; stderr: " + p.stderr[-300:], []))
                    continue
            if crashed:
                err = got is None or isinstance(got, str) or (
                    isinstance(got, list) and got and all(isinstance(x, str) for x in got)) or (
                    isinstance(got, dict) and "_errors" in got)
                if p.returncode == 0 and not err:
                    out.append((cmd, "Salt failed here, brine answered: " + p.stdout[:300], []))
                else:
                    out.append((cmd, None, []))
                continue
            got = normalize(got, subs)
            got = json.loads(json.dumps(got).replace(case_abs, "@CASE@"))
            e = apply_masks(normalize(ret, subs), masks)
            g = apply_masks(got, masks)
            d = first_diff(e, g)
            detail = []
            if d and state_results(e) is not None and isinstance(g, dict):
                detail = states_report(e, g)
            if not d and cmd.startswith("state.") and (exp["retcode"] == 0) != (p.returncode == 0):
                d = "exit code %d, Salt's was %d" % (p.returncode, exp["retcode"])
            out.append((cmd, d, detail))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def check_brine(brine_bin, case_dir, verbose=False):
    """brine on the case, each command's verdict printed; how many failed."""
    brine_call = os.path.join(brine_bin, "brine-call")
    if not os.path.exists(brine_call):
        print("no brine-call in %s: brine not checked" % brine_bin)
        return None
    name = os.path.basename(os.path.normpath(case_dir))
    failed = 0
    for cmd, failure, detail in check_case(case_dir, brine_call, verbose):
        print("%s %s: %s" % ("PASS" if failure is None else "FAIL", name, cmd))
        if failure is not None:
            failed += 1
            print("     " + (failure if verbose else failure[:400]))
            for line in detail if verbose else detail[:12]:
                print("       - " + line)
            if not verbose and len(detail) > 12:
                print("       - ... %d more" % (len(detail) - 12))
    return failed


def record_daemon(case_dir, venv, only=None):
    argv = [sys.executable, RECORD_DAEMON, "--salt-bin", os.path.join(venv, "bin")]
    if only is not None:
        argv += ["--only", ",".join(str(i) for i in only)]
    p = subprocess.run(argv + [case_dir], capture_output=True, text=True)
    sys.stdout.write(p.stdout)
    if p.returncode:
        print("daemon recording failed: " + p.stderr[-1500:])


def read_case(case_dir):
    """case.yaml of a suite case, and the comment lines just above its masks:."""
    text = open(os.path.join(case_dir, "case.yaml")).read()
    spec = yaml.safe_load(text)
    why, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("masks:"):
            j = i - 1
            while j >= 0 and lines[j].startswith("#"):
                why.insert(0, lines[j][1:].strip())
                j -= 1
    notes = []
    for line in lines[2:]:  # after the header
        if not line.startswith("#"):
            break
        notes.append(line[1:].strip())
    return spec, why, notes


def add_command(cmd, case_dir, args):
    """Record Salt's answer to `cmd` on a suite case and add it there."""
    spec, why, notes = read_case(case_dir)
    commands = spec["commands"]
    if cmd in commands:
        idx = commands.index(cmd)
    else:
        idx = len(commands)
        commands.append(cmd)
    name = os.path.basename(os.path.normpath(case_dir))
    print("== %s: Salt answers %r" % (name, cmd))
    if args["answer"]:
        rec = json.load(open(args["answer"]))
        if rec.get("command") != cmd:
            sys.exit("%s answers %r, not %r" % (args["answer"], rec.get("command"), cmd))
    else:
        stage = os.path.join(args["work"], "add-" + name)
        shutil.rmtree(stage, ignore_errors=True)
        os.makedirs(stage)
        for part in ("file_roots", "pillar_roots"):
            shutil.copytree(os.path.join(case_dir, part), os.path.join(stage, part),
                            symlinks=True)
        with open(os.path.join(stage, "case.yaml"), "w") as f:
            yaml.safe_dump({"formula": spec.get("formula"), "commands": [cmd]}, f)
        record(args["runner"], args["venv"], stage)
        rec = answers(stage)[0]
    print(summarize(rec))
    exp = os.path.join(case_dir, "expected", "%02d.json" % idx)
    with open(exp, "w") as f:
        json.dump(rec, f, indent=2)
        f.write("\n")
    masks = list(spec.get("masks") or [])
    new, new_why = masks_for([rec])
    for m in new:
        if m not in masks:
            masks.append(m)
    for line in new_why:
        if line not in why:
            why.append(line)
    if masks:
        spec["masks"] = masks
    if notes:
        spec["notes"] = notes
    import_case.write_case_yaml(os.path.join(case_dir, "case.yaml"), spec, why)
    if args["daemon"]:
        record_daemon(case_dir, args["venv"], [idx])
    if args["brine_bin"]:
        check_brine(args["brine_bin"], case_dir)


def add_formula(repo, args):
    git_dir = git_dir_of(repo, args["work"])
    formula = args["formula"] or formula_of(git_dir, args["rev"])
    name = args["name"] or formula
    stage = os.path.join(args["work"], name + "-formula")
    shutil.rmtree(stage, ignore_errors=True)
    spec = make_case.make_case(git_dir, formula, stage, args["pillar"], args["rev"],
                               args["apply"])
    print("== %s: Salt answers %d commands" % (name, len(spec["commands"])))
    record(args["runner"], args["venv"], stage)
    recs = answers(stage)
    for rec in recs:
        print(summarize(rec))
    masks, why = masks_for(recs)
    if masks:
        spec["masks"], spec["masks_why"] = masks, why
        print("  masks: " + ", ".join(repr(m["regex"]) for m in masks))
        with open(os.path.join(stage, "case.yaml"), "w") as f:
            yaml.safe_dump(spec, f, sort_keys=False)
    dst = import_case.import_case(stage)
    if args["daemon"]:
        record_daemon(dst, args["venv"])
    if args["brine_bin"]:
        check_brine(args["brine_bin"], dst)
    return dst


def main():
    argv = sys.argv[1:]
    args = {"formula": None, "name": None, "pillar": "pillar.example", "rev": "HEAD",
            "apply": True, "venv": None, "daemon": False, "brine_bin": None,
            "work": "/tmp/brine-formulas", "runner": RUNNER, "add_command": None,
            "answer": None, "check": False, "verbose": False}
    opts = {"--formula": "formula", "--name": "name", "--pillar": "pillar", "--rev": "rev",
            "--salt-venv": "venv", "--brine-bin": "brine_bin", "--work": "work",
            "--runner": "runner", "--add-command": "add_command", "--answer": "answer"}
    rest = []
    while argv:
        a = argv.pop(0)
        if a in opts:
            args[opts[a]] = argv.pop(0)
        elif a == "--no-apply":
            args["apply"] = False
        elif a == "--daemon":
            args["daemon"] = True
        elif a == "--check":
            args["check"] = True
        elif a == "-v":
            args["verbose"] = True
        elif a in ("-h", "--help"):
            print(__doc__)
            return
        else:
            rest.append(a)
    if args["check"]:
        if not rest or not args["brine_bin"]:
            sys.exit(__doc__)
        failed = 0
        for case_dir in rest:
            failed += check_brine(os.path.abspath(args["brine_bin"]), case_dir,
                                  args["verbose"]) or 0
        print("%d command(s) failed" % failed)
        sys.exit(1 if failed else 0)
    if not rest or not args["venv"]:
        sys.exit(__doc__)
    args["venv"] = os.path.abspath(args["venv"])
    args["work"] = os.path.abspath(args["work"])
    if args["brine_bin"]:
        args["brine_bin"] = os.path.abspath(args["brine_bin"])
    if not os.path.exists(args["runner"]):
        sys.exit("no shared runner at %s: give --runner" % args["runner"])
    os.makedirs(args["work"], exist_ok=True)
    if args["add_command"]:
        for case_dir in rest:
            add_command(args["add_command"], os.path.abspath(case_dir), args)
        return
    if len(rest) != 1:
        sys.exit(__doc__)
    add_formula(rest[0], args)


if __name__ == "__main__":
    main()
