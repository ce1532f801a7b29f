#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a scenario with --trace, --vcd and --out and checks the outputs:
- the trace is JSON in the trace-event format ({"traceEvents": [...]}, "X" slices with
  numeric ts/dur, metadata naming every pid/tid used, flows with matching s/f ids);
- every WQE the requesters executed (the `wqes` counters of the results) has a "fetch" slice
  on its node's fetcher track and a "completion" slice with the same request id, unless the
  trace says it was truncated;
- no two slices of one thread overlap (lanes), and every slice has dur >= 0;
- the VCD file has a header ending in $enddefinitions and timestamped value changes.
Usage: check_trace.py RNICSIM SCENARIO WORKDIR"""
import collections
import json
import os
import re
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    rnicsim, scenario, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    trace, vcd, out = (os.path.join(work, n) for n in ("trace.json", "waves.vcd", "results.json"))
    for f in (trace, vcd, out):
        if os.path.exists(f):
            os.remove(f)
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    run = subprocess.run([rnicsim, "run", scenario, "--trace", trace, "--vcd", vcd, "--out", out,
                          "--quiet"], env=env, capture_output=True, text=True)
    if run.returncode != 0:
        fail("rnicsim exited %d: %s" % (run.returncode, run.stderr))
    if run.stderr.strip():
        fail("unexpected stderr: " + run.stderr)

    with open(trace) as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    named_pids = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    named_tids = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    slices = [e for e in events if e["ph"] == "X"]
    if not slices:
        fail("no slices")
    process_of = {e["pid"]: e["args"]["name"] for e in events
                  if e["ph"] == "M" and e["name"] == "process_name"}
    thread_of = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
                 if e["ph"] == "M" and e["name"] == "thread_name"}
    lanes = collections.defaultdict(list)
    for s in slices:
        if not isinstance(s["ts"], (int, float)) or not isinstance(s["dur"], (int, float)):
            fail("non-numeric ts/dur: %r" % s)
        if s["dur"] < 0:
            fail("negative duration: %r" % s)
        if s["pid"] not in named_pids or (s["pid"], s["tid"]) not in named_tids:
            fail("slice on an unnamed track: %r" % s)
        lanes[(s["pid"], s["tid"])].append((s["ts"], s["ts"] + s["dur"]))
    for track, spans in lanes.items():
        spans.sort()
        for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
            if b0 < a1 - 1e-9:
                fail("overlapping slices on %s: %r %r" % (thread_of[track], (a0, a1), (b0, b1)))

    flows = collections.defaultdict(list)
    for e in events:
        if e["ph"] in ("s", "t", "f"):
            flows[e["id"]].append(e["ph"])
    for fid, phases in flows.items():
        if phases.count("s") != 1 or phases.count("f") != 1:
            fail("flow %s is not one s ... one f: %r" % (fid, phases))

    truncated = doc.get("otherData", {}).get("dropped_slices", 0) > 0
    with open(out) as f:
        results = json.load(f)
    stages = collections.defaultdict(set)  # (node, stage name) -> request ids
    for s in slices:
        rid = s.get("args", {}).get("request")
        if rid:
            stages[(process_of[s["pid"]], thread_of[(s["pid"], s["tid"])].split(" #")[0],
                    s["name"])].add(rid)
    checked = 0
    for owner, counters in results["stats"].items():
        if not owner.endswith(".rnic.requester"):
            continue
        node = "node " + owner.split(".")[0]
        fetched = stages[(node, "fetcher", "fetch")]
        completed = stages[(node, "completion", "completion")]
        wqes = counters["wqes"]
        if len(fetched) != wqes and not truncated:
            fail("%s: %d fetch slices for %d WQEs executed" % (node, len(fetched), wqes))
        missing = fetched - completed
        if missing and not truncated:
            fail("%s: WQEs fetched without a completion slice: %s" % (node, sorted(missing)))
        checked += wqes
    if checked == 0:
        fail("the scenario executed no WQEs")
    for stage in ("protection check", "translate", "DMA read", "tx read request",
                  "tx read response", "serve read", "execute"):
        if not any(k[2] == stage for k in stages):
            fail("no %r slice linked to a request" % stage)

    with open(vcd) as f:
        text = f.read()
    header, sep, body = text.partition("$enddefinitions")
    if not sep:
        fail("VCD has no $enddefinitions")
    if "$timescale" not in header or "$var" not in header:
        fail("VCD header lacks $timescale or $var")
    ids = set(re.findall(r"\$var\s+\S+\s+\d+\s+(\S+)\s", header))
    changes = re.findall(r"^b[01]+ (\S+)$", body, re.M)
    times = re.findall(r"^#(\d+)$", body, re.M)
    if not ids or not changes or len(times) < 2:
        fail("VCD has no value changes (%d vars, %d changes, %d times)"
             % (len(ids), len(changes), len(times)))
    if not set(changes) <= ids:
        fail("VCD changes name undeclared variables")
    if [int(t) for t in times] != sorted(int(t) for t in times):
        fail("VCD times go backwards")
    for name in ("sq_wqes_in_flight", "reads_outstanding", "pcie_upstream_busy_pct"):
        if name not in header:
            fail("VCD lacks " + name)
    print("trace: %d slices, %d flows, %d WQEs checked; vcd: %d vars, %d changes"
          % (len(slices), len(flows), checked, len(ids), len(changes)))

    # An idle span costs no sampling: 1,000 simulated seconds at the 100 ns period were 10^10
    # samples (about 38 minutes); the probe skips periods in which nothing runs. Not a speed
    # test: the limit is a hang guard two orders of magnitude above the real cost.
    idle = os.path.join(os.path.dirname(os.path.abspath(__file__)), "idle-wait.json")
    idle_vcd = os.path.join(work, "idle.vcd")
    try:
        run = subprocess.run([rnicsim, "run", idle, "--vcd", idle_vcd, "--quiet"], env=env,
                             capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        fail("--vcd over a 1,000 s idle wait did not finish: the probe samples idle periods")
    if run.returncode != 0:
        fail("idle run exited %d: %s" % (run.returncode, run.stderr))
    with open(idle_vcd) as f:
        if "$enddefinitions" not in f.read():
            fail("idle VCD has no header")
    print("vcd: a 1,000 s idle wait sampled without a hang")


main()
