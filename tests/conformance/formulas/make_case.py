#!/usr/bin/env python3
"""Make a formula conformance case from a saltstack-formulas repository.

usage: make_case.py GIT_DIR FORMULA OUT_DIR [--pillar FILE] [--rev REV] [--no-apply]

GIT_DIR is a clone or mirror of the formula's repository (bare, or a work
tree's .git). The case is the layout ../shared/conformance/formulas/ uses:
file_roots/base/FORMULA (the repository's formula folder at REV, default
HEAD, unchanged) and a top.sls applying it to every minion,
pillar_roots/base/example.sls (the repository's pillar.example) and its
top.sls, and case.yaml naming the source commit and the commands:
pillar.items, state.show_sls FORMULA, state.show_lowstate,
state.show_sls FORMULA._mapdata where the formula has one, and
state.apply test=True (unless --no-apply). Record Salt's answers with that
folder's run_formulas.py --record, then import the case with
import_case.py -- or let add_formula.py do all of it.
"""
import io
import os
import subprocess
import sys
import tarfile

import yaml

APPLY = "state.apply test=True"


def make_case(git_dir, formula, out, pillar="pillar.example", rev="HEAD", apply=True):
    """Write the case folder `out`; its spec (what case.yaml holds)."""
    git = ["git", "--git-dir", git_dir]
    commit = subprocess.check_output(git + ["rev-parse", rev + "^{commit}"], text=True).strip()
    url = subprocess.run(git + ["config", "--get", "remote.origin.url"], capture_output=True,
                         text=True).stdout.strip()
    if not url or not url.startswith(("https://", "git@", "ssh://", "git://")):
        url = "https://github.com/saltstack-formulas/%s-formula" % formula
    top = subprocess.check_output(git + ["ls-tree", "--name-only", commit], text=True).split()
    if formula not in top:
        sys.exit("%s has no folder %r at %s (top level: %s)" % (git_dir, formula, commit[:12],
                                                                " ".join(top)))
    if pillar not in top:
        sys.exit("%s has no %s at %s: give --pillar" % (git_dir, pillar, commit[:12]))
    tar = subprocess.check_output(git + ["archive", commit, formula, pillar])
    fr = os.path.join(out, "file_roots", "base")
    pr = os.path.join(out, "pillar_roots", "base")
    os.makedirs(fr)
    os.makedirs(pr)
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        for m in t.getmembers():
            if m.name == pillar:
                data = t.extractfile(m).read()
                with open(os.path.join(pr, "example.sls"), "wb") as f:
                    f.write(data)
            elif m.isfile() or m.isdir() or m.issym():
                t.extract(m, fr)
    with open(os.path.join(fr, "top.sls"), "w") as f:
        f.write("base:\n  '*':\n    - %s\n" % formula)
    with open(os.path.join(pr, "top.sls"), "w") as f:
        f.write("base:\n  '*':\n    - example\n")
    commands = ["pillar.items", "state.show_sls %s" % formula, "state.show_lowstate"]
    if os.path.exists(os.path.join(fr, formula, "_mapdata", "init.sls")):
        commands.append("state.show_sls %s._mapdata" % formula)
    if apply:
        commands.append(APPLY)
    spec = {"formula": formula, "pillar": pillar, "source": url, "commit": commit,
            "commands": commands}
    with open(os.path.join(out, "case.yaml"), "w") as f:
        yaml.safe_dump(spec, f, sort_keys=False)
    print("made %s (%s@%s)" % (out, url, commit[:12]))
    return spec


def main():
    args = sys.argv[1:]
    pillar, rev, apply = "pillar.example", "HEAD", True
    if "--pillar" in args:
        i = args.index("--pillar")
        pillar = args[i + 1]
        del args[i:i + 2]
    if "--rev" in args:
        i = args.index("--rev")
        rev = args[i + 1]
        del args[i:i + 2]
    if "--no-apply" in args:
        args.remove("--no-apply")
        apply = False
    if len(args) != 3:
        sys.exit(__doc__)
    git_dir, formula, out = args
    make_case(git_dir, formula, out, pillar, rev, apply)


if __name__ == "__main__":
    main()
