# SPDX-License-Identifier: Apache-2.0
"""The parameter sweep behind scripts/sweep: grids and linked (zipped) keys, points and their
identities for --resume, running them locally or on a Dask cluster, results.csv rows, and
plots with units. scripts/sweep is its command line."""
import copy
import csv
import hashlib
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

import rnicsim
from rnicsim import binary, cli, plots, units
from rnicsim.errors import Error
from rnicsim.results import SCENARIO_FILE, run_text, set_args, workload_indices

METRICS = ("ops", "bytes", "sim_ns", "mops", "gbps", "latency_ns.p50", "latency_ns.p90",
           "latency_ns.p99", "latency_ns.max", "mtt.hit_rate", "mpt.hit_rate")
# steps[N].a.b, steps[N,M].a.b (the same field of several steps), steps[N].flows[K].qps
STEP_KEY = re.compile(r"^steps\[(-?\d+(?:,-?\d+)*)\]((?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\d+\])?)*"
                      r"\.[A-Za-z_][A-Za-z0-9_]*)$")
FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?$")
FIXED_COLUMNS = ["point", "passed", "exit_code", "sim_ns", "wall_s"]
PLOT_PARTS = ("x", "y", "series", "file", "xlabel", "ylabel", "title", "ref")  # --plot NAME=V
PLOT_COLUMNS = ("sim_ns", "wall_s", "passed", "exit_code")  # y= besides the metrics
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h", "p"]
REF_MARKERS = ["x", "+", "1", "2", "3", "4"]  # reference points: unfilled, unlike the lines'
REF_OPTIONAL = ("series", "label")  # a reference CSV's columns besides x and y
LINESTYLES = ["-", "--", "-.", ":"]


CHECKPOINT = "points.partial.jsonl"
# The files a sweep writes into its --out DIR besides the plots: a plot may not take their
# names, and the scenario may not be one of them.
OUTPUTS = ("results.csv", "results.json", CHECKPOINT)


class UsageError(Error):
    """A bad argument or path: scripts/sweep prints it and exits 2."""


def check_out_dir(path, option="--out"):
    """A folder the sweep may create or write into: refused when it, or a folder above it, is
    a file (before anything runs, so that no traceback comes at the end)."""
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise UsageError(f"{option} {path}: exists and is not a directory")
        return
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise UsageError(f"{option} {path}: {parent} is not a directory")


def make_out_dir(path, option="--out"):
    check_out_dir(path, option)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise UsageError(f"{option} {path}: cannot create the directory: {e.strerror or e}") \
            from e


def need(modules):
    """The optional modules, re-running under Debian's python3 once if need be."""
    try:
        plots.need(modules)
    except plots.MissingModules as e:
        raise UsageError(str(e)) from e


# ---------------------------------------------------------------------------------------------
# Arguments

def find_rnicsim(explicit, build=True):
    try:
        return binary.find_rnicsim(explicit, build)
    except binary.RnicsimNotFound as e:
        raise UsageError(str(e)) from e


def config_units(exe):
    """{config key: unit} (`rnicsim params`)."""
    try:
        return units.param_units(exe)
    except subprocess.CalledProcessError as e:
        raise UsageError(f"`{exe} params` failed: {e.stderr.strip()}") from e


def parse_value(text):
    """A grid value for a scenario field: an integer, a real, else a string."""
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def resolve_step_path(scenario, key):
    """([step index, ...], [(field, list index or None), ...]) for steps[N].a.b,
    steps[N,M,...].a.b (the same field of several steps, set together) or steps[N].a[K].b (an
    element of a list such as a traffic step's flows), checked against the scenario; None if
    not such a key."""
    m = STEP_KEY.match(key)
    if not m:
        return None
    steps = scenario.get("steps", [])
    fields = []
    for token in m.group(2)[1:].split("."):
        name, index = FIELD.match(token).groups()
        fields.append((name, None if index is None else int(index)))
    indices = []
    for n in (int(t) for t in m.group(1).split(",")):
        if not -len(steps) <= n < len(steps):
            raise UsageError(f"grid key {key}: the scenario has {len(steps)} steps")
        index = n % len(steps)
        node = steps[index]
        for depth, (field, element) in enumerate(fields[:-1]):
            path = ".".join(f for f, _ in fields[:depth + 1])
            node = node.get(field)
            if element is not None:
                if not isinstance(node, list) or element >= len(node):
                    raise UsageError(f"grid key {key}: step {index} ({steps[index].get('op')}) "
                                     f"has no {path}[{element}]")
                node = node[element]
            if not isinstance(node, dict):
                raise UsageError(f"grid key {key}: step {index} ({steps[index].get('op')}) has "
                                 f"no object {path}" + (f"[{element}]" if element is not None
                                                        else ""))
        indices.append(index)
    return indices, fields


