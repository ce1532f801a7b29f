// SPDX-License-Identifier: Apache-2.0
#include "app/runner/stats_table.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <utility>

#include "app/runner/results.h"

namespace rnic::app {

namespace {

// "A.rnic.requester" -> {"A", "requester"}; "A.pcie" -> {"A", "pcie"}; "switch" -> {"", ...}.
std::pair<std::string, std::string> split_owner(const std::string& owner,
                                                const std::vector<std::string>& nodes) {
  const size_t dot = owner.find('.');
  if (dot == std::string::npos) return {"", owner};
  const std::string node = owner.substr(0, dot);
  if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) return {"", owner};
  std::string unit = owner.substr(dot + 1);
  if (unit.rfind("rnic.", 0) == 0) unit = unit.substr(5);
  return {node, unit};
}

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  char buf[256];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

std::string pad(std::string text, size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text;
}

std::string rate(uint64_t hits, uint64_t lookups) {
  return lookups ? format("%.3f", double(hits) / double(lookups)) : "-";
}

std::string percent(uint64_t busy_ps, uint64_t sim_ns) {
  if (sim_ns == 0) return "-";
  // Fast functional mode lets bookings overlap: the sum can exceed the time; cap it.
  return format("%.1f", std::min(100.0, double(busy_ps) / (double(sim_ns) * 10.0)));
}

// The last workload step with a measured window (the one a scenario measures after its
// warm-up steps), or null.
const StepResult* measured_step(const RunResult& run) {
  for (auto it = run.steps.rbegin(); it != run.steps.rend(); ++it)
    if (!it->window_busy.empty() || !it->window_occupancy.empty()) return &*it;
  return nullptr;
}

// A window figure by owner and name; `found` false when the window has none.
double window_value(const std::vector<WindowFigure>& figures, const std::string& owner,
                    const std::string& name, bool* found) {
  for (const WindowFigure& f : figures) {
    if (f.owner == owner && f.name == name) {
      *found = true;
      return f.value;
    }
  }
  *found = false;
  return 0;
}

}  // namespace

