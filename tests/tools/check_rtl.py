#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest rtl/*: the RTL protection checker in the loop (docs/rtl-cosim.md).

check_rtl.py conformance RNICSIM ROOT WORK MODE
  Runs every scenarios/conformance/*.json with protection.implementation=tlm and =MODE (rtl or
  lockstep), both exit 0, and per file and node: the same protection checks and the same count
  of decisions for every rule (decided.*) as the C++ rules; rtl: the RTL decided every check
  that reached a unit (rtl_checks > 0 over the suite); lockstep: compared > 0, diverged 0.
  Prints how many files end at the same simulated time as tlm (a timing figure, not a check).

check_rtl.py mutants RNICSIM_RTL_MUTANTS ROOT WORK
  For each seeded bug of rtl/protection_checker/mutants.tsv, the conformance scenarios of its
  rules (their descriptions name them) in lockstep on that bug: exit 1, a "lockstep: ...
  diverged" line whose model or unit answer names one of the bug's rules, and the report files (the inputs as JSON naming the same check; a VCD under
  1 MB holding the unit's signals). Mutant 0 (no bug) passes. Prints "killed K of N".
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def conformance_files(root, rules=None):
    """Every conformance scenario, or those whose description names one of `rules` (the
    suite's descriptions open with their rule IDs); all when none does."""
    files = sorted(glob.glob(os.path.join(root, "scenarios", "conformance", "*.json")))
    if not rules:
        return files
    chosen = []
    for path in files:
        with open(path) as f:
            head = json.load(f).get("description", "").split("]")[0]
        if any(rule in re.split(r"[\s,\[]+", head) for rule in rules):
            chosen.append(path)
    return chosen or files


def run_suite(rnicsim, root, out_dir, mode, env=None, divergence_dir=None, rules=None):
    files = conformance_files(root, rules)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    cmd = [rnicsim, "run", *files, "--out-dir", out_dir, "--quiet", "--no-summary",
           "--set", "protection.implementation=" + mode]
    if divergence_dir:
        cmd += ["--divergence-dir", divergence_dir]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    return proc, files


def conformance(rnicsim, root, work, mode):
    base, _ = run_suite(rnicsim, root, os.path.join(work, "tlm"), "tlm")
    if base.returncode != 0:
        fail(f"tlm run: exit {base.returncode}: {base.stderr.strip()[:400]}")
        return
    proc, files = run_suite(rnicsim, root, os.path.join(work, mode), mode,
                            divergence_dir=work)
    if proc.returncode != 0:
        fail(f"{mode} run: exit {proc.returncode}: {proc.stderr.strip()[:600]}")
        return
    same_time = checks = unit = compared = diverged = 0
    for path in files:
        name = os.path.basename(path)
        with open(os.path.join(work, "tlm", name)) as f:
            t = json.load(f)
        with open(os.path.join(work, mode, name)) as f:
            r = json.load(f)
        if r["config"]["protection.implementation"] != mode:
            fail(f"{name}: config says {r['config']['protection.implementation']}")
        same_time += t["sim_ns"] == r["sim_ns"]
        for owner, stats in t["stats"].items():
            if not owner.endswith(".rnic.protection"):
                continue
            got = r["stats"][owner]
            checks += stats["checks"]
            for key, value in stats.items():
                if (key == "checks" or key.startswith("decided.")) and got.get(key) != value:
                    fail(f"{name}: {owner}.{key}: tlm {value}, {mode} {got.get(key)}")
            unit += got.get("rtl_checks", 0)
            compared += got.get("lockstep_compared", 0)
            diverged += got.get("lockstep_diverged", 0)
    if mode == "rtl" and unit == 0:
        fail("rtl: no check reached the RTL unit")
    if mode == "lockstep" and (compared == 0 or diverged != 0):
        fail(f"lockstep: compared {compared}, diverged {diverged}")
    print(f"{mode}: {len(files)} conformance files pass; {checks} protection checks, equal "
          f"per rule to tlm; rtl_checks {unit}, lockstep compared {compared} diverged "
          f"{diverged}; {same_time} of {len(files)} end at tlm's simulated time")


LINE = re.compile(r"lockstep: (\S+) diverged at .*?: model (\w+) rule (\S+).*?; unit (\w+) "
                  r"rule (\S+)")


def mutants(binary, root, work):
    table = []
    with open(os.path.join(root, "rtl", "protection_checker", "mutants.tsv")) as f:
        for line in f:
            number, rules, what = line.rstrip("\n").split("\t")
            table.append((int(number), rules.split(","), what))
    env = dict(os.environ, RNICSIM_RTL_MUTANT="0")
    proc, _ = run_suite(binary, root, os.path.join(work, "m0"), "lockstep", env, work)
    if proc.returncode != 0:
        fail(f"mutant 0 (no bug): exit {proc.returncode}: {proc.stderr.strip()[:400]}")
    killed = 0
    for number, rules, what in table:
        reports = os.path.join(work, f"reports{number}")
        shutil.rmtree(reports, ignore_errors=True)
        os.makedirs(reports)
        env = dict(os.environ, RNICSIM_RTL_MUTANT=str(number))
        proc, files = run_suite(binary, root, os.path.join(work, f"m{number}"), "lockstep",
                                env, reports, rules)
        m = LINE.search(proc.stderr)
        if proc.returncode != 1 or not m:
            fail(f"mutant {number} ({what}): exit {proc.returncode}, no divergence line: "
                 f"{proc.stderr.strip()[:300]}")
            continue
        named = {m.group(3), m.group(5)}
        if not named & set(rules):
            fail(f"mutant {number} ({what}): stopped at {sorted(named)}, not at {rules}")
            continue
        jsons = glob.glob(os.path.join(reports, "*-protection.json"))
        vcds = glob.glob(os.path.join(reports, "*-protection.vcd"))
        if not jsons or not vcds:
            fail(f"mutant {number}: report files missing in {reports}")
            continue
        with open(jsons[0]) as f:
            report = json.load(f)
        size = os.path.getsize(vcds[0])
        with open(vcds[0]) as f:
            vcd = f.read()
        if not {report["model"]["rule"], report["unit_answer"]["rule"]} & set(rules):
            fail(f"mutant {number}: the JSON names {report['model']['rule']} / "
                 f"{report['unit_answer']['rule']}")
            continue
        if not 0 < size < 1 << 20 or "rsp_rule" not in vcd or "$enddefinitions" not in vcd:
            fail(f"mutant {number}: VCD of {size} bytes without the unit's signals")
            continue
        killed += 1
        print(f"mutant {number:2d} ({what}): stopped at {m.group(1)}, model {m.group(3)}, "
              f"unit {m.group(5)}; report {os.path.getsize(jsons[0])} B JSON, {size} B VCD "
              f"({len(files)} conformance files run: those of its rules)")
    print(f"killed {killed} of {len(table)}")
    if killed != len(table):
        fail(f"only {killed} of {len(table)} seeded bugs stopped at their rule")


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in ("conformance", "mutants"):
        print(__doc__)
        return 2
    what, binary, root, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    if what == "conformance":
        conformance(binary, root, work, sys.argv[5])
    else:
        mutants(binary, root, work)
    print("rtl: FAIL" if failures else "rtl: PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
