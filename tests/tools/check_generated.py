#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a checked-in generated file differs from the command that generates it.

Usage: check_generated.py FILE COMMAND [ARGS...]   (e.g. scenarios/schema.json rnicsim schema)
Prints "generated: PASS", or the first differing line and how to regenerate.
"""
import difflib
import pathlib
import subprocess
import sys


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    path, command = pathlib.Path(argv[1]), argv[2:]
    r = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        print(f"FAIL {' '.join(command)}: exit {r.returncode}: {r.stderr.strip()}")
        return 1
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    if current == r.stdout:
        print(f"{path.name} is current; generated: PASS")
        return 0
    diff = difflib.unified_diff(current.splitlines(), r.stdout.splitlines(), str(path),
                                " ".join(command), lineterm="", n=1)
    print("\n".join(list(diff)[:40]))
    print(f"FAIL {path} is not `{' '.join(command)}` output: regenerate it with\n"
          f"  {' '.join(command)} --out {path}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