std::string format_bytes(uint64_t bytes) {
  if (bytes < 1000) return format("%llu B", static_cast<unsigned long long>(bytes));
  // Three significant digits: at most 7 characters ("999 kB", "1.23 MB").
  static const char* const kUnits[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
  double value = double(bytes) / 1e3;
  size_t unit = 0;
  while (value >= 999.5 && unit + 1 < sizeof kUnits / sizeof kUnits[0]) {
    value /= 1e3;
    ++unit;
  }
  const char* fmt = value < 9.995 ? "%.2f %s" : value < 99.95 ? "%.1f %s" : "%.0f %s";
  return format(fmt, value, kUnits[unit]);
}

std::string stats_table(const std::vector<std::string>& nodes, const RunResult& run) {
  if (run.stats.empty()) return {};
  std::map<std::pair<std::string, std::string>, uint64_t> counters;  // (owner, name)
  for (const StatEntry& e : run.stats) counters[{e.owner, e.name}] = e.value;
  auto get = [&](const std::string& owner, const char* name) -> uint64_t {
    auto it = counters.find({owner, name});
    return it == counters.end() ? 0 : it->second;
  };
  size_t node_width = 4;
  for (const std::string& n : nodes) node_width = std::max(node_width, n.size());

  // The measured window of the last workload step: its busy fractions under each node's row,
  // its occupancy means beside the whole run's (the results JSON's window_busy and
  // window_occupancy). The whole run's figures include setup and warm-up.
  const StepResult* window = measured_step(run);
  const std::string window_label = window ? "step " + std::to_string(window->index) : "";
  auto window_percent = [&](const std::string& owner, const char* name) -> std::string {
    bool found = false;
    const double value = window_value(window->window_busy, owner, name, &found);
    return found ? format("%.1f", std::min(100.0, value * 100.0)) : "-";
  };

  // Per node: work, data moved by DMA, cache hit rates, PCIe and port traffic.
  const char* const row = " %7s %7s %7s %7s %8s %8s %9s %5s %5s %6s\n";
  auto count = [](uint64_t n) { return std::to_string(n); };
  std::string out = "\n" + pad("node", node_width) +
                    format(row, "WQEs", "reads", "writes", "sends", "DMA rd", "DMA wr", "PCIe TLPs",
                           "up %", "dn %", "port %");
  for (const std::string& n : nodes) {
    const std::string rnic = n + ".rnic.", pcie = n + ".pcie", req = rnic + "requester";
    const uint64_t tlps = get(pcie, "read_requests") + get(pcie, "completion_tlps") +
                          get(pcie, "write_tlps") + get(pcie, "mmio_tlps");
    out += pad(n, node_width) +
           format(row, count(get(req, "wqes")).c_str(), count(get(req, "reads")).c_str(),
                  count(get(req, "writes")).c_str(), count(get(req, "sends")).c_str(),
                  format_bytes(get(rnic + "endpoint", "dma_read_bytes")).c_str(),
                  format_bytes(get(rnic + "endpoint", "dma_write_bytes")).c_str(),
                  count(tlps).c_str(), percent(get(pcie, "upstream_busy_ps"), run.sim_ns).c_str(),
                  percent(get(pcie, "downstream_busy_ps"), run.sim_ns).c_str(),
                  percent(get(rnic + "port", "tx_busy_ps"), run.sim_ns).c_str());
    if (window) {
      // The busy columns again over the window; the first seven columns take 60 characters.
      out += pad("  " + window_label + " window", node_width + 60) +
             format(" %5s %5s %6s\n", window_percent(pcie, "upstream_busy_ps").c_str(),
                    window_percent(pcie, "downstream_busy_ps").c_str(),
                    window_percent(rnic + "port", "tx_busy_ps").c_str());
    }
  }

  out += bound_by_line(run.bottlenecks, "whole run bound by: ");

  // Cache hit rates by node and by the side asking: one node's requester and responder walk
  // different tables, and a rate over both would hide one behind the other. A merged lookup
  // waited for another's miss: it counts as a lookup, not a hit. The QP-context unit's
  // fetcher reads contexts for the requester side.
  struct Table {
    const char* label;
    const char* unit;
    const char* prefix;
  };
  const Table tables[] = {
      {"mtt", "mtt", "mtt"}, {"mpt", "protection", "mpt"}, {"qpc", "context", "qpc"},
      {"cqc", "context", "cqc"}};
  const std::pair<const char*, const char*> sides[] = {
      {"requester", "requester"}, {"responder", "responder"}, {"completion", "completion"}};
  std::string hit_rows;
  for (const std::string& n : nodes) {
    for (const auto& [side, name] : sides) {
      std::string cells;
      bool any = false;
      for (const Table& t : tables) {
        const std::string owner = n + ".rnic." + t.unit;
        const std::string asker =
            std::string(t.unit) == "context" && std::string(side) == "requester" ? "fetcher" : side;
        const std::string base = std::string(t.prefix) + "_";
        const uint64_t hits = get(owner, (base + "hits_" + asker).c_str());
        const uint64_t lookups = hits + get(owner, (base + "misses_" + asker).c_str()) +
                                 get(owner, (base + "merged_" + asker).c_str());
        any = any || lookups > 0;
        cells += format(" %7s", rate(hits, lookups).c_str());
      }
      if (any) hit_rows += pad(n, node_width) + "  " + pad(name, 10) + cells + "\n";
    }
  }
  if (!hit_rows.empty()) {
    out += "\n" + pad("hit rate", node_width + 12) +
           format(" %7s %7s %7s %7s\n", "mtt", "mpt", "qpc", "cqc") + hit_rows;
  }

  // Every histogram and occupancy with something in it, in walk (pipeline) order.
  size_t unit_width = 4, name_width = 4;
  for (const HistogramEntry& h : run.histograms) {
    if (h.count == 0) continue;
    unit_width = std::max(unit_width, split_owner(h.owner, nodes).second.size());
    name_width = std::max(name_width, h.name.size());
  }
  for (const OccupancyEntry& o : run.occupancies) {
    if (o.max == 0) continue;
    unit_width = std::max(unit_width, split_owner(o.owner, nodes).second.size());
    name_width = std::max(name_width, o.name.size());
  }
  auto label = [&](const std::string& owner, const std::string& name) {
    const auto [node, unit] = split_owner(owner, nodes);
    return pad(node, node_width) + "  " + pad(unit, unit_width) + "  " + pad(name, name_width);
  };
  const std::string blank = pad("", node_width + unit_width + name_width + 4);
  std::string rows;
  for (const HistogramEntry& h : run.histograms) {
    if (h.count == 0) continue;
    rows += label(h.owner, h.name) +
            format(" %9llu %9.1f %8llu %8llu %8llu %8llu\n",
                   static_cast<unsigned long long>(h.count), h.mean,
                   static_cast<unsigned long long>(h.p50), static_cast<unsigned long long>(h.p90),
                   static_cast<unsigned long long>(h.p99), static_cast<unsigned long long>(h.max));
  }
  if (!rows.empty()) {
    out += "\n" + pad("latency (ns)", blank.size()) +
           "     count      mean      p50      p90      p99      max\n" + rows;
  }
  rows.clear();
  for (const OccupancyEntry& o : run.occupancies) {
    if (o.max == 0) continue;
    std::string in_window;
    if (window) {
      bool found = false;
      const double mean = window_value(window->window_occupancy, o.owner, o.name, &found);
      in_window = found ? format(" %9.2f", mean) : format(" %9s", "-");
    }
    rows += label(o.owner, o.name) +
            format(" %9.2f %9llu", o.mean, static_cast<unsigned long long>(o.max)) + in_window +
            "  " + o.unit + "\n";
  }
  if (!rows.empty()) {
    out += "\n" + pad("occupancy (time-weighted)", blank.size()) + "      mean       max" +
           (window ? format(" %9s", window_label.c_str()) : "") + "\n" + rows;
  }
  return out;
}

}  // namespace rnic::app
