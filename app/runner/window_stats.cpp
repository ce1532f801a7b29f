// SPDX-License-Identifier: Apache-2.0
#include "app/runner/window_stats.h"

#include <algorithm>
#include <map>

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
      // The links: the PCIe link's two directions, the host's read service, the port's wire
      // out and, in, the switch output that feeds it (its received bytes at line rate;
      // headers, preamble and gap included).
      auto link = [&](const char* counter, const std::string& label, double ps_per_unit) {
        const auto found = index.find(counter);
        if (found != index.end()) links_.push_back({node_name + " " + label, found->second,
                                                    ps_per_unit});
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

CounterWindow::BusiestLink CounterWindow::busiest_link(const Snapshot& a,
                                                       const Snapshot& b) const {
  BusiestLink busiest;
  for (const Link& l : links_) {
    const auto busy = uint64_t(double(b[l.counter] - a[l.counter]) * l.ps_per_unit + 0.5);
    if (busy > busiest.busy_ps) busiest = {l.label, busy};
  }
  return busiest;
}

CounterWindow::Snapshot CounterWindow::take() const {
  Snapshot s(counters_.size());
  for (size_t i = 0; i < counters_.size(); ++i) s[i] = counters_[i]->value;
  return s;
}

std::vector<StatEntry> CounterWindow::deltas(const Snapshot& a, const Snapshot& b) const {
  std::vector<StatEntry> out;
  for (size_t i = 0; i < counters_.size(); ++i) {
    if (b[i] == a[i]) continue;
    out.push_back({owners_[i], counters_[i]->name, counters_[i]->unit, b[i] - a[i]});
  }
  return out;
}

void CounterWindow::hit_rates(const Snapshot& a, const Snapshot& b, Metrics& out) const {
  // A merged lookup waited for another's miss: a lookup, not a hit.
  auto lookups = [&](const Lookups& l) {
    return (b[l.hits] - a[l.hits]) + (b[l.misses] - a[l.misses]) + (b[l.merged] - a[l.merged]);
  };
  uint64_t hits[2] = {}, total[2] = {};  // mtt, mpt over every node and side
  for (const Lookups& l : lookups_) {
    if (!l.shared) continue;
    const int t = l.table == "mtt" ? 0 : 1;
    hits[t] += b[l.hits] - a[l.hits];
    total[t] += lookups(l);
  }
  out.emplace_back("mtt.hit_rate", hit_rate(hits[0], total[0]));
  out.emplace_back("mpt.hit_rate", hit_rate(hits[1], total[1]));
  for (const Lookups& l : lookups_) {
    const uint64_t n = lookups(l);
    if (n) out.emplace_back(l.label + ".hit_rate", hit_rate(b[l.hits] - a[l.hits], n));
  }
}

std::vector<std::string> CounterWindow::warming(const Snapshot& a, const Snapshot& mid,
                                                const Snapshot& b) const {
  std::vector<std::string> out;
  for (const Lookups& l : lookups_) {
    const uint64_t first = mid[l.misses] - a[l.misses];
    const uint64_t second = b[l.misses] - mid[l.misses];
    const uint64_t lookups = (b[l.hits] - a[l.hits]) + (b[l.misses] - a[l.misses]) +
                             (b[l.merged] - a[l.merged]);
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
