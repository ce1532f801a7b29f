// SPDX-License-Identifier: Apache-2.0
#include "app/observe/gauges.h"

#include <algorithm>
#include <memory>

#include "model/host/pcie_link.h"

namespace rnic::app {

namespace {

const Counter* find_counter(const StatGroup& group, const char* name) {
  for (const Counter& c : group.counters()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace

std::vector<Gauge> declare_gauges(System& system, const sc_core::sc_time& period) {
  using Kind = Gauge::Kind;
  std::vector<Gauge> gauges;
  for (size_t i = 0; i < system.node_count(); ++i) {
    Node& node = system.node(i);
    const std::string n = std::string(node.name()) + ".";
    Rnic& rnic = node.rnic;
    const Requester* requester = &rnic.requester;
    gauges.push_back({n + "sq_wqes_in_flight", Kind::Level,
                      [requester] { return uint64_t(requester->wqes_in_flight()); }});
    gauges.push_back({n + "reads_outstanding", Kind::Level,
                      [requester] { return uint64_t(requester->reads_outstanding()); }});
    // Occupancies (read tags, IRD slots, CQ queue, reads in flight), as the model booked them.
    rnic.visit_groups([&](const StatGroup& group) {
      const std::string& owner = group.owner();
      const std::string unit = owner.substr(owner.rfind('.') + 1);
      for (const Occupancy& o : group.occupancies()) {
        const Occupancy* occupancy = &o;
        gauges.push_back({n + unit + "_" + o.name, Kind::Level, [occupancy] {
                            return occupancy->level_at(sc_core::sc_time_stamp().value());
                          }});
      }
    });
    // Counters (cumulative; a waveform viewer's analog view shows the rate as the slope).
    const std::pair<const StatGroup*, const char*> counters[] = {
        {&rnic.dma_read.stats, "bytes"},      {&rnic.dma_write.stats, "bytes"},
        {&rnic.mtt.stats, "mtt_hits"},        {&rnic.mtt.stats, "mtt_misses"},
        {&rnic.protection.stats, "mpt_hits"}, {&rnic.protection.stats, "mpt_misses"},
        {&rnic.port.stats, "tx_bytes"}};
    for (const auto& [group, counter] : counters) {
      const Counter* c = find_counter(*group, counter);
      if (!c) continue;
      const std::string& owner = group->owner();
      const std::string unit = owner.substr(owner.rfind('.') + 1);
      gauges.push_back({n + unit + "_" + counter, Kind::Cumulative, [c] { return c->value; }});
    }
    // PCIe link busy, percent of each direction's capacity over the last period (bytes booked
    // on the link in the period over what it can carry; approximate: LT books ahead).
    const double per_period =
        pcie_bytes_per_ns(system.config().rnic.pcie.gen, system.config().rnic.pcie.lanes) *
        (period.to_seconds() * 1e9);
    for (const char* dir : {"upstream_bytes", "downstream_bytes"}) {
      const Counter* c = find_counter(node.pcie.stats, dir);
      if (!c || per_period <= 0) continue;
      auto last = std::make_shared<uint64_t>(0);
      gauges.push_back({n + "pcie_" + std::string(dir, std::string(dir).find('_')) + "_busy_pct",
                        Kind::Percent, [c, last, per_period] {
                          const uint64_t delta = c->value - *last;
                          *last = c->value;
                          return uint64_t(
                              std::min(100.0, 100.0 * double(delta) / per_period + 0.5));
                        }});
    }
  }
  return gauges;
}

}  // namespace rnic::app
