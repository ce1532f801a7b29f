# SPDX-License-Identifier: Apache-2.0
"""The simulator's speed of record: CPU instructions per simulated operation, counted by
valgrind's callgrind over two run lengths so that start-up cancels out
(docs/development.md, "Simulator speed"). Used by scripts/bench --instructions and the
ctest guard tests/tools/check_instructions.py.

Wall clock is printed beside it, never asserted on: a shared machine's load moves it by 40%
or more, where the instruction count of a run does not move (it depends on the binary, the
SystemC library and the scenario, not on the load).
"""
import copy
import json
import os
import re
import shutil
import subprocess

from .binary import env
from .results import workload_steps

VALGRIND_PACKAGE = "valgrind"  # Debian's package name
INSTALL_HINT = (f"install the Debian package {VALGRIND_PACKAGE}: scripts/setup --fuzz does, "
                f"with the other test tools (scripts/test runs it), or apt-get install "
                f"{VALGRIND_PACKAGE} as root")
DEFAULT_LENGTHS = (1000, 11000)

# valgrind's summary line: "==1234== Collected : 66573195" (the Ir event: instructions).
_COLLECTED = re.compile(r"^==\d+==\s+Collected\s*:\s*(\d+)\s*$", re.M)


class MeasureError(Exception):
    """A run under callgrind failed or reported no instruction count."""


def collected(stderr):
    """The instruction count of valgrind's "==PID== Collected : N" line in `stderr`.
    Raises ValueError when there is none, or several (a child process traced too)."""
    found = _COLLECTED.findall(stderr)
    if len(found) != 1:
        raise ValueError(f"expected one 'Collected : N' line from callgrind, found {len(found)}")
    return int(found[0])


def parse_lengths(text):
    """"N1,N2" -> (N1, N2), two op counts with 0 < N1 < N2. Raises ValueError otherwise."""
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"--lengths takes two counts N1,N2, not {text!r}")
    n1, n2 = (int(p) for p in parts)
    if not 0 < n1 < n2:
        raise ValueError(f"--lengths needs 0 < N1 < N2, got {n1},{n2}")
    return n1, n2


def with_counts(scenario, count):
    """A copy of a scenario dict with every workload step's count (a traffic step's ops) set to
    `count` and its metric bounds dropped (bounds such as ops == 20000 hold for the shipped
    count only)."""
    data = copy.deepcopy(scenario)
    for step in workload_steps(data):
        step["ops" if step.get("op") == "traffic" else "count"] = count
        step.pop("expect", None)
    return data


def _metrics(results):
    """The metrics dict of every step that reports them (the workload steps)."""
    out = []
    for s in results.get("steps", []):
        m = s.get("metrics")
        if m:
            out.append(dict(m) if isinstance(m, list) else m)
    return out


def measured_ops(results):
    """Operations of the workload steps of a results JSON: the sum of their `ops` metric
    (one per read, write or DMA of a step's count; set-up steps report none)."""
    return sum(m.get("ops", 0) for m in _metrics(results))


def events_per_op(results):
    """SystemC delta cycles per op over the workload steps (their deltas_per_op, weighted by
    ops); 0 when there are no ops."""
    ms = _metrics(results)
    ops = sum(m.get("ops", 0) for m in ms)
    deltas = sum(m.get("deltas_per_op", 0) * m.get("ops", 0) for m in ms)
    return deltas / ops if ops else 0.0


def per_op(i1, ops1, i2, ops2):
    """(I2 - I1) / (ops2 - ops1): the instructions each further op costs, start-up (loading,
    elaboration, set-up steps, writing results) cancelled. Raises ValueError when the op
    counts do not differ."""
    if ops2 <= ops1:
        raise ValueError(f"the longer run must have more ops ({ops1} then {ops2})")
    return (i2 - i1) / (ops2 - ops1)


def valgrind():
    """The valgrind executable, or None when it is not installed."""
    return shutil.which("valgrind")


def callgrind_command(rnicsim, scenario_path, out, args=(), tool=None, profile=None):
    """The command that runs a scenario under callgrind, writing its profile to `profile`
    (none without it)."""
    return [tool or valgrind() or VALGRIND_PACKAGE, "--tool=callgrind",
            f"--callgrind-out-file={profile or '/dev/null'}", rnicsim, "run", scenario_path,
            "--quiet", "--out", out, *args]


# A socket crossing in a callgrind profile: a call of a unit protocol's forwarder
# ("rnic::WorkProtocol::forward<rnic::Requester>::work(rnic::WorkRequest&, ..."), or of a
# unit's registered generic-payload target function on the PCIe side
# ("rnic::PcieEndpoint::b_transport(int, tlm::..."). The sockets' virtual thunks that call the
# latter are not counted (one crossing, not two).
_CROSSING = re.compile(r"^rnic::(\w+Protocol::forward<[\w:]+>::\w+|\w+::\w*b_transport)\(")
_NAMED = re.compile(r"^(c?fn)=\((\d+)\)(?: (.*))?$")
_CALLS = re.compile(r"^calls=(\d+)")


