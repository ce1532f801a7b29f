#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Throughput vs translation footprint (the question of scenarios/explore/mtt-footprint.json),
built with rnicsim.Scenario: 64 B RDMA reads at random addresses over SPAN bytes of a 64 MiB
region, a warm-up pass then the measured one, for a few spans and translation-cache sizes.

usage: footprint.py [--write FILE.json] [--rnicsim PATH]
  --write: write the scenario (span 1 MiB) instead of running the table
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import rnicsim  # noqa: E402

MiB = 1 << 20


def footprint(span):
    s = rnicsim.Scenario("explore-mtt-footprint", config={"monitor.enabled": 0})
    p = s.two_nodes(remote_size=64 * MiB)
    for _ in ("warm-up", "measured"):
        s.read_stream(p.qp, count=2000, size=64, sgl=p.local_mr, remote=p.remote_mr,
                      span=span, pattern="random")
    return s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", metavar="FILE")
    parser.add_argument("--rnicsim", metavar="PATH")
    args = parser.parse_args()
    if args.write:
        footprint(MiB).write(args.write)
        return 0
    spans = [MiB // 4, 4 * MiB, 64 * MiB]
    print("mtt.cache_entries | " + " | ".join(f"{s // 1024} KiB" for s in spans) + "  (Mops)")
    for entries in (64, 1024):
        mops = [footprint(span).run(set={"mtt.cache_entries": entries}, rnicsim=args.rnicsim)
                .metrics()["mops"] for span in spans]
        print(f"{entries:>17} | " + " | ".join(f"{m:.2f}" for m in mops))
    return 0


if __name__ == "__main__":
    sys.exit(main())
