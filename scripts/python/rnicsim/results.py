# SPDX-License-Identifier: Apache-2.0
"""Running `rnicsim run` and reading its results JSON."""
import json
import os
import re
import subprocess
import tempfile
import time

from .binary import env, find_rnicsim
# RunError is imported from here too (scripts/calibrate).
from .errors import EXIT_NOT_STARTED, EXIT_REFUSED, Error, RunError, ScenarioError, for_exit

# The ops that report steps[].metrics (report_workload(): app/runner/workloads.cpp, traffic.cpp,
# pingpong.cpp); tools/pylib checks the list against the schema's ops that take metric bounds.
WORKLOAD_OPS = ("read_stream", "write_stream", "dma_bench", "traffic", "pingpong")
# The name of every temporary scenario file: the package's, never the scenario's name (a name
# is data: "../x" or 300 characters must not become a path).
SCENARIO_FILE = "scenario.json"


def _steps_of(scenario):
    steps = scenario.get("steps") if isinstance(scenario, dict) else None
    if not isinstance(steps, list):
        raise ScenarioError("the scenario has no steps array")
    return steps


def workload_steps(scenario):
    """The workload steps (read_stream, write_stream, dma_bench, traffic, pingpong) of a
    scenario dict."""
    return [s for s in _steps_of(scenario) if isinstance(s, dict) and s.get("op") in WORKLOAD_OPS]


def label(name):
    """A scenario name as messages show it in place of the temporary file: file-like
    (`regions.json`), but only a label, never opened."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name or "scenario")) + ".json"


def exit_text(code):
    """`exit 2`, or `killed by signal 11` (subprocess gives a signal as -N)."""
    return f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"


class Results(dict):
    """The results JSON of one run: a dict (results["sim_ns"], ["stats"], ["steps"], ...) plus
    exit_code, stderr and wall_s (of the process) and a few accessors.

    A run that wrote no results (refused: exit 2, `refused` true; or rnicsim failed) is an
    empty dict whose `message` says why; metrics(), workload_metrics() and to_frame() then
    raise ScenarioError ("the run was refused: MESSAGE") or RunError."""

    def __init__(self, data, exit_code=0, stderr="", wall_s=None):
        super().__init__(data or {})
        self.exit_code, self.stderr, self.wall_s = exit_code, stderr or "", wall_s

    @property
    def passed(self):
        return self.exit_code == 0 and bool(self.get("passed", True))

    @property
    def refused(self):
        """rnicsim refused the scenario or an argument (exit 2): nothing ran."""
        return self.exit_code == EXIT_REFUSED

    @property
    def message(self):
        """rnicsim's stderr, stripped: why the run was refused or failed ("" if silent)."""
        return self.stderr.strip()

    def _steps(self):
        steps = self.get("steps")
        if isinstance(steps, list):
            return steps
        if self.refused:
            raise ScenarioError(f"the run was refused: {self.message}", self.exit_code,
                                self.stderr)
        raise RunError(f"the run wrote no results ({exit_text(self.exit_code)})"
                       + (f": {self.message}" if self.message else ""), self.exit_code,
                       self.stderr)

    def metrics(self, step=-1):
        """The metrics of a step, by position in steps[] (default: the last)."""
        steps = self._steps()
        try:
            entry = steps[step]
        except (IndexError, TypeError):
            raise Error(f"no step {step!r} in the results ({len(steps)} steps)") from None
        m = entry.get("metrics") if isinstance(entry, dict) else None
        if m is None:
            op = entry.get("op") if isinstance(entry, dict) else None
            raise Error(f"step {step} of the results ({op}) reports no metrics")
        return dict(m) if isinstance(m, list) else m

    def workload_metrics(self):
        """[{"index", "op", METRIC: value, ...}] for every step that reports metrics."""
        return [dict({"index": s.get("index"), "op": s.get("op")}, **s["metrics"])
                for s in self._steps() if s.get("metrics")]

    def to_frame(self):
        """A pandas DataFrame of workload metrics: a row per workload step (columns index, op
        and every metric). Needs pandas (not a dependency of the package)."""
        rows = self.workload_metrics()
        try:
            import pandas
        except ImportError as e:
            raise ImportError("Results.to_frame() needs pandas (Debian: apt-get install "
                              "python3-pandas; pip install pandas)") from e
        return pandas.DataFrame(rows)


def _not_run(message, wall_s=0.0):
    return {"exit_code": EXIT_NOT_STARTED, "stderr": message, "results": None, "wall_s": wall_s,
            "ran_in": f"{os.uname().nodename}:{os.getpid()}"}