# Step fields that are JSON arrays even when the step leaves them out (op_flags in the
# schema): a grid value for them is a list, A+B (see field_value()).
ARRAY_FIELDS = ("flags",)
EMPTY_ARRAY = ("none", "[]")


def field_value(text, array):
    """A grid value as the step field takes it: for an array field (flags), `A+B` is
    ["A", "B"] and `none` (or `[]`) is [] (an integer stays one: flags' bitmask form); else
    parse_value(text). Values that are already not text (a test's 64) pass through."""
    if not isinstance(text, str):
        return text
    if not array:
        return parse_value(text)
    if text.strip() in EMPTY_ARRAY:
        return []
    value = parse_value(text)
    if isinstance(value, int):
        return value
    return [parse_value(item.strip()) for item in text.split("+")]


def set_step_field(scenario, indices, fields, value):
    """Sets the field in each step; a text value becomes a list when the field is an array
    (a flags field, or one the step holds as a list), else a number when it reads as one."""
    for index in indices:
        node = scenario["steps"][index]
        for field, element in fields[:-1]:
            node = node[field] if element is None else node[field][element]
        name = fields[-1][0]
        node[name] = field_value(value, name in ARRAY_FIELDS or isinstance(node.get(name), list))


def parse_grid(specs, scenario, known_keys, option="--grid", taken=()):
    """[(key, kind, [values], path)] from KEY=V1,V2,... specs."""
    grid = []
    for spec in specs:
        key, eq, values = spec.partition("=")
        key = key.strip()
        if not eq or not key:
            raise UsageError(f"{option} {spec!r}: expected KEY=V1,V2,...")
        items = [v.strip() for v in values.split(",")]
        if not values.strip() or any(not v for v in items):
            raise UsageError(f"{option} {key}: empty value in {values!r}")
        if len(set(items)) != len(items):
            raise UsageError(f"{option} {key}: repeated value in {values!r}")
        if any(g[0] == key for g in grid) or key in taken:
            raise UsageError(f"{key} given twice (--grid / --zip)")
        path = resolve_step_path(scenario, key)
        if key == "preset":  # the file's config.preset: a NIC generation per point
            grid.append((key, "preset", items, None))
        elif path is not None:
            grid.append((key, "step", items, path))
        elif key in known_keys:
            grid.append((key, "config", items, None))
        else:
            raise UsageError(f'unknown grid key "{key}"' + cli.did_you_mean(
                key, known_keys, ": not a config key (see `rnicsim params`) nor a scenario "
                "field steps[N].FIELD"))
    return grid


def parse_zip(specs, scenario, known_keys, grid_keys):
    """The --zip keys, as parse_grid() entries, checked to have as many values each."""
    zipped = parse_grid(specs, scenario, known_keys, "--zip", grid_keys)
    lengths = {len(z[2]) for z in zipped}
    if len(lengths) > 1:
        raise UsageError("--zip keys need the same number of values: " + ", ".join(
            f"{z[0]} has {len(z[2])}" for z in zipped))
    return zipped


def plot_formats():
    """The file endings matplotlib writes (png, svg, pdf, ...); empty without matplotlib."""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        return {}
    return FigureCanvasBase.get_supported_filetypes()


