// SPDX-License-Identifier: Apache-2.0
// The trace writer (app/observe/trace_writer.h): tracks, lanes, flows, the event limit, the
// window, counter tracks and the host track's link to the device's requests.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "app/observe/trace_writer.h"

using rnic::app::TraceWriter;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {
nlohmann::json written(const TraceWriter& w) {
  std::ostringstream out;
  w.write(out);
  return nlohmann::json::parse(out.str());
}
}  // namespace

TEST_CASE("trace writer: one process per node, one thread per unit, flows in time order",
          "[app]") {
  TraceWriter w;
  const uint32_t fetch = w.track("A.rnic.fetcher");
  const uint32_t done = w.track("A.rnic.completion");
  const uint32_t remote = w.track("B\"x.rnic.responder");
  CHECK(w.track("A.rnic.fetcher") == fetch);
  const uint64_t id = rnic::make_trace_id(0, 7, 1);
  // Recorded out of time order, as loosely timed units do.
  w.slice(done, "completion", sc_time(30, SC_NS), sc_time(31, SC_NS), id);
  w.slice(fetch, "fetch", sc_time(1.5, SC_NS), sc_time(2, SC_NS), id);
  w.slice(remote, "serve read", sc_time(10, SC_NS), sc_time(20, SC_NS), id);
  const nlohmann::json doc = written(w);
  int processes = 0, threads = 0, slices = 0;
  std::string flow;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") ++processes;
    if (e["ph"] == "M" && e["name"] == "thread_name") ++threads;
    if (e["ph"] == "X") {
      ++slices;
      CHECK(e["args"]["qpn"] == 7);
      if (e["name"] == "fetch") {
        CHECK(e["ts"].get<double>() == Approx(0.0015));
        CHECK(e["dur"].get<double>() == Approx(0.0005));
      }
    }
    if (e["ph"] == "s" || e["ph"] == "t" || e["ph"] == "f") flow += e["ph"].get<std::string>();
  }
  CHECK(processes == 2);  // the quote in "B\"x" is escaped: the JSON parsed
  CHECK(threads == 3);
  CHECK(slices == 3);
  CHECK(flow == "stf");
}

TEST_CASE("trace writer: overlapping slices of one unit go to separate lanes", "[app]") {
  TraceWriter w;
  const uint32_t port = w.track("A.rnic.port");
  w.slice(port, "tx", sc_time(0, SC_NS), sc_time(10, SC_NS), 0);
  w.slice(port, "tx", sc_time(5, SC_NS), sc_time(15, SC_NS), 0);
  w.slice(port, "tx", sc_time(10, SC_NS), sc_time(12, SC_NS), 0);
  const nlohmann::json doc = written(w);
  std::set<int> tids;
  std::set<std::string> names;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") tids.insert(e["tid"].get<int>());
    if (e["ph"] == "M" && e["name"] == "thread_name") names.insert(e["args"]["name"]);
  }
  CHECK(tids.size() == 2);
  CHECK(names == std::set<std::string>{"port", "port #2"});
}

TEST_CASE("trace writer: the event limit drops later slices and says so", "[app]") {
  std::ostringstream warn;
  TraceWriter w(5, &warn);
  const uint32_t t = w.track("A.rnic.mtt");
  for (int i = 0; i < 10; ++i) w.slice(t, "translate", sc_time(i, SC_NS), sc_time(i + 1, SC_NS), 1);
  CHECK(w.slices() == 2);  // two events each (slice + flow)
  CHECK(w.dropped() == 8);
  CHECK(warn.str().find("trace limit of 5 events") != std::string::npos);
  const nlohmann::json doc = written(w);
  CHECK(doc["otherData"]["dropped_slices"] == 8);
}

