# SPDX-License-Identifier: Apache-2.0
"""argparse helpers shared by the scripts/ tools: one spelling of the common options."""
import argparse
import os
import sys

from .binary import ROOT, RnicsimNotFound, find_rnicsim


def parser(prog, description, **kwargs):
    """An ArgumentParser whose --help prints the description (the tool's docstring) as
    written."""
    return argparse.ArgumentParser(prog=prog, description=description,
                                   formatter_class=argparse.RawDescriptionHelpFormatter,
                                   **kwargs)


def add_rnicsim(p, help_text=None):
    p.add_argument("--rnicsim", metavar="PATH",
                   help=help_text or "the rnicsim binary (default: $RNICSIM, else build/rnicsim, "
                   "built with scripts/setup --build if missing)")


def add_jobs(p, default=None, help_text=None):
    p.add_argument("--jobs", type=int, default=default, metavar="N",
                   help=help_text or "simulator runs in parallel (default: every core)")


def add_sets(p):
    p.add_argument("--set", action="append", default=[], dest="sets", metavar="KEY=VALUE",
                   help="config override passed to every run (repeatable)")


def cores():
    return os.cpu_count() or 1


def rnicsim_or_exit(prog, explicit, build=True, status=2):
    """find_rnicsim(), or the reason on stderr and exit `status`."""
    try:
        return find_rnicsim(explicit, build)
    except RnicsimNotFound as e:
        print(f"{prog}: {e}", file=sys.stderr)
        sys.exit(status)


def rel(path):
    """A path as shown in messages: relative to the source tree."""
    return os.path.relpath(path, ROOT)
