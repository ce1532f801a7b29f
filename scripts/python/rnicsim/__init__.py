# SPDX-License-Identifier: Apache-2.0
"""rnicsim: the Python package behind the scripts/ tools, and a small API for running the
simulator from Python.

    import rnicsim
    r = rnicsim.run("scenarios/quickstart.json", set={"pcie.mrrs": 512}, seed=3)
    r["sim_ns"], r.metrics(), r.to_frame()   # to_frame() needs pandas
    r.stats_frame()                          # node, unit, statistic, value, unit_of_measure
    rnicsim.run_many([a, b, c], jobs=2)      # in parallel; rnicsim.Runner for futures

    s = rnicsim.Scenario("mine"); p = s.two_nodes(); s.read_stream(p.qp, 100, 64, ...)

Public names: run, run_many, Runner, Results, find_rnicsim, workload_steps, WORKLOAD_OPS,
ROOT (the source tree, or None), Scenario (builder), and the errors: Error (the base of all),
BuildError (RnicsimNotFound), RunError, ScenarioError, ValidationError. The submodules (binary,
results, markdown, plots, cli, units, builder, sweep, speed, coverage, identity, calibration,
errors) serve the tools; see README.md.
"""
from .binary import ROOT, find_rnicsim
from .builder import Scenario
from .errors import (BuildError, Error, RnicsimNotFound, RunError, ScenarioError,
                     ValidationError)
from .results import WORKLOAD_OPS, Results, Runner, run, run_many, workload_steps

__all__ = ["run", "run_many", "Runner", "Results", "find_rnicsim", "workload_steps",
           "WORKLOAD_OPS", "ROOT", "Scenario", "Error", "BuildError", "RnicsimNotFound",
           "RunError", "ScenarioError", "ValidationError"]