def socket_crossings(profile_path):
    """Calls of the model's b_transport functions (socket crossings) in a callgrind profile.
    Callgrind names a function once, "fn=(7) name", then by number, "cfn=(7)"; a "calls=N"
    line follows the cfn= of each call site."""
    names, crossing, total = {}, False, 0
    with open(profile_path) as f:
        for line in f:
            m = _NAMED.match(line)
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3)
                if m.group(1) == "cfn":
                    crossing = bool(_CROSSING.match(names.get(m.group(2), "")))
                continue
            m = _CALLS.match(line)
            if m and crossing:
                total += int(m.group(1))
    return total


def count_instructions(rnicsim, scenario_path, out, args=(), profile=None):
    """Runs a scenario under callgrind: (instructions, results dict), the profile written to
    `profile` if given. Raises MeasureError when the run fails (its stderr tail in the message)
    or no count is reported."""
    proc = subprocess.run(callgrind_command(rnicsim, scenario_path, out, args, profile=profile),
                          capture_output=True, text=True, env=env())
    if proc.returncode != 0:
        raise MeasureError(f"exit {proc.returncode} under callgrind:\n{proc.stderr[-2000:]}")
    try:
        instructions = collected(proc.stderr)
    except ValueError as e:
        raise MeasureError(f"{e}:\n{proc.stderr[-2000:]}") from None
    with open(out) as f:
        return instructions, json.load(f)


def write_with_counts(scenario, count, path):
    """with_counts() of a scenario dict, written to `path`; returns path."""
    with open(path, "w") as f:
        json.dump(with_counts(scenario, count), f)
    return path


def measure(rnicsim, scenario, lengths, workdir, args=(), crossings=False):
    """Instructions per op of a scenario dict: runs it under callgrind with every workload
    count set to lengths[0], then lengths[1]. Returns {"lengths", "instructions": (I1, I2),
    "ops": (ops1, ops2), "per_op", "events_per_op" (of the longer run), "results" (the longer
    run's results)}, and with `crossings` "crossings_per_op" (socket crossings, counted in
    the profiles the same way). Raises MeasureError."""
    runs, paths, profiles = [], [], []
    for n in lengths:
        path = write_with_counts(scenario, n, os.path.join(workdir, f"count-{n}.json"))
        paths.append(path)
        profile = os.path.join(workdir, f"callgrind-{n}.out") if crossings else None
        profiles.append(profile)
        runs.append(count_instructions(rnicsim, path, os.path.join(workdir, f"results-{n}.json"),
                                       args, profile))
    (i1, r1), (i2, r2) = runs
    ops1, ops2 = measured_ops(r1), measured_ops(r2)
    try:
        value = per_op(i1, ops1, i2, ops2)
    except ValueError as e:
        raise MeasureError(f"{e}: does the scenario have a workload step?") from None
    m = {"lengths": tuple(lengths), "instructions": (i1, i2), "ops": (ops1, ops2),
         "per_op": value, "events_per_op": events_per_op(r2), "results": r2,
         "files": tuple(paths)}
    if crossings:
        c1, c2 = (socket_crossings(p) for p in profiles)
        m["crossings_per_op"] = per_op(c1, ops1, c2, ops2)
    return m


FLOOR_BINARY = "rnicsim_hop_floor"  # tests/tools/hop_floor.cpp, built next to rnicsim
FLOOR_LENGTHS = (2000, 12000)


def floor(floor_exe, crossings, timed, bare=False, lengths=FLOOR_LENGTHS):
    """Instructions per token of rnicsim_hop_floor: tokens that cross `crossings` sockets and
    wait in `timed` stages per trip (16 in flight) and do nothing else, the least an op of that
    shape costs; sent as units send, or `bare` (plain TLM-2.0 sockets bound to each hop itself,
    the token's payload passed on as it came: the least a crossing costs). Runs it under callgrind at two token counts. Raises MeasureError."""
    counts = []
    for n in lengths:
        cmd = [valgrind() or VALGRIND_PACKAGE, "--tool=callgrind",
               "--callgrind-out-file=/dev/null", floor_exe, str(n), str(crossings), str(timed),
               "16"] + (["--bare"] if bare else [])
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env())
        if proc.returncode != 0:
            raise MeasureError(f"{FLOOR_BINARY} exit {proc.returncode}:\n{proc.stderr[-2000:]}")
        try:
            counts.append(collected(proc.stderr))
        except ValueError as e:
            raise MeasureError(f"{e}:\n{proc.stderr[-2000:]}") from None
    return per_op(counts[0], lengths[0], counts[1], lengths[1])
