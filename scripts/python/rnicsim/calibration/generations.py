# SPDX-License-Identifier: Apache-2.0
"""NIC generations in the calibration report (scripts/calibrate): each generation preset's
sources, and its two curves against the published shapes: read throughput against the QPs in
use (FaSST's rc-swarm: every read on a QP drawn at random, a fixed window), and against the
reads in flight in all (SMART's experiment). The scenarios are those of scripts/explore's
generations-qps and generations-in-flight, so each curve is one command there too.

Published points (share of each curve's own peak), from the authors' raw data:
FaSST (Kalia et al., OSDI 2016), rdma_bench's rc-swarm logs, 32 B READs, QPs chosen at
random: ConnectX-3 and Connect-IB. SMART (Ren et al., ASPLOS 2024), its artifact's
fig4a.csv, 8 B READs on ConnectX-6: total reads in flight (threads x depth).
"""
import os

from ..binary import ROOT
from ..markdown import header, row

if ROOT is None:  # an installed copy that knows no checkout (binary.py)
    raise ImportError("rnicsim.calibration needs an rnicsim source tree (scenarios/explore): "
                      "install the package with pip install ./scripts/python from one")

PRESETS = ["connectx3", "connect-ib", "connectx5", "connectx6"]
EXPLORE = os.path.join(ROOT, "scenarios", "explore")

QP_COUNTS = [16, 32, 48, 64, 88, 128, 144, 192, 256, 384, 512, 768, 1024, 1386, 2048, 4096,
             8192]
QP_COUNTS_QUICK = [16, 64, 256, 1024, 4096]
WINDOWS = [16, 32, 64, 128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096]
WINDOWS_QUICK = [16, 256, 1024, 4096]

# (QPs per NIC, share of the 48- or 84-QP rate): FaSST's rc-swarm, rdma_bench
# rc-swarm/sweep/osdi/ (apt: ConnectX-3; netapp: Connect-IB).
PUBLISHED_QPS = {
    "connectx3": [(48, 1.00), (88, 0.70), (144, 0.29), (176, 0.25), (240, 0.19), (352, 0.14),
                  (528, 0.13), (720, 0.12), (792, 0.11)],
    "connect-ib": [(84, 1.00), (154, 0.95), (252, 0.92), (308, 0.86), (420, 0.81),
                   (588, 0.75), (756, 0.71), (924, 0.68), (1232, 0.62), (1386, 0.59)],
}
# (reads in flight in all, M reads/s): SMART's fig4a.csv, the best point at each total.
PUBLISHED_IN_FLIGHT = {
    "connectx6": [(96, 18.5), (288, 48.7), (576, 89.2), (768, 111.0), (1152, 111.1),
                  (1536, 78.1), (2304, 77.0), (2688, 62.4), (3072, 55.2)],
}

# What each generation preset sets over the default (app/scenario/presets.cpp), and why.
SOURCES = [
    ("pcie.gen / lanes", "3 / 8", "3 / 16", "3 / 16", "4 / 16",
     "vendor product briefs and user manuals of each adapter"),
    ("port.gbps", "54.55", "54.55", "100", "200",
     "FDR: 4 lanes x 14.0625 Gb/s at 64b/66b; EDR/100GbE: 4 x 25.78125 at 64b/66b; HDR: "
     "4 x 50 Gb/s; one port modeled (Connect-IB has two)"),
    ("port.header_bytes", "34", "34", "82", "34",
     "InfiniBand: LRH 8 + BTH 12 + ICRC 4 + VCRC 2, about 8 of link framing (assumed); "
     "RoCEv2: 82 (see the default's row)"),
    ("port.mtu", "2048", "4096", "4096", "4096",
     "perftest forces 2048 on ConnectX-3 (a 4 KiB MTU erratum noted in its source)"),
    ("qp.max_qps", "131,000", "262,144", "262,144", "262,144",
     "max_qp that ibv_devinfo reports for each adapter (published in user reports)"),
    ("qp.max_ord", "128", "16", "16", "16",
     "max_qp_init_rd_atom: 128 on mlx4, 16 on mlx5 (ibv_devinfo)"),
    ("pcie.max_read_tags", "32", "32", "32", "256",
     "8-bit extended tags on the gen4 part (PCIe base spec, Extended Tag Field); 32 tags "
     "of ~0.4 us would cap reads below the 111 M/s SMART measured (assumed enabled)"),
    ("qpc.cache_entries / ways", "72 / 72", "128 / 8", "1024 / 8", "2048 / 8",
     "fitted to FaSST's curves below (no vendor publishes them): ConnectX-3 loses 30% between "
     "48 and 88 QPs, so its cache holds about 72 contexts; Connect-IB loses 5% by 154, so "
     "about 128; connectx6 assumed twice the default's"),
    ("qpc.max_outstanding_misses", "2", "16", "8", "32",
     "fitted with the sizes: ConnectX-3 levels off at 11-15% of its peak, as 2 context "
     "reads at once give; Connect-IB's gradual fall (60% of its peak at 1,386 QPs) needs "
     "16; connectx6 assumed"),
    ("wqe.cache_policy / cache_entries", "block / 64", "block / 64", "block / 64",
     "evict / 512",
     "fitted to SMART (ConnectX-6): the rate peaks at 700-1,150 reads in flight in all and "
     "falls beyond, as a NIC-wide WQE cache that evicts prefetched WQEs gives; 512 entries "
     "put the model's peak at 768-1,024 in flight; older generations keep the blocking "
     "buffer (no data says otherwise)"),
]