def parse_plot(spec, grid_keys, workload):
    plot = {"logx": False, "logy": False, "series": None, "file": None, "xlabel": None,
            "ylabel": None, "title": None, "ref": None}
    for part in re.split(r",(?![^\[]*\])", spec):  # not the commas of steps[N,M]
        part = part.strip()
        if part in ("logx", "logy"):
            plot[part] = True
            continue
        name, eq, value = part.partition("=")
        if not eq or name not in PLOT_PARTS or not value:
            raise UsageError(f"--plot {spec!r}: bad part {part!r}" + cli.did_you_mean(
                name, PLOT_PARTS + ("logx", "logy"), " (expected x=KEY, y=METRIC, series=KEY, "
                "file=NAME.png, logx, logy, xlabel=, ylabel=, title=, ref=FILE.csv)"))
        plot[name] = value
    if plot["file"] is not None:
        # A plain name in the --out DIR: the sweep writes nowhere else, nor over its own files.
        name = plot["file"]
        if os.sep in name or name in (".", ".."):
            raise UsageError(f"--plot {spec!r}: file={name} is not a plain file name (the plot "
                             "goes into the --out DIR)")
        if name in OUTPUTS:
            raise UsageError(f"--plot {spec!r}: file={name} is a file the sweep writes")
        formats = plot_formats()
        ending = os.path.splitext(name)[1][1:].lower()
        if formats and ending and ending not in formats:  # refused now, not after the runs
            raise UsageError(f"--plot {spec!r}: file={name}: matplotlib writes no .{ending} "
                             f"files ({', '.join(sorted(formats))})")
    if "x" not in plot or "y" not in plot:
        raise UsageError(f"--plot {spec!r}: needs x=KEY and y=METRIC")
    for axis in ("x", "series"):
        if plot[axis] is not None and plot[axis] not in grid_keys:
            raise UsageError(f"--plot {spec!r}: {axis}={plot[axis]} is not a grid key" +
                             cli.did_you_mean(plot[axis], grid_keys, f" ({', '.join(grid_keys)})"))
    if plot["series"] == plot["x"]:
        raise UsageError(f"--plot {spec!r}: series and x are the same key")
    y = plot["y"]
    step = re.match(r"^step(\d+)\.(.+)$", y)
    if not (y in PLOT_COLUMNS or (units.metric_unit(y) and workload)
            or (step and int(step.group(1)) in workload and units.metric_unit(step.group(2)))):
        # stepN.METRIC only for what looks like one: "p99" is the last step's latency_ns.p99.
        valid = ([f"step{i}.{m}" for i in workload for m in METRICS] if y.startswith("step")
                 else list(PLOT_COLUMNS) + (list(METRICS) if workload else []))
        raise UsageError(f"--plot {spec!r}: y={y} is not a metric" + cli.did_you_mean(
            y, valid, f" ({', '.join(METRICS)}) of the last workload step, nor stepN.METRIC for "
            f"a workload step N ({', '.join(str(i) for i in workload) or 'none'}), nor "
            "sim_ns/wall_s"))
    return plot


def validate_values(exe, scenario_path, scenario, grid, sets):
    """Every config value alone, and every scenario-field value alone, through `rnicsim
    validate`: a bad value is an argument error (exit 2) before anything runs."""
    def check(text, extra, what):
        try:
            with tempfile.TemporaryDirectory(prefix="rnicsim-sweep-") as tmp:
                path = os.path.join(tmp, SCENARIO_FILE)  # the package's name, not the user's
                with open(path, "w") as f:
                    f.write(text)
                proc = subprocess.run([exe, "validate", path, "--quiet"] + extra,
                                      capture_output=True, text=True, env=binary.env())
        except OSError as e:
            raise UsageError(f"{what}: cannot run {exe} validate: {e}") from e
        if proc.returncode != 0:
            message = proc.stderr.strip().replace(path, os.path.basename(scenario_path))
            raise UsageError(f"{what}: {message}")

    base_text = json.dumps(scenario, indent=1)
    base_sets = set_args(sets)
    check(base_text, base_sets, "scenario")
    for key, kind, values, path in grid:
        for value in values:
            if kind == "config":
                check(base_text, base_sets + ["--set", f"{key}={value}"], f"--grid {key}={value}")
            else:
                modified = copy.deepcopy(scenario)
                apply_field(modified, kind, path, value)
                check(json.dumps(modified, indent=1), base_sets, f"--grid {key}={value}")


# ---------------------------------------------------------------------------------------------
# Points, CSV, plots

def apply_field(scenario, kind, path, value):
    """Sets a grid key that lives in the file: a step's field, or the config preset."""
    if kind == "preset":
        scenario.setdefault("config", {})["preset"] = value
    else:
        set_step_field(scenario, path[0], path[1], value)


