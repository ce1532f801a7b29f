#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest tools/compare-results: scripts/compare-results (results identity between two rnicsim
binaries) on three small conformance scenarios, both modes.

- rnicsim against itself: every run identical, exit 0;
- a fake binary (a wrapper that runs rnicsim, then adds 1 to one statistic of its --out file
  for one scenario in fast mode) is reported on one line with the JSON path and both values
  in order (baseline != under test), exit 1; the other runs stay identical;
- --allow that path: listed as allowed, exit 0; --allow of another path: still exit 1;
- a wrapper that exits 3 for one scenario: "exit status: 0 != 3", exit 1, not allowable;
- bad usage (no baseline, both, unknown mode, --jobs 0, a missing scenario or binary, a bad
  regular expression, an unknown revision): exit 2 with a message and no traceback;
- rnicsim.identity: the compared fields (wall_s and version left out) and the paths and
  values of differences (a key one side lacks, a list one element longer, 1 against 1.0).

No baseline revision is built (that takes minutes): docs/development.md says how to run it.

usage: check_compare_results.py RNICSIM SOURCE_DIR WORK_DIR
"""
import json
import os
import re
import shutil
import stat
import subprocess
import sys

RNICSIM, ROOT, WORK = (os.path.abspath(p) for p in sys.argv[1:4])
TOOL = os.path.join(ROOT, "scripts", "compare-results")
NAMES = ["r1-cq-overflow.json", "r2-read-fence.json", "r2-inline-send.json"]
SCENARIOS = [os.path.join(ROOT, "scenarios", "conformance", n) for n in NAMES]
TARGET = "r2-read-fence.json"  # the scenario the fakes alter
OWNER, STAT = "A.rnic.fetcher", "wqes_fetched"
PATH = f"stats.{OWNER}.{STAT}"
failures = []

sys.path.insert(0, os.path.join(ROOT, "scripts", "python"))
from rnicsim import identity  # noqa: E402


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def compare(*args, baseline=RNICSIM, rnicsim=RNICSIM, scenarios=True):
    cmd = [sys.executable, TOOL, "--jobs", "2"]
    if baseline:
        cmd += ["--baseline-rnicsim", baseline]
    if rnicsim:
        cmd += ["--rnicsim", rnicsim]
    cmd += list(args) + (SCENARIOS if scenarios else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
    print("$ compare-results", " ".join(a.replace(ROOT + "/", "") for a in cmd[2:]), "->",
          proc.returncode)
    sys.stdout.write(proc.stdout)
    sys.stdout.write(proc.stderr)
    return proc


def summary(proc):
    m = re.search(r"^compare-results: (\d+) runs \((\d+) scenarios x (\d+) modes\): (\d+) "
                  r"identical, (\d+) allowed, (\d+) differ; baseline (.+), under test (.+?);",
                  proc.stdout, re.M)
    return m.groups() if m else None


def fake(name, action):
    """A "binary" that runs rnicsim, then for TARGET alters its results (action "stat": +1 to
    PATH in fast mode) or its exit status (action "exit": 3 in cycle mode)."""
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(f"""#!{sys.executable}
import json, os, subprocess, sys
args = sys.argv[1:]
code = subprocess.call([{RNICSIM!r}, *args])
target = len(args) > 1 and args[0] == "run" and os.path.basename(args[1]) == {TARGET!r}
fast = "sim.fast=1" in args
if target and {action!r} == "stat" and fast and "--out" in args:
    out = args[args.index("--out") + 1]
    with open(out) as f:
        r = json.load(f)
    r["stats"][{OWNER!r}][{STAT!r}] += 1
    with open(out, "w") as f:
        json.dump(r, f, indent=2)
if target and {action!r} == "exit" and not fast:
    code = 3
