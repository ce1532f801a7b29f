#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The bottleneck report names the resource that binds (docs/user-guide.md, "Reading the
bottleneck report").

Usage: check_bottlenecks.py RNICSIM SOURCE_DIR WORK_DIR

For each kind of bounded resource, runs a scenario of scenarios/perf/ made to run into that
resource (a --set that narrows it; counts cut so that each run takes a second or so, the
workload steps' bounds dropped since the narrowed device misses them on purpose) and requires
the last workload step's `bottlenecks[0]` to be that resource on that node (with a wait, for
the cases of WAITED), the summary's `bound by:` line to name it, and the list to be sorted. Then checks the windows' occupancy
means against the whole run's (check_windows). Prints "bottlenecks: PASS".
"""
import json
import os
import subprocess
import sys

WORKLOADS = ("read_stream", "write_stream", "traffic", "dma_bench", "pingpong")

# (what binds, scenario, --set values, count of the measured step, accepted (node, resource)
# at the top[, changes: "qp": fields to change in create_qp steps by QP name; "flows": copies
# of a traffic step's flow, each with CQs of its own]). A port: the responder's sender and the requester's receiver carry the same
# bytes, either may rank first.
CASES = [
    ("read tags", "read-64b.json", ["pcie.max_read_tags=2"], 2000, {("B", "read_tags")}),
    ("MTT miss registers", "read-64b-miss.json", ["mtt.max_outstanding_misses=1"], 2000,
     {("B", "mtt.miss_registers")}),
    ("port", "read-bandwidth-64k.json", [], 300, {("B", "port.tx"), ("A", "port.rx")}),
    # The link carries the responder's reads host->device (B pcie.down) and the requester's
    # writes device->host (A pcie.up): the same bytes, either may rank first.
    ("PCIe link", "read-bandwidth-64k.json", ["pcie.lanes=1"], 100,
     {("B", "pcie.down"), ("A", "pcie.up")}),
    ("ORD", "read-64b.json", [], 2000, {("A", "ord")}),
    # ORD 4 (IRD 4 to match): reads are refused at the requester and wait for a slot.
    ("ORD full", "read-64b.json", [], 2000, {("A", "ord")},
     {"qp": {"qpA": {"ord": 4}, "qpB": {"ird": 4}}}),
    ("responder read contexts", "read-64b.json", ["responder.read_contexts=1"], 2000,
     {("B", "responder.read_contexts")}),
    ("host read service", "read-bandwidth-64k.json",
     ["host.line_service_ns=400", "host.lines_in_service=4"], 100,
     {("B", "host.read_service")}),
    ("WQE buffer", "traffic-qps.json", ["wqe.cache_entries=4"], 3000, {("A", "wqe.buffer")}),
    ("QPC miss registers", "traffic-qps.json",
     ["qpc.cache_entries=16", "qpc.max_outstanding_misses=1"], 3000,
     {("A", "qpc.miss_registers")}),
    # One read channel of 16 B a cycle (64 Gb/s at 500 MHz, below the port's 100 Gb/s): the
    # responder's 64 KiB reads hold it from their first data in to their last line moved, and
    # the others' data waits for it. (At the default 32 B a cycle one channel outruns the port,
    # which then binds.)
    ("DMA read channels", "read-bandwidth-64k.json",
     ["dma.read_channels=1", "dma.read_bytes_per_cycle=16"], 100, {("B", "dma.read_channels")}),
    # The responder QP's IRD below the requester's ORD: reads wait at B for an IRD slot.
    ("IRD", "read-64b.json", [], 2000, {("B", "ird")}, {"qp": {"qpB": {"ird": 2}}}),
    # Four MPT entries for eight MRs read round-robin: every read misses, one at a time.
    ("MPT miss registers", "read-mr-count.json",
     ["mpt.cache_entries=4", "mpt.max_outstanding_misses=1"], 2000,
     {("B", "mpt.miss_registers")}),
    # One CQ context cached, eight flows with a CQ each on A: completions alternate CQs.
    ("CQC miss registers", "traffic-qps.json",
     ["cqc.cache_entries=1", "cqc.cache_ways=1", "cqc.max_outstanding_misses=1"], 3000,
     {("A", "cqc.miss_registers")}, {"flows": 8}),
]

# Cases whose top resource must show a wait (wait_ns > 0): the narrowed resource is full and
# work queues for it, and its unit counts the time.
WAITED = {"ORD full", "WQE buffer", "DMA read channels", "read tags", "MTT miss registers",
          "responder read contexts", "host read service", "MPT miss registers",
          "CQC miss registers"}


def shrink(scenario, count, changes, qps=64):
    """Cuts the workload steps' counts, drops their bounds, makes the case's changes."""
    for step in scenario["steps"]:
        if step["op"] == "create_qp":
            step.update(changes.get("qp", {}).get(step["name"], {}))
        if step["op"] not in WORKLOADS:
            continue
        step.pop("expect", None)
        if step["op"] == "traffic":
            step["ops"] = count
            step["warmup_ops"] = min(step.get("warmup_ops", 0), count // 4)
            for flow in step["flows"]:
                flow["qps"] = min(flow["qps"], qps)
            step["flows"] *= changes.get("flows", 1)
        elif "count" in step:
            step["count"] = min(step["count"], count)
    return scenario


def check_windows(rnicsim, source, work, env):
    """The windows' occupancy means add up to the whole run's: in perf/read-64b reads are
    outstanding only during its two read_stream steps, so their windows' areas (mean x
    length) sum to the whole run's mean x sim_ns; and a window's ORD utilization is its mean
    over the QP's ORD (16)."""
    out = os.path.join(work, "read-64b-results.json")
    r = subprocess.run([rnicsim, "run", os.path.join(source, "scenarios", "perf", "read-64b.json"),
                        "--quiet", "--out", out], capture_output=True, text=True, timeout=300,
                       env=env)
    if r.returncode != 0:
        return [f"read-64b: exit {r.returncode}: {r.stderr.strip()[:300]}"]
    with open(out) as f:
        results = json.load(f)
    owner, name = "A.rnic.requester", "reads_outstanding"
    whole = results["stats"][owner][name]["mean"] * results["sim_ns"]
    windows = [s for s in results["steps"] if "window_occupancy" in s]
    parts = sum(s["window_occupancy"][owner][name] * (s["sim_ns_end"] - s["sim_ns_start"])
                for s in windows)
    problems = []
    print(f"windows: {name} area {parts:.0f} of the whole run's {whole:.0f}")
    if len(windows) != 2 or abs(parts - whole) > 0.005 * whole:
        problems.append(f"windows: {len(windows)} windows, {name} area {parts} != {whole}")
    for s in windows:
        ord_load = [b for b in s["bottlenecks"] if (b["node"], b["resource"]) == ("A", "ord")]
        mean = s["window_occupancy"][owner][name]
        if len(ord_load) != 1 or abs(ord_load[0]["utilization"] - mean / 16) > 1e-3:
            problems.append(f"windows: step {s['index']} A ord {ord_load} != {mean} / 16")
    return problems


