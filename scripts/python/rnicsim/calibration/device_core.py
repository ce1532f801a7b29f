# SPDX-License-Identifier: Apache-2.0
"""The calibration report's device core: the MTT's misses in flight, WQE prefetch, and the cost
of cold contexts."""
from ..markdown import header, row
from ..results import workload_steps
from .common import edits, set_fields, set_qps


def cold_and_warm(data):
    """read-latency-2b as three measured reads: the first read of the run (every cache cold:
    QP and CQ contexts, MPT, MTT), then the first read of a second QP pair with CQs of its own
    over the same MRs (contexts cold, protection and translation warm), then the warm
    steady state."""
    last = workload_steps(data)[-1]
    setup = [s for s in data["steps"] if s.get("op") not in ("read_stream",)]
    first = dict(last, count=1)
    first.pop("expect", None)
    second = dict(first, qp="qpA2")
    warm = dict(first, qp="qpA2", count=1000)
    pair = [{"op": "create_cq", "node": "A", "name": "cqA2", "depth": 1024},
            {"op": "create_cq", "node": "B", "name": "cqB2", "depth": 1024}]
    for name, node, cq in (("qpA2", "A", "cqA2"), ("qpB2", "B", "cqB2")):
        qp = next(s for s in data["steps"]
                  if s.get("op") == "create_qp" and s["name"] == "qp" + node)
        pair.append(dict(qp, name=name, cq=cq))
    pair.append({"op": "connect", "qp": "qpA2", "peer": "qpB2"})
    data["steps"] = setup + [first] + pair + [second, warm]



def submit(run, quick):
    # The device core's knobs (docs/limits.md): misses in flight, WQE prefetch, cold contexts.
    miss_registers = [1, 2, 4, 8, 16, 32] if not quick else [1, 4, 16]
    miss_outstanding = (16, 64)
    miss_runs = {(n, m): run.submit("read-64b-miss",
                                    edits(set_fields(outstanding=n, count=5000),
                                          set_qps(ord=n, ird=n)),
                                    set=[f"mtt.max_outstanding_misses={m}",
                                          f"qp.max_ord={n}", f"qp.max_ird={n}"])
                 for n in miss_outstanding for m in miss_registers}
    prefetch_depths = [1, 2, 4, 8]
    prefetch_ord = [8, 16, 32, 64] if not quick else [16, 64]
    prefetch_runs = {(d, n): run.submit("read-outstanding",
                                        set_fields(size=1024, outstanding=n, count=3000),
                                        set=[f"wqe.prefetch_depth={d}"])
                     for d in prefetch_depths for n in prefetch_ord}
    cold = run.submit("read-latency-2b", cold_and_warm)
    return miss_registers, miss_outstanding, miss_runs, prefetch_depths, prefetch_ord, \
        prefetch_runs, cold


def report(doc, miss_registers, miss_outstanding, miss_runs, prefetch_depths, prefetch_ord,
           prefetch_runs, cold):
    w, table, plt, save = doc.w, doc.table, doc.plt, doc.save
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    for n, style in zip(miss_outstanding, ("o-", "s-")):
        a1.plot(miss_registers, [miss_runs[(n, m)].result().metrics()["mops"]
                                 for m in miss_registers], style,
                label=f"{n} reads outstanding")
    a1.set(xscale="log", xlabel="mtt.max_outstanding_misses", ylabel="Mreads/s",
           title="64 B reads, every translation missing")
    a1.set_xticks(miss_registers, [str(m) for m in miss_registers], minor=False)
    a1.minorticks_off()
    a1.legend()
    for d, style in zip(prefetch_depths, ("o-", "s-", "^-", "v-")):
        a2.plot(prefetch_ord, [prefetch_runs[(d, n)].result().metrics()["gbps"]
                               for n in prefetch_ord], style, label=f"prefetch_depth {d}")
    a2.axhline(100, color="grey", ls=":", label="100 Gb/s line rate")
    a2.set(xscale="log", xlabel="outstanding reads (ORD), one QP", ylabel="payload Gb/s",
           title="1 KiB reads vs wqe.prefetch_depth")
    a2.set_xticks(prefetch_ord, [str(n) for n in prefetch_ord], minor=False)
    a2.minorticks_off()
    a2.legend()
    save(fig, "device-core.png")

    cold_steps = [s for s in cold.result()["steps"] if s.get("metrics")]
    cold_lat = [s["metrics"]["latency_ns.p50"] for s in cold_steps]

    w("### The device core: misses in flight, WQE prefetch, cold contexts\n")
    w("![device core](calibration/device-core.png)\n")
    w("Left: 64 B reads at random over 256 MiB (`scenarios/perf/read-64b-miss.json`), so every "
      "responder-side translation misses, against the MTT's miss-status registers. A miss holds "
      "a register for one PCIe read of the table line (about 500 ns), so N registers serve at "
      "most N misses per 500 ns; the reads outstanding cap the rate too (N reads per round "
      "trip). One register is a blocking cache: one miss per round trip, about 2 M/s.")
    w("Right: one QP, 1 KiB reads, against the outstanding reads and `wqe.prefetch_depth`. With "
      "depth 1 the fetcher reads the next batch of WQEs only when the last is used up, so the "
      "QP waits one WQE fetch per batch and tops out well under the port; 2 or more batches keep "
      "the fetch off the critical path and the QP reaches the port when its ORD allows.\n")
    table("misses in flight", miss_registers,
          [(f"{n} outstanding: Mreads/s", [miss_runs[(n, m)].result().metrics()["mops"]
                                            for m in miss_registers], ".3f")
           for n in miss_outstanding] +
          [(f"{n} outstanding: p50 ns", [miss_runs[(n, m)].result().metrics()["latency_ns.p50"]
                                          for m in miss_registers], ".0f")
           for n in miss_outstanding])
    table("ORD (outstanding)", prefetch_ord,
          [(f"prefetch_depth {d}: Gb/s", [prefetch_runs[(d, n)].result().metrics()["gbps"]
                                          for n in prefetch_ord], ".2f")
           for d in prefetch_depths])
    w("Cold and warm reads: 2 B reads as in the latency row above, one read at a time.\n")
    for line in header(["read", "latency (ns)", "over warm (ns)"]):
        w(line)
    for label, value in zip(("first read of the run: QP and CQ contexts, MPT and MTT all cold",
                             "first read of a new QP pair over the same MRs: contexts cold",
                             "warm (median of 1000)"), cold_lat):
        w(row([label, f"{value:.0f}", f"{value - cold_lat[-1]:+.0f}"]))
    w("")
    w("Each cold table entry costs one PCIe read of about 500 ns on the read's critical path. "
      "Cold contexts add three: A's QPC, read by the WQE fetcher before it fetches the WQE (and "
      "handed to the requester with it), B's QPC, read by the responder, and A's CQC, read by "
      "the completion engine before it writes the CQE. Cold protection and translation add "
      "four more: the MPT entry and the MTT line on each side (A's at the sink check and at "
      "landing, B's at the remote check and the source's translation).\n")
