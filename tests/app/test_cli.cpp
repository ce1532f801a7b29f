// SPDX-License-Identifier: Apache-2.0
// Command-line parsing and the commands that need no simulation.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.h"

using namespace rnic::app;

namespace {
int run(const std::vector<std::string>& args, std::string* out = nullptr,
        std::string* err = nullptr) {
  std::ostringstream o, e;
  const int status = run_cli(args, o, e);
  if (out) *out = o.str();
  if (err) *err = e.str();
  return status;
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/rnicsim_app_test_" + name;
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("run options parse", "[app]") {
  CliOptions o;
  std::string error;
  REQUIRE(
      parse_cli({"run", "f.json", "--out", "r.json", "--set", "pcie.gen=4", "--set=port.mtu=1024",
                 "--seed", "0x10", "--quiet", "--trace=t.json", "--vcd", "w.vcd"},
                &o, &error));
  CHECK(o.command == "run");
  CHECK(o.file == "f.json");
  CHECK(o.out == "r.json");
  CHECK(o.sets == std::vector<std::string>{"pcie.gen=4", "port.mtu=1024"});
  CHECK(o.seed == 16u);
  CHECK(o.quiet);
  CHECK(o.trace == "t.json");
  CHECK(o.vcd == "w.vcd");
}

TEST_CASE("bad command lines are refused with a reason", "[app]") {
  CliOptions o;
  std::string error;
  CHECK_FALSE(parse_cli({}, &o, &error));
  CHECK_FALSE(parse_cli({"frobnicate"}, &o, &error));
  CHECK(error == "unknown command \"frobnicate\"");
  CHECK_FALSE(parse_cli({"run"}, &o, &error));
  CHECK(error == "run needs a scenario file");
  CHECK_FALSE(parse_cli({"run", "a.json", "b.json"}, &o, &error));
  CHECK_FALSE(parse_cli({"run", "a.json", "--bogus"}, &o, &error));
  CHECK(error == "unknown option \"--bogus\" for run");
  CHECK_FALSE(parse_cli({"run", "a.json", "--out"}, &o, &error));
  CHECK(error == "--out needs a value");
  CHECK_FALSE(parse_cli({"run", "a.json", "--seed", "-3"}, &o, &error));
  CHECK_FALSE(parse_cli({"validate", "a.json", "--out", "x"}, &o, &error));
  CHECK_FALSE(parse_cli({"params", "a.json"}, &o, &error));
  CHECK(run({"run", "a.json", "--bogus"}) == kExitInvalid);
}

TEST_CASE("help, version, params and presets", "[app]") {
  std::string out;
  CHECK(run({"--help"}, &out) == 0);
  CHECK(out.find("usage: rnicsim") != std::string::npos);
  CHECK(run({"run", "--help"}, &out) == 0);
  CHECK(out.find("--set K=V") != std::string::npos);
  CHECK(run({"--version"}, &out) == 0);
  CHECK(out.rfind("rnicsim ", 0) == 0);
  CHECK(run({"params"}, &out) == 0);
  CHECK(out.find("pcie.mrrs") != std::string::npos);
  CHECK(run({"params", "--preset", "pcie-bench-gen3x8"}, &out) == 0);
  CHECK(out.find("mtt.cache_entries         64 ") != std::string::npos);
  CHECK(run({"params", "--preset", "nope"}) == kExitInvalid);
  CHECK(run({"presets"}, &out) == 0);
  CHECK(out.find("pcie-bench-gen3x8") != std::string::npos);
}

TEST_CASE("validate: exit 0 for a good file, 2 with file:line:column for a bad one", "[app]") {
  std::string out, err;
  const std::string good =
      temp_file("good.json", R"({"name": "g", "steps": [{"op": "wait", "ns": 5}]})");
  CHECK(run({"validate", good}, &out, &err) == 0);
  CHECK(out.find("valid (1 steps)") != std::string::npos);
  const std::string bad = temp_file(
      "bad.json", "{\"name\": \"b\",\n \"steps\": [{\"op\": \"wait\", \"ns\": \"soon\"}]}");
  CHECK(run({"validate", bad}, &out, &err) == kExitInvalid);
  CHECK(err.find(bad + ":2:33: steps[0].ns: must be an integer") != std::string::npos);
  CHECK(run({"validate", "/nonexistent/x.json"}, &out, &err) == kExitInvalid);
  CHECK(err.find("cannot open") != std::string::npos);
  std::remove(good.c_str());
  std::remove(bad.c_str());
}