def run_file(rnicsim, scenario, args=(), name=None):
    """`rnicsim run SCENARIO --out TMP --quiet ARGS...` as plain data (a function Dask can ship
    to a worker): {"exit_code", "stderr" (tail, temp paths shown as `name`), "results" (the
    parsed JSON, or None), "wall_s", "ran_in" (host:pid)}. Never raises for a failed run:
    exit_code 127 when rnicsim could not be started (or no temporary folder made)."""
    start = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="rnicsim-run-") as tmp:
            out = os.path.join(tmp, "results.json")
            try:
                proc = subprocess.run([rnicsim, "run", scenario, "--out", out, "--quiet",
                                       *args], capture_output=True, text=True, env=env())
                code, stderr = proc.returncode, proc.stderr
                if name:
                    stderr = stderr.replace(scenario, name)
            except OSError as e:
                code, stderr = EXIT_NOT_STARTED, f"cannot run {rnicsim}: {e}"
            wall = time.monotonic() - start
            results = None
            if os.path.exists(out):
                try:
                    with open(out) as f:
                        results = json.load(f)
                except (OSError, ValueError) as e:
                    stderr += f"\nunreadable results JSON: {e}"
    except OSError as e:  # the temporary folder: none made, or not removed
        return _not_run(f"cannot run {rnicsim}: temporary folder: {e}", time.monotonic() - start)
    return {"exit_code": code, "stderr": stderr[-4000:], "results": results, "wall_s": wall,
            "ran_in": f"{os.uname().nodename}:{os.getpid()}"}


def run_text(rnicsim, text, name, args=()):
    """run_file() on scenario text, written to a temporary file of the package's name; rnicsim's
    messages call it `name` (a label only: it never becomes a path)."""
    try:
        with tempfile.TemporaryDirectory(prefix="rnicsim-run-") as tmp:
            path = os.path.join(tmp, SCENARIO_FILE)
            with open(path, "w") as f:
                f.write(text)
            return run_file(rnicsim, path, args, name)
    except OSError as e:
        return _not_run(f"cannot write {name} to a temporary file: {e}")


def set_args(sets):
    """--set arguments from {key: value} or ["key=value", ...] (or one "key=value")."""
    if isinstance(sets, str):
        sets = [sets]
    if isinstance(sets, dict):
        items = [f"{k}={v}" for k, v in sets.items()]
    elif isinstance(sets, (list, tuple)):
        items = [str(s) for s in sets]
    else:
        raise ScenarioError(f"set={sets!r}: expected a dict or a list of \"key=value\"")
    return [a for s in items for a in ("--set", s)]


def run(scenario, set=None, seed=None, rnicsim=None, check=True):  # noqa: A002 (public name)
    """Runs one scenario and returns its Results (a dict of the results JSON).

    scenario: a path to a scenario file, or a scenario as a dict.
    set: config overrides, {"pcie.mrrs": 512} (or ["pcie.mrrs=512"]), as `--set`.
    seed: `--seed N`. rnicsim: the binary (default: find_rnicsim()).
    check: raise when rnicsim exits non-zero: ScenarioError when it refused the scenario or an
    argument (exit 2), RunError otherwise (a failed expectation exits 1, a simulator error 3).
    With check=False the Results carry exit_code, stderr, refused and message instead (and
    are empty when no results JSON was written).
    Raises BuildError when there is no binary; every error is an rnicsim.Error.
    """
    exe = find_rnicsim(rnicsim)
    args = set_args(set or {}) + (["--seed", str(seed)] if seed is not None else [])
    if isinstance(scenario, dict):
        try:
            text = json.dumps(scenario, indent=1)
        except (TypeError, ValueError) as e:
            raise ScenarioError(f"the scenario dict is not JSON: {e}") from e
        outcome = run_text(exe, text, label(scenario.get("name")), args)
    elif isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        if path.startswith("-"):  # a file, not an option of rnicsim
            path = os.path.join(".", path)
        outcome = run_file(exe, path, args)
    else:
        raise ScenarioError(f"scenario: expected a path or a dict, not {type(scenario).__name__}")
    code = outcome["exit_code"]
    results = Results(outcome["results"], code, outcome["stderr"], outcome["wall_s"])
    if check and code != 0:
        raise for_exit(code)(f"rnicsim run: {exit_text(code)}: {results.message}", code,
                             outcome["stderr"], outcome["results"])
    if check and outcome["results"] is None:
        raise RunError(f"rnicsim run wrote no results: {results.message}", code,
                       outcome["stderr"])
    return results


def workload_indices(scenario):
    """Indices in steps[] of the workload steps of a scenario dict."""
    return [i for i, s in enumerate(_steps_of(scenario))
            if isinstance(s, dict) and s.get("op") in WORKLOAD_OPS]
