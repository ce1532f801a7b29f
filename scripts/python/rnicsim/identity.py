# SPDX-License-Identifier: Apache-2.0
"""Results identity: two rnicsim binaries, the same scenarios, the same results.

The parts of `scripts/compare-results` (the script is its command line): which scenarios and
modes to run, building a baseline binary from a git revision in a worktree of its own, running
every scenario with both binaries, and comparing what they give:

- the exit statuses must be equal;
- the results JSON (`rnicsim run FILE --quiet --out RESULTS.json`), less the fields that
  depend on the host or the build rather than on the simulation (IGNORED: `wall_s`, the run's
  wall-clock seconds, and `version`, the build's version string), must be identical once
  re-serialized canonically (`json.dumps(sort_keys=True)`).

A difference is reported at the first JSON path (in that canonical order) where the two
results part, with both values: `stats.A.rnic.fetcher.wqes_fetched: 16000 != 16001`. Paths
whose differences are intended (`allow`: regular expressions, searched in the path) are
listed as allowed and do not fail the comparison; a run differs when any difference is not
allowed, or when the exit statuses differ (never allowed).

Every expected failure raises UsageError (bad arguments, files, revision) or BaselineError
(the baseline cannot be checked out or built): both are `rnicsim.Error`s whose message says
what is at fault; the script prints them and exits 2.
"""
import concurrent.futures as cf
import fcntl
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

from .binary import ROOT, env
from .errors import Error

if ROOT is None:  # an installed copy that knows no checkout (binary.py)
    raise ImportError("rnicsim.identity needs an rnicsim source tree (scenarios/, git history): "
                      "install the package with pip install ./scripts/python from one")

# Top-level fields of the results JSON that differ between runs or builds of the same model
# (app/runner/results.cpp): wall_s, the wall-clock seconds of the run; version, the build's
# version string. Everything else (config, steps, metrics, stats, sim_ns, ...) depends only
# on the scenario, the seed and the model.
IGNORED = ("wall_s", "version")

# Mode name -> the extra arguments of `rnicsim run`.
MODES = {"cycle": (), "fast": ("--set", "sim.fast=1")}

# Where a --baseline REV is checked out and built: CACHE/<full sha>/ (a git worktree), built
# in CACHE/<full sha>/build/.
CACHE = os.path.join(ROOT, "build", "compare-baseline")

ABSENT = object()  # a field one side lacks


def shown(path):
    """A path as messages show it: relative to the source tree when inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel == ".." or rel.startswith(".." + os.sep) else rel


class UsageError(Error):
    """A bad argument, scenario file, mode, pattern or revision."""


class BaselineError(Error):
    """The baseline revision cannot be checked out or built."""


# --- What to run --------------------------------------------------------------------------

def default_scenarios(root=ROOT):
    """Every *.json under ROOT/scenarios/ except scenarios/schema.json, sorted."""
    return _json_files(os.path.join(root, "scenarios"), root)


def _json_files(folder, root):
    schema = os.path.realpath(os.path.join(root, "scenarios", "schema.json"))
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in filenames:
            path = os.path.join(dirpath, name)
            if name.endswith(".json") and os.path.realpath(path) != schema:
                found.append(path)
    return sorted(found)


def scenario_files(paths, root=ROOT):
    """The scenario files to run: `paths` (files, or folders for every *.json under them but
    scenarios/schema.json), or default_scenarios() when empty. Absolute paths, each once."""
    if not paths:
        files = default_scenarios(root)
        if not files:
            raise UsageError(f"no scenario files under {os.path.join(root, 'scenarios')}")
        return files
    files = []
    for path in paths:
        if os.path.isdir(path):
            found = _json_files(path, root)
            if not found:
                raise UsageError(f"{path}: a folder with no *.json scenario files")
            files.extend(found)
        elif os.path.isfile(path):
            if not os.access(path, os.R_OK):
                raise UsageError(f"{path}: cannot be read")
            files.append(path)
        else:
            raise UsageError(f"{path}: no such scenario file")
    unique, seen = [], set()
    for f in files:
        real = os.path.realpath(f)
        if real not in seen:
            seen.add(real)
            unique.append(os.path.abspath(f))
    return unique


def parse_modes(text):
    """"cycle,fast" -> ["cycle", "fast"] (in the order given, each once)."""
    modes = []
    for name in (m.strip() for m in text.split(",")):
        if name not in MODES:
            known = ", ".join(MODES)
            raise UsageError(f"--modes: unknown mode {name!r} (known: {known})")
        if name not in modes:
            modes.append(name)
    return modes


def compile_allow(patterns):
    """The --allow regular expressions, compiled."""
    compiled = []
    for p in patterns:
        try:
            compiled.append(re.compile(p))
        except re.error as e:
            raise UsageError(f"--allow {p!r}: not a regular expression: {e}") from None
    return compiled


# --- Comparing ------------------------------------------------------------------------------

def comparable(results):
    """The results JSON less IGNORED (a shallow copy; None stays None)."""
    if not isinstance(results, dict):
        return results
    return {k: v for k, v in results.items() if k not in IGNORED}


def canonical(results):
    """The canonical serialization compared byte for byte."""
    return json.dumps(comparable(results), sort_keys=True)


def _join(path, key):
    return f"{path}.{key}" if path else str(key)


def differences(a, b, path=""):
    """Every leaf where `a` and `b` differ, in canonical order (keys sorted, lists by index):
    (path, value in a, value in b); ABSENT for a key or element one side lacks. A number that
    is an integer on one side and a float on the other differs (their JSON text does)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            yield from differences(a.get(key, ABSENT), b.get(key, ABSENT), _join(path, key))
    elif isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            yield from differences(a[i] if i < len(a) else ABSENT,
                                   b[i] if i < len(b) else ABSENT, f"{path}[{i}]")
    elif a is ABSENT or b is ABSENT or (json.dumps(a, sort_keys=True) !=
                                        json.dumps(b, sort_keys=True)):
        yield (path or "(the whole results)", a, b)


