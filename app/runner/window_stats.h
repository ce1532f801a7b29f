// SPDX-License-Identifier: Apache-2.0
// Unit counters over a workload's measured window: snapshots of every counter (and every
// occupancy's integral over time) at the window's start, middle and end, and what a step
// reports from their differences: the counters that moved, cache hit rates and misses per
// operation by node, side and table, the caches that were still warming, busy fractions and
// occupancy means over the window, and the bottleneck report (docs/scenario-format.md,
// "Metrics"; docs/user-guide.md, "Reading the bottleneck report").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "app/runner/bottleneck.h"
#include "app/runner/runner.h"
#include "model/platform/system.h"

namespace rnic::app {

using Metrics = std::vector<std::pair<std::string, double>>;

class CounterWindow {
 public:
  struct Snapshot {
    std::vector<uint64_t> counters;  // every counter, in System::visit_groups order
    uint64_t time_ps = 0;            // simulated time of the snapshot
    // Every occupancy's area under its level from time 0 to time_ps (level x ps): the
    // difference of two over the time between them is the mean level in that window.
    std::vector<double> areas;
  };

  // `owner_prefix` characters are cut from each unit's name (a scope's "s1." in a shared run).
  // `port_gbps`: the line rate, to turn the bytes a port received into time on its link.
  CounterWindow(const System& system, const std::vector<std::string>& node_names,
                size_t owner_prefix, double port_gbps);

  Snapshot take() const;
  // The snapshot of time 0 (every counter and area zero): [zero(), take()] is the whole run.
  Snapshot zero() const;
  // The counters that moved from `a` to `b`, with their differences.
  std::vector<StatEntry> deltas(const Snapshot& a, const Snapshot& b) const;
  // mtt.hit_rate and mpt.hit_rate over every node (hits / lookups; 1 without lookups), then
  // "<node>.<side>.<table>.hit_rate" for each node, side and table with lookups in [a, b].
  void hit_rates(const Snapshot& a, const Snapshot& b, Metrics& out) const;
  // For each node, side and table with lookups in [a, b]: "<label>.hits", ".misses" (new
  // fills: a DMA read or a walk each), ".merged" (lookups that waited on a fill already in
  // flight) and ".misses_per_op" (new fills / `ops`, when ops > 0).
  void lookup_split(const Snapshot& a, const Snapshot& b, uint64_t ops, Metrics& out) const;
  // One line per cache whose misses in the first half [a, mid] exceed those of the second
  // half [mid, b] by more than chance allows: its hit rate was still rising.
  std::vector<std::string> warming(const Snapshot& a, const Snapshot& mid, const Snapshot& b) const;
  // The link that carried the most in [a, b]: each PCIe direction of each node, each port
  // sending, and each port receiving (its switch output). `busy_ps` is the time its bytes
  // take at its rate: no run can move them faster.
  struct BusiestLink {
    std::string label;  // "B PCIe host->device"
    uint64_t busy_ps = 0;
  };
  BusiestLink busiest_link(const Snapshot& a, const Snapshot& b) const;

  // Every bounded resource of every node with its utilization and wait over [a, b], ranked
  // (rank_bottlenecks). `slots[node]`: the ORD and IRD of the QPs open on the node, summed:
  // the capacity of its `ord` and `ird`.
  struct QpSlots {
    double ord = 0;
    double ird = 0;
  };
  std::vector<ResourceLoad> bottlenecks(const Snapshot& a, const Snapshot& b,
                                        const std::vector<QpSlots>& slots) const;
  // Over [a, b]: every `..._busy_ps` counter's fraction of the window (owner, name, value),
  // and every occupancy's time-weighted mean level.
  std::vector<std::tuple<std::string, std::string, double>> busy_fractions(const Snapshot& a,
                                                                           const Snapshot& b) const;
  std::vector<std::tuple<std::string, std::string, double>> occupancy_means(
      const Snapshot& a, const Snapshot& b) const;

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

  // A bounded resource: busy time from a counter (x ps_per_unit), or an occupancy over a
  // capacity; its wait from a ps counter (kNone: none).
  static constexpr size_t kNone = size_t(-1);
  struct Resource {
    size_t node;
    std::string node_name;
    std::string name;
    size_t busy_counter = kNone;
    double ps_per_unit = 1.0;
    size_t occupancy = kNone;
    double capacity = 0;  // occupancy's capacity; 0: the QPs' ORD or IRD (QpSlots)
    bool ird = false;     // capacity 0: IRD (else ORD)
    size_t wait_counter = kNone;
  };

  // The resources of one unit's group (its counters and occupancies by name).
  void add_resources(size_t node, const std::string& node_name, const std::string& owner,
                     const std::map<std::string, size_t>& counter,
                     const std::map<std::string, size_t>& occupancy, const SystemConfig& config,
                     double port_gbps);

  std::vector<const Counter*> counters_;
  std::vector<std::string> owners_;
  std::vector<const Occupancy*> occupancies_;
  std::vector<std::string> occupancy_owners_;
  std::vector<Resource> resources_;
  std::vector<Lookups> lookups_;
  std::vector<Link> links_;
};

}  // namespace rnic::app
