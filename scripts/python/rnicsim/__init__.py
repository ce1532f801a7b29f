# SPDX-License-Identifier: Apache-2.0
"""rnicsim: the Python package behind the scripts/ tools, and a small API for running the
simulator from Python.

    import rnicsim
    r = rnicsim.run("scenarios/quickstart.json", set={"pcie.mrrs": 512}, seed=3)
    r["sim_ns"], r.metrics(), r.to_frame()   # to_frame() needs pandas

    s = rnicsim.Scenario("mine"); p = s.two_nodes(); s.read_stream(p.qp, 100, 64, ...)

Public names: run, Results, RunError, find_rnicsim, RnicsimNotFound, workload_steps,
WORKLOAD_OPS, ROOT, Scenario (builder), ValidationError. The submodules (binary, results,
markdown, plots, cli, units, builder, sweep, speed) serve the tools; see README.md.
"""
from .binary import ROOT, RnicsimNotFound, find_rnicsim
from .builder import Scenario, ValidationError
from .results import WORKLOAD_OPS, Results, RunError, run, workload_steps

__all__ = ["run", "Results", "RunError", "find_rnicsim", "RnicsimNotFound", "workload_steps",
           "WORKLOAD_OPS", "ROOT", "Scenario", "ValidationError"]
