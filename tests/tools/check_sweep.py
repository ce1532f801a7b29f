#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest sweep/local and sweep/dask: a 3x3 grid (a config key x a scenario field) over
tests/tools/tiny.json through scripts/sweep, locally or through a Dask cluster this script
starts on loopback (a scheduler and two single-threaded workers) and always stops.
Checks: 9 rows, every point passed, each row's config and bytes follow its grid values, the
plots are PNGs with unit-bearing axis labels and default file names, the progress line has an
ETA. The local run also checks the argument errors (exit 2), bad paths (exit 2, one line on
stderr, no traceback, nothing written), --zip, --resume, --replot and that no build runs when
a binary is given, and a pingpong step's metrics under a grid of its flags with a --ref
overlay.

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
PINGPONG = os.path.join(ROOT, "tests", "tools", "tiny-pingpong.json")
MRRS = ["128", "256", "512"]
SIZES = ["256", "1024", "4096"]
COUNT = 200  # tiny.json's count
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def sweep(*args, rnicsim=True, env=None):
    cmd = [sys.executable, SWEEP, *args] + (["--rnicsim", RNICSIM] if rnicsim else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, **(env or {})))
    print("$", " ".join(cmd[1:]), "->", proc.returncode)
    sys.stdout.write(proc.stdout)
    sys.stdout.write(proc.stderr)
    return proc


def grid_args(out):
    return [SCENARIO, "--grid", "pcie.mrrs=" + ",".join(MRRS),
            "--grid", "steps[0].size=" + ",".join(SIZES), "--out", out,
            "--plot", "x=steps[0].size,y=gbps,series=pcie.mrrs,logx,file=gbps.png",
            "--plot", "x=pcie.mrrs,y=latency_ns.p50,series=steps[0].size"]


def read_csv(out):
    with open(os.path.join(out, "results.csv"), newline="") as f:
        return list(csv.DictReader(f))


def read_json(out):
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)


def is_png(path):
    if not os.path.exists(path):
        return False
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 1000


def check_labels(proc, out):
    """Default labels carry units, legends and default file names are short (one workload
    step: no step in the name); the progress line has an ETA."""
    check("(x: size [B]; y: gbps [Gb/s])" in proc.stdout, "gbps.png: axis labels without units")
    check("(x: pcie.mrrs [B]; y: latency_ns.p50 [ns])" in proc.stdout,
          "latency plot: axis labels without units")
    check(is_png(os.path.join(out, "latency_ns.p50-vs-pcie.mrrs-by-size.png")),
          "no default-named latency_ns.p50-vs-pcie.mrrs-by-size.png")
    check(not [f for f in os.listdir(out) if "step0" in f or "[" in f],
          f"a plot file name keeps a step or bracket: {os.listdir(out)}")
    check("sweep: 9/9 points" in proc.stderr and "ETA " in proc.stderr,
          "no progress line with an ETA on stderr")


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
        ([SCENARIO, "--grid", "pcie.mrr=256,512", "--out", out], 'did you mean "pcie.mrrs"?'),
        ([SCENARIO, "--grid", "pcie.mrrs=256", "--set", "pcie.mps=256", "--set", "port.mtus=1024",
          "--out", out], 'unknown config key "port.mtus"; did you mean "port.mtu"?'),
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