TEST_CASE("run: --trace-limit and --vcd-period parse", "[app]") {
  rnic::app::CliOptions o;
  std::string error;
  REQUIRE(rnic::app::parse_cli({"run", "f.json", "--trace-limit", "1000", "--vcd-period=50"}, &o,
                               &error));
  CHECK(o.trace_limit == 1000u);
  CHECK(o.vcd_period_ns == 50u);
  CHECK_FALSE(rnic::app::parse_cli({"run", "f.json", "--trace-limit", "0"}, &o, &error));
  CHECK(error == "--trace-limit needs a positive integer, got \"0\"");
}

namespace {
size_t count_ph(const nlohmann::json& doc, const char* ph) {
  size_t n = 0;
  for (const auto& e : doc["traceEvents"]) n += e["ph"] == ph;
  return n;
}
}  // namespace

TEST_CASE("trace window: from a time, nothing before it, the limit counted from it", "[app]") {
  TraceWriter w(6);
  w.set_window(sc_time(100, SC_NS).value(), "100ns");
  const uint32_t t = w.track("A.rnic.mtt");
  // Twenty slices before the window (start < 100 ns), some ending inside it: not recorded,
  // and they use none of the limit.
  for (int i = 0; i < 20; ++i) {
    w.slice(t, "translate", sc_time(i, SC_NS), sc_time(i + 90, SC_NS), 1);
  }
  CHECK(w.slices() == 0);
  CHECK(w.events() == 0);
  // From the window on: six events, three linked slices, then the limit.
  for (int i = 0; i < 5; ++i) {
    w.slice(t, "translate", sc_time(100 + i, SC_NS), sc_time(101 + i, SC_NS), 1);
  }
  CHECK(w.slices() == 3);
  CHECK(w.dropped() == 2);
  const nlohmann::json doc = written(w);
  CHECK(doc["otherData"]["trace_from"] == "100ns");
  CHECK(doc["otherData"]["window_start_us"].get<double>() == Approx(0.1));
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") CHECK(e["ts"].get<double>() >= 0.1);
  }
}

TEST_CASE("trace window: a step's window records nothing until it opens", "[app]") {
  TraceWriter w;
  w.set_window(TraceWriter::kNotYet, "step 3");
  const uint32_t t = w.track("A.rnic.port");
  const uint32_t c = w.counter_track("A.reads_outstanding");
  w.slice(t, "tx", sc_time(5, SC_NS), sc_time(6, SC_NS), 0);
  w.counter(c, sc_time(5, SC_NS), 3);
  CHECK(w.slices() + w.counter_samples() == 0);
  CHECK(written(w)["otherData"].count("window_start_us") == 0);
  w.open_window(sc_time(50, SC_NS).value());
  w.open_window(sc_time(70, SC_NS).value());  // already open: stays at 50
  CHECK(w.window_start_ps() == sc_time(50, SC_NS).value());
  w.slice(t, "tx", sc_time(40, SC_NS), sc_time(60, SC_NS), 0);  // starts before: dropped
  w.slice(t, "tx", sc_time(50, SC_NS), sc_time(60, SC_NS), 0);
  w.counter(c, sc_time(50, SC_NS), 3);  // the first in the window is written, whatever came before
  CHECK(w.slices() == 1);
  CHECK(w.counter_samples() == 1);
}

TEST_CASE("trace writer: counter tracks keep changes only, per node", "[app]") {
  TraceWriter w;
  w.set_nodes({"A", "B"});
  const uint32_t a = w.counter_track("A.reads_outstanding");
  const uint32_t b = w.counter_track("B.dma_read_tags_in_use");
  CHECK(w.counter_track("A.reads_outstanding") == a);
  const int values[] = {0, 0, 2, 2, 2, 5, 0, 0};
  for (int i = 0; i < 8; ++i) {
    w.counter(a, sc_time(100 * i, SC_NS), uint64_t(values[i]));
    w.counter(b, sc_time(100 * i, SC_NS), 7);
  }
  CHECK(w.counter_samples() == 4 + 1);  // A: 0, 2, 5, 0; B: 7
  const nlohmann::json doc = written(w);
  std::vector<int> seen;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "C") continue;
    if (e["name"] == "reads_outstanding") {
      CHECK(e["pid"] == 1);
      seen.push_back(e["args"]["value"].get<int>());
    } else {
      CHECK(e["name"] == "dma_read_tags_in_use");
      CHECK(e["pid"] == 2);
    }
  }
  CHECK(seen == std::vector<int>{0, 2, 5, 0});
  CHECK(count_ph(doc, "C") == 5);
}

