#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest sweep/local and sweep/dask: a 3x3 grid (a config key x a scenario field) over
tests/tools/tiny.json through scripts/sweep, locally or through a Dask cluster this script
starts on loopback (a scheduler and two single-threaded workers) and always stops.
Checks: 9 rows, every point passed, each row's config and bytes follow its grid values, the
plot is a PNG. The local run also checks the argument errors (exit 2).

usage: check_sweep.py local|dask RNICSIM SOURCE_DIR WORK_DIR
"""
import csv
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import time

MODE, RNICSIM, ROOT, WORK = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
SWEEP = os.path.join(ROOT, "scripts", "sweep")
SCENARIO = os.path.join(ROOT, "tests", "tools", "tiny.json")
MRRS = ["128", "256", "512"]
SIZES = ["256", "1024", "4096"]
COUNT = 200  # tiny.json's count
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def sweep(*args):
    cmd = [sys.executable, SWEEP, *args, "--rnicsim", RNICSIM]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    print("$", " ".join(cmd[1:]), "->", proc.returncode)
    sys.stdout.write(proc.stdout)
    sys.stdout.write(proc.stderr)
    return proc


def grid_args(out):
    return [SCENARIO, "--grid", "pcie.mrrs=" + ",".join(MRRS),
            "--grid", "steps[0].size=" + ",".join(SIZES), "--out", out,
            "--plot", "x=steps[0].size,y=gbps,series=pcie.mrrs,logx,file=gbps.png"]


def check_output(out, remote):
    if not os.path.exists(os.path.join(out, "results.csv")):
        check(False, f"no {out}/results.csv")
        return
    with open(os.path.join(out, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    check(len(rows) == 9, f"{len(rows)} CSV rows, expected 9")
    combos = {(r.get("pcie.mrrs"), r.get("steps[0].size")) for r in rows}
    check(combos == {(m, s) for m in MRRS for s in SIZES}, f"grid points in the CSV: {combos}")
    for r in rows:
        check(r.get("passed") == "1" and r.get("exit_code") == "0",
              f"point {r.get('point')}: passed={r.get('passed')} exit={r.get('exit_code')}")
        # The field override reached the scenario: bytes = count x size.
        bytes_ = float(r.get("step0.bytes") or -1)
        check(bytes_ == COUNT * int(r["steps[0].size"]),
              f"point {r.get('point')}: step0.bytes {bytes_} != {COUNT} x {r['steps[0].size']}")
        check(float(r.get("step0.gbps") or 0) > 0, f"point {r.get('point')}: gbps not positive")
        for metric in ("ops", "mops", "latency_ns.p50", "latency_ns.p99", "mtt.hit_rate"):
            check(f"step0.{metric}" in r, f"no column step0.{metric}")
    with open(os.path.join(out, "results.json")) as f:
        results = json.load(f)
    check(len(results["points"]) == 9, "results.json: not 9 points")
    for p in results["points"]:
        # The --set reached the simulator: the effective config says so.
        got = (p.get("results") or {}).get("config", {}).get("pcie.mrrs")
        check(str(got) == p["params"]["pcie.mrrs"],
              f"point {p['point']}: effective pcie.mrrs {got} != {p['params']['pcie.mrrs']}")
    # Where each point ran: in the sweep's process locally, in a worker process with Dask.
    ran_in = [p["ran_in"] for p in results["points"]]
    print("points ran in:", {r: ran_in.count(r) for r in set(ran_in)})
    if remote:
        check(results["sweep_process"] not in ran_in, "a point ran in the sweep process")
    else:
        check(set(ran_in) == {results["sweep_process"]}, "a local point ran elsewhere")
    png = os.path.join(out, "gbps.png")
    with open(png, "rb") if os.path.exists(png) else open(os.devnull, "rb") as f:
        magic = f.read(8)
    check(magic == b"\x89PNG\r\n\x1a\n", f"{png}: not a PNG (first bytes {magic!r})")
    check(os.path.getsize(png) > 1000 if os.path.exists(png) else False, f"{png}: too small")


def check_errors():
    out = os.path.join(WORK, "errors")
    for args, what in [
        ([SCENARIO, "--grid", "pcie.nosuchkey=1,2", "--out", out], "unknown grid key"),
        ([SCENARIO, "--grid", "pcie.mrrs=100,256", "--out", out], "pcie.mrrs=100"),
        ([SCENARIO, "--grid", "steps[0].size=0", "--out", out], "steps[0].size=0"),
        ([SCENARIO, "--grid", "steps[5].size=1", "--out", out], "the scenario has 1 steps"),
        ([SCENARIO, "--grid", "pcie.mrrs=", "--out", out], "empty value"),
        ([os.path.join(WORK, "missing.json"), "--grid", "pcie.mrrs=256", "--out", out],
         "no such scenario"),
        ([SCENARIO, "--grid", "pcie.mrrs=256", "--out", out, "--plot", "x=pcie.mrrs,y=nope"],
         "y=nope"),
    ]:
        proc = sweep(*args)
        check(proc.returncode == 2, f"{what}: exit {proc.returncode}, expected 2")
        check(what in proc.stderr, f"{what}: not named on stderr")
    check(not os.path.exists(os.path.join(out, "results.csv")), "an argument error ran points")


def check_failed_point():
    """Values valid alone, invalid together (ways must divide entries): that point fails at
    run time, the others run; exit 1, and the CSV row says so."""
    out = os.path.join(WORK, "combination")
    proc = sweep(SCENARIO, "--grid", "mtt.cache_entries=16,24", "--grid", "mtt.cache_ways=8,16",
                 "--out", out)
    check(proc.returncode == 1, f"a failing point: sweep exit {proc.returncode}, expected 1")
    with open(os.path.join(out, "results.csv"), newline="") as f:
        rows = {(r["mtt.cache_entries"], r["mtt.cache_ways"]): r for r in csv.DictReader(f)}
    check(len(rows) == 4, f"{len(rows)} rows, expected 4")
    bad = rows.get(("24", "16"), {})
    check(bad.get("passed") == "0" and bad.get("exit_code") == "2" and not bad.get("step0.ops"),
          f"the 24/16 point: {bad}")
    check(all(r["passed"] == "1" for k, r in rows.items() if k != ("24", "16")),
          "a valid point did not pass")
    check("must divide" in proc.stderr, "the failing point's error is not shown")


def no_orphans():
    """Children die with this process (PR_SET_PDEATHSIG), even if ctest kills it."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(1, signal.SIGKILL)


