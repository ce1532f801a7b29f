# SPDX-License-Identifier: Apache-2.0
"""--replot DIR: a sweep's plots drawn again from its results.csv."""
import csv
import json
import os
import re
import subprocess

from rnicsim import binary, units
from rnicsim.errors import Error

from .common import UsageError, make_out_dir
from .plot import draw_plot, parse_plot, wrote_line
from .ref import attach_refs

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