def combinations(grid, zipped):
    """[{key: value}] in order: the cartesian product of the grid keys' values, each crossed
    with the zip keys' values taken together (the zip list varies fastest)."""
    factors = [[{key: v} for v in values] for key, _, values, _ in grid]
    if zipped:
        factors.append([{z[0]: z[2][i] for z in zipped} for i in range(len(zipped[0][2]))])
    return [dict(kv for part in combo for kv in part.items())
            for combo in itertools.product(*factors)]


def make_points(scenario, grid, zipped, sets, seed):
    points = []
    keys = grid + zipped
    for combo in combinations(grid, zipped):
        modified = copy.deepcopy(scenario)
        args = set_args(sets)
        if seed is not None:
            args += ["--seed", str(seed)]
        params = {}
        for key, kind, _, path in keys:
            value = combo[key]
            params[key] = value
            if kind == "config":
                args += ["--set", f"{key}={value}"]
            else:
                apply_field(modified, kind, path, value)
        text = json.dumps(modified, indent=1)
        points.append({"params": params, "text": text, "args": args,
                       "scenario_sha256": hashlib.sha256(text.encode()).hexdigest()})
    return points


def point_identity(params, args, sha):
    return json.dumps([params, args, sha], sort_keys=True)


def point_record(number, point, outcome):
    """A point as results.json (and the checkpoint) hold it."""
    return {"point": number, "params": point["params"], "args": point["args"],
            "scenario_sha256": point["scenario_sha256"], "exit_code": outcome["exit_code"],
            "passed": outcome["exit_code"] == 0, "reused": bool(outcome.get("reused")),
            "wall_s": outcome["wall_s"], "ran_in": outcome["ran_in"],
            "stderr": outcome["stderr"], "results": outcome["results"]}


def previous_outcomes(out_dir):
    """{point identity: outcome} of the points that passed in DIR/results.json and in
    DIR/points.partial.jsonl (the points an interrupted sweep finished)."""
    records = []
    path = os.path.join(out_dir, "results.json")
    if os.path.exists(path):
        try:
            with open(path) as f:
                data = json.load(f)
        except ValueError as e:
            raise UsageError(f"--resume: {path} is not JSON: {e}") from e
        except OSError as e:
            raise UsageError(f"--resume: cannot read {path}: {e.strerror or e}") from e
        points = data.get("points") if isinstance(data, dict) else None
        if not isinstance(points, list):
            raise UsageError(f"--resume: {path} is not a sweep's results.json (no points)")
        records += points
    partial = os.path.join(out_dir, CHECKPOINT)
    if os.path.exists(partial):
        try:
            with open(partial) as f:
                for line in f:
                    try:
                        records.append(json.loads(line))
                    except ValueError:
                        pass  # a line cut short by the interruption
        except (OSError, ValueError) as e:  # unreadable, or not text
            raise UsageError(f"--resume: cannot read {partial}: {e}") from e
    kept = {}
    for p in records:
        if not isinstance(p, dict):
            continue
        if not p.get("passed") or p.get("exit_code") != 0 or not p.get("scenario_sha256"):
            continue
        results = p.get("results") or {}
        kept[point_identity(p.get("params"), p.get("args"), p["scenario_sha256"])] = {
            "exit_code": 0, "stderr": p.get("stderr", ""), "results": p.get("results"),
            "wall_s": p.get("wall_s", results.get("wall_s", 0.0)), "ran_in": p.get("ran_in"),
            "reused": True}
    return kept


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


def file_stem(text):
    """A readable file name part: flows[1].qps -> flows1.qps, other odd characters -> _."""
    text = re.sub(r"\[(\d+)\]", r"\1", text)
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


def plot_file_name(plot, y, workload):
    """gbps-vs-outstanding[-by-size].png: short names; y keeps its step (step14.gbps) only when
    there are several workload steps."""
    y_name = y if len(workload) > 1 else units.short_name(y)
    name = f"{file_stem(y_name)}-vs-{file_stem(units.short_name(plot['x']))}"
    if plot["series"]:
        name += f"-by-{file_stem(units.short_name(plot['series']))}"
    return name + ".png"


