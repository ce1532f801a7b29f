# SPDX-License-Identifier: Apache-2.0
"""What every part of the sweep shares: its UsageError (exit 2), the files it writes into its
--out DIR, that DIR's checks, and the binary and units it runs with."""
import os
import subprocess

from rnicsim import binary, plots, units
from rnicsim.errors import Error

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