TEST_CASE("trace writer: the host's post, doorbell and poll join the device's request", "[app]") {
  using Queue = rnic::host::HostTraceSink::Queue;
  TraceWriter w;
  w.set_nodes({"A", "B"});
  const uint32_t fetch = w.track("A.rnic.fetcher");
  const uint32_t serve = w.track("B.rnic.responder");
  // QP 7 of node A: WQEs 0 and 1 posted, then one doorbell for both (DEFER); WQE 0 unsignaled.
  w.host_post(0, 7, Queue::Send, 0, sc_time(10, SC_NS));
  w.host_post(0, 7, Queue::Send, 1, sc_time(10, SC_NS));
  w.host_doorbell(0, 7, Queue::Send, 2, sc_time(10, SC_NS), sc_time(300, SC_NS));
  // QP 9 of node A: WQE 0, rung at once.
  w.host_post(0, 9, Queue::Send, 0, sc_time(20, SC_NS));
  w.host_doorbell(0, 9, Queue::Send, 1, sc_time(20, SC_NS), sc_time(310, SC_NS));
  // The device numbers WQEs as it fetches them: QP 9's first here, then QP 7's two; the
  // first slice of number 2 shows before number 1's (out of order).
  const uint64_t q9w0 = rnic::make_trace_id(0, 9, 0);
  const uint64_t q7w0 = rnic::make_trace_id(0, 7, 1);
  const uint64_t q7w1 = rnic::make_trace_id(0, 7, 2);
  w.slice(fetch, "fetch", sc_time(310, SC_NS), sc_time(400, SC_NS), q9w0);
  w.slice(fetch, "fetch", sc_time(300, SC_NS), sc_time(420, SC_NS), q7w1);
  w.slice(fetch, "fetch", sc_time(300, SC_NS), sc_time(410, SC_NS), q7w0);
  w.slice(serve, "serve read", sc_time(500, SC_NS), sc_time(600, SC_NS), q7w0);
  // Completions seen: QP 7's WQE 1 (WQE 0 was unsignaled), QP 9's WQE 0; and a receive.
  w.host_poll(0, 7, Queue::Send, 1, sc_time(900, SC_NS));
  w.host_poll(0, 9, Queue::Send, 0, sc_time(950, SC_NS));
  w.host_post(1, 4, Queue::Receive, 0, sc_time(5, SC_NS));

  const nlohmann::json doc = written(w);
  std::map<std::string, std::string> request_of;  // "name qpn index" -> request
  std::set<std::string> threads;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      threads.insert(std::to_string(e["pid"].get<int>()) + " " +
                     e["args"]["name"].get<std::string>());
    }
    if (e["ph"] != "X" || (e["name"] != "post" && e["name"] != "doorbell" && e["name"] != "poll"))
      continue;
    const auto& args = e["args"];
    const int index = args.contains("wqe_index") ? args["wqe_index"].get<int>()
                                                 : args["producer"].get<int>();
    const std::string key = e["name"].get<std::string>() + " " +
                            std::to_string(args["qpn"].get<int>()) + " " + std::to_string(index);
    request_of[key] = args.contains("request") ? args["request"].get<std::string>() : "";
  }
  char text[24];
  auto hex = [&](uint64_t id) {
    std::snprintf(text, sizeof text, "0x%llx", (unsigned long long)id);
    return std::string(text);
  };
  CHECK(request_of["post 7 0"] == hex(q7w0));
  CHECK(request_of["post 7 1"] == hex(q7w1));
  CHECK(request_of["doorbell 7 2"] == hex(q7w1));  // the last WQE it hands over
  CHECK(request_of["poll 7 1"] == hex(q7w1));
  CHECK(request_of["post 9 0"] == hex(q9w0));
  CHECK(request_of["doorbell 9 1"] == hex(q9w0));
  CHECK(request_of["poll 9 0"] == hex(q9w0));
  CHECK(threads.count("1 host") == 1);
  CHECK(threads.count("1 doorbell") == 1);
  CHECK(threads.count("2 host") == 1);  // node B's receive post
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") {
      CHECK(e["args"]["node"] == e["pid"].get<int>() - 1);  // how the report finds requesters
    }
  }
  // A QP made anew (its ring index back at 0) forgets the old one's WQEs.
  w.host_post(0, 7, Queue::Send, 0, sc_time(1000, SC_NS));
  w.slice(fetch, "fetch", sc_time(1100, SC_NS), sc_time(1200, SC_NS), rnic::make_trace_id(0, 7, 3));
  size_t linked_posts = 0;
  const nlohmann::json again = written(w);
  for (const auto& e : again["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "post" && e["ts"].get<double>() == Approx(1.0))
      linked_posts += e["args"].contains("request");
  }
  CHECK(linked_posts == 1);
}

