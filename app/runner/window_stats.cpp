// SPDX-License-Identifier: Apache-2.0
#include "app/runner/window_stats.h"

#include <algorithm>
#include <map>
#include <systemc>

namespace rnic::app {

namespace {

// The cached tables and the names their units give the sides asking. The QP-context unit's
// "fetcher" reads QP contexts for the requester side (the context travels on with each WQE),
// so its lookups are the requester's. The MTT's "dma_bench" asker is the benchmark engine's
// translated reads (dma_bench with "translate").
constexpr const char* kTables[] = {"mtt", "mpt", "qpc", "cqc"};
constexpr std::pair<const char*, const char*> kSides[] = {{"requester", "requester"},
                                                          {"fetcher", "requester"},
                                                          {"responder", "responder"},
                                                          {"completion", "completion"},
                                                          {"dma_bench", "dma_bench"}};

double hit_rate(uint64_t hits, uint64_t lookups) {
  return lookups ? double(hits) / double(lookups) : 1.0;
}

}  // namespace

CounterWindow::CounterWindow(const System& system, const std::vector<std::string>& node_names,
                             size_t owner_prefix, double port_gbps) {
  for (size_t node = 0; node < system.node_count(); ++node) {
    const std::string node_name = node < node_names.size() ? node_names[node] : "";
    system.visit_node_groups(node, [&](const StatGroup& group) {
      std::map<std::string, size_t> index;  // this group's counters by name
      for (const Counter& c : group.counters()) {
        index[c.name] = counters_.size();
        counters_.push_back(&c);
        owners_.push_back(group.owner().substr(owner_prefix));
      }
      std::map<std::string, size_t> occupancy;  // this group's occupancies by name
      for (const Occupancy& o : group.occupancies()) {
        occupancy[o.name] = occupancies_.size();
        occupancies_.push_back(&o);
        occupancy_owners_.push_back(group.owner().substr(owner_prefix));
      }
      add_resources(node, node_name, group.owner().substr(owner_prefix), index, occupancy,
                    system.config(), port_gbps);
      // The links: the PCIe link's two directions, the host's read service, the port's wire
      // out and, in, the switch output that feeds it (its received bytes at line rate;
      // headers, preamble and gap included).
      auto link = [&](const char* counter, const std::string& label, double ps_per_unit) {
        const auto found = index.find(counter);
        if (found != index.end())
          links_.push_back({node_name + " " + label, found->second, ps_per_unit});
      };
      if (index.count("upstream_busy_ps")) {
        link("upstream_busy_ps", "PCIe device->host", 1.0);
        link("downstream_busy_ps", "PCIe host->device", 1.0);
      }
      // The host's read capacity (lines x service / slots) bounds reads like a link does.
      link("read_service_busy_ps", "host read service", 1.0);
      if (index.count("tx_busy_ps") && port_gbps > 0) {
        link("tx_busy_ps", "port sending", 1.0);
        link("rx_bytes", "port receiving", 8000.0 / port_gbps);
      }
      for (const char* table : kTables) {
        for (const auto& [unit_side, side] : kSides) {
          const std::string suffix = std::string("_") + unit_side;
          const auto hits = index.find(table + std::string("_hits") + suffix);
          const auto misses = index.find(table + std::string("_misses") + suffix);
          const auto merged = index.find(table + std::string("_merged") + suffix);
          if (hits == index.end() || misses == index.end() || merged == index.end()) continue;
          const std::string t = table;
          lookups_.push_back({node_name + "." + side + "." + t, hits->second, misses->second,
                              merged->second, t == "mtt" || t == "mpt", t});
        }
      }
    });
  }
}

CounterWindow::BusiestLink CounterWindow::busiest_link(const Snapshot& a, const Snapshot& b) const {
  BusiestLink busiest;
  for (const Link& l : links_) {
    const auto busy =
        uint64_t(double(b.counters[l.counter] - a.counters[l.counter]) * l.ps_per_unit + 0.5);
    if (busy > busiest.busy_ps) busiest = {l.label, busy};
  }
  return busiest;
}

void CounterWindow::add_resources(size_t node, const std::string& node_name,
                                  const std::string& owner,
                                  const std::map<std::string, size_t>& counter,
                                  const std::map<std::string, size_t>& occupancy,
                                  const SystemConfig& config, double port_gbps) {
  // The unit: the owner after "<node>.", "rnic." cut ("pcie", "memory", "mtt", ...).
  std::string unit = owner.size() > node_name.size() ? owner.substr(node_name.size() + 1) : "";
  if (unit.rfind("rnic.", 0) == 0) unit = unit.substr(5);
  auto find = [](const std::map<std::string, size_t>& m, const std::string& name) {
    const auto it = m.find(name);
    return it == m.end() ? kNone : it->second;
  };
  auto busy = [&](const char* name, const char* counter_name, double ps_per_unit,
                  const char* wait) {
    const size_t c = find(counter, counter_name);
    if (c == kNone) return;
    Resource r{node, node_name, name};
    r.busy_counter = c;
    r.ps_per_unit = ps_per_unit;
    r.wait_counter = wait ? find(counter, wait) : kNone;
    resources_.push_back(r);
  };
  auto held = [&](const char* name, const std::string& occupancy_name, double capacity, bool ird,
                  const std::string& wait) {
    const size_t o = find(occupancy, occupancy_name);
    if (o == kNone) return;
    Resource r{node, node_name, name};
    r.occupancy = o;
    r.capacity = capacity;
    r.ird = ird;
    r.wait_counter = wait.empty() ? kNone : find(counter, wait);
    resources_.push_back(r);
  };
  const RnicConfig& rnic = config.rnic;
  if (unit == "pcie") {
    busy("pcie.up", "upstream_busy_ps", 1.0, nullptr);
    busy("pcie.down", "downstream_busy_ps", 1.0, nullptr);
  } else if (unit == "memory") {
    // host.lines_in_service slots, each holding a line for host.line_service_ns.
    busy("host.read_service", "read_service_busy_ps", 1.0, "read_wait_ps");
  } else if (unit == "port" && port_gbps > 0) {
    busy("port.tx", "tx_busy_ps", 1.0, nullptr);
    // Its received bytes at line rate: the switch output that feeds it.
    busy("port.rx", "rx_bytes", 8000.0 / port_gbps, nullptr);
  } else if (unit == "dma_read") {
    held("read_tags", "tags_in_use", rnic.pcie.max_read_tags, false, "tag_stall_ps");
    held("dma.read_channels", "channels_in_use", rnic.dma.read_channels, false,
         "channel_wait_ps");
  } else if (unit == "mtt") {
    held("mtt.miss_registers", "misses_outstanding", rnic.mtt.max_outstanding_misses, false,
         "miss_register_stall_ps");
  } else if (unit == "protection") {
    held("mpt.miss_registers", "misses_outstanding", rnic.mpt.max_outstanding_misses, false,
         "miss_register_stall_ps");
  } else if (unit == "context") {
    held("qpc.miss_registers", "qpc_misses_outstanding", rnic.context.qpc.max_outstanding_misses,
         false, "qpc_miss_register_stall_ps");
    held("cqc.miss_registers", "cqc_misses_outstanding", rnic.context.cqc.max_outstanding_misses,
         false, "cqc_miss_register_stall_ps");
  } else if (unit == "fetcher") {
    held("wqe.buffer", "wqes_buffered", rnic.wqe.cache_entries, false, "buffer_wait_ps");
  } else if (unit == "requester") {
    held("ord", "reads_outstanding", 0, false, "ord_wait_ps");
  } else if (unit == "responder") {
    held("ird", "ird_in_use", 0, true, "ird_stall_ps");
    held("responder.read_contexts", "read_contexts_in_use", rnic.responder.read_contexts, false,
         "read_context_wait_ps");
  }
}

CounterWindow::Snapshot CounterWindow::take() const {
  Snapshot s;
  s.counters.resize(counters_.size());
  for (size_t i = 0; i < counters_.size(); ++i) s.counters[i] = counters_[i]->value;
  s.time_ps = sc_core::sc_time_stamp().value();
  s.areas.resize(occupancies_.size());
  // Occupancy::mean(t) is the mean over [0, t): times t, the area. Every change booked
  // before now is final (tlm/stats.h), so the area up to now no later booking changes.
  for (size_t i = 0; i < occupancies_.size(); ++i)
    s.areas[i] = occupancies_[i]->mean(s.time_ps) * double(s.time_ps);
  return s;
}

CounterWindow::Snapshot CounterWindow::zero() const {
  Snapshot s;
  s.counters.assign(counters_.size(), 0);
  s.areas.assign(occupancies_.size(), 0.0);
  return s;
}

std::vector<ResourceLoad> CounterWindow::bottlenecks(const Snapshot& a, const Snapshot& b,
                                                     const std::vector<QpSlots>& slots) const {
  std::vector<ResourceLoad> out;
  const double window_ps = double(b.time_ps - a.time_ps);
  if (window_ps <= 0) return out;
  for (const Resource& r : resources_) {
    ResourceLoad load{r.node_name, r.name};
    if (r.busy_counter != kNone) {
      load.utilization = double(b.counters[r.busy_counter] - a.counters[r.busy_counter]) *
                         r.ps_per_unit / window_ps;
    } else {
      const QpSlots qp = r.node < slots.size() ? slots[r.node] : QpSlots{};
      const double capacity = r.capacity > 0 ? r.capacity : r.ird ? qp.ird : qp.ord;
      if (capacity <= 0) continue;  // no QP with reads allowed on the node: no ORD or IRD
      const double mean = (b.areas[r.occupancy] - a.areas[r.occupancy]) / window_ps;
      load.utilization = std::max(0.0, mean) / capacity;
    }
    if (r.wait_counter != kNone)
      load.wait_ns = double(b.counters[r.wait_counter] - a.counters[r.wait_counter]) / 1000.0;
    out.push_back(load);
  }
  return rank_bottlenecks(std::move(out));
}

std::vector<std::tuple<std::string, std::string, double>> CounterWindow::busy_fractions(
    const Snapshot& a, const Snapshot& b) const {
  std::vector<std::tuple<std::string, std::string, double>> out;
  const double window_ps = double(b.time_ps - a.time_ps);
  if (window_ps <= 0) return out;
  const std::string suffix = "_busy_ps";
  for (size_t i = 0; i < counters_.size(); ++i) {
    const std::string& name = counters_[i]->name;
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    out.emplace_back(owners_[i], name, double(b.counters[i] - a.counters[i]) / window_ps);
  }
  return out;
}

std::vector<std::tuple<std::string, std::string, double>> CounterWindow::occupancy_means(
    const Snapshot& a, const Snapshot& b) const {
  std::vector<std::tuple<std::string, std::string, double>> out;
  const double window_ps = double(b.time_ps - a.time_ps);
  if (window_ps <= 0) return out;
  for (size_t i = 0; i < occupancies_.size(); ++i)
    out.emplace_back(occupancy_owners_[i], occupancies_[i]->name,
                     std::max(0.0, (b.areas[i] - a.areas[i]) / window_ps));
  return out;
}

std::vector<StatEntry> CounterWindow::deltas(const Snapshot& a, const Snapshot& b) const {
  std::vector<StatEntry> out;
  for (size_t i = 0; i < counters_.size(); ++i) {
    if (b.counters[i] == a.counters[i]) continue;
    out.push_back(
        {owners_[i], counters_[i]->name, counters_[i]->unit, b.counters[i] - a.counters[i]});
  }
  return out;
}

void CounterWindow::hit_rates(const Snapshot& a, const Snapshot& b, Metrics& out) const {
  // A merged lookup waited for another's miss: a lookup, not a hit.
  auto lookups = [&](const Lookups& l) {
    return (b.counters[l.hits] - a.counters[l.hits]) +
           (b.counters[l.misses] - a.counters[l.misses]) +
           (b.counters[l.merged] - a.counters[l.merged]);
  };
  uint64_t hits[2] = {}, total[2] = {};  // mtt, mpt over every node and side
  for (const Lookups& l : lookups_) {
    if (!l.shared) continue;
    const int t = l.table == "mtt" ? 0 : 1;
    hits[t] += b.counters[l.hits] - a.counters[l.hits];
    total[t] += lookups(l);
  }
  out.emplace_back("mtt.hit_rate", hit_rate(hits[0], total[0]));
  out.emplace_back("mpt.hit_rate", hit_rate(hits[1], total[1]));
  for (const Lookups& l : lookups_) {
    const uint64_t n = lookups(l);
    if (n)
      out.emplace_back(l.label + ".hit_rate", hit_rate(b.counters[l.hits] - a.counters[l.hits], n));
  }
}

void CounterWindow::lookup_split(const Snapshot& a, const Snapshot& b, uint64_t ops,
                                 Metrics& out) const {
  for (const Lookups& l : lookups_) {
    const uint64_t hits = b.counters[l.hits] - a.counters[l.hits];
    const uint64_t misses = b.counters[l.misses] - a.counters[l.misses];
    const uint64_t merged = b.counters[l.merged] - a.counters[l.merged];
    if (hits + misses + merged == 0) continue;
    out.emplace_back(l.label + ".hits", double(hits));
    out.emplace_back(l.label + ".misses", double(misses));
    out.emplace_back(l.label + ".merged", double(merged));
    if (ops) out.emplace_back(l.label + ".misses_per_op", double(misses) / double(ops));
  }
}

std::vector<std::string> CounterWindow::warming(const Snapshot& a, const Snapshot& mid,
                                                const Snapshot& b) const {
  std::vector<std::string> out;
  for (const Lookups& l : lookups_) {
    const uint64_t first = mid.counters[l.misses] - a.counters[l.misses];
    const uint64_t second = b.counters[l.misses] - mid.counters[l.misses];
    const uint64_t lookups = (b.counters[l.hits] - a.counters[l.hits]) +
                             (b.counters[l.misses] - a.counters[l.misses]) +
                             (b.counters[l.merged] - a.counters[l.merged]);
    // Two halves of a steady window miss alike, give or take a few standard deviations
    // (sqrt of the count): a quarter of the total, and at least 16, is far beyond that. A
    // difference under 1% of the lookups moves the hit rate by less than 0.01: not worth a
    // warning.
    const uint64_t margin = std::max({uint64_t(16), (first + second) / 4, lookups / 100});
    if (first <= second + margin) continue;
    out.push_back(l.label + " cache still warming: " + std::to_string(first) +
                  " misses in the first half of the measured window, " + std::to_string(second) +
                  " in the second; measure after more warm-up (warmup_ops, or an earlier step)");
  }
  return out;
}

}  // namespace rnic::app