def submit(run, quick):
    """Queues every run of both curves on `run` (an rnicsim.Runner); the futures, by
    (preset, x)."""
    qps = QP_COUNTS_QUICK if quick else QP_COUNTS
    windows = WINDOWS_QUICK if quick else WINDOWS

    def qp_edit(preset, n):
        def edit(data):
            data["config"]["preset"] = preset
            step = data["steps"][-1]
            step["flows"][0]["qps"] = n
        return edit

    def window_edit(preset, w):
        def edit(data):
            data["config"]["preset"] = preset
            step = data["steps"][-1]
            step["flows"][0]["window"] = w
        return edit

    qp_runs = {(p, n): run.submit(os.path.join(EXPLORE, "generations-qps.json"), qp_edit(p, n))
               for p in PRESETS for n in qps}
    window_runs = {(p, w): run.submit(os.path.join(EXPLORE, "generations-in-flight.json"),
                                      window_edit(p, w))
                   for p in PRESETS for w in windows}
    return qps, windows, qp_runs, window_runs


def window_counter(results, owner_suffix, names):
    """A counter summed over the measured window of the last workload step: the step's
    window statistics, owners ending in owner_suffix, names starting with any of names."""
    step = [s for s in results["steps"] if s.get("metrics")][-1]
    total = 0
    for owner, counters in step.get("window_stats", {}).items():
        if owner.endswith(owner_suffix):
            total += sum(v for name, v in counters.items() if name.startswith(names))
    return total


def per_op(results, owner_suffix, names):
    ops = [s for s in results["steps"] if s.get("metrics")][-1]["metrics"]["ops"]
    return window_counter(results, owner_suffix, names) / max(1.0, ops)


