// SPDX-License-Identifier: Apache-2.0
// `rnicsim report` (app/observe/trace_report.h) on small hand-built traces whose answers are
// worked out here, and the `--trace-from` parser (app/observe/trace_window.h). Plain C++.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/observe/trace_report.h"
#include "app/observe/trace_window.h"
#include "app/scenario/scenario.h"

using namespace rnic::app;

namespace {

// One "X" event; ts and dur in ns here, microseconds in the file.
std::string slice(const std::string& name, int pid, int tid, double ts_ns, double dur_ns,
                  const std::string& request = "") {
  std::ostringstream e;
  e << R"({"ph":"X","name":")" << name << R"(","pid":)" << pid << R"(,"tid":)" << tid << R"(,"ts":)"
    << ts_ns / 1000 << R"(,"dur":)" << dur_ns / 1000;
  if (!request.empty()) e << R"(,"args":{"request":")" << request << R"("})";
  e << "}";
  return e.str();
}

std::string thread(int pid, int tid, const std::string& name) {
  return R"({"ph":"M","name":"thread_name","pid":)" + std::to_string(pid) + R"(,"tid":)" +
         std::to_string(tid) + R"(,"args":{"name":")" + name + R"("}})";
}

std::string trace_of(const std::vector<std::string>& events, const std::string& other = "") {
  std::string text = R"({"otherData":{)" + other + R"(},"traceEvents":[)";
  for (size_t i = 0; i < events.size(); ++i) text += (i ? ",\n" : "\n") + events[i];
  return text + "]}";
}

TraceReport report_of(const std::string& text) {
  std::istringstream in(text);
  TraceReport r;
  std::string error;
  REQUIRE(read_trace(in, &r, &error));
  CHECK(error.empty());
  return r;
}

const StageStats* stage(const TraceReport& r, const std::string& unit, const std::string& name,
                        const std::string& side) {
  for (const StageStats& s : r.stages) {
    if (s.unit == unit && s.name == name && s.side == side) return &s;
  }
  return nullptr;
}

std::string read_error(const std::string& text) {
  std::istringstream in(text);
  TraceReport r;
  std::string error;
  CHECK_FALSE(read_trace(in, &r, &error));
  return error;
}

}  // namespace

TEST_CASE("report: per-request stages, sides, end to end, from known slices", "[app]") {
  // Node A (pid 1) requests, node B (pid 2) serves. 100 requests: request i posts at
  // 10000*i, its "context load" (a name the report has never seen) takes 100 + i ns, its
  // translate two slices of 5 ns on A, its serve 1000 ns on B, its poll at +3000 + i.
  std::vector<std::string> events = {thread(1, 1, "host"), thread(1, 2, "fetcher"),
                                     thread(1, 3, "mtt"), thread(1, 103, "mtt #2"),
                                     thread(2, 4, "responder")};
  for (int i = 0; i < 100; ++i) {
    const std::string id = "0x" + std::to_string(1000 + i);
    const double t0 = 10000.0 * i;
    events.push_back(slice("post", 1, 1, t0, 0, id));
    events.push_back(slice("context load", 1, 2, t0 + 50, 100 + i, id));
    events.push_back(slice("translate", 1, 3, t0 + 400, 5, id));
    events.push_back(slice("translate", 1, 103, t0 + 500, 5, id));  // a lane: still "mtt"
    events.push_back(slice("serve read", 2, 4, t0 + 1000, 1000, id));
    events.push_back(slice("poll", 1, 1, t0 + 3000 + i, 0, id));
  }
  // A request cut short (no poll): in the stages and the span, not in end to end.
  events.push_back(slice("post", 1, 1, 2000000, 0, "0xcut"));
  events.push_back(slice("context load", 1, 2, 2000050, 400, "0xcut"));
  // Slices of no request.
  events.push_back(slice("post receive", 2, 9, 5, 0));
  events.push_back(slice("post receive", 2, 9, 7, 0));
  const TraceReport r = report_of(trace_of(events, R"("scenario":"hand","trace_from":"step 3")"));
  CHECK(r.scenario == "hand");
  CHECK(r.window == "step 3");
  CHECK(r.requests == 101);
  CHECK(r.slices == 100 * 6 + 2 + 2);

  const StageStats* load = stage(r, "fetcher", "context load", "requester");
  REQUIRE(load);
  CHECK(load->count == 101);
  CHECK(load->slices == 101);
  // 100..199 and 400: mean (14950 + 400) / 101; nearest-rank p50 is the 51st value (150),
  // p99 the 100th (199), max 400.
  CHECK(load->mean == Approx((14950.0 + 400.0) / 101));
  CHECK(load->p50 == Approx(150));
  CHECK(load->p99 == Approx(199));
  CHECK(load->max == Approx(400));
  CHECK(load->start == Approx(50));

  // Two slices per request, summed: 10 ns each, on the "mtt" unit whatever the lane.
  const StageStats* translate = stage(r, "mtt", "translate", "requester");
  REQUIRE(translate);
  CHECK(translate->count == 100);
  CHECK(translate->slices == 200);
  CHECK(translate->p50 == Approx(10));
  CHECK(translate->start == Approx(400));

  // On another node than the request's first slice: the responder's side.
  const StageStats* serve = stage(r, "responder", "serve read", "responder");
  REQUIRE(serve);
  CHECK(serve->mean == Approx(1000));
  CHECK(stage(r, "responder", "serve read", "requester") == nullptr);

  // Stages in the order requests meet them.
  REQUIRE(r.stages.size() == 5);
  CHECK(r.stages.front().name == "post");
  CHECK(r.stages.back().name == "poll");

  // Post to poll: 3000 + i for i = 0..99 (the cut request has no poll).
  CHECK(r.end_to_end.count == 100);
  CHECK(r.end_to_end.mean == Approx(3049.5));
  CHECK(r.end_to_end.p50 == Approx(3049));
  CHECK(r.end_to_end.p99 == Approx(3098));
  CHECK(r.end_to_end.max == Approx(3099));
  CHECK(r.span.count == 101);
  CHECK(r.span.max == Approx(3099));

  REQUIRE(r.other.size() == 1);
  CHECK(r.other[0].name == "post receive");
  CHECK(r.other[0].count == 2);

  const std::string text = format_trace_report(r);
  CHECK(text.find("hand, window from step 3, never opened:") != std::string::npos);
  CHECK(text.find("context load") != std::string::npos);
  CHECK(text.find("end to end: post to poll") != std::string::npos);
}

