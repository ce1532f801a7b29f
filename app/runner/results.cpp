// SPDX-License-Identifier: Apache-2.0
#include "app/runner/results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "app/scenario/params.h"

#ifndef RNICSIM_VERSION
#define RNICSIM_VERSION "0.0.0-dev"
#endif

namespace rnic::app {

using nlohmann::json;

const char* version() {
  return RNICSIM_VERSION;
}

namespace {

const char* outcome_name(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::Passed:
      return "passed";
    case RunOutcome::Failed:
      return "failed";
    case RunOutcome::Invalid:
      return "invalid";
    case RunOutcome::Internal:
      return "internal_error";
  }
  return "unknown";
}

// Short, stable numbers in the JSON: `scale` 1e3 keeps three decimals.
double rounded(double value, double scale) {
  return std::round(value * scale) / scale;
}

json completion_json(const ndk::NDK_RESULT_EX& r, bool took_effect, RuleId rule) {
  json j{{"type", ndk::operation_type_name(r.Type)},
         {"status", ndk::status_name(r.Status)},
         {"context", r.RequestContext},
         {"bytes", r.BytesTransferred},
         {"qp_context", r.QPContext},
         {"type_specific", r.TypeSpecific}};
  // R4.cancelled.undefined: whether a FastRegister, Bind or Invalidate changed its object (a
  // CANCELLED one may or may not have); a field of the results, not of NDK_RESULT_EX.
  if (r.Type == ndk::NdkOperationTypeFastRegister || r.Type == ndk::NdkOperationTypeBind ||
      r.Type == ndk::NdkOperationTypeInvalidate)
    j["took_effect"] = took_effect;
  // The rule that decided the request (docs/behaviour.md): every failure and flush has one,
  // a success where its verb has a rule of its own.
  if (rule != RuleId::None) j["rule"] = rule_name(rule);
  return j;
}

// [{"resource": "pcie.down", "node": "B", "utilization": 0.97, "wait_ns": 0}, ...], ranked.
json bottlenecks_json(const std::vector<ResourceLoad>& loads) {
  json out = json::array();
  for (const ResourceLoad& l : loads)
    out.push_back(json{{"resource", l.resource},
                       {"node", l.node},
                       {"utilization", rounded(l.utilization, 1e4)},
                       {"wait_ns", rounded(l.wait_ns, 1e3)}});
  return out;
}

json step_json(const StepResult& s) {
  json j{{"index", s.index},
         {"op", s.op},
         {"passed", s.passed},
         {"status", s.status ? json(ndk::status_name(*s.status)) : json(nullptr)},
         {"sim_ns_start", s.start_ns},
         {"sim_ns_end", s.end_ns}};
  json completions = json::array();
  for (size_t i = 0; i < s.completions.size(); ++i)
    completions.push_back(completion_json(s.completions[i],
                                          i < s.took_effect.size() && s.took_effect[i],
                                          i < s.rules.size() ? s.rules[i] : RuleId::None));
  j["completions"] = completions;
  if (s.inline_rule != RuleId::None) j["rule"] = rule_name(s.inline_rule);
  json metrics = json::object();
  for (const auto& [name, value] : s.metrics) metrics[name] = value;
  j["metrics"] = metrics;
  if (!s.window_stats.empty()) {
    json window = json::object();
    for (const StatEntry& e : s.window_stats) window[e.owner][e.name] = e.value;
    j["window_stats"] = window;
  }
  // Over the measured window: busy fractions, occupancy means, the ranked resources.
  if (!s.window_busy.empty()) {
    json busy = json::object();
    for (const WindowFigure& f : s.window_busy) busy[f.owner][f.name] = rounded(f.value, 1e4);
    j["window_busy"] = busy;
  }
  if (!s.window_occupancy.empty()) {
    json means = json::object();
    for (const WindowFigure& f : s.window_occupancy)
      means[f.owner][f.name] = rounded(f.value, 1e4);
    j["window_occupancy"] = means;
  }
  if (!s.bottlenecks.empty()) j["bottlenecks"] = bottlenecks_json(s.bottlenecks);
  if (!s.warnings.empty()) j["warnings"] = s.warnings;
  if (!s.passed) {
    j["expected"] = s.expected;
    j["got"] = s.got;
    j["message"] = s.message;
  }
  return j;
}

}  // namespace

