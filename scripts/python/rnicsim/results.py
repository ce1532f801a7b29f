# SPDX-License-Identifier: Apache-2.0
"""Running `rnicsim run` and reading its results JSON."""
import json
import os
import re
import subprocess
import tempfile
import time

from .binary import env, find_rnicsim

# The ops that report steps[].metrics (app/runner/workloads.cpp).
WORKLOAD_OPS = ("read_stream", "write_stream", "dma_bench", "traffic")


def workload_steps(scenario):
    """The workload steps (read_stream, write_stream, dma_bench, traffic) of a scenario dict."""
    return [s for s in scenario["steps"] if s.get("op") in WORKLOAD_OPS]


class RunError(Exception):
    """`rnicsim run` exited non-zero; .exit_code, .stderr and .results (None if none)."""

    def __init__(self, message, exit_code, stderr, results=None):
        super().__init__(message)
        self.exit_code, self.stderr, self.results = exit_code, stderr, results


class Results(dict):
    """The results JSON of one run: a dict (results["sim_ns"], ["stats"], ["steps"], ...) plus
    exit_code, stderr and wall_s (of the process) and a few accessors."""

    def __init__(self, data, exit_code=0, stderr="", wall_s=None):
        super().__init__(data)
        self.exit_code, self.stderr, self.wall_s = exit_code, stderr, wall_s

    @property
    def passed(self):
        return self.exit_code == 0 and bool(self.get("passed", True))

    def metrics(self, step=-1):
        """The metrics of a step, by position in steps[] (default: the last)."""
        m = self["steps"][step]["metrics"]
        return dict(m) if isinstance(m, list) else m

    def workload_metrics(self):
        """[{"index", "op", METRIC: value, ...}] for every step that reports metrics."""
        return [dict({"index": s.get("index"), "op": s.get("op")}, **s["metrics"])
                for s in self.get("steps", []) if s.get("metrics")]

    def to_frame(self):
        """A pandas DataFrame of workload metrics: a row per workload step (columns index, op
        and every metric). Needs pandas (not a dependency of the package)."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("Results.to_frame() needs pandas (Debian: apt-get install "
                              "python3-pandas; pip install pandas)") from e
        return pandas.DataFrame(self.workload_metrics())


def run_file(rnicsim, scenario, args=(), name=None):
    """`rnicsim run SCENARIO --out TMP --quiet ARGS...` as plain data (a function Dask can ship
    to a worker): {"exit_code", "stderr" (tail, temp paths shown as `name`), "results" (the
    parsed JSON, or None), "wall_s", "ran_in" (host:pid)}."""
    with tempfile.TemporaryDirectory(prefix="rnicsim-run-") as tmp:
        out = os.path.join(tmp, "results.json")
        start = time.monotonic()
        try:
            proc = subprocess.run([rnicsim, "run", scenario, "--out", out, "--quiet", *args],
                                  capture_output=True, text=True, env=env())
            code, stderr = proc.returncode, proc.stderr
            if name:
                stderr = stderr.replace(scenario, name)
        except OSError as e:
            code, stderr = 127, f"cannot run {rnicsim}: {e}"
        wall = time.monotonic() - start
        results = None
        if os.path.exists(out):
            try:
                with open(out) as f:
                    results = json.load(f)
            except (OSError, ValueError) as e:
                stderr += f"\nunreadable results JSON: {e}"
    return {"exit_code": code, "stderr": stderr[-4000:], "results": results, "wall_s": wall,
            "ran_in": f"{os.uname().nodename}:{os.getpid()}"}


def run_text(rnicsim, text, name, args=()):
    """run_file() on scenario text, written to a temporary NAME (messages name it so)."""
    with tempfile.TemporaryDirectory(prefix="rnicsim-run-") as tmp:
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return run_file(rnicsim, path, args, name)


def set_args(sets):
    """--set arguments from {key: value} or ["key=value", ...]."""
    items = [f"{k}={v}" for k, v in sets.items()] if isinstance(sets, dict) else list(sets)
    return [a for s in items for a in ("--set", s)]


def run(scenario, set=None, seed=None, rnicsim=None, check=True):  # noqa: A002 (public name)
    """Runs one scenario and returns its Results (a dict of the results JSON).

    scenario: a path to a scenario file, or a scenario as a dict.
    set: config overrides, {"pcie.mrrs": 512} (or ["pcie.mrrs=512"]), as `--set`.
    seed: `--seed N`. rnicsim: the binary (default: find_rnicsim()).
    check: raise RunError when rnicsim exits non-zero (a failed expectation exits 1, a bad
    scenario 2); with check=False the Results carry exit_code and stderr instead (and are
    empty when no results JSON was written).
    """
    exe = find_rnicsim(rnicsim)
    args = set_args(set or {}) + (["--seed", str(seed)] if seed is not None else [])
    if isinstance(scenario, dict):
        # The file name shows in rnicsim's messages: the scenario's name, made file-safe.
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(scenario.get("name") or "scenario")) + ".json"
        outcome = run_text(exe, json.dumps(scenario, indent=1), name, args)
    else:
        outcome = run_file(exe, os.fspath(scenario), args)
    results = Results(outcome["results"] or {}, outcome["exit_code"], outcome["stderr"],
                      outcome["wall_s"])
    if check and outcome["exit_code"] != 0:
        raise RunError(f"rnicsim run: exit {outcome['exit_code']}: "
                       f"{outcome['stderr'].strip()}", outcome["exit_code"], outcome["stderr"],
                       outcome["results"])
    return results


def workload_indices(scenario):
    """Indices in steps[] of the workload steps of a scenario dict."""
    return [i for i, s in enumerate(scenario["steps"]) if s.get("op") in WORKLOAD_OPS]
