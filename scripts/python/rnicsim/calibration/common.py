# SPDX-License-Identifier: Apache-2.0
"""What the sections of the calibration report share: the scenarios under scenarios/perf/ and
the edits that vary them, and the report being written (its markdown lines, tables and
figures)."""
import os

from ..binary import ROOT
from ..markdown import series
from ..results import workload_steps

if ROOT is None:  # an installed copy that knows no checkout (binary.py)
    raise ImportError("rnicsim.calibration needs an rnicsim source tree (scenarios/perf): "
                      "install the package with pip install ./scripts/python from one")

PERF = os.path.join(ROOT, "scenarios", "perf")


def set_fields(**fields):
    """An edit that sets fields on every workload step ("remote.span" reaches into remote)."""
    def edit(data):
        for step in workload_steps(data):
            for key, value in fields.items():
                if key.startswith("remote_"):
                    step["remote"][key[len("remote_"):]] = value
                elif key == "count":
                    step["count"] = value if step is workload_steps(data)[-1] else min(value, 200)
                else:
                    step[key] = value
            step.pop("expect", None)
    return edit


def set_qps(**fields):
    """An edit that sets fields (ord, ird) on every create_qp step."""
    def edit(data):
        for step in data["steps"]:
            if step.get("op") == "create_qp":
                step.update(fields)
    return edit


def edits(*fns):
    """One edit that applies each of fns in turn."""
    def edit(data):
        for fn in fns:
            fn(data)
    return edit


def curve(futures, key, step=-1):
    """A metric of one step of each run, in the runs' order."""
    return [f.result().metrics(step)[key] for f in futures.values()]


class Report:
    """calibration.md as it is written (w() a line, table() a table and a blank line) and the
    figures beside it in fig_dir (save(), log_x_plot())."""

    def __init__(self, plt, fig_dir):
        self.plt, self.fig_dir, self.md = plt, fig_dir, []
        self.w = self.md.append

    def table(self, title, xs, rows):
        md, w = self.md, self.w
        md.extend(series(title, xs, rows))
        w("")  # a blank line after each table

    def save(self, fig, name):
        plt, fig_dir = self.plt, self.fig_dir
        fig.tight_layout()
        fig.savefig(os.path.join(fig_dir, name), dpi=110, metadata={"Software": None})
        plt.close(fig)

    def log_x_plot(self, name, curves, marks=(), **labels):
        """Curves (xs, ys, style, label) and vertical marks (x, color, style, label) on a log
        x axis."""
        plt, save = self.plt, self.save
        fig, ax = plt.subplots(figsize=(7, 4))
        for xs, ys, style, label in curves:
            ax.plot(xs, ys, style, label=label)
        for x, color, style, label in marks:
            ax.axvline(x, color=color, ls=style, label=label)
        ax.set(xscale="log", **labels)
        ax.legend()
        save(fig, name)
