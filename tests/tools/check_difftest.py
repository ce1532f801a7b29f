#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Checks of the differential test (scripts/difftest, rnicsim gen / expect).

check_difftest.py generated RNICSIM ROOT COUNT [--broken-rnicsim PATH]
    For seeds 1..COUNT: `rnicsim gen` twice gives the same file; the file passes `rnicsim
    validate` and scenarios/schema.json; `rnicsim expect --strict` finds no race and writes
    the same file back (the generator's expectations are the reference model's).
check_difftest.py fails RNICSIM ROOT
    With a deliberately wrong reference model (--break stale-token, through the test build
    rnicsim_broken_oracle: --broken-rnicsim PATH, default next to RNICSIM) scripts/difftest exits 1
    and prints a shrunk scenario of a few steps; the timed model disagrees with it, and agrees
    once the correct reference model recomputes its expectations.
check_difftest.py usage RNICSIM ROOT
    Bad options exit 2 with a message; rnicsim itself has no broken-rule hook.
check_difftest.py conformance RNICSIM ROOT
    The reference model on hand-written files: every scenarios/conformance/ file that
    `rnicsim expect --strict` can predict (no random fill, no race) agrees with the timed model
    once its expectations are the reference model's.
check_difftest.py coverage RNICSIM ROOT
    scripts/difftest --until-coverage: stops at the first seed that reaches the target, prints
    the curve and the holes (exit 0); exit 3 when the budget runs out below it. gen --focus:
    the same seed and options give the same file, whose description names the aim.

Prints "difftest/MODE: PASS" on success. Debian's /usr/bin/python3 (python3-jsonschema).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

MAX_SHRUNK_STEPS = 40  # generated files have about 200


def fail(message):
    sys.exit(f"FAIL: {message}")


def run(argv, env=None):
    e = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    e.update(env or {})
    return subprocess.run(argv, capture_output=True, text=True, env=e, timeout=600)


def generated(rnicsim, root, count):
    import jsonschema
    with open(os.path.join(root, "scenarios", "schema.json")) as f:
        schema = json.load(f)
    validator = jsonschema.Draft7Validator(schema)
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, count + 1):
            a, b, c = (os.path.join(tmp, f"{n}.json") for n in "abc")
            for path in (a, b):
                r = run([rnicsim, "gen", "--seed", str(seed), "--out", path])
                if r.returncode != 0:
                    fail(f"gen --seed {seed}: exit {r.returncode}: {r.stderr}")
            text = open(a).read()
            if text != open(b).read():
                fail(f"gen --seed {seed} twice: different files")
            r = run([rnicsim, "validate", a, "--quiet"])
            if r.returncode != 0:
                fail(f"gen --seed {seed}: rnicsim validate: {r.stderr}")
            errors = list(validator.iter_errors(json.loads(text)))
            if errors:
                fail(f"gen --seed {seed}: schema: {errors[0].message[:200]}")
            r = run([rnicsim, "expect", a, "--strict", "--out", c])
            if r.returncode != 0:
                fail(f"gen --seed {seed}: expect --strict: {r.stderr}")
            if open(c).read() != text:
                fail(f"gen --seed {seed}: expect --strict changed the file")


def fails(rnicsim, root, broken):
    with tempfile.TemporaryDirectory() as tmp:
        shrunk(rnicsim, root, broken, tmp)


def shrunk(rnicsim, root, broken, tmp):
    script = os.path.join(root, "scripts", "difftest")
    r = run([sys.executable, script, "--count", "20", "--seed", "1", "--break", "stale-token",
             "--rnicsim", rnicsim, "--broken-rnicsim", broken, "--quiet", "--keep", tmp])
    if r.returncode != 1:
        fail(f"difftest with a broken reference model: exit {r.returncode}, expected 1\n"
             f"{r.stdout}\n{r.stderr}")
    m = re.search(r"shrunk seed \d+ to (\d+) steps .*: (\S+\.json)", r.stdout)
    if not m:
        fail(f"no shrunk scenario printed:\n{r.stdout}")
    steps, path = int(m.group(1)), m.group(2)
    if steps > MAX_SHRUNK_STEPS:
        fail(f"shrunk to {steps} steps, more than {MAX_SHRUNK_STEPS}")
    printed = r.stdout[r.stdout.index("{"):]
    if len(json.loads(printed)["steps"]) != steps:
        fail("the printed scenario is not the shrunk one")
    if run([rnicsim, "run", path, "--quiet"]).returncode != 1:
        fail(f"the shrunk scenario {path} does not disagree with the timed model")
    fixed = path + ".fixed.json"
    r2 = run([rnicsim, "expect", path, "--strict", "--out", fixed])
    if r2.returncode != 0:
        fail(f"expect on the shrunk scenario: {r2.stderr}")
    r2 = run([rnicsim, "run", fixed, "--quiet"])
    if r2.returncode != 0:
        fail(f"the correct reference model's expectations fail: {r2.stderr}")
    print(f"shrunk to {steps} steps:\n{printed}", end="")