def show(value, limit=60):
    """A value as a report line shows it: its JSON, cut at `limit` characters."""
    if value is ABSENT:
        return "(absent)"
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Verdict:
    """One scenario in one mode, both binaries run: `status` is "identical", "allowed" or
    "differ"; `exit_codes` (baseline, under test); `diffs`: (path, base, test) where the
    results differ (empty when only the exit statuses do), `allowed`: which of them --allow
    excuses; `stderr` of the runs under test and baseline when an exit status differs."""

    def __init__(self, scenario, mode, base, test, allow):
        self.scenario, self.mode = scenario, mode
        self.exit_codes = (base.exit_code, test.exit_code)
        self.wall_s = base.wall_s + test.wall_s
        self.stderr = (base.stderr, test.stderr)
        if base.results is None or test.results is None:
            self.diffs = [] if base.results is test.results else [
                ("(results file)", "(none)" if base.results is None else "(written)",
                 "(none)" if test.results is None else "(written)")]
        elif canonical(base.results) == canonical(test.results):
            self.diffs = []
        else:
            self.diffs = list(differences(comparable(base.results), comparable(test.results)))
        self.allowed = [d for d in self.diffs if any(p.search(d[0]) for p in allow)]
        self.refused = [d for d in self.diffs if d not in self.allowed]
        if self.exit_codes[0] != self.exit_codes[1] or self.refused:
            self.status = "differ"
        elif self.allowed:
            self.status = "allowed"
        else:
            self.status = "identical"

    def lines(self, name):
        """One line `NAME [mode]: PATH: BASE != TEST (+K more differences)` (the first path
        not allowed; for an allowed run, the first allowed one), or `NAME [mode]: exit status:
        BASE != TEST` followed by the last line of each side's stderr, indented."""
        head = f"{name} [{self.mode}]"
        if self.exit_codes[0] != self.exit_codes[1]:
            out = [f"{head}: exit status: {_status(self.exit_codes[0])} != "
                   f"{_status(self.exit_codes[1])}{_more(len(self.diffs), len(self.allowed))}"]
            for who, text in zip(("baseline", "under test"), self.stderr):
                last = text.strip().splitlines()[-1:]
                if last:
                    out.append(f"    {who}: {last[0][:200]}")
            return out
        shown = self.refused if self.status == "differ" else self.allowed
        if not shown:
            return []
        path, a, b = shown[0]
        allowed = len(self.allowed) - (0 if self.status == "differ" else 1)
        return [f"{head}: {path}: {_value(a)} != {_value(b)}"
                f"{_more(len(self.diffs) - 1, allowed)}"]


def _more(count, allowed):
    if not count:
        return ""
    text = f" (+{count} more difference{'s' if count > 1 else ''}"
    if allowed:
        text += ", all allowed" if allowed == count else f", {allowed} allowed"
    return text + ")"


def _value(v):
    return v if isinstance(v, str) and v in ("(none)", "(written)") else show(v)


def _status(code):
    return f"signal {-code}" if code is not None and code < 0 else str(code)


