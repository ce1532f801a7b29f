// SPDX-License-Identifier: Apache-2.0
// The host's service of device reads, one 64 B cache line at a time (plain C++, no kernel).
// The root complex reads each line a request touches from the cache hierarchy: a read that
// straddles a line boundary pays for both lines, and two accesses to one line are not served
// at once (Intel 64 and IA-32 Architectures Optimization Reference Manual, "Maximizing PCIe
// performance": align reads to 64 B; concurrent accesses to one line serialize).
// `lines_in_service` lines are read at once, each holding its slot for `line_service_ns`:
// the host reads lines_in_service / line_service_ns lines per ns. That capacity is booked in
// simulated-time order (a BandwidthPipe of lines), so a read booked ahead of time does not
// delay one that reaches the host earlier. The lines of one read are served side by side: a
// read of n lines is ready one service after it starts, or after n / lines_in_service services
// when it has more lines than slots. A line another access holds is read when that one ends;
// an access to it booked ahead, to start only after this read is over, delays nothing (as for
// the capacity: it reaches the host later, whatever order the two were booked in).
// The round trip of a lone minimal read (pcie.read_latency_ns) already contains one line's
// service, so serve() reports only the wait beyond it: zero for a read that finds the
// capacity free and no earlier access to its lines in service.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tlm/timing.h"

namespace rnic {

class LineService {
 public:
  static constexpr uint64_t kLineBytes = 64;

  struct Config {
    uint32_t line_service_ns = 40;
    uint32_t lines_in_service = 32;
  };
  struct Result {
    uint64_t wait_ps = 0;         // ready time, minus arrival and one service time
    uint32_t lines = 0;           // lines the read touches
    bool capacity_wait = false;   // it waited for the host's read capacity
    uint32_t line_conflicts = 0;  // its lines that waited for an access to the same line
  };

  explicit LineService(const Config& config);

  // A read of `bytes` bytes at `address` reaching the host at `arrival_ps`, asked at
  // `now_ps` (<= arrival_ps; no later read can reach the host before now).
  Result serve(uint64_t now_ps, uint64_t arrival_ps, uint64_t address, uint64_t bytes);
  uint64_t service_ps() const { return service_ps_; }
  // The host's read capacity one line takes: line_service_ns / lines_in_service.
  uint64_t line_share_ps() const { return share_ps_; }
  // Runs of lines with an access in service or booked (a read's lines form one run, so a
  // large read is one entry, not one per line).
  size_t tracked_runs() const { return runs_.size(); }

 private:
  struct Run {
    uint64_t first_line;
    uint64_t last_line;   // inclusive
    uint64_t busy_from;   // ps: the first of the accesses to these lines, back to back, starts
    uint64_t busy_until;  // ps: the last ends
  };
  void forget_served(uint64_t now_ps);
  // The fewest runs worth a sweep. Every read moves the runs after its own within the
  // vector, so a short list is cheaper than rare sweeps.
  static constexpr size_t kSweepAt = 16;

  uint64_t service_ps_;
  uint64_t share_ps_;
  BandwidthPipe capacity_;  // in lines
  // Sorted by line, never overlapping; a few dozen at most in practice, so a vector (no
  // allocation per read once warm) beats a tree.
  std::vector<Run> runs_;
  std::vector<Run> pieces_;  // scratch: what replaces the runs a read overlaps
  size_t forget_above_;
};

}  // namespace rnic
