# SPDX-License-Identifier: Apache-2.0
"""Running `rnicsim run` (one run, or many in parallel) and reading its results JSON."""
import concurrent.futures
import json
import os
import re
import subprocess
import tempfile
import time

from .binary import env, find_rnicsim
# RunError is imported from here too (scripts/calibrate).
from .errors import EXIT_NOT_STARTED, EXIT_REFUSED, Error, RunError, ScenarioError, for_exit
from .units import stat_units

# The ops that report steps[].metrics (report_workload(): app/runner/workloads.cpp, traffic.cpp,
# pingpong.cpp); tools/pylib-results checks the list against the schema's ops that take metric
# bounds.
WORKLOAD_OPS = ("read_stream", "write_stream", "dma_bench", "traffic", "pingpong")
# The name of every temporary scenario file: the package's, never the scenario's name (a name
# is data: "../x" or 300 characters must not become a path).
SCENARIO_FILE = "scenario.json"
# The columns of Results.stats_frame().
STATS_COLUMNS = ["node", "unit", "statistic", "value", "unit_of_measure"]


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

    def __init__(self, data, exit_code=0, stderr="", wall_s=None, rnicsim=None):
        super().__init__(data or {})
        self.exit_code, self.stderr, self.wall_s = exit_code, stderr or "", wall_s
        self.rnicsim = rnicsim  # the binary that wrote them (run() sets it): stats units

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
        return _pandas("to_frame").DataFrame(rows)

    def stats_rows(self, rnicsim=None):
        """The unit statistics ("stats" of the results JSON) as a list of dicts, a row per
        number: node (None for the switch), unit (`rnic.mtt`, `pcie`, `switch`), statistic,
        value and unit_of_measure. A histogram or occupancy object gives a row per field,
        `NAME.FIELD` (`request_latency_ns.p50`); a histogram's `count` is in samples.
        Units of measure come from `rnicsim stats` of `rnicsim` (default: the binary that
        wrote these results, else find_rnicsim(build=False)); None for a statistic that
        binary does not list. Raises BuildError when there is no binary to ask."""
        stats = self.get("stats")
        if not isinstance(stats, dict):
            self._steps()  # raises why (refused, failed) when the run wrote no results
            raise Error("the results have no stats object")
        table = stat_units(rnicsim or self.rnicsim or find_rnicsim(build=False))
        nodes = set(self.get("nodes") or ())
        rows = []
        for owner in sorted(stats):
            first, _, rest = owner.partition(".")
            node, unit = (first, rest) if first in nodes and rest else (None, owner)
            declared = f"NODE.{unit}" if node else owner
            for name in sorted(stats[owner]):
                value = stats[owner][name]
                measure = table.get((declared, name))
                if isinstance(value, dict):
                    base = re.sub(r"\s*\(.*\)$", "", measure) if measure else None
                    histogram = bool(measure) and measure.endswith("(histogram)")
                    for field, v in value.items():
                        rows.append({"node": node, "unit": unit, "statistic": f"{name}.{field}",
                                     "value": v, "unit_of_measure":
                                     "samples" if histogram and field == "count" else base})
                else:
                    rows.append({"node": node, "unit": unit, "statistic": name, "value": value,
                                 "unit_of_measure": measure})
        return rows

    def stats_frame(self, rnicsim=None):
        """stats_rows() as a pandas DataFrame (columns node, unit, statistic, value,
        unit_of_measure). Needs pandas (not a dependency of the package)."""
        rows = self.stats_rows(rnicsim)
        return _pandas("stats_frame").DataFrame(rows, columns=STATS_COLUMNS)


def _pandas(method):
    try:
        import pandas
    except ImportError as e:
        raise ImportError(f"Results.{method}() needs pandas (Debian: apt-get install "
                          "python3-pandas; pip install pandas)") from e
    return pandas


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


def _args(set, seed):  # noqa: A002 (run()'s public name)
    return set_args(set or {}) + (["--seed", str(seed)] if seed is not None else [])


def _outcome(exe, scenario, args, name=None):
    """run_file() or run_text() of a path or a dict (label: `name`, else its "name")."""
    if isinstance(scenario, dict):
        try:
            text = json.dumps(scenario, indent=1)
        except (TypeError, ValueError) as e:
            raise ScenarioError(f"the scenario dict is not JSON: {e}") from e
        return run_text(exe, text, name or label(scenario.get("name")), args)
    if isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        if path.startswith("-"):  # a file, not an option of rnicsim
            path = os.path.join(".", path)
        return run_file(exe, path, args)
    raise ScenarioError(f"scenario: expected a path or a dict, not {type(scenario).__name__}")