TEST_CASE("report: counter tracks, weighted by time", "[app]") {
  auto counter = [](double ts_ns, int value) {
    return R"({"ph":"C","name":"depth","pid":1,"ts":)" + std::to_string(ts_ns / 1000) +
           R"(,"args":{"value":)" + std::to_string(value) + "}}";
  };
  // 2 for 100 ns, 6 for 300 ns, then 0 until the last event at 500 ns: mean (200 + 1800) / 500.
  const TraceReport r = report_of(
      trace_of({R"({"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"node A"}})",
                counter(0, 2), counter(100, 6), counter(400, 0), slice("x", 1, 1, 450, 50)},
               R"("window_start_us":0.0)"));
  REQUIRE(r.counters.size() == 1);
  CHECK(r.counters[0].node == "node A");
  CHECK(r.counters[0].name == "depth");
  CHECK(r.counters[0].samples == 3);
  CHECK(r.counters[0].min == 0);
  CHECK(r.counters[0].max == 6);
  CHECK(r.counters[0].mean == Approx(2000.0 / 500));
  CHECK(r.requests == 0);
}

TEST_CASE("report: the requester's side is the node the request names, when it names one",
          "[app]") {
  // Node B is pid 1 here, node A pid 2. Request 0x1 names node A (index 0) as its requester,
  // but its first slice in the trace is on B (a window that opened mid-request).
  auto process = [](int pid, const std::string& name, int node) {
    return R"({"ph":"M","name":"process_name","pid":)" + std::to_string(pid) +
           R"(,"tid":0,"args":{"name":"node )" + name + R"(","node":)" + std::to_string(node) +
           "}}";
  };
  auto linked = [](const std::string& name, int pid, double ts_ns) {
    return R"({"ph":"X","name":")" + name + R"(","pid":)" + std::to_string(pid) +
           R"(,"tid":1,"ts":)" + std::to_string(ts_ns / 1000) +
           R"(,"dur":0.01,"args":{"request":"0x1","requester_node":0}})";
  };
  const TraceReport r = report_of(trace_of({process(1, "B", 1), process(2, "A", 0),
                                            linked("serve read", 1, 100),
                                            linked("completion", 2, 300)}));
  REQUIRE(r.stages.size() == 2);
  CHECK(r.stages[0].name == "serve read");
  CHECK(r.stages[0].side == "responder");
  CHECK(r.stages[1].name == "completion");
  CHECK(r.stages[1].side == "requester");
  CHECK(r.stages[1].start == Approx(200));
}

TEST_CASE("report: the bare array form is a trace too", "[app]") {
  const TraceReport r =
      report_of("[" + slice("a", 1, 1, 0, 10, "0x1") + "," + slice("b", 1, 1, 10, 20, "0x1") + "]");
  CHECK(r.requests == 1);
  CHECK(r.span.p50 == Approx(30));
  CHECK(r.end_to_end.count == 0);  // no host post and poll
}

