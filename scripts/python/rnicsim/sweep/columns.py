# SPDX-License-Identifier: Apache-2.0
"""The columns and rows of a sweep's results.csv: the fixed ones, then stepN.METRIC for each
workload step."""

METRICS = ("ops", "bytes", "sim_ns", "mops", "gbps", "latency_ns.p50", "latency_ns.p90",
           "latency_ns.p99", "latency_ns.max", "mtt.hit_rate", "mpt.hit_rate")

FIXED_COLUMNS = ["point", "passed", "exit_code", "sim_ns", "wall_s"]


def metric_columns(outcomes, workload):
    """stepN.METRIC for each workload step, metrics in the order rnicsim reports them."""
    columns = []
    for index in workload:
        names = list(METRICS)
        for outcome in outcomes:
            results = outcome.get("results") or {}
            for step in results.get("steps", []):
                if step.get("index") == index:
                    for name in step.get("metrics", {}):
                        if name not in names:
                            names.append(name)
        present = {name for outcome in outcomes for step in (outcome.get("results") or {}).get(
            "steps", []) if step.get("index") == index for name in step.get("metrics", {})}
        columns += [f"step{index}.{name}" for name in names if name in present]
    return columns


def csv_rows(points, outcomes, columns):
    rows = []
    for number, (point, outcome) in enumerate(zip(points, outcomes)):
        results = outcome.get("results") or {}
        row = dict(point["params"])
        row.update({"point": number, "passed": int(outcome["exit_code"] == 0),
                    "exit_code": outcome["exit_code"], "sim_ns": results.get("sim_ns", ""),
                    "wall_s": round(results.get("wall_s", outcome["wall_s"]), 4)})
        by_index = {s.get("index"): s for s in results.get("steps", [])}
        for column in columns:
            head, _, name = column.partition(".")
            value = by_index.get(int(head[4:]), {}).get("metrics", {}).get(name, "")
            row[column] = format_number(value)
        rows.append(row)
    return rows


def format_number(value):
    """Reals to six significant digits, or to 0.1 from 1000 up (no exponents: a CSV to read,
    not to round-trip); integers as such."""
    if not isinstance(value, float):
        return value
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if 1000 <= abs(value) < 1e15:
        return f"{value:.1f}".rstrip("0").rstrip(".")
    return f"{value:.6g}"


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None
