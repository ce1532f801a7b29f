// SPDX-License-Identifier: Apache-2.0
// The whole-file checks load_scenario makes (app/scenario/preflight.h): the stream rule
// against a step-by-step model of the posting loop, over every small combination of its four
// numbers, and the refusals that validate and run share.
#include <catch2/catch.hpp>
#include <string>

#include "app/scenario/preflight.h"

using namespace rnic::app;

namespace {

// The read_stream / write_stream posting loop (app/runner/workloads.cpp), one request at a
// time: post while fewer than `outstanding` are not seen complete and the send queue has a
// slot (a slot is free again once a later completion is seen), then wait for the first
// signaled request in flight. True when it waits for one that is not there.
bool loop_stalls(uint64_t count, uint64_t outstanding, uint64_t signal_every,
                 uint64_t send_depth) {
  uint64_t posted = 0, completed = 0;
  while (completed < count) {
    while (posted < count && posted - completed < outstanding && posted - completed < send_depth)
      ++posted;
    uint64_t next = completed;
    while (next < posted && !((next + 1) % signal_every == 0 || next + 1 == count)) ++next;
    if (next == posted) return true;  // nothing signaled in flight: no completion will come
    completed = next + 1;             // in-order completion: every earlier one is done too
  }
  return false;
}

// The loader's message for `text`, or "" when it loads.
std::string refusal(const std::string& text) {
  try {
    load_scenario(text);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return {};
}

std::string qp_pair(uint64_t send_depth) {
  return R"({"op": "create_pd", "node": "A", "name": "pdA"},
            {"op": "create_pd", "node": "B", "name": "pdB"},
            {"op": "create_cq", "node": "A", "name": "cqA", "depth": 64},
            {"op": "create_cq", "node": "B", "name": "cqB", "depth": 64},
            {"op": "create_qp", "name": "qpA", "pd": "pdA", "cq": "cqA", "send_depth": )" +
         std::to_string(send_depth) + R"(},
            {"op": "create_qp", "name": "qpB", "pd": "pdB", "cq": "cqB"},
            {"op": "alloc", "node": "A", "name": "sink", "size": 4096},
            {"op": "alloc", "node": "B", "name": "src", "size": 4096},
            {"op": "create_mr", "name": "mrA", "pd": "pdA"},
            {"op": "register_mr", "mr": "mrA", "buffer": "sink", "flags": ["ALLOW_LOCAL_WRITE"]},
            {"op": "create_mr", "name": "mrB", "pd": "pdB"},
            {"op": "register_mr", "mr": "mrB", "buffer": "src", "flags": ["ALLOW_REMOTE_READ"]})";
}

std::string stream(uint64_t count, uint64_t outstanding, uint64_t signal_every,
                   uint64_t send_depth) {
  return R"({"name": "s", "steps": [)" + qp_pair(send_depth) + R"(,
            {"op": "connect", "qp": "qpA", "peer": "qpB"},
            {"op": "read_stream", "qp": "qpA", "size": 64, "count": )" +
         std::to_string(count) + R"(, "outstanding": )" + std::to_string(outstanding) +
         R"(, "signal_every": )" + std::to_string(signal_every) +
         R"(, "sgl": {"mr": "mrA"}, "remote": {"target": "mrB", "span": 4096}}]})";
}

}  // namespace

TEST_CASE("preflight: a stream is refused exactly when its posting loop could only stall",
          "[app][preflight]") {
  uint64_t stalls = 0, cases = 0;
  for (uint64_t count = 1; count <= 24; ++count) {
    for (uint64_t outstanding = 1; outstanding <= 8; ++outstanding) {
      for (uint64_t signal_every = 1; signal_every <= count; ++signal_every) {
        for (uint64_t depth = 0; depth <= 8; ++depth) {
          const bool model = loop_stalls(count, outstanding, signal_every, depth);
          INFO("count " << count << " outstanding " << outstanding << " signal_every "
                        << signal_every << " send_depth " << depth);
          REQUIRE(stream_can_stall(count, outstanding, signal_every, depth) == model);
          stalls += model;
          ++cases;
        }
      }
    }
  }
  // Both verdicts occur often: the grid is no trivial pass.
  CHECK(stalls > cases / 10);
  CHECK(stalls < cases - cases / 10);
}

