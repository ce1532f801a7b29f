# SPDX-License-Identifier: Apache-2.0
"""The calibration report behind scripts/calibrate: docs/calibration.md and its figures, from
runs of the scenarios under scenarios/perf/ (and sweeps of their sizes, spans, outstanding
counts and MR counts) against published measurements. Nothing is fitted here.

Its sections, in the report's order, each a module with submit(run, quick) (the runs, on a
rnicsim.Runner) and report(doc, *runs) (its figures and text, on a common.Report): anchors
(the published figures, the parameters' sources), dma, reads, device_core, qps, generations."""
import os

from ..binary import ROOT
from . import anchors, device_core, dma, generations, qps, reads
from .common import PERF, Report

__all__ = ["PERF", "Report", "write_report"]


def write_report(run, quick, out_dir, plt):
    """Submits every section's runs on run (a Runner over scenarios/perf), writes
    out_dir/calibration.md and out_dir/calibration/*.png, and says so on stdout."""
    fig_dir = os.path.join(out_dir, "calibration")
    os.makedirs(fig_dir, exist_ok=True)
    anchor_runs = anchors.submit(run)
    dma_runs = dma.submit(run, quick)
    read_runs = reads.submit(run, quick)
    core_runs = device_core.submit(run, quick)
    qp_runs = qps.submit(run, quick)
    # NIC generations: QPs in use and reads in flight, per preset.
    generation_runs = generations.submit(run, quick)

    doc = Report(plt, fig_dir)
    md, w, table, save = doc.md, doc.w, doc.table, doc.save
    rows = anchors.report(doc, run, anchor_runs)
    w("## Curves\n")
    dma.report(doc, *dma_runs)
    reads.report(doc, *read_runs)
    device_core.report(doc, *core_runs)
    qps.report(doc, *qp_runs)

    generations.report(w, table, plt, save, *generation_runs)

    w("## What is not modeled\n")
    w("- The IOMMU's insides: in the pcie-bench preset the MTT stands in for it (an IOTLB and "
      "a walker), and a walk is one fixed time; its paging-structure caches and the levels a "
      "walk reads are not modeled, so a walk costs the same whatever the window.")
    w("- DDIO and LLC state: every line costs the same service (`host.line_service_ns`) "
      "and every device read the same round trip, unless `host.extra_latency_ns` says "
      "otherwise.")
    w("- Published data held back for validation is not used here; the curves are "
      "predictions to be checked against it.")
    with open(os.path.join(out_dir, "calibration.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"calibrate: {run.count} runs; wrote {os.path.relpath(os.path.join(out_dir, 'calibration.md'), ROOT)} "
          f"and {len(os.listdir(fig_dir))} plots")
    for label, published, model, unit, _ in rows:
        print(f"  {label}: published {published} {unit}, model {model:.1f}")