def check_paths():
    """Paths the sweep cannot use exit 2 with one line on stderr (no traceback), before anything
    runs, and nothing is written: not over the file in the way, not over the scenario, not
    outside the --out DIR."""
    blocker = os.path.join(WORK, "blocker.txt")  # a regular file where a folder should be
    with open(blocker, "w") as f:
        f.write("not a folder\n")
    in_place = os.path.join(WORK, "in-place")  # the scenario is DIR/results.json
    os.makedirs(in_place, exist_ok=True)
    shutil.copy(SCENARIO, os.path.join(in_place, "results.json"))
    with open(SCENARIO) as f:
        scenario_text = f.read()
    plotted = os.path.join(WORK, "paths-out")
    replotted = os.path.join(WORK, "paths-replot")  # a sweep's output with a broken results.json
    os.makedirs(replotted, exist_ok=True)
    shutil.copy(os.path.join(WORK, "out", "results.csv"), replotted)
    with open(os.path.join(replotted, "results.json"), "w") as f:
        f.write("{ cut short")
    grid = ["--grid", "pcie.mrrs=256"]
    plot = "x=pcie.mrrs,y=gbps"
    for args, what, rnicsim in [
        ([SCENARIO, *grid, "--out", blocker], "exists and is not a directory", True),
        ([SCENARIO, *grid, "--out", os.path.join(blocker, "sub")], "is not a directory", True),
        ([os.path.join(in_place, "results.json"), *grid, "--out", in_place],
         "the scenario itself", True),
        ([SCENARIO, *grid, "--out", plotted, "--plot", plot + ",file=../escaped.png"],
         "not a plain file name", True),
        ([SCENARIO, *grid, "--out", plotted, "--plot", plot + ",file=results.csv"],
         "a file the sweep writes", True),
        ([SCENARIO, *grid, "--out", plotted, "--plot", plot + ",file=gbps.nope"],
         "matplotlib writes no .nope files", True),
        (["--replot", os.path.join(WORK, "out"), "--plot", plot, "--out", blocker],
         "exists and is not a directory", False),
        (["--replot", replotted, "--plot", plot], "cannot read", False),
        (["--replot", os.path.join(WORK, "out"), "--plot", plot + ",file=results.csv"],
         "a file the sweep writes", False),
    ]:
        proc = sweep(*args, rnicsim=rnicsim)
        check(proc.returncode == 2, f"{what}: exit {proc.returncode}, expected 2")
        check(what in proc.stderr, f"{what}: not named on stderr")
        check("Traceback" not in proc.stderr, f"{what}: a traceback on stderr")
        check(len(proc.stderr.strip().splitlines()) == 1, f"{what}: not one line on stderr")
    with open(blocker) as f:
        check(f.read() == "not a folder\n", "--out FILE: the file changed")
    with open(os.path.join(in_place, "results.json")) as f:
        check(f.read() == scenario_text, "--out DIR over the scenario DIR/results.json: changed")
    check(not os.path.exists(os.path.join(WORK, "escaped.png")), "a plot left the --out DIR")
    check(not os.path.exists(plotted), "a refused sweep made its --out DIR")
    with open(os.path.join(WORK, "out", "results.csv")) as f:
        check(f.read().startswith("pcie.mrrs,"), "--replot file=results.csv wrote over its input")


def check_zip():
    """--zip keys advance together, crossed with --grid: 2 x 3 points, not 2 x 3 x 3."""
    out = os.path.join(WORK, "zip")
    proc = sweep(SCENARIO, "--grid", "pcie.mrrs=256,512", "--zip", "steps[0].size=256,1024,4096",
                 "--zip", "steps[0].outstanding=2,4,8", "--out", out, "--jobs", "2",
                 "--plot", "x=steps[0].size,y=gbps,series=pcie.mrrs")
    check(proc.returncode == 0, f"--zip: sweep exit {proc.returncode}")
    rows = read_csv(out)
    check(len(rows) == 6, f"--zip: {len(rows)} rows, expected 6")
    pairs = {(r["pcie.mrrs"], r["steps[0].size"], r["steps[0].outstanding"]) for r in rows}
    check(pairs == {(m, s, o) for m in ("256", "512") for s, o in
                    (("256", "2"), ("1024", "4"), ("4096", "8"))}, f"--zip points: {pairs}")
    for r in rows:
        check(float(r["step0.bytes"]) == COUNT * int(r["steps[0].size"]),
              f"--zip point {r['point']}: bytes do not follow the size")
    check(read_json(out)["zip"] == {"steps[0].size": ["256", "1024", "4096"],
                                    "steps[0].outstanding": ["2", "4", "8"]},
          "--zip: results.json has not the zip keys")
    check(is_png(os.path.join(out, "gbps-vs-size-by-pcie.mrrs.png")), "--zip: no plot")
    for args, what in [
        (["--zip", "steps[0].size=256,1024", "--zip", "pcie.mrrs=256"], "same number of values"),
        (["--grid", "pcie.mrrs=256,512", "--zip", "pcie.mrrs=128,256"], "given twice"),
    ]:
        proc = sweep(SCENARIO, *args, "--out", os.path.join(WORK, "zip-errors"))
        check(proc.returncode == 2 and what in proc.stderr, f"--zip error {what!r}: "
              f"exit {proc.returncode}")