# ---------------------------------------------------------------------------------------------
# Reference data (--ref FILE.csv, --plot ...,ref=FILE.csv)

def load_ref(path, option="--ref"):
    """A reference CSV as {"path", "columns", "rows"}: a header line, then one point a row.
    Refused (UsageError) when unreadable, not CSV, or without a header and a row."""
    try:
        # utf-8-sig: a spreadsheet's export may start with a byte-order mark.
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            columns = [c.strip() for c in (reader.fieldnames or [])]
            rows = [{k.strip(): (v or "").strip() for k, v in r.items() if k is not None}
                    for r in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise UsageError(f"{option} {path}: cannot read: {getattr(e, 'strerror', None) or e}") \
            from e
    if len(columns) < 2 or not rows:
        raise UsageError(f"{option} {path}: expected a header (the plot's x and y columns, "
                         "optionally series and label) and at least one row")
    return {"path": path, "columns": columns, "rows": rows}


def plot_y_names(y, workload):
    """The names a y column of a reference CSV may have: as given, the column it means
    (stepN.METRIC of the last workload step for a bare metric), its short name."""
    names = [y]
    if y not in PLOT_COLUMNS and not y.startswith("step") and workload:
        names.append(f"step{workload[-1]}.{y}")
    names.append(units.short_name(y))
    return list(dict.fromkeys(names))


def ref_columns(ref, plot, workload):
    """(x column, y column) of a reference CSV for a plot: columns named like the plot's x
    (the grid key, or its short name: steps[14].outstanding or outstanding) and y (gbps,
    step14.gbps); None when it has not both."""
    xcol = next((c for c in (plot["x"], units.short_name(plot["x"])) if c in ref["columns"]),
                None)
    ycol = next((c for c in plot_y_names(plot["y"], workload) if c in ref["columns"]), None)
    return (xcol, ycol) if xcol and ycol else None


def attach_refs(plots_, ref_paths, workload):
    """Loads the reference CSVs (--ref for every plot, ref= for one) and gives each plot
    plot["refs"] = [(ref, x column, y column)]. A plot's own ref= must have its x and y
    columns; a --ref file must have them for at least one plot (it is skipped on the
    others). Raises UsageError before anything runs."""
    loaded = {}

    def get(path, option):
        if path not in loaded:
            loaded[path] = load_ref(path, option)
        return loaded[path]

    shared = [get(path, "--ref") for path in ref_paths]
    used = {path: False for path in ref_paths}
    for plot in plots_:
        plot["refs"] = []
        if plot["ref"]:
            ref = get(plot["ref"], "--plot ref=")
            cols = ref_columns(ref, plot, workload)
            if cols is None:
                raise UsageError(f"--plot ref={plot['ref']}: no columns for x={plot['x']} and "
                                 f"y={plot['y']} (columns: {', '.join(ref['columns'])}; "
                                 f"expected {units.short_name(plot['x'])} and "
                                 f"{units.short_name(plot['y'])})")
            plot["refs"].append((ref, *cols))
        for ref in shared:
            cols = ref_columns(ref, plot, workload)
            if cols is not None and ref["path"] != plot["ref"]:
                plot["refs"].append((ref, *cols))
                used[ref["path"]] = True
    for path, hit in used.items():
        if not hit:
            ref = loaded[path]
            wanted = "; ".join(f"{units.short_name(p['x'])} and {units.short_name(p['y'])}"
                               for p in plots_) or "no --plot given"
            raise UsageError(f"--ref {path}: matches no plot (columns: "
                             f"{', '.join(ref['columns'])}; the plots need {wanted})")


def same_value(a, b):
    """Grid values compare as numbers when both are (256 and 256.0), else as text."""
    na, nb = number(a), number(b)
    return na == nb if na is not None and nb is not None else str(a).strip() == str(b).strip()


# ---------------------------------------------------------------------------------------------
# Drawing

def draw_plot(plot, grid_keys, zipped, rows, columns, workload, out_dir, unit_table,
              used_names, scenario_info=(None, None)):
    """Draws one --plot into out_dir. Returns what it drew: {"path", "xlabel", "ylabel",
    "title", "lines": {legend label: [(x, y)]}, "ref": {legend label: [(x, y)]},
    "ref_skipped": rows of the reference CSVs that could not be placed, "categories": the x
    tick texts of a non-numeric x (preset, flags), else None}. scenario_info: the scenario's
    (name, description), for the default title."""
    plt = plots.pyplot()
    y = plot["y"]
    if y not in columns:
        if not workload or f"step{workload[-1]}.{y}" not in columns:
            raise UsageError(f"--plot y={y}: no such column or metric of the last workload step" +
                             cli.did_you_mean(y, columns, f" (columns: {', '.join(columns)})"))
        y = f"step{workload[-1]}.{y}"
    x = plot["x"]
    series = plot["series"]
    # Keys zipped with x (or with series) vary with it: they split no line.
    linked = set()
    for key in (x, series):
        if key in zipped:
            linked |= set(zipped)
    group_keys = ([series] if series else []) + \
        [k for k in grid_keys if k not in (x, series) and k not in linked
         and len({r[k] for r in rows}) > 1]
    passed = [r for r in rows if str(r["passed"]) == "1" and number(r[y]) is not None]
    # A grid key that is not a number (preset, flags) is an axis of categories, in grid order.
    categories = None
    if any(number(r[x]) is None for r in passed):
        categories = list(dict.fromkeys(str(r[x]) for r in passed))

    def x_of(value):
        if categories is None:
            return number(value)
        return next((i for i, c in enumerate(categories) if same_value(c, value)), None)

    lines, line_series = {}, {}
    for row in passed:
        xv, yv = x_of(row[x]), number(row[y])
        if xv is None:
            continue
        label = ", ".join(units.legend_entry(k, row[k], unit_table) for k in group_keys)
        lines.setdefault(label, []).append((xv, yv))
        if series:
            line_series.setdefault(label, row[series])

    several = len(workload) > 1
    x_unit, y_unit = units.unit_of(x, unit_table), units.unit_of(y, unit_table)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colors = {}
    for i, (label, pts) in enumerate(lines.items()):
        pts.sort()
        drawn = ax.plot([p[0] for p in pts], [p[1] for p in pts],
                        marker=MARKERS[i % len(MARKERS)],
                        linestyle=LINESTYLES[i % len(LINESTYLES)], label=label or None)
        colors[label] = drawn[0].get_color()
    ref_drawn, ref_skipped = {}, 0
    for k, (ref, xcol, ycol) in enumerate(plot.get("refs", [])):
        stem = os.path.splitext(os.path.basename(ref["path"]))[0]
        groups = {}
        for r in ref["rows"]:
            xv, yv = x_of(r.get(xcol, "")), number(r.get(ycol))
            if xv is None or yv is None:
                ref_skipped += 1
                continue
            sv = r.get("series", "") if series else ""
            text = r.get("label") or stem
            if sv:
                text += f" ({units.legend_entry(series, sv, unit_table)})"
            groups.setdefault((text, sv), []).append((xv, yv))
        for j, ((text, sv), pts) in enumerate(groups.items()):
            # The color of the simulated line of the same series value, else black.
            color = next((colors[lab] for lab, v in line_series.items() if sv and
                          same_value(v, sv)), "black")
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle="none",
                    marker=REF_MARKERS[(k + j) % len(REF_MARKERS)], markersize=9,
                    markeredgewidth=1.6, color=color, label=text, zorder=3)
            ref_drawn.setdefault(text, []).extend(pts)
    every = [p for pts in list(lines.values()) + list(ref_drawn.values()) for p in pts]
    from matplotlib.ticker import FuncFormatter
    if categories is not None:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels([units.value_text(c, x_unit) for c in categories])
        ax.set_xlim(-0.5, len(categories) - 0.5)
    elif plot["logx"]:
        xs = {p[0] for p in every}
        powers_of_two = bool(xs) and all(v > 0 and v == int(v) and not int(v) & (int(v) - 1)
                                         for v in xs)
        # Byte counts on a base-2 axis read 256 B, 4 KiB, 2 MiB (not 2^21); other counts as
        # plain numbers (64, not 2^6).
        if powers_of_two or units.is_bytes(x_unit):
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(FuncFormatter(
                lambda v, _: units.tick_text(v, x_unit)))
        else:
            ax.set_xscale("log")
    if plot["logy"]:
        if units.is_bytes(y_unit):
            ax.set_yscale("log", base=2)
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: units.tick_text(v, y_unit)))
        else:
            ax.set_yscale("log")
    elif all(p[1] >= 0 for p in every):
        # A linear axis of rates or latencies starts at zero: a 20% drop must not look like a
        # cliff.
        top = max((p[1] for p in every), default=0)
        ax.set_ylim(0, top * 1.08 if top > 0 else 1)
    xlabel = plot["xlabel"] or units.axis_label(x, unit_table, show_step=several)
    ylabel = plot["ylabel"] or units.axis_label(y, unit_table, show_step=several)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    if any(lines) or ref_drawn:
        ax.legend(fontsize="small")
    title = plot["title"] or units.default_title(*scenario_info, y, x, series)
    ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    name = plot["file"] or plot_file_name(plot, y, workload)
    if not plot["file"] and name in used_names:  # two plots of the same short names
        stem, n = name[:-4], 2
        while f"{stem}-{n}.png" in used_names:
            n += 1
        name = f"{stem}-{n}.png"
    used_names.add(name)
    path = os.path.join(out_dir, name)
    try:
        fig.savefig(path, dpi=100)
    except (OSError, ValueError) as e:  # a folder in the way, no space, a format matplotlib lacks
        raise UsageError(f"cannot write the plot {path}: {e}") from e
    finally:
        plt.close(fig)
    return {"path": path, "xlabel": xlabel, "ylabel": ylabel, "title": title, "lines": lines,
            "ref": ref_drawn, "ref_skipped": ref_skipped, "categories": categories}


