# SPDX-License-Identifier: Apache-2.0
"""A sweep's plots: the --plot specs, file names, and drawing them with units, categories and
the reference points of --ref."""
import os
import re

from rnicsim import cli, plots, units

from .columns import METRICS, number
from .common import OUTPUTS, UsageError

PLOT_PARTS = ("x", "y", "series", "file", "xlabel", "ylabel", "title", "ref")  # --plot NAME=V
PLOT_COLUMNS = ("sim_ns", "wall_s", "passed", "exit_code")  # y= besides the metrics
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h", "p"]
REF_MARKERS = ["x", "+", "1", "2", "3", "4"]  # reference points: unfilled, unlike the lines'
REF_OPTIONAL = ("series", "label")  # a reference CSV's columns besides x and y
LINESTYLES = ["-", "--", "-.", ":"]


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
