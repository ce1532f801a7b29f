// SPDX-License-Identifier: Apache-2.0
#include "app/observe/trace_report.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "app/scenario/text.h"

namespace rnic::app {

namespace {

using json = nlohmann::json;
constexpr uint32_t kNone = UINT32_MAX;

// A trace event that is not one: aborts the parse with its reason.
struct NotATrace {
  std::string reason;
};

struct RawSlice {
  uint32_t request;  // kNone: not part of a request
  uint32_t name;
  uint32_t cat;
  uint32_t pid;
  uint32_t tid;
  double start_ns;
  double dur_ns;
};

// One stage of one request while it is summed.
struct Part {
  uint32_t stage;
  double sum = 0;
  uint64_t slices = 0;
  double first = 0, last = 0;  // ns: the first slice's start, the last one's end
};

class Strings {
 public:
  uint32_t id(const std::string& s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    names_.push_back(s);
    return ids_[s] = uint32_t(names_.size() - 1);
  }
  const std::string& operator[](uint32_t id) const { return names_[id]; }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> ids_;
};

uint32_t id_of(const json& e, const char* key) {
  auto it = e.find(key);
  if (it == e.end() || !it->is_number_integer()) return 0;
  return uint32_t(it->get<int64_t>());
}

double time_ns(const json& e, const char* key, size_t index, bool required) {
  auto it = e.find(key);
  if (it == e.end() && !required) return 0;
  if (it == e.end() || !it->is_number()) {
    throw NotATrace{"event " + std::to_string(index) + " (ph " + e.value("ph", "?") +
                    ") has no numeric \"" + key + "\""};
  }
  return it->get<double>() * 1000.0;  // the format's microseconds
}

// Nearest rank: the smallest value with at least p of the values at or below it.
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const size_t rank = size_t(std::ceil(p * double(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

void fill_stats(std::vector<double> values, StageStats* s) {
  std::sort(values.begin(), values.end());
  s->count = values.size();
  if (values.empty()) return;
  double sum = 0;
  for (const double v : values) sum += v;
  s->mean = sum / double(values.size());
  s->p50 = percentile(values, 0.50);
  s->p99 = percentile(values, 0.99);
  s->max = values.back();
}

class Collector {
 public:
  void event(const json& e, size_t index) {
    if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string()) {
      throw NotATrace{"event " + std::to_string(index) +
                      " is not a trace event (an object with \"ph\")"};
    }
    ++events_;
    const std::string ph = e["ph"].get<std::string>();
    const uint32_t pid = id_of(e, "pid");
    const uint32_t tid = id_of(e, "tid");
    const std::string name =
        e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : "";
    if (ph == "M") {
      const auto args = e.find("args");
      if (args == e.end() || !args->is_object() || !args->contains("name") ||
          !(*args)["name"].is_string())
        return;
      if (name == "process_name") {
        processes_[pid] = (*args)["name"].get<std::string>();
        const auto node = args->find("node");
        if (node != args->end() && node->is_number_unsigned())
          pid_of_node_[node->get<uint64_t>()] = pid;
      }
      if (name == "thread_name") threads_[{pid, tid}] = (*args)["name"].get<std::string>();
      return;
    }
    if (ph == "X") {
      RawSlice s{kNone,
                 names_.id(name),
                 names_.id(e.value("cat", "")),
                 pid,
                 tid,
                 time_ns(e, "ts", index, true),
                 time_ns(e, "dur", index, false)};
      const auto args = e.find("args");
      if (args != e.end() && args->is_object()) {
        const auto request = args->find("request");
        if (request != args->end() && (request->is_string() || request->is_number())) {
          const std::string key =
              request->is_string() ? request->get<std::string>() : request->dump();
          auto it = requests_.find(key);
          if (it == requests_.end()) {
            it = requests_.emplace(key, uint32_t(requests_.size())).first;
            requester_.push_back(kNone);
          }
          s.request = it->second;
          const auto node = args->find("requester_node");
          if (node != args->end() && node->is_number_unsigned())
            requester_[s.request] = uint32_t(node->get<uint64_t>());
        }
      }
      end_ns_ = std::max(end_ns_, s.start_ns + std::max(0.0, s.dur_ns));
      slices_.push_back(s);
      return;
    }
    if (ph == "C") {
      const double at = time_ns(e, "ts", index, true);
      end_ns_ = std::max(end_ns_, at);
      const auto args = e.find("args");
      if (args == e.end() || !args->is_object()) return;
      for (auto it = args->begin(); it != args->end(); ++it) {
        if (!it.value().is_number()) continue;
        const std::string series = it.key() == "value" ? name : name + "." + it.key();
        counters_[{pid, series}].emplace_back(at, it.value().get<double>());
      }
      return;
    }
    // Other phases (instants, flows, begin/end pairs) carry no stage of a request here.
    if (e.contains("ts") && e["ts"].is_number())
      end_ns_ = std::max(end_ns_, e["ts"].get<double>() * 1000.0);
  }

  void finish(TraceReport* r) {
    r->events = events_;
    r->slices = slices_.size();
    r->requests = requests_.size();
    // A slice's unit: its thread's name without the lane ("port #2"), else its category.
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> unit_of_thread;
    auto unit = [&](const RawSlice& s) {
      auto it = unit_of_thread.find({s.pid, s.tid});
      if (it != unit_of_thread.end()) return it->second;
      std::string u;
      auto t = threads_.find({s.pid, s.tid});
      if (t != threads_.end()) {
        u = t->second;
        const size_t lane = u.rfind(" #");
        if (lane != std::string::npos && lane + 2 < u.size() &&
            u.find_first_not_of("0123456789", lane + 2) == std::string::npos)
          u.resize(lane);
      } else {
        u = names_[s.cat].empty() ? "tid " + std::to_string(s.tid) : names_[s.cat];
      }
      return unit_of_thread[{s.pid, s.tid}] = names_.id(u);
    };

    // Slices grouped by request (counting sort), and the others by unit and name.
    const size_t n_requests = requests_.size();
    std::vector<size_t> first(n_requests + 1, 0);
    std::map<std::pair<std::string, std::string>, std::vector<double>> other;
    for (const RawSlice& s : slices_) {
      if (s.request != kNone) {
        ++first[s.request + 1];
      } else {
        other[{names_[unit(s)], names_[s.name]}].push_back(s.dur_ns);
      }
    }
    for (size_t i = 0; i < n_requests; ++i) first[i + 1] += first[i];
    std::vector<uint32_t> order(first[n_requests]);
    {
      std::vector<size_t> at(first.begin(), first.end() - 1);
      for (uint32_t i = 0; i < slices_.size(); ++i) {
        if (slices_[i].request != kNone) order[at[slices_[i].request]++] = i;
      }
    }

    // Stage = (unit, name, side); side: on the requester's node or not. The requester's node
    // is the one its slices name (args.requester_node, found by the process's args.node),
    // else the node of its first slice.
    std::map<std::tuple<uint32_t, uint32_t, bool>, uint32_t> stage_ids;
    std::vector<std::tuple<uint32_t, uint32_t, bool>> stage_keys;
    std::vector<std::vector<double>> sums, starts;
    std::vector<uint64_t> stage_slices;
    std::vector<double> end_to_end, span;
    const uint32_t host = names_.id("host"), post = names_.id("post"), poll = names_.id("poll");
    std::vector<Part> parts;
    for (size_t r = 0; r < n_requests; ++r) {
      const size_t begin = first[r], end = first[r + 1];
      if (begin == end) continue;
      const RawSlice* head = &slices_[order[begin]];
      double last = 0;
      for (size_t k = begin; k < end; ++k) {
        const RawSlice& s = slices_[order[k]];
        if (s.start_ns < head->start_ns) head = &s;
        last = std::max(last, s.start_ns + std::max(0.0, s.dur_ns));
      }
      const double start = head->start_ns;
      uint32_t requester = head->pid;
      if (requester_[r] != kNone) {
        auto pid = pid_of_node_.find(requester_[r]);
        if (pid != pid_of_node_.end()) requester = pid->second;
      }
      span.push_back(last - start);
      parts.clear();
      for (size_t k = begin; k < end; ++k) {
        const RawSlice& s = slices_[order[k]];
        const auto key = std::make_tuple(unit(s), s.name, s.pid == requester);
        auto it = stage_ids.find(key);
        if (it == stage_ids.end()) {
          it = stage_ids.emplace(key, uint32_t(stage_keys.size())).first;
          stage_keys.push_back(key);
          sums.emplace_back();
          starts.emplace_back();
          stage_slices.push_back(0);
        }
        auto part = std::find_if(parts.begin(), parts.end(),
                                 [&](const Part& p) { return p.stage == it->second; });
        const double end_ns = s.start_ns + std::max(0.0, s.dur_ns);
        if (part == parts.end()) {
          parts.push_back(Part{it->second, 0, 0, s.start_ns, end_ns});
          part = parts.end() - 1;
        }
        part->sum += std::max(0.0, s.dur_ns);
        ++part->slices;
        part->first = std::min(part->first, s.start_ns);
        part->last = std::max(part->last, end_ns);
      }
      const Part* posted = nullptr;
      const Part* polled = nullptr;
      for (const Part& p : parts) {
        sums[p.stage].push_back(p.sum);
        starts[p.stage].push_back(p.first - start);
        stage_slices[p.stage] += p.slices;
        const auto& [u, name, local] = stage_keys[p.stage];
        if (u == host && local && name == post) posted = &p;
        if (u == host && local && name == poll) polled = &p;
      }
      if (posted && polled) end_to_end.push_back(polled->last - posted->first);
    }
    for (size_t i = 0; i < stage_keys.size(); ++i) {
      StageStats s;
      const auto& [u, name, local] = stage_keys[i];
      s.unit = names_[u];
      s.name = names_[name];
      s.side = local ? "requester" : "responder";
      s.slices = stage_slices[i];
      double total = 0;
      for (const double v : starts[i]) total += v;
      s.start = starts[i].empty() ? 0 : total / double(starts[i].size());
      fill_stats(std::move(sums[i]), &s);
      r->stages.push_back(s);
    }
    std::stable_sort(r->stages.begin(), r->stages.end(),
                     [](const StageStats& a, const StageStats& b) {
                       if (a.start != b.start) return a.start < b.start;
                       return a.side < b.side;
                     });
    r->end_to_end.name = "end to end: post to poll";
    fill_stats(std::move(end_to_end), &r->end_to_end);
    r->end_to_end.slices = r->end_to_end.count;
    r->span.name = "span: first slice to last";
    fill_stats(std::move(span), &r->span);
    r->span.slices = r->span.count;
    for (auto& [key, durations] : other) {
      StageStats s;
      s.unit = key.first;
      s.name = key.second;
      s.slices = durations.size();
      fill_stats(std::move(durations), &s);
      r->other.push_back(s);
    }
    for (auto& [key, samples] : counters_) {
      std::stable_sort(samples.begin(), samples.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      CounterStats c;
      auto p = processes_.find(key.first);
      c.node = p != processes_.end() ? p->second : "pid " + std::to_string(key.first);
      c.name = key.second;
      c.samples = samples.size();
      c.min = c.max = samples.front().second;
      double weighted = 0, plain = 0;
      for (size_t i = 0; i < samples.size(); ++i) {
        const double v = samples[i].second;
        c.min = std::min(c.min, v);
        c.max = std::max(c.max, v);
        plain += v;
        const double until = i + 1 < samples.size() ? samples[i + 1].first : end_ns_;
        weighted += v * std::max(0.0, until - samples[i].first);
      }
      const double length = end_ns_ - samples.front().first;
      c.mean = length > 0 ? weighted / length : plain / double(samples.size());
      r->counters.push_back(c);
    }
  }

 private:
  uint64_t events_ = 0;
  double end_ns_ = 0;
  Strings names_;
  std::unordered_map<std::string, uint32_t> requests_;
  std::map<uint32_t, std::string> processes_;
  std::map<uint64_t, uint32_t> pid_of_node_;  // process_name args.node, where given
  std::vector<uint32_t> requester_;           // per request: args.requester_node, or kNone
  std::map<std::pair<uint32_t, uint32_t>, std::string> threads_;
  std::vector<RawSlice> slices_;
  std::map<std::pair<uint32_t, std::string>, std::vector<std::pair<double, double>>> counters_;
};

// Parses `in`, handing each trace event to `collector` as it is read (a trace of millions of
// events is never held as one document). Returns the document without the events; `trace` says
// whether it was a trace at all.
json parse_stream(std::istream& in, Collector& collector, bool* trace) {
  *trace = false;
  bool top_array = false, in_events = false;
  std::string key;
  size_t index = 0;
  json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::key:
        if (depth == 1) key = parsed.get<std::string>();
        return true;
      case json::parse_event_t::array_start:
        if (depth == 0) top_array = *trace = true;
        if (depth == 1 && !top_array && key == "traceEvents") in_events = *trace = true;
        return true;
      case json::parse_event_t::array_end:
        if (depth == 1 && !top_array) in_events = false;
        return true;
      case json::parse_event_t::object_end:
      case json::parse_event_t::value:
        // An element of the event array: taken, then dropped from the document.
        if ((top_array && depth == 1) || (in_events && depth == 2)) {
          collector.event(parsed, index++);
          return false;
        }
        return true;
      default:
        return true;
    }
  };
  return json::parse(in, callback);
}

std::string parse_error_text(const json::parse_error& e) {
  // "[json.exception.parse_error.101] parse error at line 1, column 1: ..." -> from "line".
  const std::string what = e.what();
  const size_t at = what.find("at line");
  return "not JSON (" + (at == std::string::npos ? what : what.substr(at + 3)) + ")";
}

std::string results_report(const json& doc, const std::string& path) {
  std::string out;
  char line[256];
  const std::string name = doc.value("scenario", std::string("?"));
  const std::string outcome = doc.value("outcome", std::string("?"));
  const double sim_us = doc.contains("sim_ns") && doc["sim_ns"].is_number()
                            ? doc["sim_ns"].get<double>() / 1000.0
                            : 0.0;
  std::snprintf(line, sizeof line, "%s (%s): results, %s, %zu steps, %.3f us simulated\n",
                name.c_str(), path.c_str(), outcome.c_str(),
                doc["steps"].is_array() ? doc["steps"].size() : size_t(0), sim_us);
  out += line;
  out +=
      "A results file has no per-request slices (rnicsim run --trace FILE records them);\n"
      "these are the latency histograms the units recorded over the whole run.\n\n";
  std::snprintf(line, sizeof line, "%-40s %10s %10s %10s %10s %10s\n", "latency (ns)", "count",
                "mean", "p50", "p99", "max");
  out += line;
  if (doc["stats"].is_object()) {
    for (auto owner = doc["stats"].begin(); owner != doc["stats"].end(); ++owner) {
      if (!owner.value().is_object()) continue;
      for (auto stat = owner.value().begin(); stat != owner.value().end(); ++stat) {
        const json& h = stat.value();
        if (!h.is_object() || !h.contains("p50") || !h.contains("count")) continue;
        if (!h["count"].is_number() || h["count"].get<double>() <= 0) continue;
        const std::string label = owner.key() + " " + stat.key();
        std::snprintf(line, sizeof line, "%-40s %10.0f %10.1f %10.1f %10.1f %10.1f\n",
                      label.c_str(), h["count"].get<double>(), h.value("mean", 0.0),
                      h.value("p50", 0.0), h.value("p99", 0.0), h.value("max", 0.0));
        out += line;
      }
    }
  }
  bool header = false;
  if (doc["steps"].is_array()) {
    for (const json& step : doc["steps"]) {
      if (!step.is_object() || !step.contains("metrics") || !step["metrics"].is_object() ||
          step["metrics"].empty())
        continue;
      const json& m = step["metrics"];
      if (!header) {
        std::snprintf(line, sizeof line, "\n%-28s %10s %10s %10s %10s %10s\n", "workload steps",
                      "ops", "Mops/s", "p50 ns", "p99 ns", "max ns");
        out += line;
        header = true;
      }
      const std::string label = "step " + std::to_string(step.value("index", 0)) + " " +
                                step.value("op", std::string("?"));
      std::snprintf(line, sizeof line, "%-28s %10.0f %10.3f %10.1f %10.1f %10.1f\n", label.c_str(),
                    m.value("ops", 0.0), m.value("mops", 0.0), m.value("latency_ns.p50", 0.0),
                    m.value("latency_ns.p99", 0.0), m.value("latency_ns.max", 0.0));
      out += line;
    }
  }
  return out;
}

}  // namespace

namespace {

// Parses a trace or any JSON: `trace` says which; a trace fills `report`, else `doc` holds the
// document. false with `error` for text that is not JSON or a trace event that is not one.
bool parse_any(std::istream& in, TraceReport* report, bool* trace, json* doc, std::string* error) {
  *report = TraceReport{};
  Collector collector;
  try {
    *doc = parse_stream(in, collector, trace);
  } catch (const json::parse_error& e) {
    *error = parse_error_text(e);
    return false;
  } catch (const NotATrace& e) {
    *error = "not a trace: " + e.reason;
    return false;
  }
  if (!*trace) return true;
  if (doc->is_object() && doc->contains("otherData") && (*doc)["otherData"].is_object()) {
    const json& other = (*doc)["otherData"];
    report->scenario = other.value("scenario", std::string());
    report->window = other.value("trace_from", std::string());
    if (other.contains("window_start_us") && other["window_start_us"].is_number())
      report->window_start_us = other["window_start_us"].get<double>();
    if (other.contains("truncated_at_us") && other["truncated_at_us"].is_number())
      report->truncated_at_us = other["truncated_at_us"].get<double>();
  }
  collector.finish(report);
  return true;
}

}  // namespace

bool read_trace(std::istream& in, TraceReport* report, std::string* error) {
  bool trace = false;
  json doc;
  if (!parse_any(in, report, &trace, &doc, error)) return false;
  if (!trace) *error = "not a trace (no \"traceEvents\" array)";
  return trace;
}

std::string format_trace_report(const TraceReport& r) {
  std::string out;
  char line[320];
  out += r.scenario.empty() ? "trace" : r.scenario;
  if (!r.window.empty()) {
    out += ", window from " + r.window;
    if (r.window_start_us >= 0) {
      std::snprintf(line, sizeof line, " at %.3f us", r.window_start_us);
      out += line;
    } else {
      out += ", never opened";
    }
  }
  std::snprintf(line, sizeof line, ": %llu events, %llu slices, %llu requests\n",
                (unsigned long long)r.events, (unsigned long long)r.slices,
                (unsigned long long)r.requests);
  out += line;
  if (r.truncated_at_us >= 0) {
    std::snprintf(line, sizeof line,
                  "the event limit cut the trace at %.3f us: requests in flight then are "
                  "partial (--trace-limit)\n",
                  r.truncated_at_us);
    out += line;
  }
  const char* const kRow = "%-11s %-22s %-9s %8s %7s %10s %10s %10s %10s %10s\n";
  const char* const kValues = "%-11s %-22s %-9s %8llu %7.2f %10.1f %10.1f %10.1f %10.1f %10.1f\n";
  if (!r.stages.empty()) {
    out +=
        "\nper-request stages, in ns (count: requests with the stage; slices: per request;\n"
        "mean..max: the stage's time in a request, its slices summed; start: mean start\n"
        "after the request's first slice)\n";
    std::snprintf(line, sizeof line, kRow, "unit", "stage", "side", "count", "slices", "mean",
                  "p50", "p99", "max", "start");
    out += line;
    for (const StageStats& s : r.stages) {
      std::snprintf(line, sizeof line, kValues, s.unit.c_str(), s.name.c_str(), s.side.c_str(),
                    (unsigned long long)s.count, s.count ? double(s.slices) / double(s.count) : 0.0,
                    s.mean, s.p50, s.p99, s.max, s.start);
      out += line;
    }
    for (const StageStats* s : {&r.end_to_end, &r.span}) {
      if (!s->count) continue;
      std::snprintf(line, sizeof line, "%-44s %8llu %7s %10.1f %10.1f %10.1f %10.1f\n",
                    s->name.c_str(), (unsigned long long)s->count, "", s->mean, s->p50, s->p99,
                    s->max);
      out += line;
    }
  }
  if (!r.other.empty()) {
    out += "\nslices of no request, in ns\n";
    std::snprintf(line, sizeof line, "%-11s %-32s %8s %10s %10s %10s %10s\n", "unit", "slice",
                  "count", "mean", "p50", "p99", "max");
    out += line;
    for (const StageStats& s : r.other) {
      std::snprintf(line, sizeof line, "%-11s %-32s %8llu %10.1f %10.1f %10.1f %10.1f\n",
                    s.unit.c_str(), s.name.c_str(), (unsigned long long)s.count, s.mean, s.p50,
                    s.p99, s.max);
      out += line;
    }
  }
  if (!r.counters.empty()) {
    out += "\ncounter tracks (mean: weighted by time, from the first sample to the trace's end)\n";
    std::snprintf(line, sizeof line, "%-44s %8s %10s %10s %10s\n", "node and counter", "samples",
                  "min", "mean", "max");
    out += line;
    for (const CounterStats& c : r.counters) {
      const std::string label = c.node + " " + c.name;
      std::snprintf(line, sizeof line, "%-44s %8llu %10.1f %10.2f %10.1f\n", label.c_str(),
                    (unsigned long long)c.samples, c.min, c.mean, c.max);
      out += line;
    }
  }
  if (r.stages.empty() && r.other.empty() && r.counters.empty()) out += "no slices or counters\n";
  return out;
}

bool report_file(const std::string& path, std::string* text, std::string* error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    *error = quote(path) + ": no such file";
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = quote(path) + ": is a directory, not a trace or results file";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = quote(path) + ": cannot be read";
    return false;
  }
  TraceReport report;
  bool trace = false;
  json doc;
  std::string why;
  if (!parse_any(in, &report, &trace, &doc, &why)) {
    *error = quote(path) + ": " + why;
    return false;
  }
  if (trace) {
    *text = format_trace_report(report);
    return true;
  }
  if (doc.is_object() && doc.contains("steps") && doc.contains("stats") &&
      doc.contains("scenario")) {
    *text = results_report(doc, path);
    return true;
  }
  *error = quote(path) +
           ": neither a trace ({\"traceEvents\": [...]}, rnicsim run --trace) "
           "nor a results file (rnicsim run --out)";
  return false;
}

}  // namespace rnic::app
