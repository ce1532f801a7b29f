#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""read_stream's four numbers end to end: every file the loader accepts runs to its end.

Usage: check_stream_stalls.py RNICSIM WORK_DIR

Writes a read_stream for each combination of count, outstanding, signal_every and the QP's
send_depth on a small grid, runs each in both modes, and requires exit 0 (it finished) or
exit 2 with the reason "no signaled request would ever be in flight" (refused before
running); never exit 1, a stream that stalled. Both verdicts must occur. The exhaustive
check of the rule itself is the unit test "preflight: a stream is refused exactly when its
posting loop could only stall". Prints "stream-stalls: PASS".
"""
import itertools
import json
import os
import subprocess
import sys


def scenario(count, outstanding, signal_every, send_depth):
    return {"name": "stream-%d-%d-%d-%d" % (count, outstanding, signal_every, send_depth),
            "steps": [
                {"op": "create_pd", "node": "A", "name": "pdA"},
                {"op": "create_pd", "node": "B", "name": "pdB"},
                {"op": "create_cq", "node": "A", "name": "cqA", "depth": 64},
                {"op": "create_cq", "node": "B", "name": "cqB", "depth": 64},
                {"op": "create_qp", "name": "qpA", "pd": "pdA", "cq": "cqA",
                 "send_depth": send_depth},
                {"op": "create_qp", "name": "qpB", "pd": "pdB", "cq": "cqB"},
                {"op": "connect", "qp": "qpA", "peer": "qpB"},
                {"op": "alloc", "node": "A", "name": "sink", "size": 4096},
                {"op": "alloc", "node": "B", "name": "src", "size": 4096},
                {"op": "create_mr", "name": "mrA", "pd": "pdA"},
                {"op": "register_mr", "mr": "mrA", "buffer": "sink",
                 "flags": ["ALLOW_LOCAL_WRITE", "RDMA_READ_SINK"]},
                {"op": "create_mr", "name": "mrB", "pd": "pdB"},
                {"op": "register_mr", "mr": "mrB", "buffer": "src", "flags": ["ALLOW_REMOTE_READ"]},
                {"op": "read_stream", "qp": "qpA", "count": count, "size": 64,
                 "outstanding": outstanding, "signal_every": signal_every,
                 "sgl": {"mr": "mrA"}, "remote": {"target": "mrB", "span": 4096}}]}


def main():
    rnicsim, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    seen = {0: 0, 2: 0}
    grid = itertools.product([1, 5, 12], [1, 3, 8], [1, 4, 12], [2, 16])
    for count, outstanding, signal_every, depth in grid:
        signal_every = min(signal_every, count)
        path = os.path.join(work, "stream-%d-%d-%d-%d.json" % (count, outstanding, signal_every,
                                                               depth))
        with open(path, "w") as f:
            json.dump(scenario(count, outstanding, signal_every, depth), f)
        for fast in ("0", "1"):
            r = subprocess.run([rnicsim, "run", path, "--quiet", "--set", "sim.fast=" + fast],
                               capture_output=True, text=True, timeout=60, env=env)
            what = "%s (sim.fast=%s)" % (os.path.basename(path), fast)
            if r.returncode == 2 and "no signaled request would ever be in flight" in r.stderr:
                seen[2] += 1
            elif r.returncode == 0:
                seen[0] += 1
            else:
                print("FAIL: %s: exit %d: %s" % (what, r.returncode, r.stderr.strip()))
                sys.exit(1)
    if not seen[0] or not seen[2]:
        print("FAIL: the grid gave only one verdict: %s" % seen)
        sys.exit(1)
    print("stream-stalls: %d runs finished, %d refused before running" % (seen[0], seen[2]))
    print("stream-stalls: PASS")


main()