json results_json(const Scenario& scenario, const RunResult& run, uint64_t seed) {
  json config = json::object();
  for (const ParamValue& p : effective_params(scenario.config)) {
    if (!p.choice.empty()) {
      config[p.key] = p.choice;
    } else if (p.is_integer) {
      config[p.key] = uint64_t(p.value);
    } else {
      config[p.key] = p.value;
    }
  }
  json steps = json::array();
  for (const StepResult& s : run.steps) steps.push_back(step_json(s));
  // Counters grouped by their unit's hierarchical name: {"A.rnic.mtt": {"hits": 12}};
  // histograms and occupancies as objects of their summary figures.
  json stats = json::object();
  for (const StatEntry& e : run.stats) stats[e.owner][e.name] = e.value;
  for (const HistogramEntry& h : run.histograms) {
    stats[h.owner][h.name] = json{{"count", h.count}, {"mean", rounded(h.mean, 1e3)},
                                  {"p50", h.p50},     {"p90", h.p90},
                                  {"p99", h.p99},     {"max", h.max}};
  }
  for (const OccupancyEntry& o : run.occupancies)
    stats[o.owner][o.name] = json{{"mean", rounded(o.mean, 1e4)}, {"max", o.max}};

  json out{{"scenario", scenario.name},
           {"passed", run.outcome == RunOutcome::Passed},
           {"outcome", outcome_name(run.outcome)},
           {"seed", seed},
           {"sim_ns", run.sim_ns},
           {"wall_s", run.wall_s},
           {"preset", scenario.preset},
           {"nodes", scenario.nodes},
           {"config", config},
           {"steps", steps},
           {"steps_total", scenario.steps.size()},
           {"stats", stats},
           {"version", version()}};
  if (!run.bottlenecks.empty()) out["bottlenecks"] = bottlenecks_json(run.bottlenecks);
  if (!run.message.empty()) out["message"] = run.message;
  return out;
}

std::string write_json_file(const std::string& file_name, const json& results) {
  std::ofstream out(file_name, std::ios::binary | std::ios::trunc);
  if (!out) return "cannot open \"" + file_name + "\" for writing";
  // Replace invalid UTF-8 (names come from the user's file) rather than throw mid-write.
  out << results.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
  out.close();
  if (!out) return "cannot write \"" + file_name + "\"";
  return {};
}

std::string format_sim_time(uint64_t ns) {
  char buf[64];
  if (ns < 10000) {
    std::snprintf(buf, sizeof buf, "%llu ns", static_cast<unsigned long long>(ns));
  } else if (ns < 10000000) {
    std::snprintf(buf, sizeof buf, "%.3f us", double(ns) / 1e3);
  } else if (ns < 10000000000ull) {
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ns) / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f s", double(ns) / 1e9);
  }
  return buf;
}

std::string summary_line(const Scenario& scenario, const RunResult& run) {
  std::string verdict;
  switch (run.outcome) {
    case RunOutcome::Passed:
      verdict = "PASS";
      break;
    case RunOutcome::Failed:
      verdict = "FAIL";
      break;
    case RunOutcome::Invalid:
      verdict = "INVALID";
      break;
    case RunOutcome::Internal:
      verdict = "ERROR";
      break;
  }
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.3f s", run.wall_s);
  return scenario.name + ": " + verdict + "  " + std::to_string(run.steps.size()) + "/" +
         std::to_string(scenario.steps.size()) + " steps  simulated " +
         format_sim_time(run.sim_ns) + "  wall " + wall;
}

namespace {

// "  hit rate  A.requester mtt 1.000 mpt 1.000  B.responder mtt 0.016 ...": the metrics
// "<node>.<side>.<table>.hit_rate" of a step, grouped by node and side, the first
// kMaxGroups of them (every one is in the results JSON).
std::string hit_rate_line(const StepResult& s) {
  constexpr size_t kMaxGroups = 8;
  std::vector<std::pair<std::string, std::string>> groups;  // "A.requester", "mtt 1.000 ..."
  const std::string suffix = ".hit_rate";
  for (const auto& [key, value] : s.metrics) {
    if (key.size() <= suffix.size() || key.compare(key.size() - suffix.size(), suffix.size(),
                                                   suffix) != 0)
      continue;
    const std::string name = key.substr(0, key.size() - suffix.size());
    const size_t dot = name.rfind('.');
    if (dot == std::string::npos || name.find('.') == dot) continue;  // totals: no node
    const std::string group = name.substr(0, dot);
    char figure[48];
    std::snprintf(figure, sizeof figure, " %s %.3f", name.c_str() + dot + 1, value);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == group; });
    if (it == groups.end()) {
      groups.emplace_back(group, "");
      it = groups.end() - 1;
    }
    it->second += figure;
  }
  if (groups.empty()) return "";
  // Wrapped at 100 columns, a group never split.
  const std::string indent = "           hit rate";
  std::string out, line = indent;
  for (size_t i = 0; i < groups.size() && i < kMaxGroups; ++i) {
    const std::string cell = "  " + groups[i].first + groups[i].second;
    if (line.size() > indent.size() && line.size() + cell.size() > 100) {
      out += line + "\n";
      line = std::string(indent.size(), ' ');
    }
    line += cell;
  }
  if (groups.size() > kMaxGroups)
    line += "  (" + std::to_string(groups.size() - kMaxGroups) + " more in the results)";
  return out + line + "\n";
}

}  // namespace

