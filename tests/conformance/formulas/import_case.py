#!/usr/bin/env python3
"""Copy a recorded formula case into the project's conformance suite.

usage: import_case.py CASE_DIR...

CASE_DIR is a formula case as ../shared/conformance/formulas/ keeps them
(made by make_case.py, answers recorded by run_formulas.py --record). It
becomes tests/conformance/cases/formula-NAME/: the same trees and
expected/ (and expected-daemon/ where recorded), and a case.yaml in the
suite's format (id `testminion`, the OS grains of pinned_grains.yaml, which
the answers were recorded with), still naming the source repository and
commit, with the case's masks: and a comment saying why each is there
(`masks_why:`, lines of text, in CASE_DIR/case.yaml). Where Salt itself
crashed on a command (no JSON, only a traceback), expected/NN.json keeps
that (`__unparsed_stdout__`), and brine passes by failing too.
"""
import os
import shutil
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "cases")

HEADER = ("# A public formula, unchanged; answers recorded with Salt 3007.8 (salt-call\n"
          "# --local) by tests/conformance/formulas/. The fix for a failure is in brine.\n")


def case_name(src):
    """formula-NAME for a case folder named NAME-formula[-VARIANT] or NAME."""
    name = os.path.basename(os.path.normpath(src))
    if name.endswith("-formula"):
        name = name[: -len("-formula")]
    elif "-formula-" in name:
        name = name.replace("-formula-", "-")
    return "formula-" + name


def write_case_yaml(path, case, why=None):
    """case.yaml: the header, the case, then masks: under `why` as comments."""
    case = dict(case)
    masks = case.pop("masks", None)
    notes = case.pop("notes", None)
    with open(path, "w") as f:
        f.write(HEADER)
        for line in notes or []:
            f.write(("# " + line).rstrip() + "\n")
        yaml.safe_dump(case, f, sort_keys=False, width=4096)
        if masks:
            for line in why or []:
                f.write(("# " + line).rstrip() + "\n")
            yaml.safe_dump({"masks": masks}, f, sort_keys=False, width=4096)


def import_case(src, grains=None):
    """Copy `src` into the suite; the destination folder."""
    if grains is None:
        with open(os.path.join(HERE, "pinned_grains.yaml")) as f:
            grains = yaml.safe_load(f)
    with open(os.path.join(src, "case.yaml")) as f:
        spec = yaml.safe_load(f)
    dst = os.path.join(CASES, case_name(src))
    shutil.rmtree(dst, ignore_errors=True)
    for part in ("file_roots", "pillar_roots", "expected", "expected-daemon"):
        if os.path.isdir(os.path.join(src, part)):
            shutil.copytree(os.path.join(src, part), os.path.join(dst, part), symlinks=True)
    case = {
        "source": spec["source"],
        "commit": spec["commit"],
        "formula": spec["formula"],
        "pillar": spec.get("pillar", "pillar.example"),
        "id": "testminion",
        "grains": grains,
        "commands": spec["commands"],
    }
    if spec.get("notes"):
        case["notes"] = spec["notes"]
    if spec.get("masks"):
        case["masks"] = spec["masks"]
    write_case_yaml(os.path.join(dst, "case.yaml"), case, spec.get("masks_why"))
    print("imported", os.path.normpath(dst))
    return dst


def main():
    if not sys.argv[1:]:
        sys.exit(__doc__)
    for src in sys.argv[1:]:
        import_case(src.rstrip("/"))


if __name__ == "__main__":
    main()
