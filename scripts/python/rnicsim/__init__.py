# SPDX-License-Identifier: Apache-2.0
"""rnicsim: the Python package behind the scripts/ tools, and a small API for running the
simulator from Python.

    import rnicsim
    r = rnicsim.run("scenarios/quickstart.json", set={"pcie.mrrs": 512}, seed=3)
    r["sim_ns"], r.metrics(), r.to_frame()   # to_frame() needs pandas

Public names: run, Results, RunError, find_rnicsim, RnicsimNotFound, workload_steps,
WORKLOAD_OPS, ROOT. The submodules (binary, results, markdown, plots, cli) serve the tools;
see README.md.
"""
from .binary import ROOT, RnicsimNotFound, find_rnicsim
from .results import WORKLOAD_OPS, Results, RunError, run, workload_steps

__all__ = ["run", "Results", "RunError", "find_rnicsim", "RnicsimNotFound", "workload_steps",
           "WORKLOAD_OPS", "ROOT"]
