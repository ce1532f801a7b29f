# SPDX-License-Identifier: Apache-2.0
"""Units of config keys, workload metrics and scenario fields, and readable axis labels and
legend entries built from them (scripts/sweep's plots).

- config keys: the unit column of `rnicsim params` (param_units()).
- unit statistics (the results' "stats"): the unit column of `rnicsim stats` (stat_units()).
- workload metrics (steps[].metrics): METRIC_UNITS, the table of docs/generated/stats.md
  (ctest tools/pylib-units checks that the two agree).
- scenario fields (steps[N].FIELD): FIELD_UNITS, by the field's last name.
"""
import functools
import re
import subprocess

from .binary import call
from .errors import RunError

# The workload metrics of read_stream / write_stream / dma_bench and their units, as
# docs/generated/stats.md lists them ("Workload metrics").
METRIC_UNITS = {
    "ops": "operations", "bytes": "bytes", "sim_ns": "ns", "mops": "Mop/s", "gbps": "Gb/s",
    "latency_ns.p50": "ns", "latency_ns.p90": "ns", "latency_ns.p99": "ns",
    "latency_ns.max": "ns", "mtt.hit_rate": "fraction", "mpt.hit_rate": "fraction",
    "deltas_per_op": "deltas/op",
}
# Metrics named after a node, side and table, or a traffic flow, and their units.
PATTERN_UNITS = (
    (re.compile(r"^[A-Za-z0-9_]+\.(requester|responder|completion)\.(mtt|mpt|qpc|cqc)"
                r"\.hit_rate$"), "fraction"),
    (re.compile(r"^flow\d+(\.reverse)?\.mops$"), "Mop/s"),
    (re.compile(r"^flow\d+(\.reverse)?\.gbps$"), "Gb/s"),
    (re.compile(r"^flow\d+(\.reverse)?\.ops$"), "operations"),
    (re.compile(r"^fairness$"), "index"),
    (re.compile(r"^flushes$"), "operations"),
)


def metric_unit(name):
    """The unit of a workload metric, fixed or patterned (A.responder.mtt.hit_rate, flow0.mops,
    fairness); None if `name` is no metric."""
    if name in METRIC_UNITS:
        return METRIC_UNITS[name]
    for pattern, unit in PATTERN_UNITS:
        if pattern.match(name):
            return unit
    return None


# Columns of a sweep's results.csv that are not metrics.
COLUMN_UNITS = {"sim_ns": "ns", "wall_s": "s"}
# Scenario fields a sweep varies (steps[N].FIELD), by their last name.
# tools/pylib-units checks that every numeric field of a workload op (and of its flows and
# remote) in scenarios/schema.json has one.
FIELD_UNITS = {
    "size": "bytes", "span": "bytes", "length": "bytes", "offset": "bytes", "window": "bytes",
    "stride": "bytes", "region_bytes": "bytes", "page_size": "bytes",
    "count": "operations", "outstanding": "operations", "ops": "operations",
    "warmup_ops": "operations", "signal_every": "WQEs", "regions": "regions",
    "depth": "entries", "send_depth": "WQEs", "recv_depth": "WQEs", "qps": "QP pairs",
}
# Units shown in short form on plots.
SHORT = {"bytes": "B", "operations": "ops"}
STEP_KEY = re.compile(r"^steps\[(-?\d+(?:,-?\d+)*)\]\.(.+)$")
STEP_COLUMN = re.compile(r"^step(\d+)\.(.+)$")


def param_units(rnicsim):
    """{config key: unit} from `rnicsim params` (key, value, unit, meaning on each line)."""
    units = {}
    for line in call(rnicsim, "params").splitlines():
        parts = line.split()
        if len(parts) >= 3:
            units[parts[0]] = parts[2]
    return units


@functools.lru_cache(maxsize=None)
def stat_units(rnicsim):
    """{(owner, name): unit} of every statistic, from `rnicsim stats` (owner, name, unit,
    meaning, tab-separated; owner `NODE.rnic.mtt` for each node's, `switch`). Read once per
    binary. Raises RunError when the binary cannot list them."""
    try:
        text = call(rnicsim, "stats")
    except (OSError, subprocess.CalledProcessError) as e:
        raise RunError(f"{rnicsim} stats: {e}") from e
    units = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3:
            units[(parts[0], parts[1])] = parts[2]
    return units


