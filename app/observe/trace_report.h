// SPDX-License-Identifier: Apache-2.0
// `rnicsim report FILE`: where requests spend their time. From a trace (`run --trace`, or any
// Chrome trace-event JSON), the slices that share a request id (args.request) are one work
// request; per stage (a slice name on a unit, on the requester's node or the other one) it
// gives count, mean, p50, p99 and max in ns, summed over the request's slices of that stage,
// and the end-to-end latency (the host's post to its poll; every request's first to last
// slice). Slice names are taken as they come: a unit that adds a stage adds a row. From a
// results JSON (`run --out`), which has no per-request slices, it lists the latency histograms
// the units recorded. Plain C++ (no SystemC): the trace is read as a stream, event by event.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace rnic::app {

struct StageStats {
  std::string unit;  // the thread ("fetcher", "host"), without its lane suffix
  std::string name;  // the slice name ("fetch", "translate")
  std::string side;  // "requester" (its requester's node), "responder", or "" (no request)
  uint64_t count = 0;   // requests with the stage (slices, for slices without a request)
  uint64_t slices = 0;  // slices of the stage
  double mean = 0, p50 = 0, p99 = 0, max = 0;  // ns
  double start = 0;  // ns: mean start of the stage's first slice after its request's start
};

struct CounterStats {
  std::string node;  // the process ("node A")
  std::string name;
  uint64_t samples = 0;
  double min = 0, mean = 0, max = 0;  // mean: weighted by time, to the trace's last event
};

struct TraceReport {
  std::string scenario;      // otherData.scenario, if any
  std::string window;        // otherData.trace_from, if any
  double window_start_us = -1;  // otherData.window_start_us, if any
  double truncated_at_us = -1;  // otherData.truncated_at_us: the limit cut the trace there
  uint64_t events = 0, slices = 0, requests = 0;
  std::vector<StageStats> stages;  // slices of requests, by mean start then name
  StageStats end_to_end;  // the host's post to its poll (requests with both; count 0: none)
  StageStats span;                 // every request: its first slice's start to its last end
  std::vector<StageStats> other;   // slices without a request, by unit and name
  std::vector<CounterStats> counters;
};

// Reads a trace: {"traceEvents": [...]} or a bare array of events. false with `error` set when
// the text is not JSON or not a trace.
bool read_trace(std::istream& in, TraceReport* report, std::string* error);
std::string format_trace_report(const TraceReport& report);

// Reads `path` (a trace or a results JSON) and writes its report to `text`; false with
// `error` set (unreadable, a directory, not JSON, neither kind).
bool report_file(const std::string& path, std::string* text, std::string* error);

}  // namespace rnic::app