# --- Running --------------------------------------------------------------------------------

class Run:
    """One `rnicsim run`: exit_code (127: could not be started), results (the parsed JSON or
    None), stderr, wall_s."""

    def __init__(self, exit_code, results, stderr, wall_s):
        self.exit_code, self.results, self.stderr, self.wall_s = (exit_code, results, stderr,
                                                                  wall_s)


def _run_env():
    e = env()
    e.pop("RNICSIM_PROGRESS", None)  # a progress line only; keep runs as plain as can be
    return e


def run_one(rnicsim, scenario, mode, workdir):
    """`rnicsim run SCENARIO --quiet --out WORKDIR/results.json [mode args]`, as a Run."""
    out = os.path.join(workdir, "results.json")
    start = time.monotonic()
    try:
        proc = subprocess.run([rnicsim, "run", scenario, "--quiet", "--out", out,
                               *MODES[mode]], capture_output=True, text=True, env=_run_env(),
                              stdin=subprocess.DEVNULL)
        code, stderr = proc.returncode, proc.stderr
    except OSError as e:
        code, stderr = 127, f"cannot run {rnicsim}: {e.strerror or e}"
    wall = time.monotonic() - start
    results = None
    if os.path.exists(out):
        try:
            with open(out, encoding="utf-8") as f:
                results = json.load(f)
        except (OSError, ValueError) as e:
            results = {"(unreadable results JSON)": str(e)}
    return Run(code, results, stderr[-4000:], wall)


def check_runs(rnicsim, what):
    """`rnicsim --version` must succeed: a binary that cannot run is refused up front."""
    if not (os.path.isfile(rnicsim) and os.access(rnicsim, os.X_OK)):
        raise UsageError(f"{what}: no executable at {rnicsim}")
    try:
        proc = subprocess.run([rnicsim, "--version"], capture_output=True, text=True,
                              env=_run_env(), stdin=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise UsageError(f"{what}: cannot run {rnicsim}: {getattr(e, 'strerror', None) or e}"
                         ) from None
    if proc.returncode != 0:
        raise UsageError(f"{what}: {rnicsim} --version exited {proc.returncode}: "
                         f"{proc.stderr.strip()[-300:]}")


def compare(scenarios, modes, baseline, test, jobs, allow=(), progress=None):
    """Runs every scenario in every mode with both binaries (`jobs` runs at a time) and
    returns a Verdict per (scenario, mode), in that order. progress(done, total) after each
    comparison."""
    pairs = [(s, m) for s in scenarios for m in modes]
    runs = {}
    done = 0
    with tempfile.TemporaryDirectory(prefix="compare-results-") as tmp:
        with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {}
            for i, (scenario, mode) in enumerate(pairs):
                for side, binary in (("base", baseline), ("test", test)):
                    workdir = os.path.join(tmp, f"{i}-{side}")
                    os.mkdir(workdir)
                    futures[pool.submit(run_one, binary, scenario, mode, workdir)] = (i, side)
            try:
                for future in cf.as_completed(futures):
                    i, side = futures[future]
                    runs[(i, side)] = future.result()
                    if (i, "base") in runs and (i, "test") in runs:
                        done += 1
                        if progress:
                            progress(done, len(pairs))
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
    return [Verdict(s, m, runs[(i, "base")], runs[(i, "test")], allow)
            for i, (s, m) in enumerate(pairs)]


# --- The baseline ---------------------------------------------------------------------------

def _git(root, *args, check=True):
    try:
        proc = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL)
    except OSError as e:
        raise BaselineError(f"cannot run git: {e.strerror or e}") from None
    if check and proc.returncode != 0:
        raise BaselineError(f"git {' '.join(args)}: {proc.stderr.strip() or proc.returncode}")
    return proc


def resolve_revision(rev, root=ROOT):
    """The full sha of the commit REV names in the repository at `root`."""
    if not rev or rev.startswith("-"):
        raise UsageError(f"--baseline {rev!r}: not a revision")
    if _git(root, "rev-parse", "--git-dir", check=False).returncode != 0:
        raise UsageError(f"--baseline {rev}: {root} is not a git checkout (give the baseline "
                         "binary with --baseline-rnicsim PATH)")
    proc = _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
    if proc.returncode != 0:
        raise UsageError(f"--baseline {rev}: no such revision in {root}")
    return proc.stdout.strip()


