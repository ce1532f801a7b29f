#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The memory budget's estimate against the peak RSS of real runs (docs/user-guide.md, Limits).

Usage: check_memory.py RNICSIM WORK_DIR

Writes a few files that each stress one part of the estimate (buffers filled and compared,
reads and writes in flight, fast mode, large caches on 8 nodes, traffic and pingpong with
large messages, a long dma_bench, a long read stream, many steps with --out), asks `rnicsim validate` for each one's estimate, runs
it, and checks that the peak resident memory stayed under the estimate (an upper bound: a
file the budget accepts stays within it) and that the estimate is not far above it where the
file really uses what it asks for. Then checks that `run` refuses a file whose estimate is
above --memory-budget. Prints "memory: PASS". Skipped (77) under ASan, whose shadow memory
and quarantine are not rnicsim's.
"""
import json
import os
import re
import subprocess
import sys

MiB = 1 << 20
UNITS = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def pair(size, fill="incrementing"):
    """Connected QPs qpA (node A) and qpB (node B); MRs mrA on sink (A), mrB on src (B)."""
    return [
        {"op": "alloc", "node": "A", "name": "sink", "size": size},
        {"op": "alloc", "node": "B", "name": "src", "size": size, "fill": fill},
        {"op": "create_pd", "node": "A", "name": "pdA"},
        {"op": "create_pd", "node": "B", "name": "pdB"},
        {"op": "create_cq", "node": "A", "name": "cqA"},
        {"op": "create_cq", "node": "B", "name": "cqB"},
        {"op": "create_qp", "name": "qpA", "pd": "pdA", "cq": "cqA"},
        {"op": "create_qp", "name": "qpB", "pd": "pdB", "cq": "cqB"},
        {"op": "connect", "qp": "qpA", "peer": "qpB"},
        {"op": "create_mr", "name": "mrA", "pd": "pdA"},
        {"op": "register_mr", "mr": "mrA", "buffer": "sink",
         "flags": ["ALLOW_LOCAL_WRITE", "ALLOW_REMOTE_WRITE", "RDMA_READ_SINK"]},
        {"op": "create_mr", "name": "mrB", "pd": "pdB"},
        {"op": "register_mr", "mr": "mrB", "buffer": "src",
         "flags": ["ALLOW_LOCAL_WRITE", "ALLOW_REMOTE_READ", "ALLOW_REMOTE_WRITE"]},
    ]


def verb(op, size, context):
    return {"op": op, "qp": "qpA", "sgl": [{"mr": "mrA", "length": size}],
            "remote": {"target": "mrB"}, "context": context}


def poll(count):
    return {"op": "poll", "cq": "cqA", "count": count, "timeout_ns": 10000000000}


def files():
    """(name, scenario, run options, whether the estimate must be close to the peak): each
    stresses one part of the estimate."""
    big = 256 * MiB
    read_check = pair(big) + [verb("read", big, 1), poll(1),
                              {"op": "expect_memory", "buffer": "sink", "length": big,
                               "equals": {"buffer": "src"}}]
    in_flight = pair(64 * MiB) + [verb("read", 64 * MiB, i) for i in range(4)] + [poll(4)]
    writes = pair(64 * MiB) + [verb("write", 64 * MiB, i) for i in range(4)] + [poll(4)]
    nodes = ["N%d" % i for i in range(8)]
    caches = {"mtt.cache_entries": 262144, "mtt.cache_ways": 8, "mpt.cache_entries": 262144}
    stream = pair(16 * MiB) + [{"op": "read_stream", "qp": "qpA", "count": 2000, "size": 1 << 20,
                                "outstanding": 16, "sgl": {"mr": "mrA"},
                                "remote": {"target": "mrB", "span": 16 * MiB}}]
    waits = [{"op": "wait", "ns": 1} for _ in range(100000)]

    def traffic(verb):
        return [{"op": "traffic", "ops": 1, "flows": [
            {"src": "A", "dst": "B", "verb": verb, "qps": 1, "size": big // 2,
             "region_bytes": big // 2}]}]

    def pingpong(verb):
        return pair(4096)[2:9] + [{"op": "pingpong", "qp": "qpA", "peer": "qpB", "verb": verb,
                                   "size": 64 * MiB, "count": 2}]
    fast = {"set": {"sim.fast": 1}}
    return [
        ("read-check", {"steps": read_check}, [], True),
        ("reads-in-flight", {"steps": in_flight}, [], True),
        ("reads-in-flight-fast", {"steps": in_flight, "config": {"set": {"sim.fast": 1}}}, [], True),
        # The smallest read requests: the most DMA read bookings per byte in flight.
        ("reads-in-flight-mrrs128", {"steps": in_flight, "config": {"set": {"pcie.mrrs": 128}}},
         [], True),
        ("writes-in-flight", {"steps": writes}, [], True),
        ("caches", {"nodes": nodes, "config": {"set": caches},
                    "steps": [{"op": "create_pd", "node": "N0", "name": "pd"}]}, [], True),
        # Workloads that build their own buffers and keep their transfers in flight.
        ("traffic-read", {"steps": traffic("read")}, [], True),
        ("traffic-send-fast", {"steps": traffic("send"), "config": fast}, [], True),
        ("pingpong-write", {"steps": pingpong("write")}, [], True),
        ("pingpong-send-fast", {"steps": pingpong("send"), "config": fast}, [], True),
        ("dma-bench", {"steps": [{"op": "dma_bench", "node": "A", "size": 64, "count": 2000000,
                                  "outstanding": 16}]}, [], False),
        ("read-stream", {"steps": stream}, [], False),
        ("steps-out", {"steps": waits}, ["--out", "steps-out-results.json"], False),
    ]


def size(text):
    """ "1.5 GiB" -> bytes, rounded up: sizes are printed with 3 significant digits."""
    number, unit = text.split()
    return float(number) * UNITS[unit] * 1.005


def estimate(rnicsim, path, extra):
    """The estimate of `rnicsim run PATH EXTRA...`: validate's (a plain run), else run's own,
    read from its refusal at the smallest budget (EXTRA such as --out adds to it)."""
    if not extra:
        r = subprocess.run([rnicsim, "validate", path], capture_output=True, text=True,
                           timeout=120)
        m = re.search(r"memory estimate ([0-9.]+ [A-Za-z]+) of the", r.stdout)
    else:
        r = subprocess.run([rnicsim, "run", path, "--memory-budget", "64MiB"] + extra,
                           capture_output=True, text=True, timeout=120)
        m = re.search(r"needs about ([0-9.]+ [A-Za-z]+) of memory", r.stderr)
    if not m:
        fail(f"no estimate for {path} {extra}: exit {r.returncode}: {r.stdout} {r.stderr}")
    return size(m.group(1))


def peak_rss(rnicsim, args):
    """Runs rnicsim, returns its peak resident memory in bytes."""
    p = subprocess.Popen([rnicsim] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode()
    p.stderr.close()
    if p.returncode != 0:
        fail(f"rnicsim {' '.join(args)}: exit {p.returncode}: {err}")
    return usage.ru_maxrss * 1024


def main():
    if os.environ.get("ASAN_OPTIONS"):
        print("memory: skipped under ASan")
        sys.exit(77)
    rnicsim, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    os.chdir(work)
    for name, doc, extra, close in files():
        path = name + ".json"
        doc = dict({"name": name, "description": "check_memory.py"}, **doc)
        with open(path, "w") as f:
            json.dump(doc, f)
        est = estimate(rnicsim, path, extra)
        rss = peak_rss(rnicsim, ["run", path, "--quiet"] + extra)
        print(f"memory: {name}: peak {rss / MiB:.1f} MiB, estimate {est / MiB:.1f} MiB")
        if rss > est:
            fail(f"{name}: peak {rss / MiB:.1f} MiB above the estimate {est / MiB:.1f} MiB")
        if close and est > 1.5 * rss + 48 * MiB:
            fail(f"{name}: estimate {est / MiB:.1f} MiB far above the peak {rss / MiB:.1f} MiB")
    # run refuses what validate would, before simulating (so, fast): the same estimate.
    r = subprocess.run([rnicsim, "run", "read-check.json", "--memory-budget", "256MiB",
                        "--quiet"], capture_output=True, text=True, timeout=60)
    if r.returncode != 2 or "more than the budget of 256 MiB" not in r.stderr:
        fail(f"run over the budget: exit {r.returncode}: {r.stderr}")
    print("memory: PASS")


main()