def usage(rnicsim, root, broken):
    script = os.path.join(root, "scripts", "difftest")
    for argv in (["--count", "0"], ["--jobs", "x"], ["--bogus"], ["--rnicsim", "/nonexistent"],
                 ["--until-coverage", "0"], ["--until-coverage", "101"], ["--budget", "0"],
                 ["--weights", "/nonexistent.json"]):
        r = run([sys.executable, script, *argv, "--rnicsim", rnicsim]
                if "--rnicsim" not in argv else [sys.executable, script, *argv])
        if r.returncode != 2 or not r.stderr.strip():
            fail(f"difftest {' '.join(argv)}: exit {r.returncode}, expected 2 with a message")
    for argv in (["gen"], ["gen", "--seed", "-1"], ["gen", "--seed", "1", "--steps", "x"],
                 ["expect"], ["expect", "/nonexistent.json"]):
        r = run([rnicsim, *argv])
        if r.returncode != 2 or not r.stderr.strip():
            fail(f"rnicsim {' '.join(argv)}: exit {r.returncode}, expected 2 with a message")
    for argv in (["nonsense", "gen", "--seed", "1"], ["stale-token", "run", "x.json"], []):
        r = run([broken, *argv])
        if r.returncode != 2 or not r.stderr.strip():
            fail(f"rnicsim_broken_oracle {' '.join(argv)}: exit {r.returncode}, expected 2")
    # The product binary ignores the old environment hook: same file with and without it.
    plain = run([rnicsim, "gen", "--seed", "1"])
    hooked = run([rnicsim, "gen", "--seed", "1"], env={"RNICSIM_REF_BREAK": "nonsense"})
    if hooked.returncode != 0 or hooked.stdout != plain.stdout:
        fail(f"rnicsim reads RNICSIM_REF_BREAK: exit {hooked.returncode}: {hooked.stderr}")
    r = run([sys.executable, os.path.join(root, "scripts", "difftest"), "--break", "stale-token",
             "--rnicsim", rnicsim, "--broken-rnicsim", "/nonexistent"])
    if r.returncode != 2 or "--broken-rnicsim" not in r.stderr:
        fail(f"difftest --broken-rnicsim /nonexistent: exit {r.returncode}, expected 2")


def conformance(rnicsim, root):
    folder = os.path.join(root, "scenarios", "conformance")
    predicted = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(folder)):
            out = os.path.join(tmp, name)
            if run([rnicsim, "expect", os.path.join(folder, name), "--strict", "--out", out]
                   ).returncode != 0:
                continue  # a random fill or a timing-dependent step: not predictable
            predicted += 1
            r = run([rnicsim, "run", out, "--quiet"])
            if r.returncode != 0:
                fail(f"{name}: the timed model disagrees with the reference model: {r.stderr}")
    if predicted < 65:  # 76 of 114 today; the rest use random fills or race
        fail(f"only {predicted} conformance scenarios predictable, expected at least 65")
    print(f"{predicted} conformance scenarios agree")


def coverage(rnicsim, root):
    script = os.path.join(root, "scripts", "difftest")
    r = run([sys.executable, script, "--until-coverage", "60", "--budget", "50", "--rnicsim",
             rnicsim])
    out = r.stdout
    if r.returncode != 0 or "coverage curve" not in out or "holes (" not in out:
        fail(f"difftest --until-coverage 60: exit {r.returncode}: {out}{r.stderr}")
    m = re.search(r"after (\d+) seeds \(target 60%\)", out)
    if not m:
        fail(f"difftest --until-coverage 60 did not say when it reached the target: {out}")
    curve = [float(p) for p in re.findall(r"^ +\d+ +([0-9.]+)%$", out, re.M)]
    if not curve or curve != sorted(curve) or curve[-1] < 60 or (len(curve) > 1 and
                                                                  curve[-2] >= 60):
        fail(f"difftest --until-coverage 60: the curve must grow and end at the target: {out}")
    r = run([sys.executable, script, "--until-coverage", "100", "--budget", "3", "--rnicsim",
             rnicsim])
    if r.returncode != 3 or "after 3 seeds, below the target 100%" not in r.stdout:
        fail(f"difftest --until-coverage 100 --budget 3: exit {r.returncode}, expected 3: "
             f"{r.stdout}{r.stderr}")
    aim = "status:ReceiveAndInvalidate:STATUS_SUCCESS"
    g = run([rnicsim, "gen", "--seed", "2", "--focus", aim])
    if g.returncode != 0 or "aimed at " + aim not in g.stdout:
        fail(f"rnicsim gen --focus: exit {g.returncode}: {g.stderr}")
    if run([rnicsim, "gen", "--seed", "2", "--focus", aim]).stdout != g.stdout:
        fail("rnicsim gen --focus: the same seed and options gave another file")


def main():
    argv = sys.argv[1:]
    broken = None
    if "--broken-rnicsim" in argv:
        i = argv.index("--broken-rnicsim")
        broken = argv[i + 1] if i + 1 < len(argv) else None
        del argv[i:i + 2]
    if len(argv) < 3 or argv[0] not in ("generated", "fails", "usage", "conformance",
                                        "coverage"):
        sys.exit(__doc__)
    mode, rnicsim, root = argv[:3]
    broken = broken or os.path.join(os.path.dirname(rnicsim), "rnicsim_broken_oracle")
    if mode == "generated":
        generated(rnicsim, root, int(argv[3]) if len(argv) > 3 else 20)
    elif mode == "fails":
        fails(rnicsim, root, broken)
    elif mode == "conformance":
        conformance(rnicsim, root)
    elif mode == "coverage":
        coverage(rnicsim, root)
    else:
        usage(rnicsim, root, broken)
    print(f"difftest/{mode}: PASS")


if __name__ == "__main__":
    main()
