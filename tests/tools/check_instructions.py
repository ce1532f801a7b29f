#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest instructions/*: the simulator's speed of record stays under a bound. Runs a scenario
under valgrind's callgrind with every workload count set to N1, then N2, and checks the CPU
instructions per op, (I2 - I1) / (ops2 - ops1), against --max (docs/performance.md).
Instruction counts do not depend on the machine's load, so the bound can be tight where a
wall-clock one could not.

The shape of an op, exactly (a change of shape must be deliberate: the bound is then set
again): --crossings C, the socket crossings per op counted in the callgrind profiles (unit
protocol calls and PCIe-side b_transports, scripts/bench --floor), and --events E, the kernel
activations per op (the results' deltas_per_op), each equal to the figure given to two
decimals.

An added cost: --extra-set key=value measures the op again with that setting (e.g.
monitor.enabled=1) and bounds the instructions it adds per op by --max-extra.

Exit status: 0 within every bound (prints "instructions: PASS"), 1 over one, 2 on an error,
77 (ctest SKIP_RETURN_CODE) when valgrind is not installed.

usage: check_instructions.py RNICSIM SCENARIO.json --max N [--lengths N1,N2]
                             [--crossings C] [--events E]
                             [--extra-set key=value --max-extra M] [--set key=value ...]
"""
import json
import os
import sys
import tempfile

# tests/tools/ -> the source tree's Python package.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "scripts", "python"))
from rnicsim import cli, speed  # noqa: E402

SKIP = 77


def main(argv):
    p = cli.parser("check_instructions.py", __doc__)
    p.add_argument("rnicsim")
    p.add_argument("scenario")
    p.add_argument("--max", type=float, required=True, help="the bound on instructions per op")
    p.add_argument("--lengths", default="200,1200", metavar="N1,N2")
    p.add_argument("--crossings", type=float, help="socket crossings per op, exactly")
    p.add_argument("--events", type=float, help="kernel activations per op, exactly")
    p.add_argument("--extra-set", metavar="KEY=VALUE", help="measure again with this setting")
    p.add_argument("--max-extra", type=float, help="the bound on what --extra-set adds per op")
    cli.add_sets(p)
    args = p.parse_args(argv)
    try:
        lengths = speed.parse_lengths(args.lengths)
    except ValueError as e:
        p.error(str(e))
    if not speed.valgrind():
        print(f"instructions: SKIP: valgrind is not installed; {speed.INSTALL_HINT}")
        return SKIP
    name = os.path.basename(args.scenario)
    sets = [a for s in args.sets for a in ("--set", s)]
    with open(args.scenario) as f:
        scenario = json.load(f)
    if (args.extra_set is None) != (args.max_extra is None):
        p.error("--extra-set and --max-extra go together")
    rnicsim = os.path.abspath(args.rnicsim)
    with tempfile.TemporaryDirectory(prefix="instructions-") as tmp:
        try:
            m = speed.measure(rnicsim, scenario, lengths, tmp, sets,
                              crossings=args.crossings is not None)
            extra = None
            if args.extra_set:
                with tempfile.TemporaryDirectory(dir=tmp) as tmp2:
                    extra = speed.measure(rnicsim, scenario, lengths, tmp2,
                                          sets + ["--set", args.extra_set])
        except speed.MeasureError as e:
            print(f"instructions: {name}: {e}")
            return 2
    (i1, i2), (ops1, ops2) = m["instructions"], m["ops"]
    mode = f" ({', '.join(args.sets)})" if args.sets else ""
    print(f"{name}{mode}: {i1:,} instructions for {ops1:.0f} ops, {i2:,} for "
          f"{ops2:.0f}: {m['per_op']:,.0f} per op (bound {args.max:,.0f}), "
          f"{m['events_per_op']:.2f} events per op")
    failed = False
    if m["per_op"] > args.max:
        print(f"instructions: FAIL: {m['per_op']:,.0f} instructions per op, over the bound of "
              f"{args.max:,.0f} (tests/CMakeLists.txt): the simulator got slower per op")
        failed = True
    if args.crossings is not None:
        print(f"{name}{mode}: {m['crossings_per_op']:.2f} socket crossings per op "
              f"(expected {args.crossings:.2f})")
        if round(m["crossings_per_op"], 2) != round(args.crossings, 2):
            print("instructions: FAIL: the crossings per op changed: a change of the op's shape "
                  "(set the expectation again in tests/CMakeLists.txt if it was meant)")
            failed = True
    if args.events is not None and round(m["events_per_op"], 2) != round(args.events, 2):
        print(f"instructions: FAIL: {m['events_per_op']:.2f} kernel activations per op, "
              f"expected {args.events:.2f}: a change of the op's shape (set the expectation "
              f"again in tests/CMakeLists.txt if it was meant)")
        failed = True
    if extra is not None:
        added = extra["per_op"] - m["per_op"]
        print(f"{name}{mode}: {args.extra_set} adds {added:,.0f} instructions per op "
              f"({added / m['per_op']:.1%}; bound {args.max_extra:,.0f})")
        if added > args.max_extra:
            print(f"instructions: FAIL: {args.extra_set} adds {added:,.0f} per op, over the "
                  f"bound of {args.max_extra:,.0f}")
            failed = True
    if failed:
        return 1
    print("instructions: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
