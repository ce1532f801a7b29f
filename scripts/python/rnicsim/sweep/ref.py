# SPDX-License-Identifier: Apache-2.0
"""Reference data for a sweep's plots (--ref FILE.csv, --plot ...,ref=FILE.csv): published
points drawn beside the simulated lines."""
import csv

from rnicsim import units

from .common import UsageError
from .plot import PLOT_COLUMNS

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
