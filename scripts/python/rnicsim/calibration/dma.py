# SPDX-License-Identifier: Apache-2.0
"""The calibration report's DMA curves (pcie-bench): read latency and bandwidth against the
transfer size, and reads through the IOMMU against the window they cover."""
from ..results import workload_steps
from .common import curve, set_fields


def fmt_size(n):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def iommu_edit(window, page_size):
    def edit(data):
        step = dict(workload_steps(data)[-1], window=window, page_size=page_size, count=8000)
        step.pop("expect", None)
        data["steps"] = [step]
    return edit


def per_read(futures, counter):
    """A host-memory counter of node A per device read (the runs have one step)."""
    out = []
    for f in futures.values():
        memory = f.result()["stats"]["A.memory"]
        out.append(memory.get(counter, 0) / max(1, memory["dev_reads"]))
    return out


def submit(run, quick):
    dma_sizes = ([1, 64, 65, 128, 512, 1024, 2048, 4096] if quick else
                 [1, 2, 4, 8, 16, 32, 48, 63, 64, 65, 96, 127, 128, 129, 192, 256, 257, 384,
                  511, 512, 513, 768, 1024, 1025, 1536, 2048, 2049, 3072, 4095, 4096])
    dma_lat = {s: run.submit("dma-latency-pcie-bench",
                             lambda d, s=s: (set_fields(size=s, count=500, window=max(8192, 4 * s))(d),
                                             d.__setitem__("steps", d["steps"][:1])))
               for s in dma_sizes}
    dma_bw = {s: run.submit("dma-bandwidth-pcie-bench",
                            set_fields(size=s, count=2000 if s >= 256 else 4000))
              for s in dma_sizes}
    # The same reads starting on 64 B boundaries (the random pattern's offsets): a read that
    # crosses a line pays its second line, but no two reads share one.
    dma_bw_aligned = {s: run.submit("dma-bandwidth-pcie-bench",
                                    set_fields(size=s, count=2000 if s >= 256 else 4000,
                                               pattern="random", window=max(1 << 20, 64 * s)))
                      for s in dma_sizes}

    # pcie-bench's IOMMU experiment: 64 B DMA reads at random over a window, every address
    # translated by the IOMMU (the preset's MTT), IOMMU pages of 4 KiB and of 2 MiB.
    spans_4k = [1 << k for k in ((14, 16, 18, 20, 21, 22, 24, 26) if quick else  # 16 KiB..64 MiB
                                 range(14, 27))]  # quick too: 2 MiB, which the text quotes
    spans_2m = [1 << k for k in (range(21, 31, 2) if quick else range(21, 31))]  # 2 MiB..1 GiB
    foot_4k = {s: run.submit("dma-iommu-pcie-bench", iommu_edit(s, 4096)) for s in spans_4k}
    foot_2m = {s: run.submit("dma-iommu-pcie-bench", iommu_edit(s, 2 << 20)) for s in spans_2m}
    flat_4k = run.submit("dma-iommu-pcie-bench", iommu_edit(1 << 20, 4096),
                         set=["mtt.cache_entries=65536", "mtt.cache_ways=8"])
    return (dma_sizes, dma_lat, dma_bw, dma_bw_aligned, spans_4k, spans_2m, foot_4k, foot_2m,
            flat_4k)


