// SPDX-License-Identifier: Apache-2.0
// The trace writer (app/observe/trace_writer.h): tracks, lanes, flows, the event limit.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

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