def _results(exe, outcome, check, what="rnicsim run"):
    """The Results of an outcome; with check, raises as run() says (messages start `what`)."""
    code = outcome["exit_code"]
    results = Results(outcome["results"], code, outcome["stderr"], outcome["wall_s"], exe)
    if check and code != 0:
        raise for_exit(code)(f"{what}: {exit_text(code)}: {results.message}", code,
                             outcome["stderr"], outcome["results"])
    if check and outcome["results"] is None:
        raise RunError(f"{what} wrote no results: {results.message}", code,
                       outcome["stderr"])
    return results


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
    return _results(exe, _outcome(exe, scenario, _args(set, seed)), check)


class Runner:
    """Runs scenarios in parallel, each in its own rnicsim process, on a pool of `jobs` threads
    (default: every core). submit() returns a concurrent.futures.Future of the Results; its
    result() raises as run() does.

        runner = rnicsim.Runner(jobs=4)
        futures = {n: runner.submit(path, set={"mtt.cache_entries": n}) for n in (64, 1024)}
        rates = {n: f.result().metrics()["mops"] for n, f in futures.items()}

    rnicsim: the binary (default: find_rnicsim(), looked up once, now). directory: where
    submit() finds a scenario given by bare name (`read-64b` -> DIRECTORY/read-64b.json).
    `count` is the number of runs submitted so far.
    """

    def __init__(self, jobs=None, rnicsim=None, directory=None):
        self.exe = find_rnicsim(rnicsim)
        self.directory = directory
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs or
                                                                          os.cpu_count() or 1))
        self.count = 0

    def path(self, name):
        """A scenario name as a path: DIRECTORY/NAME.json for a bare name (no `/`, no
        `.json`) when the runner has a directory; otherwise `name` itself."""
        bare = os.sep not in name and not name.endswith(".json")
        return os.path.join(self.directory, name + ".json") if self.directory and bare \
            else name

    def submit(self, scenario, edit=None, set=None, seed=None, check=True):  # noqa: A002
        """Queues one run: scenario as run() takes it (a path or a dict), or a bare name (see
        path()). edit: a function that changes the scenario dict before the run; it runs
        now, in the caller's thread, on a copy read from the file (the file is not changed).
        set, seed, check: as run(). Returns a Future of the Results. Raises ScenarioError now
        when the file cannot be read or is not JSON."""
        name = None
        if isinstance(scenario, (str, os.PathLike)):
            scenario = self.path(os.fspath(scenario))
            if edit:
                name = label(os.path.splitext(os.path.basename(scenario))[0])
                try:
                    with open(scenario) as f:
                        scenario = json.load(f)
                except (OSError, ValueError) as e:
                    raise ScenarioError(f"cannot read {scenario}: {e}") from e
        elif isinstance(scenario, dict) and edit:
            scenario = json.loads(json.dumps(scenario))  # the caller's dict stays as it was
        if edit:
            edit(scenario)
        args = _args(set, seed)
        self.count += 1
        shown = name or (label(scenario.get("name")) if isinstance(scenario, dict)
                         else scenario)
        what = " ".join(["rnicsim run", str(shown), *args])
        return self.pool.submit(lambda: _results(self.exe, _outcome(self.exe, scenario, args,
                                                                    name), check, what))

    def shutdown(self, wait=True):
        self.pool.shutdown(wait)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.shutdown()


def run_many(scenarios, jobs=None, set=None, seed=None, rnicsim=None,  # noqa: A002
             check=True):
    """run() of every scenario (paths or dicts) in parallel, `jobs` at a time (default: every
    core); the Results in the order given. set, seed, rnicsim, check: as run(), for every
    run. With check, raises the first failure in that order (the other runs still finish)."""
    with Runner(jobs, rnicsim) as runner:
        futures = [runner.submit(s, set=set, seed=seed, check=check) for s in scenarios]
        return [f.result() for f in futures]


def workload_indices(scenario):
    """Indices in steps[] of the workload steps of a scenario dict."""
    return [i for i, s in enumerate(_steps_of(scenario))
            if isinstance(s, dict) and s.get("op") in WORKLOAD_OPS]