def wrote_line(drawn):
    """`sweep: wrote DIR/gbps-vs-size.png (x: size [B]; y: gbps [Gb/s])`, plus the reference
    points drawn."""
    line = f"sweep: wrote {drawn['path']} (x: {drawn['xlabel']}; y: {drawn['ylabel']})"
    count = sum(len(p) for p in drawn["ref"].values())
    if drawn["ref"] or drawn["ref_skipped"]:
        line += f" with {count} reference point(s)"
    if drawn["ref_skipped"]:
        line += (f"; {drawn['ref_skipped']} reference row(s) skipped (x or y not a value of "
                 "this plot)")
    return line


# ---------------------------------------------------------------------------------------------

def run_point(exe, text, name, args):
    """run_text() as a task for a Dask worker (see run_all)."""
    return run_text(exe, text, name, args)


def clock(seconds):
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    return (f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}")


def eta_seconds(walls, remaining, parallel):
    """The time left: the mean wall time of the finished points x the points left / the runs
    in parallel (None before any point finished)."""
    if not walls:
        return None
    return sum(walls) / len(walls) * remaining / max(1, min(parallel, remaining) or 1)


class Progress:
    """`sweep: 3/9 points, 0:02 elapsed, ETA 0:05` on stderr: redrawn on a terminal, else a
    line every tenth of the points."""

    def __init__(self, total, parallel):
        self.total, self.parallel, self.walls = total, parallel, []
        self.start, self.tty = time.monotonic(), sys.stderr.isatty()
        self.step = max(1, total // 10)

    def point(self, outcome):
        self.walls.append(outcome["wall_s"])
        done = len(self.walls)
        eta = eta_seconds(self.walls, self.total - done, self.parallel)
        line = (f"sweep: {done}/{self.total} points, {clock(time.monotonic() - self.start)} "
                f"elapsed, ETA {clock(eta)}")
        if self.tty:
            sys.stderr.write("\r" + line + "   ")
            if done == self.total:
                sys.stderr.write("\n")
        elif done % self.step == 0 or done == self.total:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


def run_all(points, exe, scenario_name, jobs, scheduler, done=None):
    """The outcomes of the points, in order; done(i, outcome) as each finishes."""
    total = len(points)
    outcomes = [None] * total
    if not total:
        return outcomes
    if scheduler:
        import cloudpickle
        from distributed import Client
        from distributed import as_completed as dask_completed
        # The workers need not have scripts/python on their path: the task and the package's
        # code go by value.
        cloudpickle.register_pickle_by_value(rnicsim)
        # Debian's cloudpickle does not extend that to submodules: this one (run_point) too.
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
        try:
            client = Client(scheduler, timeout="20s")
        except Exception as e:  # noqa: BLE001 (any connection failure)
            print(f"sweep: cannot connect to {scheduler}: {e}", file=sys.stderr)
            sys.exit(3)
        try:
            progress = Progress(total, sum(client.nthreads().values()) or 1)
            futures = {client.submit(run_point, exe, p["text"], scenario_name, p["args"],
                                     pure=False, key=f"rnicsim-point-{i}-{os.getpid()}"): i
                       for i, p in enumerate(points)}
            for future in dask_completed(list(futures)):
                outcomes[futures[future]] = future.result()
                if done:  # saved before it is announced
                    done(futures[future], outcomes[futures[future]])
                progress.point(outcomes[futures[future]])
        except Exception as e:  # noqa: BLE001 (a worker or the scheduler failed)
            print(f"sweep: cluster error: {e}", file=sys.stderr)
            sys.exit(3)
        finally:
            client.close()
    else:
        progress = Progress(total, jobs)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(run_text, exe, p["text"], scenario_name, p["args"]): i
                       for i, p in enumerate(points)}
            for future in as_completed(futures):
                outcomes[futures[future]] = future.result()
                if done:  # saved before it is announced
                    done(futures[future], outcomes[futures[future]])
                progress.point(outcomes[futures[future]])
    return outcomes


