# SPDX-License-Identifier: Apache-2.0
"""The parameter sweep behind scripts/sweep: grids and linked (zipped) keys, points and their
identities for --resume, running them locally or on a Dask cluster, results.csv rows, and
plots with units. scripts/sweep is its command line.

Its parts: common (UsageError, the --out DIR, the binary), grid (keys, values, points), run
(local and Dask runs, progress, --resume), columns (results.csv), plot (--plot, drawing),
ref (--ref reference points), replot (--replot DIR). Their names are all importable from
rnicsim.sweep as before the split."""
from .columns import (FIXED_COLUMNS, METRICS, csv_rows, format_number, metric_columns,
                      number)
from .common import (CHECKPOINT, OUTPUTS, UsageError, check_out_dir, config_units,
                     find_rnicsim, make_out_dir, need)
from .grid import (ARRAY_FIELDS, EMPTY_ARRAY, FIELD, STEP_KEY, apply_field, combinations,
                   field_value, make_points, parse_grid, parse_value, parse_zip,
                   resolve_step_path, set_step_field, validate_values)
from .plot import (LINESTYLES, MARKERS, PLOT_COLUMNS, PLOT_PARTS, REF_MARKERS, REF_OPTIONAL,
                   draw_plot, file_stem, parse_plot, plot_file_name, plot_formats, same_value,
                   wrote_line)
from .ref import attach_refs, load_ref, plot_y_names, ref_columns
from .replot import replot, scenario_info
from .run import (Progress, clock, eta_seconds, point_identity, point_record,
                  previous_outcomes, run_all, run_point)

__all__ = [
    "FIXED_COLUMNS", "METRICS", "csv_rows", "format_number", "metric_columns", "number",
    "CHECKPOINT", "OUTPUTS", "UsageError", "check_out_dir", "config_units", "find_rnicsim",
    "make_out_dir", "need",
    "ARRAY_FIELDS", "EMPTY_ARRAY", "FIELD", "STEP_KEY", "apply_field", "combinations",
    "field_value", "make_points", "parse_grid", "parse_value", "parse_zip", "resolve_step_path",
    "set_step_field", "validate_values",
    "LINESTYLES", "MARKERS", "PLOT_COLUMNS", "PLOT_PARTS", "REF_MARKERS", "REF_OPTIONAL",
    "draw_plot", "file_stem", "parse_plot", "plot_file_name", "plot_formats", "same_value",
    "wrote_line",
    "attach_refs", "load_ref", "plot_y_names", "ref_columns",
    "replot", "scenario_info",
    "Progress", "clock", "eta_seconds", "point_identity", "point_record", "previous_outcomes",
    "run_all", "run_point",
]