TEST_CASE("report: what is not a trace is refused with the reason", "[app]") {
  CHECK(read_error("").find("not JSON") == 0);
  CHECK(read_error("{\"traceEvents\": [").find("not JSON (line 1") == 0);
  CHECK(read_error(R"({"name": "scenario", "steps": []})") ==
        "not a trace (no \"traceEvents\" array)");
  CHECK(read_error(R"({"traceEvents": [1, 2]})") ==
        "not a trace: event 0 is not a trace event (an object with \"ph\")");
  CHECK(read_error(R"({"traceEvents": [{"ph": "X", "name": "a", "ts": "soon"}]})") ==
        "not a trace: event 0 (ph X) has no numeric \"ts\"");
}

TEST_CASE("report: files, directories and results JSON", "[app]") {
  std::string text, error;
  CHECK_FALSE(report_file("/", &text, &error));
  CHECK(error == "\"/\": is a directory, not a trace or results file");
  CHECK_FALSE(report_file("/nonexistent/trace.json", &text, &error));
  CHECK(error.find("no such file") != std::string::npos);

  const std::string path = "/tmp/rnicsim_report_test_" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << R"({"scenario": "s", "outcome": "passed", "sim_ns": 5000,
    "steps": [{"index": 4, "op": "read_stream", "metrics": {"ops": 10, "mops": 2.5,
               "latency_ns.p50": 700, "latency_ns.p99": 900, "latency_ns.max": 950}}],
    "stats": {"A.rnic.requester": {"reads": 10,
              "read_latency_ns": {"count": 10, "mean": 650.5, "p50": 640, "p90": 700,
                                  "p99": 800, "max": 810},
              "send_latency_ns": {"count": 0, "mean": 0, "p50": 0, "p90": 0, "p99": 0,
                                  "max": 0}}}})";
  REQUIRE(report_file(path, &text, &error));
  CHECK(text.find("s (" + path + "): results, passed, 1 steps, 5.000 us simulated") == 0);
  CHECK(text.find("A.rnic.requester read_latency_ns") != std::string::npos);
  CHECK(text.find("send_latency_ns") == std::string::npos);  // nothing recorded
  CHECK(text.find("step 4 read_stream") != std::string::npos);

  std::ofstream(path) << R"({"name": "a scenario", "steps": []})";
  CHECK_FALSE(report_file(path, &text, &error));
  CHECK(error.find("neither a trace") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("trace window: --trace-from is a time with a unit, or a step", "[app]") {
  TraceFrom from;
  std::string error;
  REQUIRE(parse_trace_from("25us", &from, &error));
  CHECK(from.is_time);
  CHECK(from.ps == 25000000u);
  REQUIRE(parse_trace_from("1.5ms", &from, &error));
  CHECK(from.ps == 1500000000u);
  REQUIRE(parse_trace_from("0.001ns", &from, &error));
  CHECK(from.ps == 1u);
  REQUIRE(parse_trace_from("2s", &from, &error));
  CHECK(from.ps == 2000000000000u);
  REQUIRE(parse_trace_from("14", &from, &error));
  CHECK_FALSE(from.is_time);
  CHECK(from.step == "14");
  for (const char* bad : {"25 us", "1e3us", "5mm", "1.2.3us", ".5us", "-5us", "2000000s"}) {
    INFO(bad);
    CHECK_FALSE(parse_trace_from(bad, &from, &error));
    CHECK(error.find("--trace-from") == 0);
  }
  CHECK_FALSE(parse_trace_from("2000000s", &from, &error));
  CHECK(error == "--trace-from is at most 1000000s of simulated time, got \"2000000s\"");

  const Scenario scenario = load_scenario(R"({"name": "t", "steps": [
      {"op": "alloc", "node": "A", "name": "sink", "size": 4096},
      {"op": "create_pd", "node": "A", "name": "pdA"},
      {"op": "wait", "ns": 10}]})");
  size_t index = 99;
  for (const auto& [spec, want] : std::vector<std::pair<std::string, size_t>>{{"0", 0},
                                                                              {"2", 2},
                                                                              {"-1", 2},
                                                                              {"-3", 0},
                                                                              {"step1", 1},
                                                                              {"steps[2]", 2},
                                                                              {"steps[-2]", 1},
                                                                              {"pdA", 1},
                                                                              {"sink", 0}}) {
    INFO(spec);
    REQUIRE(resolve_trace_step(spec, scenario, &index, &error));
    CHECK(index == want);
  }
  CHECK_FALSE(resolve_trace_step("3", scenario, &index, &error));
  CHECK(error == "--trace-from \"3\": no such step (the file has 3 steps, 0..2 or -1..-3)");
  CHECK_FALSE(resolve_trace_step("-4", scenario, &index, &error));
  CHECK_FALSE(resolve_trace_step("steps[9]", scenario, &index, &error));
  CHECK_FALSE(resolve_trace_step("nosuch", scenario, &index, &error));
  CHECK(error.find("--trace-from \"nosuch\": no step of that index or name") == 0);
}