def report(doc, dma_sizes, dma_lat, dma_bw, dma_bw_aligned, spans_4k, spans_2m, foot_4k,
           foot_2m, flat_4k):
    w, table, plt, save, log_x_plot = doc.w, doc.table, doc.plt, doc.save, doc.log_x_plot
    lat_curve = [f.result().metrics(0)["latency_ns.p50"] for f in dma_lat.values()]
    bw_curve = curve(dma_bw, "gbps")
    bw_aligned = curve(dma_bw_aligned, "gbps")
    conflicts = per_read(dma_bw, "read_line_conflicts")
    f4 = curve(foot_4k, "mops")
    f2 = curve(foot_2m, "mops")
    h4 = curve(foot_4k, "mtt.hit_rate")
    h2 = curve(foot_2m, "mtt.hit_rate")

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    a1.plot(dma_sizes, lat_curve, ".-", label="model (median)")
    a1.plot([64, 512, 2048], [546, 706, 1133], "rx", markersize=9, label="pcie-bench (published)")
    a1.set(xscale="log", xlabel="transfer size (bytes)", ylabel="latency (ns)",
           title="DMA read latency, gen3 x8, 1 outstanding")
    a1.legend()
    a2.plot(dma_sizes, bw_curve, ".-", label="model, 32 outstanding, back-to-back starts")
    a2.plot(dma_sizes, bw_aligned, ".--", label="model, 32 outstanding, 64 B-aligned starts")
    a2.axhline(63.0, color="grey", ls=":", label="gen3 x8 raw (63 Gb/s)")
    a2.set(xscale="log", xlabel="transfer size (bytes)", ylabel="payload Gb/s",
           title="DMA read bandwidth, gen3 x8")
    a2.legend()
    save(fig, "dma-read-vs-size.png")

    log_x_plot("footprint.png",
               [(spans_4k, f4, "o-", "4 KiB IOMMU pages"), (spans_2m, f2, "s-", "2 MiB IOMMU pages")],
               [(64 * 4096, "C0", ":", "64 entries x 4 KiB"),
                (64 * (2 << 20), "C1", ":", "64 entries x 2 MiB")],
               xlabel="window (bytes read at random)", ylabel="M DMA reads/s",
               title="64 B DMA reads through the IOMMU vs window (pcie-bench-gen3x8)")

    w("### DMA read latency and bandwidth vs transfer size\n")
    w("![DMA read vs size](calibration/dma-read-vs-size.png)\n")
    w("Latency: flat up to 64 B (one completion, one line through the 8-byte DMA channel), then "
      "about 16 ns per 64 B line: the channel moves the transfer slower than the link delivers it; "
      "a transfer that crosses a 64 B boundary (65, 129, 513 B) pays one more line and one more "
      "completion TLP (RCB). The host serves the lines of a lone read at once (32 slots), so "
      "its line service (`host.line_service_ns`) is inside the round trip and does not shape "
      "this curve.")
    w("Why the slope is the device's channel and not the host: beyond what the gen3 x8 link "
      "takes to carry the bytes, the published latency grows by about 14 ns per line from 64 "
      "to 512 B and 9 ns per line from 512 to 2048 B. A host that served lines one after "
      "another at that pace would cap every reader at one line per 9 to 14 ns (36 to 57 Gb/s "
      "of aligned lines, half that for reads that straddle), and one that serves them in "
      "parallel adds no slope at all. A per-line cost that each transfer pays alone while "
      "several transfers pay it side by side is a DMA channel: `dma.read_bytes_per_cycle` 8 "
      "with 4 channels in the pcie-bench preset, fitted to the slope.")
    w("Bandwidth: with 32 reads in flight small transfers are bound by the read tags and the "
      "round trip, large ones by the gen3 x8 link less the 24-byte TLP overhead per 256-byte "
      "completion (MPS). The host's line service makes the sawtooth: with back-to-back starts "
      "(each read starts where the previous one ended, pcie-bench's sequential pattern) every "
      "size that is not a multiple of 64 B shares a line with the next read, and the host never "
      "serves two accesses to one line at once (Intel's optimization manual, \"Maximizing "
      "PCIe performance\"): the later read waits up to one line service "
      "(`read_line_conflicts` per read, below). With 64 B-aligned starts a 65 B read still "
      "pays a second line and a second completion, but waits for no other read.\n")
    table("size (B)", dma_sizes, [("latency p50 (ns)", lat_curve, ".0f"),
                                  ("Gb/s (32 outstanding, back-to-back)", bw_curve, ".1f"),
                                  ("Gb/s (32 outstanding, 64 B-aligned)", bw_aligned, ".1f"),
                                  ("line conflicts per read (back-to-back)", conflicts,
                                   ".2f")])

    w("### Throughput vs translation footprint, 4 KiB and 2 MiB pages\n")
    w("![footprint](calibration/footprint.png)\n")
    flat = flat_4k.result().metrics()["mops"]
    at_2m, at_64m = f4[spans_4k.index(2 << 20)], f4[-1]
    w("pcie-bench's IOMMU experiment (`scenarios/perf/dma-iommu-pcie-bench.json`, "
      "`dma_bench` with `translate`): 64 B DMA reads at random offsets in a window, 32 in "
      "flight, each address translated by the host's IOMMU, which the pcie-bench-gen3x8 preset "
      "puts in the MTT's place: a 64-entry IOTLB, a miss a page walk of 260 ns beside memory "
      "(`mtt.walk_ns`; no PCIe read), 5 walks at once (`mtt.max_outstanding_misses`), one "
      "translation filled per walk (`mtt.entries_per_fetch` 1).")
    w(f"Flat while the window's pages fit the IOTLB (knee at 64 x 4 KiB = 256 KiB): "
      f"{f4[0]:.1f} M reads/s, bound by the 32 read tags over the round trip (a window the "
      f"IOTLB always covers gives {flat:.1f}). Beyond it the hit rate is 64 / pages, as a "
      f"cache of random accesses gives, and the reads queue for the walker: 5 walks of "
      f"260 ns serve at most 19 M misses/s, so the rate falls to {at_2m / flat:.2f} of the flat "
      f"rate at 2 MiB and {at_64m / flat:.2f} at 64 MiB (the pcie-bench data set: 0.42 and "
      f"0.35; the walk's cost and concurrency come from its latency and all-miss rows, the "
      f"knee and the shape in between are the model's).")
    w("2 MiB pages cover 512 times more bytes per entry, so the same knee moves to "
      "64 x 2 MiB = 128 MiB (pcie-bench saw no fall with 2 MiB IOMMU pages over the windows "
      "it measured).\n")
    table("window", [fmt_size(s) for s in spans_4k],
          [("4 KiB pages: M reads/s", f4, ".2f"),
           ("4 KiB pages: IOTLB hit rate", h4, ".3f")])
    table("window", [fmt_size(s) for s in spans_2m],
          [("2 MiB pages: M reads/s", f2, ".2f"),
           ("2 MiB pages: IOTLB hit rate", h2, ".3f")])