def _is_worktree_at(tree, sha):
    if not os.path.exists(os.path.join(tree, ".git")):
        return False
    proc = _git(tree, "rev-parse", "--show-toplevel", "HEAD", check=False)
    lines = proc.stdout.split()
    return (proc.returncode == 0 and len(lines) == 2 and
            os.path.realpath(lines[0]) == os.path.realpath(tree) and lines[1] == sha)


def has_tests_option(tree):
    """Whether the top-level CMakeLists.txt of `tree` declares RNICSIM_BUILD_TESTS."""
    try:
        with open(os.path.join(tree, "CMakeLists.txt"), encoding="utf-8") as f:
            return re.search(r"option\s*\(\s*RNICSIM_BUILD_TESTS\b", f.read()) is not None
    except OSError:
        return False


def _tail(path, lines=25):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def build_baseline(rev, jobs, say=print, root=ROOT, cache=CACHE):
    """The rnicsim binary of revision REV: checked out with `git worktree add --detach` in
    CACHE/<full sha>/ (reused when present), configured as `scripts/setup --build` does (a
    Release build with Ninja, tests off when the revision has RNICSIM_BUILD_TESTS) in
    CACHE/<full sha>/build/, and only the `rnicsim` target built. Returns (sha, path).
    `say(text)`: what it is doing. A lock file keeps two comparisons off one tree."""
    sha = resolve_revision(rev, root)
    tree = os.path.join(cache, sha)
    build = os.path.join(tree, "build")
    try:
        os.makedirs(cache, exist_ok=True)
        lock = open(os.path.join(cache, sha + ".lock"), "w")
    except OSError as e:
        raise BaselineError(f"cannot use the cache folder {cache}: {e.strerror or e}") from None
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            say(f"waiting for another compare-results building {sha[:12]}")
            fcntl.flock(lock, fcntl.LOCK_EX)
        _checkout(root, tree, sha, rev, say)
        log = os.path.join(cache, sha + ".log")
        exe = _build(tree, build, jobs, log, rev, say)
    return sha, exe


def _checkout(root, tree, sha, rev, say):
    if _is_worktree_at(tree, sha):
        dirty = _git(tree, "status", "--porcelain", "--untracked-files=no", check=False)
        if dirty.returncode != 0 or dirty.stdout.strip():
            raise BaselineError(f"{tree} (the checkout of {rev}) has local changes: it is no "
                                f"longer {rev}; remove it (git worktree remove --force {tree})")
        return
    if os.path.lexists(tree):  # a checkout that failed half way, or a pruned worktree
        say(f"removing the unusable checkout {shown(tree)}")
        _git(root, "worktree", "remove", "--force", tree, check=False)
        if os.path.lexists(tree):
            try:
                shutil.rmtree(tree) if os.path.isdir(tree) and not os.path.islink(tree) \
                    else os.remove(tree)
            except OSError as e:
                raise BaselineError(f"cannot remove {tree}: {e.strerror or e}") from None
    _git(root, "worktree", "prune", check=False)
    say(f"checking out {rev} ({sha[:12]}) in {shown(tree)} (git worktree add --detach)")
    _git(root, "worktree", "add", "--detach", tree, sha)


def _build(tree, build, jobs, log, rev, say):
    def step(argv, what):
        with open(log, "a", encoding="utf-8") as f:
            f.write("$ " + " ".join(argv) + "\n")
            f.flush()
            try:
                code = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL).returncode
            except OSError as e:
                raise BaselineError(f"{what} {rev}: cannot run {argv[0]}: {e.strerror or e}"
                                    ) from None
        if code != 0:
            raise BaselineError(f"{what} {rev} failed (exit {code}); the log: {shown(log)}\n"
                                + _tail(log).rstrip())

    if not any(os.path.isfile(os.path.join(build, f)) for f in ("build.ninja", "Makefile")):
        argv = ["cmake", "-S", tree, "-B", build, "-DCMAKE_BUILD_TYPE=Release"]
        if shutil.which("ninja") and not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
            argv += ["-G", "Ninja"]
        if has_tests_option(tree):
            argv.append("-DRNICSIM_BUILD_TESTS=OFF")
        say(f"configuring {rev} in {shown(build)}")
        step(argv, "configuring")
    say(f"building rnicsim of {rev} in {shown(build)} (only that target; a first build takes "
        "several minutes on 2 cores, a rebuild of an unchanged tree a second or two)")
    step(["cmake", "--build", build, "--target", "rnicsim", "-j", str(jobs)], "building")
    for exe in (os.path.join(build, "rnicsim"), os.path.join(build, "app", "rnicsim")):
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            return exe
    raise BaselineError(f"building {rev}: no rnicsim binary in {build} after the build")
