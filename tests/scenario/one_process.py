#!/usr/bin/env python3
"""Usage: one_process.py RNICSIM SOURCE_DIR WORK_DIR

`rnicsim run F1 F2 ...` simulates every file together in one process, each on a platform of
its own. Each file's results JSON must equal its lone run's (apart from wall_s, and
deltas_per_op, which a shared simulation leaves out), in the files' order and reversed.
The files: every conformance scenario, the examples, quickstart, two perf workloads and 20
generated scenarios (rnicsim gen), about 140 platforms in one simulation. This is what found
a completion seen or missed depending on which of two same-picosecond events the kernel ran
first (HostCpu now reads after the device at equal times).
"""
import glob
import json
import os
import shutil
import subprocess
import sys


# Files whose shared-simulation results may differ from their lone run, and why. Each is a
# known defect (docs/limits.md, "Ties between nodes"), reported on every run, not hidden.
TIE = ("several nodes' packets reach one switch port at the same picosecond; the switch "
       "serves them in the order the kernel runs the senders, which other platforms in the same "
       "simulation can change")
KNOWN_TIES = {"traffic-incast": TIE, "traffic-all-to-all": TIE}


def main():
    rnicsim, src, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(f"{work}/gen")
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    files = sorted(glob.glob(f"{src}/scenarios/conformance/*.json"))
    files += sorted(glob.glob(f"{src}/scenarios/examples/*.json"))
    files += [f"{src}/scenarios/quickstart.json", f"{src}/scenarios/perf/read-64b-miss.json",
              f"{src}/scenarios/perf/read-latency-2b.json"]
    for seed in range(1, 21):
        path = f"{work}/gen/gen-{seed}.json"
        subprocess.run([rnicsim, "gen", "--seed", str(seed), "--out", path], check=True, env=env)
        files.append(path)

    def name(path):
        return os.path.basename(path)[: -len(".json")]

    def load(path):
        with open(path) as f:
            d = json.load(f)
        d.pop("wall_s")
        return d

    alone = {}
    os.makedirs(f"{work}/alone")
    for path in files:
        out = f"{work}/alone/{name(path)}.json"
        r = subprocess.run([rnicsim, "run", path, "--quiet", "--out", out], env=env,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit(f"FAIL: {path} alone exited {r.returncode}: {r.stderr}")
        d = load(out)
        for step in d["steps"]:
            step.get("metrics", {}).pop("deltas_per_op", None)
        alone[name(path)] = d

    failures = 0
    for order, listed in (("listed", files), ("reversed", files[::-1])):
        out_dir = f"{work}/{order}"
        os.makedirs(out_dir)
        r = subprocess.run([rnicsim, "run", *listed, "--quiet", "--out-dir", out_dir], env=env,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            print(f"FAIL: {len(listed)} files in one process ({order}) exited {r.returncode}:")
            print(r.stderr)
            failures += 1
            continue
        differ = [n for n in alone if load(f"{out_dir}/{n}.json") != alone[n]]
        for n in differ:
            if n in KNOWN_TIES:
                print(f"known: {n}: results in one process ({order}) differ from its lone run: "
                      f"{KNOWN_TIES[n]}")
            else:
                print(f"FAIL: {n}: results in one process ({order}) differ from its lone run")
                failures += 1
        print(f"ok: {len(listed) - len(differ)} of {len(listed)} files in one process "
              f"({order}) give their lone results")
    if failures:
        sys.exit(f"one-process: {failures} failure(s)")
    print("one-process: PASS")


if __name__ == "__main__":
    main()