def start_cluster(procs):
    sched_file = os.path.join(WORK, "scheduler.json")
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON="False")
    common = dict(cwd=WORK, env=env, stdout=open(os.path.join(WORK, "cluster.log"), "a"),
                  stderr=subprocess.STDOUT, preexec_fn=no_orphans, start_new_session=True)
    procs.append(subprocess.Popen(
        [shutil.which("dask-scheduler") or "/usr/bin/dask-scheduler", "--host", "127.0.0.1",
         "--port", "0", "--no-dashboard", "--scheduler-file", sched_file, "--idle-timeout",
         "300"], **common))
    deadline = time.monotonic() + 60
    address = None
    while time.monotonic() < deadline and address is None:
        if procs[0].poll() is not None:
            break
        try:
            with open(sched_file) as f:
                address = json.load(f)["address"]
        except (OSError, ValueError, KeyError):
            time.sleep(0.2)
    if address is None:
        return None
    for i in range(2):
        procs.append(subprocess.Popen(
            [shutil.which("dask-worker") or "/usr/bin/dask-worker", address, "--host",
             "127.0.0.1", "--nthreads", "1", "--no-nanny", "--no-dashboard",
             "--death-timeout", "60", "--name", f"w{i}"], **common))
    from distributed import Client
    with Client(address, timeout="30s") as client:
        client.wait_for_workers(2, timeout=60)
        check(len(client.scheduler_info()["workers"]) == 2, "the cluster has not 2 workers")
    return address


def stop_cluster(procs):
    for p in reversed(procs):
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + 10
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    out = os.path.join(WORK, "out")
    if MODE == "local":
        proc = sweep(*grid_args(out), "--jobs", "2")
        check(proc.returncode == 0, f"sweep exit {proc.returncode}")
        check_output(out, remote=False)
        check_errors()
        check_failed_point()
    elif MODE == "dask":
        try:
            import distributed  # noqa: F401
        except ImportError:
            print("sweep: SKIP: no python3-distributed (scripts/setup installs it)")
            return 77
        procs = []
        try:
            address = start_cluster(procs)
            check(address is not None, "the Dask scheduler did not start (see cluster.log)")
            if address:
                print("cluster at", address)
                proc = sweep(*grid_args(out), "--scheduler", address)
                check(proc.returncode == 0, f"sweep exit {proc.returncode}")
                check_output(out, remote=True)
        finally:
            stop_cluster(procs)
        check(all(p.poll() is not None for p in procs), "a cluster process survived")
        if failures:
            with open(os.path.join(WORK, "cluster.log")) as f:
                sys.stdout.write(f.read()[-4000:])
    else:
        sys.exit(f"unknown mode {MODE}")
    print("sweep: FAIL" if failures else "sweep: PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
