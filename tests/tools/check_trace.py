#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a scenario with --trace, --vcd and --out and checks the outputs:
- the trace is JSON in the trace-event format ({"traceEvents": [...]}, "X" slices with
  numeric ts/dur, metadata naming every pid/tid used, flows with matching s/f ids);
- every WQE the requesters executed (the `wqes` counters of the results) has a "fetch" slice
  on its node's fetcher track and a "completion" slice with the same request id, unless the
  trace says it was truncated;
- no two slices of one thread overlap (lanes), and every slice has dur >= 0;
- the VCD file has a header ending in $enddefinitions and timestamped value changes;
- a window (--trace-from) on the measured step of WINDOWED (a read stream): no event before
  the step's start, the limit counted from there (the trace is full, not spent on set-up);
  the host track (post, doorbell, poll linked to the device's requests, in order, with post
  to poll matching the step's own latency) and the counter tracks (in range) are there;
  `rnicsim report` on it gives the stages, and refuses what is not a trace; a window from a
  time has nothing before that time either.
Usage: check_trace.py RNICSIM SCENARIO WINDOWED WORKDIR"""
import collections
import json
import math
import os
import re
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    rnicsim, scenario, windowed, work = sys.argv[1:5]
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
    check_window(rnicsim, windowed, work, env)
    check_time_window(rnicsim, windowed, work, env)
    print("trace: PASS")


def percentile(values, p):
    """Nearest rank, as rnicsim report computes it."""
    values = sorted(values)
    return values[max(1, math.ceil(p * len(values))) - 1]


def check_window(rnicsim, scenario, work, env):
    """The measured step (the last) of a read stream, windowed and limited."""
    trace, out = os.path.join(work, "window.json"), os.path.join(work, "window-results.json")
    limit = 30000
    run = subprocess.run([rnicsim, "run", scenario, "--trace", trace, "--out", out, "--quiet",
                          "--trace-from", "-1", "--trace-limit", str(limit)],
                         env=env, capture_output=True, text=True)
    if run.returncode != 0:
        fail("windowed run exited %d: %s" % (run.returncode, run.stderr))
    with open(out) as f:
        results = json.load(f)
    with open(trace) as f:
        doc = json.load(f)
    step = results["steps"][-1]
    other = doc["otherData"]
    start_us = other["window_start_us"]
    if abs(start_us - step["sim_ns_start"] / 1000.0) > 0.001:
        fail("window starts at %r us, the step at %r ns" % (start_us, step["sim_ns_start"]))
    if other["trace_from"] != "step %d (-1)" % step["index"]:
        fail("otherData.trace_from is %r" % other["trace_from"])
    events = [e for e in doc["traceEvents"] if e["ph"] != "M"]
    early = [e for e in events if e["ts"] < start_us - 1e-9]
    if early:
        fail("%d events before the window (first: %r)" % (len(early), early[0]))
    # Counted from the window: the limit fills with the step's events (set-up and warm-up are
    # thousands of events too; had they counted, far fewer would be here).
    # (the one "trace limit reached" marker is not a recorded event)
    recorded = [e for e in events if e["ph"] != "i"]
    if len(recorded) > limit or other["dropped_slices"] == 0:
        fail("%d events for a limit of %d, %d dropped" % (len(recorded), limit,
                                                          other["dropped_slices"]))
    if len(recorded) < 0.9 * limit:
        fail("only %d events for a limit of %d: the limit was not counted from the window"
             % (len(recorded), limit))
    if "trace limit" not in run.stderr:
        fail("no word on stderr of the limit: %r" % run.stderr)

    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
               if e["ph"] == "M" and e["name"] == "thread_name"}
    by_request = collections.defaultdict(dict)
    for e in events:
        if e["ph"] != "X" or "request" not in e.get("args", {}):
            continue
        unit = threads[(e["pid"], e["tid"])].split(" #")[0]
        by_request[e["args"]["request"]].setdefault((unit, e["name"]), []).append(e)
    for unit in ("host", "doorbell"):
        if not any(t == unit for t in threads.values()):
            fail("no %r thread" % unit)
    latencies = []
    for rid, stages in by_request.items():
        post, poll = stages.get(("host", "post")), stages.get(("host", "poll"))
        doorbell, fetch = stages.get(("doorbell", "doorbell")), stages.get(("fetcher", "fetch"))
        if post and doorbell:
            if doorbell[0]["ts"] < post[0]["ts"] or doorbell[0]["dur"] <= 0:
                fail("request %s: doorbell %r against post %r" % (rid, doorbell[0], post[0]))
        if post and fetch and fetch[0]["ts"] < post[0]["ts"]:
            fail("request %s fetched before it was posted" % rid)
        if post and poll:
            # After every other slice has begun. (Not ended: memory is written when the write is
            # booked, so the host may see a CQE a few ns before the completion slice's end.)
            last = max(s["ts"] for ss in stages.values() for s in ss)
            if poll[0]["ts"] + 1e-9 < last:
                fail("request %s: polled at %r before its last slice begins at %r"
                     % (rid, poll[0]["ts"], last))
            latencies.append((poll[0]["ts"] - post[0]["ts"]) * 1000.0)
    if len(latencies) < 100:
        fail("only %d requests with a post and a poll" % len(latencies))
    # The workload measures each read from its post to the host seeing its completion, as the
    # host track does (its percentiles are histogram bucket edges, within 1%).
    p50 = percentile(latencies, 0.5)
    want = step["metrics"]["latency_ns.p50"]
    if abs(p50 - want) > 0.02 * want:
        fail("post to poll p50 %.1f ns, the step's latency p50 %.1f ns" % (p50, want))

    counters = collections.defaultdict(list)
    for e in events:
        if e["ph"] == "C":
            counters[e["name"]].append(e["args"]["value"])
    bounds = {"reads_outstanding": 16, "sq_wqes_in_flight": 256,
              "dma_read_tags_in_use": results["config"]["pcie.max_read_tags"],
              "completion_queue_depth": 1024, "pcie_upstream_busy_pct": 100,
              "pcie_downstream_busy_pct": 100}
    for name, bound in bounds.items():
        values = counters.get(name)
        if not values:
            fail("no counter track %r" % name)
        if min(values) < 0 or max(values) > bound:
            fail("counter %s out of 0..%d: %r..%r" % (name, bound, min(values), max(values)))
        if name in ("reads_outstanding", "dma_read_tags_in_use") and max(values) == 0:
            fail("counter %s never moved during a read stream" % name)

    report = subprocess.run([rnicsim, "report", trace], env=env, capture_output=True, text=True)
    if report.returncode != 0:
        fail("report exited %d: %s" % (report.returncode, report.stderr))
    for needle in ("window from step %d" % step["index"], "end to end: post to poll",
                   "fetcher     fetch", "responder   serve read", "counter tracks"):
        if needle not in report.stdout:
            fail("report lacks %r:\n%s" % (needle, report.stdout))
    for bad, needle in ((work, "is a directory"), (scenario, "neither a trace")):
        r = subprocess.run([rnicsim, "report", bad], env=env, capture_output=True, text=True)
        if r.returncode != 2 or needle not in r.stderr:
            fail("report %s: exit %d, %r" % (bad, r.returncode, r.stderr))
    print("window: %d events from %.3f us, %d requests with post and poll (p50 %.1f ns), "
          "%d counter tracks" % (len(events), start_us, len(latencies), p50, len(counters)))


def check_time_window(rnicsim, scenario, work, env):
    """A window from a simulated time: the middle of the measured step, in us with a fraction."""
    with open(os.path.join(work, "window-results.json")) as f:
        step = json.load(f)["steps"][-1]
    middle_ns = (step["sim_ns_start"] + step["sim_ns_end"]) // 2
    trace = os.path.join(work, "time-window.json")
    run = subprocess.run([rnicsim, "run", scenario, "--trace", trace, "--quiet",
                          "--trace-limit", "5000", "--trace-from", "%.3fus" % (middle_ns / 1000.0)],
                         env=env, capture_output=True, text=True)
    if run.returncode != 0:
        fail("time window run exited %d: %s" % (run.returncode, run.stderr))
    with open(trace) as f:
        doc = json.load(f)
    events = [e for e in doc["traceEvents"] if e["ph"] != "M"]
    if not any(e["ph"] == "X" for e in events):
        fail("nothing after %d ns" % middle_ns)
    if min(e["ts"] for e in events) < middle_ns / 1000.0 - 1e-9:
        fail("an event before the window at %d ns" % middle_ns)
    if abs(doc["otherData"]["window_start_us"] - middle_ns / 1000.0) > 1e-6:
        fail("window_start_us %r for %d ns" % (doc["otherData"]["window_start_us"], middle_ns))
    print("time window: %d events from %d ns" % (len(events), middle_ns))


main()