def check_resume():
    """--resume keeps the points that passed with the same parameters and runs the rest: the
    failed one (24/16) again, and the new ones (32/...)."""
    out = os.path.join(WORK, "resume")
    first = sweep(SCENARIO, "--grid", "mtt.cache_entries=16,24", "--grid", "mtt.cache_ways=8,16",
                  "--out", out)
    check(first.returncode == 1, f"resume, first run: exit {first.returncode}, expected 1")
    before = {tuple(p["params"].values()): p for p in read_json(out)["points"]}
    proc = sweep(SCENARIO, "--grid", "mtt.cache_entries=16,24,32", "--grid",
                 "mtt.cache_ways=8,16", "--out", out, "--resume")
    check(proc.returncode == 1, f"resume: exit {proc.returncode}, expected 1 (24/16 fails)")
    check("3 point(s) kept" in proc.stdout and "3 to run" in proc.stdout,
          "resume: not 3 points kept and 3 run")
    check("sweep: 3/3 points" in proc.stderr, "resume: the progress does not count 3 runs")
    points = read_json(out)["points"]
    check(len(points) == 6 and len(read_csv(out)) == 6, "resume: not 6 points in the output")
    reused = {tuple(p["params"].values()) for p in points if p["reused"]}
    check(reused == {("16", "8"), ("16", "16"), ("24", "8")}, f"resume: reused {reused}")
    for p in points:
        key = tuple(p["params"].values())
        if key in reused:
            check(p["results"] == before[key]["results"], f"resume: {key} results changed")
        else:
            check(p["ran_in"] == read_json(out)["sweep_process"], f"resume: {key} did not run")
    # Other rnicsim arguments: nothing is kept.
    proc = sweep(SCENARIO, "--grid", "mtt.cache_entries=16", "--out", out, "--resume",
                 "--set", "pcie.mrrs=256")
    check("0 point(s) kept" in proc.stdout, "resume with another --set kept a point")


def check_resume_interrupted():
    """A sweep killed after its first point leaves it in points.partial.jsonl; --resume keeps
    it and runs the rest."""
    out = os.path.join(WORK, "interrupted")
    slow = ["--grid", "steps[0].count=1000000", "--grid", "pcie.mrrs=128,256,512,1024",
            "--jobs", "1", "--out", out]
    cmd = [sys.executable, SWEEP, SCENARIO, *slow, "--rnicsim", RNICSIM]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    try:
        for line in proc.stderr:
            if line.startswith("sweep: 1/4 points"):
                break
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the sweep and the run in progress
        proc.wait()
    check(not os.path.exists(os.path.join(out, "results.json")),
          "the interrupted sweep wrote results.json (killed too late?)")
    with open(os.path.join(out, "points.partial.jsonl")) as f:
        finished = len(f.readlines())
    check(1 <= finished < 4, f"points.partial.jsonl has {finished} points")
    proc = sweep(SCENARIO, *slow, "--resume")
    check(proc.returncode == 0, f"resume after an interruption: exit {proc.returncode}")
    check(f"{finished} point(s) kept" in proc.stdout, "resume did not keep the finished points")
    check(sum(p["reused"] for p in read_json(out)["points"]) == finished,
          "resume: not the finished points reused")
    check(len(read_csv(out)) == 4, "resume after an interruption: not 4 rows")
    check(not os.path.exists(os.path.join(out, "points.partial.jsonl")),
          "the checkpoint outlived the sweep")


def check_replot():
    """--replot draws from results.csv with new specs, running and building nothing: there is
    no binary at all to run here."""
    out = os.path.join(WORK, "out")
    with open(os.path.join(out, "results.csv")) as f:
        csv_before = f.read()
    stamp = os.path.getmtime(os.path.join(out, "results.json"))
    empty = os.path.join(WORK, "no-build")
    os.makedirs(empty, exist_ok=True)
    proc = sweep("--replot", out, "--plot", "x=pcie.mrrs,y=mops,series=steps[0].size,logx",
                 "--plot", "x=steps[0].size,y=step0.latency_ns.p99,file=p99.png", rnicsim=False,
                 env={"RNICSIM_BUILD_DIR": empty, "RNICSIM": ""})
    check(proc.returncode == 0, f"--replot: exit {proc.returncode}")
    check(is_png(os.path.join(out, "mops-vs-pcie.mrrs-by-size.png")) and
          is_png(os.path.join(out, "p99.png")), "--replot: plots missing")
    check("(x: pcie.mrrs [B]; y: mops [Mop/s])" in proc.stdout, "--replot: labels without units")
    with open(os.path.join(out, "results.csv")) as f:
        check(f.read() == csv_before, "--replot rewrote results.csv")
    check(os.path.getmtime(os.path.join(out, "results.json")) == stamp,
          "--replot rewrote results.json")
    check(os.listdir(empty) == [], "--replot built something")
    check("building" not in proc.stderr, "--replot built rnicsim")
    proc = sweep("--replot", os.path.join(WORK, "nowhere"), "--plot", "x=a,y=gbps",
                 rnicsim=False)
    check(proc.returncode == 2 and "no " in proc.stderr, "--replot of a missing DIR: not exit 2")


