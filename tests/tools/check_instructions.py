#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ctest instructions/*: the simulator's speed of record stays under a bound. Runs a scenario
under valgrind's callgrind with every workload count set to N1, then N2, and checks the CPU
instructions per op, (I2 - I1) / (ops2 - ops1), against --max (docs/development.md,
"Simulator speed"). Instruction counts do not depend on the machine's load, so the bound can
be tight where a wall-clock one could not.

Exit status: 0 within the bound (prints "instructions: PASS"), 1 over it, 2 on an error,
77 (ctest SKIP_RETURN_CODE) when valgrind is not installed.

usage: check_instructions.py RNICSIM SCENARIO.json --max N [--lengths N1,N2]
                             [--set key=value ...]
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
    with tempfile.TemporaryDirectory(prefix="instructions-") as tmp:
        try:
            m = speed.measure(os.path.abspath(args.rnicsim), scenario, lengths, tmp, sets)
        except speed.MeasureError as e:
            print(f"instructions: {name}: {e}")
            return 2
    (i1, i2), (ops1, ops2) = m["instructions"], m["ops"]
    mode = f" ({', '.join(args.sets)})" if args.sets else ""
    print(f"{name}{mode}: {i1:,} instructions for {ops1:.0f} ops, {i2:,} for "
          f"{ops2:.0f}: {m['per_op']:,.0f} per op (bound {args.max:,.0f}), "
          f"{m['events_per_op']:.2f} events per op")
    if m["per_op"] > args.max:
        print(f"instructions: FAIL: {m['per_op']:,.0f} instructions per op, over the bound of "
              f"{args.max:,.0f} (tests/CMakeLists.txt): the simulator got slower per op")
        return 1
    print("instructions: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