def replot(args):
    """--replot DIR: the plots again from DIR/results.csv, nothing run or built."""
    src = args.replot
    csv_path = os.path.join(src, "results.csv")
    if not os.path.isfile(csv_path):
        raise UsageError(f"--replot {src}: no {csv_path}")
    if not args.plot:
        raise UsageError("--replot needs at least one --plot")
    for option in ("scenario", "resume", "scheduler", "jobs", "seed"):
        if getattr(args, option):
            raise UsageError(f"--replot runs nothing: no {option} with it")
    if args.grid or args.zip or args.sets:
        raise UsageError("--replot runs nothing: no --grid, --zip or --set with it")
    try:
        with open(csv_path, newline="") as f:
            reader = csv.DictReader(f)
            fields = reader.fieldnames or []
            rows = list(reader)
    except (OSError, ValueError, csv.Error) as e:  # unreadable, not text, not CSV
        raise UsageError(f"--replot: cannot read {csv_path}: {e}") from e
    meta = {}
    json_path = os.path.join(src, "results.json")
    if os.path.isfile(json_path):
        try:
            with open(json_path) as f:
                meta = json.load(f)
        except (OSError, ValueError) as e:
            raise UsageError(f"--replot: cannot read {json_path}: {e}") from e
        if not isinstance(meta, dict):
            raise UsageError(f"--replot: {json_path} is not a sweep's results.json")
    if "point" not in fields:
        raise UsageError(f"{csv_path}: not a sweep's results.csv (no point column)")
    grid_keys = fields[:fields.index("point")]
    zipped = list(meta.get("zip") or {})
    workload = sorted({int(m.group(1)) for m in (re.match(r"^step(\d+)\.", c) for c in fields)
                       if m})
    unit_table = meta.get("units")
    if unit_table is None:  # an older sweep: config units from a binary, if one is at hand
        try:
            unit_table = units.param_units(binary.find_rnicsim(args.rnicsim, build=False))
        except (Error, subprocess.CalledProcessError, OSError):
            unit_table = {}
    specs = [parse_plot(spec, grid_keys, workload) for spec in args.plot]
    attach_refs(specs, args.ref, workload)
    out_dir = args.out or src
    make_out_dir(out_dir)
    used = set()
    for plot in specs:
        drawn = draw_plot(plot, grid_keys, zipped, rows, fields, workload, out_dir, unit_table,
                          used, scenario_info(meta))
        print(wrote_line(drawn))
    return 0


def scenario_info(meta):
    """(name, description) of a sweep's scenario, from its results.json (or, for a sweep
    older than those fields, from the scenario file it names, when still there)."""
    if "name" in meta or "description" in meta:
        return meta.get("name"), meta.get("description")
    try:
        with open(meta["scenario"]) as f:
            scenario = json.load(f)
        return scenario.get("name"), scenario.get("description")
    except (KeyError, TypeError, OSError, ValueError, AttributeError):
        return None, None
