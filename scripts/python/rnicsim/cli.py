# SPDX-License-Identifier: Apache-2.0
"""argparse helpers shared by the scripts/ tools: one spelling of the common options, and
"did you mean" for the names they refuse."""
import argparse
import difflib
import os
import re
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


def _normalized(name):
    """Lower case and one separator: "PCIe-MRRS" reads as "pcie.mrrs"."""
    return re.sub(r"[-. ]", "_", name.lower())


def close_names(name, names):
    """The names of `names` closest to `name`, in their order: the same but for case or '_',
    '-', '.' (best); names whose last words are `name` ("gen" -> "pcie.gen"); else the best of
    difflib.get_close_matches. rnicsim's own messages pick them alike (app/scenario/suggest.h).
    Empty for a valid name, when none is close, or when more than three are equally close."""
    names = list(names)
    if name in names:
        return []
    by_form = {}
    for n in names:
        by_form.setdefault(_normalized(n), n)
    wanted = _normalized(name)
    if not wanted:
        return []
    if wanted in by_form:
        return [by_form[wanted]]
    if len(wanted) >= 3:
        ending = [n for form, n in by_form.items() if form.endswith("_" + wanted)]
        if ending:
            return ending if len(ending) <= 3 else []
    matches = difflib.get_close_matches(wanted, list(by_form), n=3)
    # Only the best, as rnicsim: "pcie.mrr" is "pcie.mrrs", not also "pcie.mps".
    ratio = {m: difflib.SequenceMatcher(None, wanted, m).ratio() for m in matches}
    best = [by_form[m] for m in matches if ratio[m] == ratio[matches[0]]]
    return sorted(best, key=names.index)


def did_you_mean(name, names, otherwise=""):
    """'; did you mean "pcie.mrrs"?' (or "a" or "b") for the names close to `name`, else
    `otherwise` (where the list is, or the list when it is short)."""
    close = close_names(name, names)
    if not close:
        return otherwise
    quoted = [f'"{n}"' for n in close]
    text = quoted[-1] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return f"; did you mean {text}?"