def main():
    rnicsim, source, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    failures = []
    for what, name, sets, count, accepted, *changes in CASES:
        with open(os.path.join(source, "scenarios", "perf", name)) as f:
            scenario = shrink(json.load(f), count, changes[0] if changes else {})
        tag = what.replace(" ", "-")
        path = os.path.join(work, tag + ".json")
        out = os.path.join(work, tag + "-results.json")
        with open(path, "w") as f:
            json.dump(scenario, f)
        cmd = [rnicsim, "run", path, "--out", out]
        for s in sets:
            cmd += ["--set", s]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
        if r.returncode != 0:
            failures.append(f"{what}: exit {r.returncode}: {r.stderr.strip()[:300]}")
            continue
        with open(out) as f:
            results = json.load(f)
        steps = [s for s in results["steps"] if s["op"] in WORKLOADS]
        ranked = steps[-1].get("bottlenecks", [])
        if not ranked:
            failures.append(f"{what}: the measured step has no bottlenecks")
            continue
        top = (ranked[0]["node"], ranked[0]["resource"])
        utilizations = [b["utilization"] for b in ranked]
        print(f"{what}: bound by {top[0]} {top[1]} {ranked[0]['utilization']:.3f} "
              f"(next {ranked[1]['node']} {ranked[1]['resource']} "
              f"{ranked[1]['utilization']:.3f})")
        if top not in accepted:
            failures.append(f"{what}: top resource {top}, expected one of {sorted(accepted)}")
        if what in WAITED and not ranked[0]["wait_ns"] > 0:
            failures.append(f"{what}: {top} binds but no wait was counted")
        if utilizations != sorted(utilizations, reverse=True):
            failures.append(f"{what}: bottlenecks not sorted by utilization")
        line = f"bound by: {top[0]} {top[1]} "
        if line not in r.stdout:
            failures.append(f"{what}: the summary has no line with {line!r}")
        if "bottlenecks" not in results or not results["bottlenecks"]:
            failures.append(f"{what}: no whole-run bottlenecks in the results")
    failures += check_windows(rnicsim, source, work, env)
    for failure in failures:
        print("FAIL", failure)
    print("bottlenecks: FAIL" if failures else "bottlenecks: PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
