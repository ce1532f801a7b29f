# SPDX-License-Identifier: Apache-2.0
"""The calibration report's RDMA read curves on one QP: throughput against the read size, the
reads outstanding and the number of MRs read."""
from ..results import workload_steps
from .common import curve, set_fields


def mr_edit(n):
    def edit(data):
        steps = [s for s in data["steps"]
                 if not (s["op"] in ("create_mr", "register_mr") and
                         s.get("name", s.get("mr", "")).startswith("mr") and
                         s.get("name", s.get("mr", ""))[2:].isdigit())]
        at = next(i for i, s in enumerate(steps) if s["op"] in ("read_stream",))
        new = []
        for k in range(n):
            new += [{"op": "create_mr", "name": f"mr{k}", "pd": "pdB"},
                    {"op": "register_mr", "mr": f"mr{k}", "buffer": "src",
                     "offset": (k % 256) * 4096, "length": 4096,
                     "flags": ["ALLOW_REMOTE_READ"]}]
        steps[at:at] = new
        data["steps"] = steps
        set_fields(count=max(4000, 4 * n))(data)
        for s in workload_steps(data):
            s["remote"]["targets"] = [f"mr{k}" for k in range(n)]
    return edit


def submit(run, quick):
    read_sizes = [2, 64, 256, 1024, 4096, 16384, 65536] if quick else \
        [2, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
    read_size = {s: run.submit("read-bandwidth-64k",
                               set_fields(size=s, count=3000 if s <= 4096 else 600,
                                          remote_span=max(65536, s)))
                 for s in read_sizes}

    outstanding = [1, 2, 4, 8, 16, 32, 64] if not quick else [1, 4, 16, 64]
    read_ord = {(size, n): run.submit("read-outstanding",
                                      set_fields(size=size, outstanding=n,
                                                 count=1500 if size == 4096 else 3000))
                for size in (64, 4096) for n in outstanding}

    mr_counts = [1, 16, 64, 128, 192, 256, 320, 512, 1024, 1536, 2048] if not quick else \
        [1, 64, 256, 512, 2048]
    mr_runs = {n: run.submit("read-mr-count", mr_edit(n)) for n in mr_counts}
    return read_sizes, read_size, outstanding, read_ord, mr_counts, mr_runs


def report(doc, read_sizes, read_size, outstanding, read_ord, mr_counts, mr_runs):
    w, table, plt, save, log_x_plot = doc.w, doc.table, doc.plt, doc.save, doc.log_x_plot
    rs_gbps = curve(read_size, "gbps")
    rs_mops = curve(read_size, "mops")
    mr_mops = curve(mr_runs, "mops")
    mr_mpt = curve(mr_runs, "mpt.hit_rate")

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(read_sizes, rs_gbps, "o-", color="C0", label="Gb/s")
    ax.axhline(100, color="grey", ls=":", label="100 Gb/s line rate")
    ax.set(xscale="log", xlabel="read size (bytes)", ylabel="payload Gb/s",
           title="RDMA read throughput vs size, 1 QP, 16 outstanding")
    ax2 = ax.twinx()
    ax2.plot(read_sizes, rs_mops, "s--", color="C1", label="Mreads/s")
    ax2.set(ylabel="Mreads/s")
    ax.legend(loc="center left")
    ax2.legend(loc="center right")
    save(fig, "read-vs-size.png")

    log_x_plot("read-vs-outstanding.png",
               [(outstanding, [read_ord[(size, n)].result().metrics()["gbps"]
                               for n in outstanding], style, f"{size} B reads")
                for size, style in ((64, "o-"), (4096, "s-"))],
               xlabel="outstanding reads (one QP)", ylabel="payload Gb/s",
               title="RDMA read throughput vs outstanding reads")

    log_x_plot("mr-count.png", [(mr_counts, mr_mops, "o-", "Mreads/s")],
               [(256, "grey", ":", "256 MPT cache entries"),
                (1024, "grey", "--", "1024 MTT cache entries")],
               xlabel="remote MRs read round-robin", ylabel="Mreads/s",
               title="64 B RDMA reads vs number of MRs (default preset)")

    w("### RDMA read throughput vs message size\n")
    w("![read vs size](calibration/read-vs-size.png)\n")
    w("Small reads are bound by the message rate: 16 outstanding reads over one round trip "
      "(WQE fetch, wire, remote DMA read, response, local write, completion).")
    w("Large reads are bound by the 100 Gb/s port less the RoCEv2 headers per 4096-byte MTU "
      "packet; the PCIe gen3 x16 link is faster and not the limit.\n")
    table("size (B)", read_sizes, [("Gb/s", rs_gbps, ".2f"), ("Mreads/s", rs_mops, ".3f")])

    w("### RDMA read throughput vs outstanding reads, one QP\n")
    w("![read vs outstanding](calibration/read-vs-outstanding.png)\n")
    w("With N reads in flight a QP moves N reads per round trip, so throughput first grows "
      "linearly with N (ORD/IRD are raised to 64 for this sweep).")
    w("4 KiB reads reach the port's line rate at 16 reads in flight; 64 B reads keep growing "
      "with N up to 64: their round trip, not the device, bounds them. (Before WQE prefetch "
      "they levelled off at 3.6 Gb/s from 32 in flight: the fetcher read the next batch of "
      "WQEs only when the last was used up.)\n")
    table("outstanding", outstanding,
          [(f"{size} B: Gb/s", [read_ord[(size, n)].result().metrics()["gbps"]
                                for n in outstanding], ".2f") for size in (64, 4096)])

    w("### Throughput vs number of MRs\n")
    w("![MR count](calibration/mr-count.png)\n")
    w("Reads go round-robin over N remote MRs of one page each: flat while the N protection "
      "entries fit the 256-entry MPT cache; past it every read misses and adds a PCIe read of "
      "the MPT entry to its latency (misses overlap in the MPT's miss-status registers, so the "
      "rate falls by that latency, not to one miss per round trip).")
    w("Past 1024 MRs the MTT cache (1024 entries) overflows as well and each read pays a "
      "second table read.\n")
    table("MRs", mr_counts, [("Mreads/s", mr_mops, ".2f"),
                             ("MPT hit rate (both nodes)", mr_mpt, ".2f")])