TEST_CASE("preflight: the loader applies the stream rule with the QP's send depth",
          "[app][preflight]") {
  // The class refused before: signal_every above outstanding and below count.
  CHECK(refusal(stream(100, 4, 8, 64)).find("no signaled request") != std::string::npos);
  // Accepted before, stalled when run: only the last request signaled, count above outstanding.
  CHECK(refusal(stream(1000, 4, 1000, 64)).find("steps[13].signal_every") != std::string::npos);
  // The send queue, not `outstanding`, bounds what is in flight.
  const std::string depth = refusal(stream(1000, 64, 32, 16));
  CHECK(depth.find("at most 16 requests in flight (outstanding 64, send_depth 16 of qpA)") !=
        std::string::npos);
  // Ones that finish: a signaled request always in flight, or all of them in one window.
  CHECK(refusal(stream(1000, 64, 16, 16)).empty());
  CHECK(refusal(stream(8, 8, 8, 16)).empty());
  CHECK(refusal(stream(1000, 4, 1, 64)).empty());
}

TEST_CASE("preflight: workloads are checked against the effective config", "[app][preflight]") {
  const std::string traffic =
      R"({"name": "t", "steps": [{"op": "traffic", "ops": 10, "flows": [{"src": "A",
          "dst": "B", "verb": "read", "qps": 100, "size": 64, "outstanding": 8}]}]})";
  CHECK(refusal(traffic).empty());
  // --set applies before the checks: the same file refused under a smaller table or ORD.
  auto with = [&](const std::string& set) {
    try {
      load_scenario(traffic, {set});
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(with("qp.max_qps=100").find("bring node A to 100 QPs") != std::string::npos);
  CHECK(with("qp.max_qps=101").empty());
  CHECK(with("qp.max_ord=4").find("qp.max_ord = 4") != std::string::npos);
  CHECK(with("qp.max_cqs=1").find("CQs") != std::string::npos);
  CHECK(with("qp.max_mpt_entries=1").find("MRs and MWs") != std::string::npos);
}

TEST_CASE("preflight: a ping-pong needs its QPs connected to each other, and flags that let "
          "it finish", "[app][preflight]") {
  auto pingpong = [](const std::string& connect, const std::string& extra) {
    return R"({"name": "p", "steps": [)" + qp_pair(16) + R"(,
              {"op": "create_qp", "name": "qpC", "pd": "pdB", "cq": "cqB"})" + connect + R"(,
              {"op": "pingpong", "qp": "qpA", "peer": "qpB", "verb": "write", "size": 64,
               "count": 4)" + extra + "}]}";
  };
  const std::string connected = R"(, {"op": "connect", "qp": "qpA", "peer": "qpB"})";
  CHECK(refusal(pingpong(connected, "")).empty());
  CHECK(refusal(pingpong("", "")).find("qpA is not connected") != std::string::npos);
  CHECK(refusal(pingpong(R"(, {"op": "connect", "qp": "qpC", "peer": "qpA"})", ""))
            .find("qpB is not the QP qpA is connected to (qpC)") != std::string::npos);
  // A connect expected to fail connects nothing.
  CHECK(refusal(pingpong(R"(, {"op": "connect", "qp": "qpA", "peer": "qpB",
                                "expect": "STATUS_INVALID_PARAMETER"})", ""))
            .find("not connected") != std::string::npos);
  CHECK(refusal(pingpong(connected, R"(, "flags": ["SILENT_SUCCESS"])"))
            .find("SILENT_SUCCESS") != std::string::npos);
  CHECK(refusal(pingpong(connected, R"(, "flags": ["DEFER"])")).find("DEFER") !=
        std::string::npos);
  CHECK(refusal(pingpong(connected, R"(, "flags": ["INLINE"])")).empty());
}

TEST_CASE("preflight: a reference whose base the file fixes is checked when loaded",
          "[app][preflight]") {
  const std::string head =
      R"({"name": "r", "steps": [{"op": "alloc", "node": "A", "name": "b", "size": 4096},)";
  CHECK(refusal(head + R"({"op": "save", "name": "x", "value": "$b.length-4097"}]})")
            .find("leaves the 64-bit range") != std::string::npos);
  CHECK(refusal(head + R"({"op": "save", "name": "x", "value": "$b.length-4096"}]})").empty());
  // A saved value carries its known value on.
  CHECK(refusal(head + R"({"op": "save", "name": "x", "value": "$b.length-4000"},
                          {"op": "save", "name": "y", "value": "$x-97"}]})")
            .find("steps[2].value") != std::string::npos);
  // Addresses and tokens exist only when the step runs: not judged here.
  CHECK(refusal(head + R"({"op": "save", "name": "x", "value": "$b.va-18446744073709551615"}]})")
            .empty());
}
