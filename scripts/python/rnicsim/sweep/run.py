# SPDX-License-Identifier: Apache-2.0
"""Running the sweep's points: locally or on a Dask cluster, with a progress line, and the
records and identities by which --resume keeps the points an earlier sweep passed."""
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

import rnicsim
from rnicsim.results import run_text

from .common import CHECKPOINT, UsageError

def point_identity(params, args, sha):
    return json.dumps([params, args, sha], sort_keys=True)


def point_record(number, point, outcome):
    """A point as results.json (and the checkpoint) hold it."""
    return {"point": number, "params": point["params"], "args": point["args"],
            "scenario_sha256": point["scenario_sha256"], "exit_code": outcome["exit_code"],
            "passed": outcome["exit_code"] == 0, "reused": bool(outcome.get("reused")),
            "wall_s": outcome["wall_s"], "ran_in": outcome["ran_in"],
            "stderr": outcome["stderr"], "results": outcome["results"]}


def previous_outcomes(out_dir):
    """{point identity: outcome} of the points that passed in DIR/results.json and in
    DIR/points.partial.jsonl (the points an interrupted sweep finished)."""
    records = []
    path = os.path.join(out_dir, "results.json")
    if os.path.exists(path):
        try:
            with open(path) as f:
                data = json.load(f)
        except ValueError as e:
            raise UsageError(f"--resume: {path} is not JSON: {e}") from e
        except OSError as e:
            raise UsageError(f"--resume: cannot read {path}: {e.strerror or e}") from e
        points = data.get("points") if isinstance(data, dict) else None
        if not isinstance(points, list):
            raise UsageError(f"--resume: {path} is not a sweep's results.json (no points)")
        records += points
    partial = os.path.join(out_dir, CHECKPOINT)
    if os.path.exists(partial):
        try:
            with open(partial) as f:
                for line in f:
                    try:
                        records.append(json.loads(line))
                    except ValueError:
                        pass  # a line cut short by the interruption
        except (OSError, ValueError) as e:  # unreadable, or not text
            raise UsageError(f"--resume: cannot read {partial}: {e}") from e
    kept = {}
    for p in records:
        if not isinstance(p, dict):
            continue
        if not p.get("passed") or p.get("exit_code") != 0 or not p.get("scenario_sha256"):
            continue
        results = p.get("results") or {}
        kept[point_identity(p.get("params"), p.get("args"), p["scenario_sha256"])] = {
            "exit_code": 0, "stderr": p.get("stderr", ""), "results": p.get("results"),
            "wall_s": p.get("wall_s", results.get("wall_s", 0.0)), "ran_in": p.get("ran_in"),
            "reused": True}
    return kept


def run_point(exe, text, name, args):
    """run_text() as a task for a Dask worker (see run_all)."""
    return run_text(exe, text, name, args)


def clock(seconds):
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    return (f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}")


def eta_seconds(walls, remaining, parallel):
    """The time left: the mean wall time of the finished points x the points left / the runs
    in parallel (None before any point finished)."""
    if not walls:
        return None
    return sum(walls) / len(walls) * remaining / max(1, min(parallel, remaining) or 1)


class Progress:
    """`sweep: 3/9 points, 0:02 elapsed, ETA 0:05` on stderr: redrawn on a terminal, else a
    line every tenth of the points."""

    def __init__(self, total, parallel):
        self.total, self.parallel, self.walls = total, parallel, []
        self.start, self.tty = time.monotonic(), sys.stderr.isatty()
        self.step = max(1, total // 10)

    def point(self, outcome):
        self.walls.append(outcome["wall_s"])
        done = len(self.walls)
        eta = eta_seconds(self.walls, self.total - done, self.parallel)
        line = (f"sweep: {done}/{self.total} points, {clock(time.monotonic() - self.start)} "
                f"elapsed, ETA {clock(eta)}")
        if self.tty:
            sys.stderr.write("\r" + line + "   ")
            if done == self.total:
                sys.stderr.write("\n")
        elif done % self.step == 0 or done == self.total:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


def run_all(points, exe, scenario_name, jobs, scheduler, done=None):
    """The outcomes of the points, in order; done(i, outcome) as each finishes."""
    total = len(points)
    outcomes = [None] * total
    if not total:
        return outcomes
    if scheduler:
        import cloudpickle
        from distributed import Client
        from distributed import as_completed as dask_completed
        # The workers need not have scripts/python on their path: the task and the package's
        # code go by value.
        cloudpickle.register_pickle_by_value(rnicsim)
        # Debian's cloudpickle does not extend that to submodules: this one (run_point) too.
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
        try:
            client = Client(scheduler, timeout="20s")
        except Exception as e:  # noqa: BLE001 (any connection failure)
            print(f"sweep: cannot connect to {scheduler}: {e}", file=sys.stderr)
            sys.exit(3)
        try:
            progress = Progress(total, sum(client.nthreads().values()) or 1)
            futures = {client.submit(run_point, exe, p["text"], scenario_name, p["args"],
                                     pure=False, key=f"rnicsim-point-{i}-{os.getpid()}"): i
                       for i, p in enumerate(points)}
            for future in dask_completed(list(futures)):
                outcomes[futures[future]] = future.result()
                if done:  # saved before it is announced
                    done(futures[future], outcomes[futures[future]])
                progress.point(outcomes[futures[future]])
        except Exception as e:  # noqa: BLE001 (a worker or the scheduler failed)
            print(f"sweep: cluster error: {e}", file=sys.stderr)
            sys.exit(3)
        finally:
            client.close()
    else:
        progress = Progress(total, jobs)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(run_text, exe, p["text"], scenario_name, p["args"]): i
                       for i, p in enumerate(points)}
            for future in as_completed(futures):
                outcomes[futures[future]] = future.result()
                if done:  # saved before it is announced
                    done(futures[future], outcomes[futures[future]])
                progress.point(outcomes[futures[future]])
    return outcomes