def check_pingpong_flags():
    """A pingpong step is a workload: its metrics are CSV columns and plottable. Its flags are
    a grid key (INLINE, none): INLINE skips the payload's DMA read, so its latency is lower at
    each size. A --ref CSV's points are drawn on the plot whose x and y it names."""
    out = os.path.join(WORK, "pingpong")
    ref = os.path.join(WORK, "pingpong-ref.csv")
    with open(ref, "w") as f:
        f.write("size,latency_ns.p50,series,label\n2,1100,INLINE,made-up reference\n"
                "64,1200,INLINE,made-up reference\n2,1500,none,made-up reference\n")
    proc = sweep(PINGPONG, "--grid", "steps[7].flags=INLINE,none", "--grid",
                 "steps[7].size=2,64", "--out", out, "--jobs", "2", "--ref", ref,
                 "--plot", "x=steps[7].size,y=latency_ns.p50,series=steps[7].flags,logx",
                 "--plot", "x=steps[7].flags,y=mops,series=steps[7].size")
    check(proc.returncode == 0, f"pingpong: sweep exit {proc.returncode}")
    rows = read_csv(out) if os.path.exists(os.path.join(out, "results.csv")) else []
    check(len(rows) == 4, f"pingpong: {len(rows)} rows, expected 4")
    for metric in ("ops", "bytes", "mops", "latency_ns.p50", "latency_ns.p99"):
        check(all(r.get(f"step7.{metric}") for r in rows), f"pingpong: no step7.{metric}")
    latency = {(r["steps[7].flags"], r["steps[7].size"]): float(r["step7.latency_ns.p50"] or 0)
               for r in rows}
    for size in ("2", "64"):
        check(0 < latency.get(("INLINE", size), 0) < latency.get(("none", size), 0),
              f"pingpong size {size}: INLINE not faster than none: {latency}")
    check(all(float(r["step7.ops"]) == 200 and
              float(r["step7.bytes"]) == 2 * 200 * int(r["steps[7].size"]) for r in rows),
          "pingpong: ops or bytes do not follow count and size")
    check(is_png(os.path.join(out, "latency_ns.p50-vs-size-by-flags.png")) and
          is_png(os.path.join(out, "mops-vs-flags-by-size.png")), "pingpong: plots missing")
    check("(x: size [B]; y: latency_ns.p50 [ns]) with 3 reference point(s)" in proc.stdout,
          "pingpong: the reference points were not drawn on the latency plot")
    check("mops-vs-flags-by-size.png (x: flags; y: mops [Mop/s])\n" in proc.stdout,
          "pingpong: the flags plot has reference points or other labels")
    # --replot with ref= on the plot; a --ref that fits no plot is refused (exit 2).
    proc = sweep("--replot", out, "--plot", f"x=steps[7].size,y=step7.latency_ns.p50,logx,"
                 f"ref={ref},file=replot-ref.png", rnicsim=False)
    check(proc.returncode == 0 and "with 3 reference point(s)" in proc.stdout and
          is_png(os.path.join(out, "replot-ref.png")), "--replot ref=: not drawn")
    proc = sweep("--replot", out, "--plot", "x=steps[7].flags,y=mops", "--ref", ref,
                 rnicsim=False)
    check(proc.returncode == 2 and "matches no plot" in proc.stderr,
          f"--ref for no plot: exit {proc.returncode}")


def check_no_build():
    """With --rnicsim, no build runs even when the build directory is empty."""
    empty = os.path.join(WORK, "empty-build")
    os.makedirs(empty, exist_ok=True)
    proc = sweep(SCENARIO, "--grid", "pcie.mrrs=256", "--out", os.path.join(WORK, "nobuild"),
                 env={"RNICSIM_BUILD_DIR": empty})
    check(proc.returncode == 0, f"--rnicsim with an empty build dir: exit {proc.returncode}")
    check("building" not in proc.stderr and os.listdir(empty) == [],
          "a build ran although --rnicsim was given")


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
        check_labels(proc, out)
        check_errors()
        check_failed_point()
        check_zip()
        check_resume()
        check_resume_interrupted()
        check_replot()
        check_paths()
        check_no_build()
        check_pingpong_flags()
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
                check_labels(proc, out)
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
