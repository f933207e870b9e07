#!/usr/bin/env python3
"""Copy a recorded formula case into the project's conformance suite.

usage: import_case.py CASE_DIR...

CASE_DIR is a formula case as ../shared/conformance/formulas/ keeps them
(made by make_case.py, answers recorded by run_formulas.py --record). It
becomes tests/conformance/cases/formula-NAME/: the same trees and
expected/, and a case.yaml in the suite's format (id `testminion`, the OS
grains of pinned_grains.yaml, which the answers were recorded with), still
naming the source repository and commit. Where Salt itself crashed on a
command (no JSON, only a traceback), expected/NN.json keeps that
(`__unparsed_stdout__`), and brine passes by failing too.
"""
import os
import shutil
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "cases")


def main():
    if not sys.argv[1:]:
        sys.exit(__doc__)
    with open(os.path.join(HERE, "pinned_grains.yaml")) as f:
        grains = yaml.safe_load(f)
    for src in sys.argv[1:]:
        src = src.rstrip("/")
        with open(os.path.join(src, "case.yaml")) as f:
            spec = yaml.safe_load(f)
        name = os.path.basename(src)
        if name.endswith("-formula"):
            name = name[: -len("-formula")]
        elif "-formula-" in name:
            name = name.replace("-formula-", "-")
        dst = os.path.join(CASES, "formula-" + name)
        shutil.rmtree(dst, ignore_errors=True)
        for part in ("file_roots", "pillar_roots", "expected"):
            shutil.copytree(os.path.join(src, part), os.path.join(dst, part))
        case = {
            "source": spec["source"],
            "commit": spec["commit"],
            "formula": spec["formula"],
            "pillar": spec.get("pillar", "pillar.example"),
            "id": "testminion",
            "grains": grains,
            "commands": spec["commands"],
        }
        if spec.get("masks"):
            case["masks"] = spec["masks"]
        with open(os.path.join(dst, "case.yaml"), "w") as f:
            f.write("# A public formula, unchanged; answers recorded with Salt 3007.8 (salt-call\n"
                    "# --local) by tests/conformance/formulas/. The fix for a failure is in brine.\n")
            yaml.safe_dump(case, f, sort_keys=False)
        print("imported", dst)


if __name__ == "__main__":
    main()