TEST_CASE("run: a bad --trace-from or --trace-period is refused before simulating", "[app]") {
  const std::string scenario = std::string(RNICSIM_SOURCE_DIR) + "/scenarios/quickstart.json";
  const std::string trace = "/tmp/rnicsim_trace_window_test.json";
  std::remove(trace.c_str());
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--trace", trace, "--trace-from", "25 us"}, "--trace-from needs a step"},
      {{"--trace", trace, "--trace-from", "-3us"}, "--trace-from needs a step"},
      {{"--trace", trace, "--trace-from", "9999"}, "--trace-from \"9999\": no such step"},
      {{"--trace", trace, "--trace-from", "steps[-99]"}, "no such step"},
      {{"--trace", trace, "--trace-from", "noSuchStep"}, "no step of that index or name"},
      {{"--trace-from", "3"}, "--trace-from needs --trace FILE"},
      {{"--trace-period", "50"}, "--trace-period needs --trace FILE"},
      {{"--trace", trace, "--trace-period", "x"}, "--trace-period needs an integer"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"run", scenario};
    args.insert(args.end(), c.args.begin(), c.args.end());
    std::ostringstream out, err;
    INFO(c.message);
    CHECK(rnic::app::run_cli(args, out, err) == rnic::app::kExitInvalid);
    CHECK(err.str().find(c.message) != std::string::npos);
    CHECK(out.str().empty());  // no summary: nothing ran
  }
  std::ifstream written(trace);
  CHECK_FALSE(written.good());  // nor was a trace written
}

TEST_CASE("report: a directory, a non-JSON file, a scenario are refused with exit 2", "[app]") {
  const std::string text = "/tmp/rnicsim_report_cli_test.txt";
  std::ofstream(text) << "not json\n";
  for (const auto& [file, message] : std::vector<std::pair<std::string, std::string>>{
           {"/tmp", "is a directory"},
           {text, "not JSON (line 1, column 2"},
           {std::string(RNICSIM_SOURCE_DIR) + "/scenarios/quickstart.json", "neither a trace"},
           {"/nonexistent.json", "no such file"}}) {
    std::ostringstream out, err;
    INFO(file);
    CHECK(rnic::app::run_cli({"report", file}, out, err) == rnic::app::kExitInvalid);
    CHECK(err.str().find(message) != std::string::npos);
  }
  std::ostringstream out, err;
  CHECK(rnic::app::run_cli({"report"}, out, err) == rnic::app::kExitInvalid);
  CHECK(err.str().find("report needs a") != std::string::npos);
  std::remove(text.c_str());
}
