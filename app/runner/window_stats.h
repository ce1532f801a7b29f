// SPDX-License-Identifier: Apache-2.0
// Unit counters over a workload's measured window: snapshots of every counter at the
// window's start, middle and end, and what a step reports from their differences: the
// counters that moved, cache hit rates by node, side and table, and the caches that were
// still warming (docs/user-guide.md, "Statistics of a workload step").
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "app/runner/runner.h"
#include "model/platform/system.h"

namespace rnic::app {

using Metrics = std::vector<std::pair<std::string, double>>;

class CounterWindow {
 public:
  using Snapshot = std::vector<uint64_t>;  // every counter, in System::visit_groups order

  // `owner_prefix` characters are cut from each unit's name (a scope's "s1." in a shared run).
  // `port_gbps`: the line rate, to turn the bytes a port received into time on its link.
  CounterWindow(const System& system, const std::vector<std::string>& node_names,
                size_t owner_prefix, double port_gbps);

  Snapshot take() const;
  // The counters that moved from `a` to `b`, with their differences.
  std::vector<StatEntry> deltas(const Snapshot& a, const Snapshot& b) const;
  // mtt.hit_rate and mpt.hit_rate over every node (hits / lookups; 1 without lookups), then
  // "<node>.<side>.<table>.hit_rate" for each node, side and table with lookups in [a, b].
  void hit_rates(const Snapshot& a, const Snapshot& b, Metrics& out) const;
  // One line per cache whose misses in the first half [a, mid] exceed those of the second
  // half [mid, b] by more than chance allows: its hit rate was still rising.
  std::vector<std::string> warming(const Snapshot& a, const Snapshot& mid,
                                   const Snapshot& b) const;
  // The link that carried the most in [a, b]: each PCIe direction of each node, each port
  // sending, and each port receiving (its switch output). `busy_ps` is the time its bytes
  // take at its rate: no run can move them faster.
  struct BusiestLink {
    std::string label;  // "B PCIe host->device"
    uint64_t busy_ps = 0;
  };
  BusiestLink busiest_link(const Snapshot& a, const Snapshot& b) const;

 private:
  // One table's lookups by one side on one node: indices into a snapshot.
  struct Lookups {
    std::string label;  // "B.responder.mtt"
    size_t hits, misses, merged;
    bool shared;  // mtt or mpt: also in the totals over every node
    std::string table;
  };

  // A link's traffic: counter (busy ps, or bytes) x ps per unit = its busy time.
  struct Link {
    std::string label;
    size_t counter;
    double ps_per_unit;
  };

  std::vector<const Counter*> counters_;
  std::vector<std::string> owners_;
  std::vector<Lookups> lookups_;
  std::vector<Link> links_;
};

}  // namespace rnic::app