sys.exit(code)
""")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def real_value():
    out = os.path.join(WORK, "real.json")
    subprocess.run([RNICSIM, "run", SCENARIOS[1], "--quiet", "--out", out, "--set",
                    "sim.fast=1"], check=True, capture_output=True)
    with open(out) as f:
        return json.load(f)["stats"][OWNER][STAT]


def identical():
    p = compare()
    check(p.returncode == 0, f"rnicsim against itself: exit {p.returncode}, expected 0")
    s = summary(p)
    check(s is not None and s[:6] == ("6", "3", "2", "6", "0", "0"),
          f"rnicsim against itself: summary {s}, expected 6 runs (3 x 2) all identical")
    check(s is not None and s[6] == s[7] == RNICSIM.replace(ROOT + "/", ""),
          "the summary names neither binary")
    s = summary(compare("--modes", "fast,fast", SCENARIOS[0], scenarios=False))
    check(s is not None and s[:4] == ("1", "1", "1", "1"),
          f"--modes fast,fast on one file: summary {s}, expected 1 run")


def altered():
    value = real_value()
    stat_fake = fake("rnicsim-stat", "stat")
    line = f"scenarios/conformance/{TARGET} [fast]: {PATH}: {value} != {value + 1}"
    p = compare(rnicsim=stat_fake)
    check(p.returncode == 1, f"an altered statistic: exit {p.returncode}, expected 1")
    check(line in p.stdout.splitlines(), f"an altered statistic: no line {line!r}")
    reports = [ln for ln in p.stdout.splitlines() if ln.startswith("scenarios/")]
    check(len(reports) == 1, f"an altered statistic: {len(reports)} report lines, expected 1")
    check(summary(p) is not None and summary(p)[3:6] == ("5", "0", "1"),
          f"an altered statistic: summary {summary(p)}, expected 5 identical, 1 differ")
    # The order is baseline != under test.
    p = compare(baseline=stat_fake)
    back = f"scenarios/conformance/{TARGET} [fast]: {PATH}: {value + 1} != {value}"
    check(p.returncode == 1 and back in p.stdout, "the fake as the baseline: values not in the "
          "order baseline != under test")

    escaped = re.escape(PATH)
    p = compare("--allow", "^" + escaped + "$", rnicsim=stat_fake)
    check(p.returncode == 0, f"--allow {escaped}: exit {p.returncode}, expected 0")
    check(summary(p) is not None and summary(p)[3:6] == ("5", "1", "0"),
          f"--allow: summary {summary(p)}, expected 5 identical, 1 allowed, 0 differ")
    check(re.search(r"^allowed \(1\b", p.stdout, re.M) and "  " + line in p.stdout,
          "--allow: the run is not listed as allowed with its path and values")
    p = compare("--allow", r"stats\.B\.", "--allow", "^sim_ns$", rnicsim=stat_fake)
    check(p.returncode == 1, f"--allow of other paths: exit {p.returncode}, expected 1")

    exit_fake = fake("rnicsim-exit", "exit")
    p = compare("--allow", ".*", rnicsim=exit_fake)
    line = f"scenarios/conformance/{TARGET} [cycle]: exit status: 0 != 3"
    check(p.returncode == 1, f"an exit status that differs: exit {p.returncode}, expected 1")
    check(any(ln.startswith(line) for ln in p.stdout.splitlines()),
          f"an exit status that differs: no line {line!r}")


def usage():
    not_executable = SCENARIOS[0]
    cases = [
        ([], {"baseline": None}),
        (["--baseline", "HEAD"], {}),
        (["--modes", "cycle,slow"], {}),
        (["--modes", ""], {}),
        (["--jobs", "0"], {}),
        (["--jobs", "x"], {}),
        (["/nonexistent/scenario.json"], {}),
        (["--allow", "("], {}),
        (["--bogus"], {}),
        ([], {"baseline": "/nonexistent/rnicsim"}),
        ([], {"baseline": not_executable}),
        ([], {"rnicsim": "/nonexistent/rnicsim"}),
        (["--baseline", "no-such-revision-of-rnicsim"], {"baseline": None}),
        (["--baseline", "-x"], {"baseline": None}),
    ]
    for args, kw in cases:
        p = compare(*args, **kw)
        shown = " ".join(args + [f"{k}={v}" for k, v in kw.items()])
        check(p.returncode == 2, f"bad usage ({shown}): exit {p.returncode}, expected 2")
        check(p.stderr.strip() != "", f"bad usage ({shown}): no message")
        check("Traceback" not in p.stderr, f"bad usage ({shown}): a traceback")
        check(summary(p) is None, f"bad usage ({shown}): something ran")


def library():
    a = {"wall_s": 1.5, "version": "1", "sim_ns": 10, "stats": {"A.x": {"n": 1, "m": [1, 2]}}}
    b = {"wall_s": 9.0, "version": "2", "sim_ns": 10, "stats": {"A.x": {"n": 1, "m": [1, 2]}}}
    check(identity.canonical(a) == identity.canonical(b), "wall_s or version compared")
    b["stats"]["A.x"]["n"] = 1.0
    b["stats"]["A.x"]["m"].append(3)
    b["stats"]["B.y"] = {"k": 0}
    got = [(p, identity.show(x), identity.show(y)) for p, x, y in
           identity.differences(identity.comparable(a), identity.comparable(b))]
    want = [("stats.A.x.m[2]", "(absent)", "3"), ("stats.A.x.n", "1", "1.0"),
            ("stats.B.y", "(absent)", '{"k":0}')]
    check(got == want, f"differences: {got}, expected {want}")
    check(identity.canonical(a) != identity.canonical(b), "1 and 1.0 compared equal")


def main():
    if os.path.isdir(WORK):
        shutil.rmtree(WORK)
    os.makedirs(WORK)
    library()
    identical()
    altered()
    usage()
    if failures:
        print(f"compare-results: {len(failures)} failures")
        sys.exit(1)
    print("compare-results: PASS")


if __name__ == "__main__":
    main()