std::string bound_by_line(const std::vector<ResourceLoad>& ranked, const std::string& prefix) {
  if (ranked.empty() || (ranked[0].utilization <= 0 && ranked[0].wait_ns <= 0)) return "";
  // The top resource, then the next two that did any work (every one is in the results).
  std::string line = prefix + bottleneck_text(ranked[0]);
  if (ranked[0].wait_ns > 0) {
    char wait[64];  // summed over the requests that waited: it can exceed the window
    std::snprintf(wait, sizeof wait, " (waits %.3f us in all)", ranked[0].wait_ns / 1e3);
    line += wait;
  }
  std::string next;
  for (size_t i = 1; i < ranked.size() && i < 3 && ranked[i].utilization > 0; ++i)
    next += (next.empty() ? "" : ", ") + bottleneck_text(ranked[i]);
  if (!next.empty()) line += "; then " + next;
  return line + "\n";
}

std::string decisions_table(const RunResult& run) {
  constexpr size_t kMaxLines = 40;  // the rest are in the results JSON
  std::vector<std::string> lines;
  size_t more = 0;
  auto add = [&](const std::string& line) {
    if (lines.size() < kMaxLines) {
      lines.push_back(line);
    } else {
      ++more;
    }
  };
  char line[256];
  for (const StepResult& s : run.steps) {
    if (s.status && *s.status != ndk::STATUS_SUCCESS && *s.status != ndk::STATUS_PENDING) {
      std::snprintf(line, sizeof line, "  step %-4zu %-14s %-12s %-30s %-12s %s\n",
                    size_t(s.index), s.op.c_str(), "(inline)", ndk::status_name(*s.status).c_str(),
                    "", s.inline_rule == RuleId::None ? "-" : rule_name(s.inline_rule));
      add(line);
    }
    for (size_t i = 0; i < s.completions.size(); ++i) {
      const ndk::NDK_RESULT_EX& r = s.completions[i];
      if (r.Status == ndk::STATUS_SUCCESS) continue;
      const RuleId rule = i < s.rules.size() ? s.rules[i] : RuleId::None;
      const std::string context = "context " + std::to_string(r.RequestContext);
      std::snprintf(line, sizeof line, "  step %-4zu %-14s %-12s %-30s %-12s %s\n",
                    size_t(s.index), s.op.c_str(), ndk::operation_type_name(r.Type).c_str(),
                    ndk::status_name(r.Status).c_str(), context.c_str(),
                    rule == RuleId::None ? "-" : rule_name(rule));
      add(line);
    }
  }
  if (lines.empty()) return "";
  std::string out = "\nfailed requests (the rule that decided each, docs/behaviour.md)\n";
  for (const std::string& l : lines) out += l;
  if (more) out += "  (" + std::to_string(more) + " more in the results)\n";
  return out;
}

std::string workload_table(const RunResult& run) {
  std::string out;
  for (const StepResult& s : run.steps) {
    if (s.metrics.empty()) continue;
    auto metric = [&](const char* name) {
      for (const auto& [key, value] : s.metrics) {
        if (key == name) return value;
      }
      return 0.0;
    };
    char line[320];
    std::snprintf(line, sizeof line,
                  "  step %-3zu %-12s %10.0f ops %9.3f Mops/s %8.2f Gb/s  latency p50 %.0f "
                  "p99 %.0f max %.0f ns\n",
                  size_t(s.index), s.op.c_str(), metric("ops"), metric("mops"), metric("gbps"),
                  metric("latency_ns.p50"), metric("latency_ns.p99"), metric("latency_ns.max"));
    out += line + hit_rate_line(s) + bound_by_line(s.bottlenecks, "           bound by: ");
    for (const std::string& w : s.warnings) out += "           warning: " + w + "\n";
  }
  return out;
}

}  // namespace rnic::app
