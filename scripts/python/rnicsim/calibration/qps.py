# SPDX-License-Identifier: Apache-2.0
"""The calibration report's connection scale (the traffic op): reads against the QPs in use and
against the reads in flight in all, and the mechanisms behind the curves."""

# The QP-scaling table's explanation; the figures it quotes are those of the table above it.
QP_MECHANISMS = """The mechanisms, in order of QPs (each checked in the run's unit statistics):

- **Few QPs: the round trip.** One read takes about 2.3 us from post to completion, so N
  reads in flight give N / 2.3 us: 0.44 M/s with one, 7.0 M/s with 16 (1 per QP).
- **256 to 1024 QPs: A's PCIe link, then the responder's read tags.** With one read per
  QP every read costs A 200 bytes on its upstream PCIe link (the WQE's read request, the
  data's landing write and the completion entry, each with its TLP header): gen3 x16's
  15.75 GB/s carry 79 M of them a second, and the bottleneck report names `A pcie.up` at
  100% (A's WQE buffer is full too, 99%, but 256 entries gain 1%; 32 lanes give 85 M/s).
  With 4 per QP a doorbell brings 4 WQEs in one read and the
  limit moves to B: every read costs it one DMA read of host memory (about 0.38 us), and
  B's DMA engine holds a PCIe tag for each: 32 tags (`pcie.max_read_tags`, a 5-bit tag) /
  0.375 us = 85 M reads/s. 32 B reads come out lower at 256 QPs (the QPs' 32-byte buffers
  on B are packed two to a 64 B line, and the host never serves two accesses to one line at
  once, so half the reads wait for their neighbour's: `read_line_conflicts` of B's memory).
  The WQE fetcher issues the ring reads of different QPs in doorbell order while its buffer
  has room, so they overlap on the link as the reads of one QP do.
- **Beyond the QPC cache: a cliff.** When the busy QPs outnumber `qpc.cache_entries`,
  round-robin over them is a cyclic pattern that LRU serves worst: every lookup misses, on
  both nodes (hit rate 0.000); the cliff moves with the cache (4096 entries: from 1024 to
  4096 QPs). What is left depends on how misses overlap:
  - 1 read per QP: each WQE fetch needs its own QPC read (about 0.45 us), and A's QP-context
    unit keeps 8 in flight (`qpc.max_outstanding_misses`): 8 / 0.45 us = 17.6 M/s.
  - 4 reads per QP: a doorbell carries 4 WQEs, so one QPC miss serves 4 reads, and the limit
    moves to A's WQE buffer, whose slots are now held through the QPC read and the ring
    read: about 48 M/s. One miss register (a blocking cache) gives 4 reads per QPC read,
    9.7 M/s; 32 registers shorten the queue before each miss, about 69 M/s.
  - Every miss also evicts a line, and its running state goes back to host memory by a
    posted 12-byte write (`qpc_write_backs` equals `qpc_evictions`). It holds no miss
    register, so it costs only upstream link bandwidth (`context.write_back` 0 leaves it
    out: a fraction of a percent of the rate).
- Published measurements show the loss as gradual on newer NICs and steep on older ones:
  the model's LRU under a cyclic order is the steep case. `"qp_select": "random"` is
  FaSST's rc-swarm pattern instead: every read draws its QP among all N (one drawn for a
  busy QP waits for it), so with a window of reads well below N the QPs touched are a
  uniform sample and the QPC cache of C entries hits about C/N of the fetches: the curves
  of the NIC generations below are drawn that way, against the published points.
"""


def traffic_edit(qps, per_qp, size, window=None):
    """traffic-qps with `qps` QP pairs, `per_qp` reads in flight on each (at most `window` in
    all), `size` bytes: warm-up and measured window of at least two rounds of every QP, and
    a measured window of at least 16 times the reads in flight (shorter, its completions are
    mostly of reads issued before it opened, and the rate it gives is not the steady one)."""
    def edit(data):
        step = data["steps"][-1]
        flow = step["flows"][0]
        flow.update(qps=qps, outstanding=per_qp, size=size)
        if window:
            flow["window"] = window
        rounds = 2 * qps * per_qp
        in_flight = min(window or rounds, qps * per_qp)
        step["warmup_ops"] = max(2000, rounds)
        step["ops"] = max(20000, rounds, 16 * in_flight)
        step.pop("expect", None)
    return edit



