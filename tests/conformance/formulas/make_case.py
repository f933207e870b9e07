#!/usr/bin/env python3
"""Make a formula conformance case from a saltstack-formulas repository.

usage: make_case.py GIT_DIR FORMULA OUT_DIR [--pillar FILE]

GIT_DIR is a clone or mirror of the formula's repository (e.g. what the
project's `fetch` tool brings down). The case is the layout
../shared/conformance/formulas/ uses: file_roots/base/FORMULA (the
repository's formula folder, unchanged) and a top.sls applying it to every
minion, pillar_roots/base/example.sls (the repository's pillar.example) and
its top.sls, and case.yaml naming the source commit and the commands. Record
Salt's answers with that folder's run_formulas.py --record, then import the
case with import_case.py.
"""
import io
import os
import subprocess
import sys
import tarfile

import yaml


def main():
    args = sys.argv[1:]
    pillar = "pillar.example"
    if "--pillar" in args:
        i = args.index("--pillar")
        pillar = args[i + 1]
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    git_dir, formula, out = args
    git = ["git", "--git-dir", git_dir]
    commit = subprocess.check_output(git + ["rev-parse", "HEAD"], text=True).strip()
    url = subprocess.run(git + ["config", "--get", "remote.origin.url"], capture_output=True,
                         text=True).stdout.strip()
    if not url:
        url = "https://github.com/saltstack-formulas/%s-formula" % formula
    tar = subprocess.check_output(git + ["archive", "HEAD", formula, pillar])
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
            elif m.isfile() or m.isdir():
                t.extract(m, fr)
    with open(os.path.join(fr, "top.sls"), "w") as f:
        f.write("base:\n  '*':\n    - %s\n" % formula)
    with open(os.path.join(pr, "top.sls"), "w") as f:
        f.write("base:\n  '*':\n    - example\n")
    commands = ["pillar.items", "state.show_sls %s" % formula, "state.show_lowstate"]
    if os.path.exists(os.path.join(fr, formula, "_mapdata", "init.sls")):
        commands.append("state.show_sls %s._mapdata" % formula)
    spec = {"formula": formula, "pillar": pillar, "source": url, "commit": commit,
            "commands": commands}
    with open(os.path.join(out, "case.yaml"), "w") as f:
        yaml.safe_dump(spec, f, sort_keys=False)
    print("made %s (%s@%s)" % (out, url, commit[:12]))


if __name__ == "__main__":
    main()