def report(w, table, plt, save, qps, windows, qp_runs, window_runs):
    """The report's section and its plot, generations.png."""
    mops_q = {p: [qp_runs[(p, n)].result().metrics()["mops"] for n in qps] for p in PRESETS}
    misses_q = {p: [per_op(qp_runs[(p, n)].result(), ".rnic.context", ("qpc_misses",))
                    for n in qps] for p in PRESETS}
    mops_w = {p: [window_runs[(p, x)].result().metrics()["mops"] for x in windows]
              for p in PRESETS}
    refetch_w = {p: [per_op(window_runs[(p, x)].result(), ".rnic.fetcher", ("refetches",))
                     for x in windows] for p in PRESETS}

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5))
    styles = dict(zip(PRESETS, ("C0", "C1", "C2", "C3")))
    for p in PRESETS:
        peak = max(mops_q[p]) or 1.0
        a1.plot(qps, [m / peak for m in mops_q[p]], "o-", color=styles[p], label=f"{p} (model)")
        if p in PUBLISHED_QPS:
            xs, ys = zip(*PUBLISHED_QPS[p])
            a1.plot(xs, ys, "x--", color=styles[p], label=f"{p} (FaSST, published)")
    a1.set(xscale="log", xlabel="QPs in use (each read on a QP drawn at random)",
           ylabel="share of the curve's peak rate",
           title="32 B RDMA reads vs QPs in use, 128 in flight")
    a1.legend(fontsize=7)
    for p in PRESETS:
        a2.plot(windows, mops_w[p], "o-", color=styles[p], label=f"{p} (model)")
        if p in PUBLISHED_IN_FLIGHT:
            xs, ys = zip(*PUBLISHED_IN_FLIGHT[p])
            a2.plot(xs, ys, "x--", color=styles[p], label=f"{p} (SMART, published)")
    a2.set(xscale="log", xlabel="reads in flight in all (256 QPs)", ylabel="M reads/s",
           title="8 B RDMA reads vs reads in flight")
    a2.legend(fontsize=7)
    save(fig, "generations.png")

    w("## NIC generations\n")
    w("![generations](calibration/generations.png)\n")
    w("Four presets stand for ConnectX generations (`rnicsim presets`; "
      "`app/scenario/presets.cpp`). What each sets over the default, and where it comes from "
      "(cache sizes and misses in flight are never published: they are assumptions, chosen "
      "from the knees of the published curves below, and say so):\n")
    for line in header(["parameter", "connectx3", "connect-ib", "connectx5 (default)",
                        "connectx6", "source"]):
        w(line)
    for fields in SOURCES:
        w(row(fields))
    w("")
    w("### Throughput vs QPs in use, per generation\n")
    w("FaSST's rc-swarm experiment (`scenarios/explore/generations-qps.json`, "
      "`scripts/explore generations-qps`): 32 B reads from A to B, every read on a QP drawn "
      "at random among all N (`qp_select` random), 128 reads in flight in all. With random "
      "choice the QP-context cache of C entries hits about C / N of the lookups; what a miss "
      "costs the rate depends on how many misses the unit keeps in flight "
      "(`qpc.max_outstanding_misses`). The published points are shares of the 48-QP "
      "(ConnectX-3) and 84-QP (Connect-IB) rates; the model's are shares of each curve's "
      "peak.\n")
    for p in PRESETS:
        table(f"{p}: QPs", [str(n) for n in qps],
              [("M reads/s", mops_q[p], ".2f"),
               ("QPC misses per read (both nodes)", misses_q[p], ".2f")])
    w("### Throughput vs reads in flight, per generation\n")
    w("SMART's experiment (`scenarios/explore/generations-in-flight.json`, "
      "`scripts/explore generations-in-flight`): 8 B reads over 256 QP pairs, at most "
      "`window` in flight in all. The rate grows with the reads in flight until a device "
      "resource binds (the read tags, the port, the WQE buffer); on connectx6, whose WQE "
      "cache evicts prefetched WQEs (`wqe.cache_policy` evict), more reads in flight than "
      "its entries make WQEs be fetched twice (`refetches` of the fetcher), and the rate "
      "falls.\n")
    for p in PRESETS:
        table(f"{p}: in flight", [str(x) for x in windows],
              [("M reads/s", mops_w[p], ".2f"),
               ("WQE refetches per read", refetch_w[p], ".2f")])

    def share(curve, xs, x, base):
        return curve[xs.index(x)] / base if x in xs and base else float("nan")

    w("What the curves show against the published points:\n")
    if all(x in qps for x in (48, 88, 144, 1024)):
        base = mops_q["connectx3"][qps.index(48)]
        w(f"- connectx3 falls steeply below 200 QPs: "
          f"{share(mops_q['connectx3'], qps, 88, base):.2f}, "
          f"{share(mops_q['connectx3'], qps, 144, base):.2f} and "
          f"{share(mops_q['connectx3'], qps, 1024, base):.2f} of its 48-QP rate at 88, 144 and "
          f"1024 QPs (FaSST: 0.70, 0.29 and 0.11-0.12 at 720-792). Once 72 contexts are "
          f"outnumbered nearly every fetch misses, and 2 context reads at once bound the rest.")
    if all(x in qps for x in (88, 384, 768, 1386)):
        base = mops_q["connect-ib"][qps.index(88)]
        w(f"- connect-ib falls gradually: "
          f"{share(mops_q['connect-ib'], qps, 384, base):.2f}, "
          f"{share(mops_q['connect-ib'], qps, 768, base):.2f} and "
          f"{share(mops_q['connect-ib'], qps, 1386, base):.2f} of its 88-QP rate at 384, 768 and "
          f"1386 QPs (FaSST, against 84: 0.81 at 420, 0.71 at 756, 0.59 at 1386); 16 context "
          f"reads in flight hide most of each miss. It begins to fall just past its 128 "
          f"contexts (144 QPs), a little earlier than the published 154.")
    w("- connectx5 and connectx6 stay flat to their QP-context caches (1024 and 2048) and then "
      "fall as the misses per read grow; no published curve of the same experiment exists "
      "for them (their sizes are assumptions).")
    cx6 = mops_w["connectx6"]
    peak = max(cx6)
    peak_at = windows[cx6.index(peak)]
    if all(x in windows for x in (1536, 3072)):
        w(f"- connectx6's rate peaks at {peak:.0f} M reads/s with {peak_at} in flight and "
          f"falls to {share(cx6, windows, 1536, peak):.2f} of it at 1536 and "
          f"{share(cx6, windows, 3072, peak):.2f} at 3072 (SMART: 0.70 and 0.50 of 111 M/s). "
          f"Past 512 buffered WQEs every prefetch evicts another QP's WQE before it runs, so "
          f"about every other read's WQE is read twice (`refetches`); the fall is a step, "
          f"where SMART's goes on falling, and the peak is higher than SMART's 111 M/s: "
          f"what bounds that NIC's request rate before its WQE cache does is not modeled.")
    w("- connectx3 and connect-ib run the in-flight experiment on 256 QPs, more than their "
      "QP-context caches hold: their curves are bound by context misses (more reads in "
      "flight let more of them overlap), not by the WQE buffer; connectx5's blocking buffer "
      "never makes more reads in flight slower.\n")
