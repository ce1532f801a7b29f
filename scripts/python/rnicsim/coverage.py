# SPDX-License-Identifier: Apache-2.0
"""Functional coverage files (`rnicsim run --coverage`, docs/validation.md "Coverage"): read,
add up, write, and measure against the bins of a binary (`rnicsim coverage bins`). The report
itself is rnicsim's (`rnicsim coverage report`); this is for tools that follow coverage as it
grows (scripts/difftest --until-coverage) or write it down (scripts/gen-coverage-doc)."""
import json

from . import binary

FORMAT = "rnicsim-coverage"


def empty():
    return {"format": FORMAT, "version": 1, "runs": 0, "bins": {}}


def load(path):
    with open(path) as f:
        data = json.load(f)
    if data.get("format") != FORMAT or data.get("version") != 1:
        raise ValueError(f"{path}: not an rnicsim coverage file")
    return data


def add(total, other):
    """Adds the coverage `other` into `total` (both dicts as load() gives them)."""
    total["runs"] += other.get("runs", 0)
    bins = total["bins"]
    for name, count in other.get("bins", {}).items():
        bins[name] = bins.get(name, 0) + count
    return total


def write(path, data):
    out = dict(data)
    out["bins"] = dict(sorted(data["bins"].items()))
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


def bins(rnicsim):
    """Every bin of the binary, in report order: [(id, reason or None when reachable)]."""
    out = []
    for line in binary.call(rnicsim, "coverage", "bins").splitlines():
        name, _, why = line.partition("\t")
        out.append((name, None if why == "reachable" else why))
    return out


def reachable(rnicsim):
    return [name for name, why in bins(rnicsim) if why is None]


def percent(data, reachable_bins):
    """Share of the reachable bins hit, in percent."""
    hit = sum(1 for b in reachable_bins if data["bins"].get(b, 0) > 0)
    return 100.0 * hit / len(reachable_bins) if reachable_bins else 100.0


def holes(data, reachable_bins):
    return [b for b in reachable_bins if data["bins"].get(b, 0) == 0]
