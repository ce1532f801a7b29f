#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Keeps the hand-written op tables of docs/scenario-format.md in step with the binary.

The ops and their fields come from the loader's own op table, as `rnicsim validate` reports
it: an unknown op lists the known ones, an unknown field lists the fields the op allows.
Every op must have a section in docs/scenario-format.md (a line that starts with its name in
bold code, **`op`**), and every field it allows must appear in code (`field`) in that
section, except the fields every op or every verb shares (documented once, above the
tables). Types, defaults and meanings stay hand-written; this check only finds an op or a
field that the page forgot.

Usage: check_scenario_doc.py RNICSIM REPO_ROOT. Prints "docs/scenario-ops: PASS".
"""
import json
import os
import re
import subprocess
import sys
import tempfile

SHARED = {"op", "description", "comment", "expect", "qp", "context", "flags"}


def validate_error(rnicsim, step):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"name": "probe", "steps": [step]}, f)
        path = f.name
    try:
        r = subprocess.run([rnicsim, "validate", path], capture_output=True, text=True,
                           timeout=30)
    finally:
        os.unlink(path)
    return r.stderr


def main():
    rnicsim, root = sys.argv[1], sys.argv[2]
    err = validate_error(rnicsim, {"op": "no-such-op"})
    m = re.search(r"\(known: ([^)]*)\)", err)
    if not m:
        print(f"could not read the op list from rnicsim validate: {err.strip()}")
        print("docs/scenario-ops: FAIL")
        return 1
    ops = [o.strip() for o in m.group(1).split(",")]
    with open(os.path.join(root, "docs", "scenario-format.md"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    problems = []
    for op in ops:
        err = validate_error(rnicsim, {"op": op, "zz_probe_field": 1})
        m = re.search(r"allowed here: ([^)]*)\)", err)
        if not m:
            problems.append(f"{op}: could not read its fields from rnicsim validate: {err.strip()}")
            continue
        fields = [x.strip() for x in m.group(1).split(",")]
        starts = [i for i, line in enumerate(lines)
                  if re.match(r"^\*{2,3}`[a-z_]+`", line) and f"`{op}`**" in line]
        if not starts:
            problems.append(f"{op}: no section in docs/scenario-format.md (a line starting **`{op}`**)")
            continue
        start = starts[0]
        end = start + 1
        while end < len(lines) and not re.match(r"^(\*{2,3}`|#)", lines[end]):
            end += 1
        section = "\n".join(lines[start:end])
        for field in fields:
            if field in SHARED:
                continue
            if f"`{field}`" not in section and f"`{field}:" not in section:
                problems.append(f"{op}: field `{field}` is not in its section of docs/scenario-format.md")
    for p in problems:
        print(p)
    if problems:
        print(f"docs/scenario-ops: FAIL ({len(problems)} problems)")
        return 1
    print(f"docs/scenario-ops: PASS ({len(ops)} ops)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
