// SPDX-License-Identifier: Apache-2.0
// What the memory estimate (memory.cpp) charges per item: the per-item constants, measured on
// the Release build (peak RSS of runs that vary one thing, /usr/bin/time -v) and rounded up,
// and the saturating arithmetic the estimate adds them with. Internal to app/scenario/.
#pragma once

#include <cstdint>

namespace rnic::app::memory_costs {

inline constexpr uint64_t KiB = 1024, MiB = KiB * KiB;

// The executable, the SystemC kernel and the allocator's arenas: a one-node file that does
// nothing peaks at 10.4 MB; the rest is margin for what the parts below leave out.
inline constexpr uint64_t kProcessBytes = 32 * MiB;
// A node idle: 0.36 MB (64 nodes: 33 MB); its coroutine stacks, statistics and context
// caches grow with use.
inline constexpr uint64_t kNodeBytes = 2 * MiB;
// Host memory keeps 4 KiB pages in a hash map, plus the driver's and the runner's page
// lists: about 100 bytes beside each page's 4096 (1 GiB filled: 1.037 GiB), counted as 1/32.
inline constexpr uint64_t kPageBytes = 4096;
// On-chip caches (SetAssocCache): the lines and the index are allocated whole when the device
// is built: 48.3 bytes per MTT entry and 96.3 per MPT entry measured (2^20 entries each on 8
// nodes: 1.2 GB), counted with 8 more; an entry in use adds its node in the index.
inline constexpr uint64_t kMttCacheEntryBytes = 64;   // a line also holds its fill time (non-blocking)
inline constexpr uint64_t kMptCacheEntryBytes = 112;
inline constexpr uint64_t kQpcCacheEntryBytes = 104;  // QP-context unit lines (running words included)
inline constexpr uint64_t kCqcCacheEntryBytes = 72;
inline constexpr uint64_t kWqeBufferEntryBytes = 192;  // a fetched WQE waiting on chip
inline constexpr uint64_t kCacheEntryInUseBytes = 32;
// A parsed step beyond sizeof(Step): the JSON paths of its values and its names; then its
// result (StepResult with its strings). 10^6 `wait` steps peak at 2.8 GB in `run`.
inline constexpr uint64_t kStepExtraBytes = 1 * KiB;
inline constexpr uint64_t kStepResultBytes = 512;
// --out: the results JSON is built as a tree, then as text (10^6 steps: 1.6 GB more), and
// each node's statistics are in it.
inline constexpr uint64_t kResultJsonStepBytes = 2 * KiB;
inline constexpr uint64_t kResultJsonNodeBytes = 64 * KiB;
// --trace keeps each event (40 bytes) in a vector until the end; growing it copies.
inline constexpr uint64_t kTraceEventBytes = 80;
// A request in flight in a workload: the requester's record (with its packet header) and the
// runner's posting time.
inline constexpr uint64_t kRequestRecordBytes = 512;
// A QP of a traffic step: the driver's and the device's records of it (200,000 QPs created:
// 56 MB, 280 bytes each), and once it has posted, the device's per-QP state (50,000 QP pairs
// busy: 290 MB beyond that, 5.8 KiB per pair of which 4 KiB is the send ring's page, counted
// with the queues): counted as 512 bytes and 2 KiB.
inline constexpr uint64_t kTrafficQpBytes = 512;
inline constexpr uint64_t kTrafficBusyQpBytes = 2 * KiB;
// A workload step's latency histogram and the statistics it touches.
inline constexpr uint64_t kWorkloadStepBytes = 256 * KiB;
// The DMA read path books each read request (one per pcie.mrrs bytes) ahead of time and
// drops the booking once simulated time has passed it: 49 bytes per request booked, measured
// with the time-ordered PCIe link (a 1 GiB read: 3.07 GiB peak with pcie.mrrs 4096, 3.45 GiB
// with 128; 32 bytes before that link), counted as 64.
inline constexpr uint64_t kBookingBytes = 64;
// dma_bench lets simulated time catch up every 4096 requests or 4 MiB (DmaBench).
inline constexpr uint64_t kBenchSyncRequests = 4096;
inline constexpr uint64_t kBenchSyncBytes = 4 * MiB;
// fill_memory, expect_memory and alloc's fill work through chunks of 1 MiB (two at a time).
inline constexpr uint64_t kScratchBytes = 2 * MiB;

// Saturating arithmetic: a file can ask for sums beyond 2^64 (10^6 steps of 4 GiB), which
// must read as "too much", never wrap to a small number.
inline uint64_t add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
inline uint64_t mul(uint64_t a, uint64_t b) { return b && a > UINT64_MAX / b ? UINT64_MAX : a * b; }
inline uint64_t round_up(uint64_t v, uint64_t unit) {
  return v % unit ? add(v - v % unit, unit) : v;
}
inline uint64_t with_page_overhead(uint64_t bytes) { return add(bytes, bytes / 32); }

}  // namespace rnic::app::memory_costs
