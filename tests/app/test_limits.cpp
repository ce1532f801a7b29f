// SPDX-License-Identifier: Apache-2.0
// Scenario limits too big for a fixture file under tests/scenario/bad (more than 10^6 steps,
// a file over 64 MiB, 65537 workload targets or page entries), the --trace-limit bound, and a
// page_count given by reference: refused with exit 2 (docs/user-guide.md, "Limits").
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "app/cli/cli.h"
#include "app/scenario/scenario.h"

using namespace rnic::app;

namespace {

// The ScenarioError message for `text`, or "" when it loads.
std::string refusal(const std::string& text) {
  try {
    load_scenario(text);
  } catch (const ScenarioError& e) {
    return describe(e);
  }
  return "";
}

std::string steps_file(const std::string& steps) {
  return R"({"name": "limits", "steps": [)" + steps + "]}";
}

}  // namespace

TEST_CASE("more than 10^6 steps are refused", "[app][limits]") {
  std::string steps;
  const std::string wait = R"({"op": "wait", "ns": 0},)";
  steps.reserve(wait.size() * 1000001);
  for (int i = 0; i < 1000001; ++i) steps += wait;
  steps.pop_back();
  CHECK_THAT(refusal(steps_file(steps)), Catch::Contains("more than 1000000 steps"));
}

TEST_CASE("a file over 64 MiB is refused before it is parsed", "[app][limits]") {
  const std::string text = steps_file(std::string((64u << 20) + 1, ' '));
  CHECK_THAT(refusal(text), Catch::Contains("larger than 64 MiB"));
}

TEST_CASE("more than 65536 workload targets or fast-register pages are refused", "[app][limits]") {
  std::string targets;
  for (int i = 0; i < 65537; ++i) targets += std::string(i ? "," : "") + R"("mrB")";
  const std::string prelude =
      R"({"op": "alloc", "node": "B", "name": "buf", "size": 65536},
         {"op": "create_pd", "node": "B", "name": "pd"},
         {"op": "create_cq", "node": "B", "name": "cq"},
         {"op": "create_qp", "name": "qp", "pd": "pd", "cq": "cq"},
         {"op": "create_mr", "name": "mrB", "pd": "pd"},)";
  const std::string stream =
      R"({"op": "read_stream", "qp": "qp", "count": 1, "size": 64, "sgl": {"mr": "mrB"},
          "remote": {"targets": [)" +
      targets + R"(], "span": 4096}})";
  CHECK_THAT(refusal(steps_file(prelude + stream)), Catch::Contains("1 to 65536"));

  std::string pages;
  for (int i = 0; i < 65537; ++i) pages += std::string(i ? "," : "") + R"({"buffer": "buf"})";
  const std::string fr =
      R"({"op": "create_mr", "name": "fr", "pd": "pd", "fast_register": true, "pages": 4},
         {"op": "fast_register", "qp": "qp", "mr": "fr", "buffer": "buf", "length": 64,
          "pages": [)" +
      pages + "]}";
  CHECK_THAT(refusal(steps_file(prelude + fr)), Catch::Contains("1..65536 entries"));
}

TEST_CASE("the trace limit option is bounded (the trace is kept in memory)", "[app][limits]") {
  CliOptions options;
  std::string error;
  CHECK(parse_cli({"run", "x.json", "--trace-limit", "10000000"}, &options, &error));
  CHECK(options.trace_limit == 10000000);
  CHECK_FALSE(parse_cli({"run", "x.json", "--trace-limit", "10000001"}, &options, &error));
  CHECK_THAT(error, Catch::Contains("at most 10000000"));
}

TEST_CASE("a page_count given by reference is bounded when the step runs", "[app][limits]") {
  // A literal above the limit is refused by validation (tests/scenario/bad); a saved value
  // is only known when the step runs: exit 2 there, before any page array is built.
  const std::string path = "/tmp/rnicsim_app_test_page_count.json";
  std::ofstream(path) << steps_file(
      R"({"op": "alloc", "node": "B", "name": "buf", "size": 65536},
         {"op": "create_pd", "node": "B", "name": "pd"},
         {"op": "create_cq", "node": "B", "name": "cq"},
         {"op": "create_qp", "name": "qp", "pd": "pd", "cq": "cq"},
         {"op": "alloc", "node": "A", "name": "bufA", "size": 4096},
         {"op": "create_pd", "node": "A", "name": "pdA"},
         {"op": "create_cq", "node": "A", "name": "cqA"},
         {"op": "create_qp", "name": "qpA", "pd": "pdA", "cq": "cqA"},
         {"op": "connect", "qp": "qpA", "peer": "qp"},
         {"op": "create_mr", "name": "fr", "pd": "pd", "fast_register": true, "pages": 4},
         {"op": "save", "name": "huge", "value": "0xffffffff"},
         {"op": "fast_register", "qp": "qp", "mr": "fr", "buffer": "buf", "length": 64,
          "page_count": "$huge"})");
  std::ostringstream out, err;
  CHECK(run_cli({"run", path, "--quiet"}, out, err) == kExitInvalid);
  CHECK_THAT(err.str(), Catch::Contains("page_count 4294967295 is above the scenario limit"));
}
