// SPDX-License-Identifier: Apache-2.0
// The host's service of device reads, one 64 B cache line at a time (plain C++, no kernel).
// The root complex reads each line a request touches from the cache hierarchy: a read that
// straddles a line boundary pays for both lines, and two accesses to one line are not served
// at once (Intel 64 and IA-32 Architectures Optimization Reference Manual, "Maximizing PCIe
// performance": align reads to 64 B; concurrent accesses to one line serialize).
// `lines_in_service` lines are read at once, each holding its slot for `line_service_ns`.
// The round trip of a lone minimal read (pcie.read_latency_ns) already contains one line's
// service, so serve() reports only the wait beyond it: zero for a read whose lines all find a
// free slot and no earlier access to the same line in service.
#pragma once

#include <cstddef>
#include <cstdint>
#include <queue>
#include <unordered_map>
#include <vector>

namespace rnic {

class LineService {
 public:
  static constexpr uint64_t kLineBytes = 64;

  struct Config {
    uint32_t line_service_ns = 40;
    uint32_t lines_in_service = 32;
  };
  struct Result {
    uint64_t wait_ps = 0;         // last line ready, minus arrival and one service time
    uint32_t lines = 0;           // lines the read touches
    uint32_t slot_waits = 0;      // of them, lines that waited for a free slot
    uint32_t line_conflicts = 0;  // of them, lines that waited for an access to the same line
  };

  explicit LineService(const Config& config);

  // A read of `bytes` bytes at `address` reaching the host at `arrival_ps`. Lines are taken
  // in address order, each by the slot that frees first (reads arriving out of time order are
  // served in call order: the slots do not reorder work already given).
  Result serve(uint64_t arrival_ps, uint64_t address, uint64_t bytes);
  uint64_t service_ps() const { return service_ps_; }
  uint32_t slots() const { return uint32_t(slot_free_ps_.size()); }
  size_t tracked_lines() const { return line_busy_until_ps_.size(); }

 private:
  void forget_served(uint64_t now_ps);

  uint64_t service_ps_;
  // Time each slot frees, earliest first.
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> slot_free_ps_;
  // Lines given to a slot and the time their service ends; entries that ended are dropped
  // once the map holds more than a few slots' worth, so it stays as small as the lines in
  // flight.
  std::unordered_map<uint64_t, uint64_t> line_busy_until_ps_;
  size_t forget_above_;
};

}  // namespace rnic