def submit(run, quick):
    # Connection scale (traffic): QPs x reads in flight per QP x size x the QP-context cache.
    qp_counts = [1, 16, 256, 1024, 4096, 16384, 65536] if not quick else [1, 256, 4096]
    qp_configs = [  # (label, reads in flight per QP, read size, --set)
        ("1 per QP, 64 B", 1, 64, []),
        ("4 per QP, 64 B", 4, 64, []),
        ("1 per QP, 32 B", 1, 32, []),
        ("4 per QP, 32 B", 4, 32, []),
        ("4 per QP, 64 B, qpc.cache_entries 4096", 4, 64, ["qpc.cache_entries=4096"]),
        ("4 per QP, 64 B, qpc.max_outstanding_misses 1", 4, 64,
         ["qpc.max_outstanding_misses=1"]),
        ("4 per QP, 64 B, qpc.max_outstanding_misses 32", 4, 64,
         ["qpc.max_outstanding_misses=32"]),
    ]
    qp_runs = {(label, n): run.submit("traffic-qps", traffic_edit(n, per_qp, size), set=sets)
               for label, per_qp, size, sets in qp_configs for n in qp_counts}
    windows = [16, 64, 256, 1024, 4096, 16384] if not quick else [16, 1024, 16384]
    window_runs = {w: run.submit("traffic-qps", traffic_edit(1024, 16, 64, window=w))
                   for w in windows}
    return qp_counts, qp_configs, qp_runs, windows, window_runs


def report(doc, qp_counts, qp_configs, qp_runs, windows, window_runs):
    w, table, plt, save = doc.w, doc.table, doc.plt, doc.save
    def qp_curve(label, key="mops"):
        return [qp_runs[(label, n)].result().metrics()[key] for n in qp_counts]

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    for (label, *_), style in zip(qp_configs, ("o-", "s-", "o--", "s--", "^-", "v:", "D:")):
        a1.plot(qp_counts, qp_curve(label), style, label=label)
    a1.axvline(1024, color="grey", ls=":", label="qpc.cache_entries 1024")
    a1.set(xscale="log", yscale="log", xlabel="QP pairs, all busy", ylabel="Mreads/s",
           title="RDMA reads vs number of QPs (traffic)")
    a1.legend(fontsize=7)
    window_mops = [window_runs[w].result().metrics()["mops"] for w in windows]
    window_p50 = [window_runs[w].result().metrics()["latency_ns.p50"] / 1000 for w in windows]
    a2.plot(windows, window_mops, "o-", color="C0", label="Mreads/s")
    a2.set(xscale="log", xlabel="reads in flight in all (window), 1024 QPs",
           ylabel="Mreads/s", title="64 B reads vs total reads in flight")
    a2r = a2.twinx()
    a2r.plot(windows, window_p50, "s--", color="C1", label="median latency (us)")
    a2r.set(yscale="log", ylabel="median latency (us)")
    a2.legend(loc="upper left")
    a2r.legend(loc="lower right")
    save(fig, "qp-scaling.png")

    w("### Throughput vs number of QPs\n")
    w("![QP scaling](calibration/qp-scaling.png)\n")
    w("RDMA reads from node A to node B with the `traffic` op (`scenarios/perf/traffic-qps.json`): "
      "N QP pairs, every one busy, 1 or 4 reads in flight on each, QPs taken round-robin; "
      "warm-up and measured window of max(2000, 2 x N x reads per QP) and max(20000, the same) "
      "reads. Defaults: `qpc.cache_entries` 1024 (8 ways, LRU), `qpc.max_outstanding_misses` 8, "
      "`pcie.max_read_tags` 32. The QPC hit rate is the requester's "
      "(`A.requester.qpc.hit_rate`); the responder's (`B.responder.qpc.hit_rate`) is the same "
      "in every column.\n")
    base = qp_configs[0][0]
    table("QP pairs", qp_counts,
          [(f"{label}: Mreads/s", qp_curve(label), ".3f") for label, *_ in qp_configs] +
          [(f"{base}: QPC hit rate", qp_curve(base, "A.requester.qpc.hit_rate"), ".3f"),
           (f"{qp_configs[1][0]}: QPC hit rate",
            qp_curve(qp_configs[1][0], "A.requester.qpc.hit_rate"), ".3f")])
    w(QP_MECHANISMS)
    w("Total reads in flight: 1024 QP pairs with up to 16 reads each (ORD 16), at most `window` "
      "reads in flight in all, the measured window at least 16 times that. Throughput grows "
      "with the window until the responder's read tags bound it (32 tags over a read of about "
      "0.4 us); past that point more reads in flight mostly queue (Little's law: the latency "
      "grows with the window). A QP whose next batch is still being read does not hold the "
      "scheduler's turn (docs/limits.md, \"WQE fetch scheduler\"). The rate then falls by a "
      "third: the flow's 64 B slots are 1024 lines of one 64 KiB region, so with 4096 reads "
      "in flight about four at a time read each line, and the host never serves two "
      "accesses to one line at once (`read_line_conflicts`, `read_wait_ps` of B's memory): "
      "each waiting read holds its tag longer (0.29 conflicts and 204 ns of waiting per read "
      "at 4096). At 16384 every QP has its whole ORD in flight, a doorbell brings 4 WQEs "
      "(`fetch_reads` 0.31 per read, 0.71 at 4096), and the reads reach B in slot order: the "
      "32 in service read 32 different lines, none waits, and the rate is the tags' again. "
      "Regions of more lines (`region_bytes`) or random slots remove the dip.\n")
    table("window (reads in flight)", windows,
          [("Mreads/s", window_mops, ".3f"),
           ("median latency (us)", window_p50, ".1f")])