def unit_of(name, params=None):
    """The unit of a sweep column or grid key: a config key (params: {key: unit}), a scenario
    field steps[N].FIELD, a metric (bare, or stepN.METRIC), sim_ns, wall_s; None if unknown."""
    if params and name in params:
        return params[name]
    m = STEP_KEY.match(name)
    if m:
        return FIELD_UNITS.get(m.group(2).split(".")[-1])
    m = STEP_COLUMN.match(name)
    if m:
        return metric_unit(m.group(2))
    return metric_unit(name) or COLUMN_UNITS.get(name)


def short_unit(unit):
    return SHORT.get(unit, unit) if unit else unit


def short_name(name):
    """A column or grid key without its step: steps[13,14].remote.span -> remote.span,
    step14.gbps -> gbps, pcie.mrrs -> pcie.mrrs."""
    m = STEP_KEY.match(name) or STEP_COLUMN.match(name)
    return m.group(2) if m else name


def _steps(name):
    m = STEP_KEY.match(name) or STEP_COLUMN.match(name)
    return m.group(1) if m else None


def axis_label(name, params=None, show_step=True):
    """`remote.span [B] (steps 13,14)`, `gbps [Gb/s]`, `pcie.mrrs [B]`: the name without its
    step prefix, its unit in brackets, the step(s) after it (when show_step)."""
    unit = short_unit(unit_of(name, params))
    label = short_name(name) + (f" [{unit}]" if unit else "")
    steps = _steps(name)
    if steps is not None and show_step:
        label += f" (step{'s' if ',' in steps else ''} {steps})"
    return label


def value_text(value, unit):
    """A value with its unit for a legend: 256 B, 1 MiB (byte counts that are exact KiB, MiB,
    GiB), 0.5 fraction -> 0.5, 8 entries."""
    unit = short_unit(unit)
    text = str(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return text
    if unit == "B" and number.is_integer() and number >= 1024:
        for power, prefix in ((4, "Ti"), (3, "Gi"), (2, "Mi"), (1, "Ki")):
            if number % (1024 ** power) == 0:
                return f"{int(number) // 1024 ** power} {prefix}B"
    if not unit or unit in ("fraction", "bool", "bitmask"):
        return text
    return f"{text} {unit}"


def legend_entry(name, value, params=None):
    """`pcie.mps = 256 B`, `remote.span = 1 MiB`."""
    return f"{short_name(name)} = {value_text(value, unit_of(name, params))}"


def is_bytes(unit):
    return short_unit(unit) == "B"


def tick_text(value, unit):
    """The text of a tick on a log axis: byte counts in binary units (2097152 -> `2 MiB`, 1024
    -> `1 KiB`, 512 -> `512 B`; the unit is in the axis label, but a byte tick keeps its
    prefix), other whole numbers plainly (64, not 2^6), fractions to 3 digits; "" for ticks
    at zero or below (a log axis has none)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return ""
    if not number > 0:
        return ""
    if is_bytes(unit) and number.is_integer():
        return value_text(int(number), "bytes")
    if number.is_integer():
        return str(int(number))
    return f"{number:.3g}"


def default_title(name, description, y, x, series=None, width=85):
    """A plot's default title: `NAME: Y vs X[ by SERIES]` (short names) and, below it, the
    first sentence of the scenario's description (wrapped, at most two lines, cut with an
    ellipsis). Without a scenario name, `Y vs X[ by SERIES]` alone."""
    import textwrap
    head = f"{short_name(y)} vs {short_name(x)}" + (f" by {short_name(series)}" if series
                                                      else "")
    if not name:
        return head
    lines = [f"{name}: {head}"]
    if description:
        sentence = re.split(r"(?<=[.!?])\s", str(description).strip(), maxsplit=1)[0]
        wrapped = textwrap.wrap(sentence, width)
        if len(wrapped) > 2:
            wrapped = wrapped[:2]
            wrapped[1] = textwrap.shorten(wrapped[1] + " ...", width - 3,
                                          placeholder="").rstrip(" ,;:") + "..."
        lines += wrapped
    return "\n".join(lines)
