// SPDX-License-Identifier: Apache-2.0
// Command-line parsing and the commands that need no simulation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "app/runner/results.h"
#include "app/scenario/schema.h"

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

TEST_CASE("run takes several files, with --out-dir", "[app]") {
  CliOptions o;
  std::string error;
  REQUIRE(parse_cli({"run", "a.json", "b/c.json", "--out-dir", "d", "--seed", "3"}, &o, &error));
  CHECK(o.file == "a.json");
  CHECK(o.files == std::vector<std::string>{"a.json", "b/c.json"});
  CHECK(o.out_dir == "d");
  CHECK(o.seed == 3u);
}

TEST_CASE("run with several files: one run's memory cap holds for them together", "[app]") {
  // 1 GiB each is within a file's cap (1 GiB per node, 2 GiB in all); three are not.
  const std::string text = R"({"name": "big", "steps": [
      {"op": "alloc", "node": "A", "name": "b", "size": 1073741824}]})";
  const std::vector<std::string> files = {
      temp_file("big1.json", text), temp_file("big2.json", text), temp_file("big3.json", text)};
  std::string out, err;
  CHECK(run({"validate", files[0]}, &out, &err) == kExitPassed);
  CHECK(run({"run", files[0], files[1], files[2], "--quiet"}, &out, &err) == kExitInvalid);
  CHECK(err ==
        "rnicsim: the files' buffers would total 3072 MiB, more than the 2 GiB one run may "
        "allocate (run them in several)\n");
  CHECK(out.empty());
}

TEST_CASE("run with several files: two with the same name cannot share --out-dir", "[app]") {
  const std::string text =
      R"({"name": "x", "steps": [{"op": "alloc", "node": "A", "name": "b", "size": 64}]})";
  const std::string a = temp_file("same.json", text);
  std::string out, err;
  CHECK(run({"run", a, a, "--out-dir", "/tmp", "--quiet"}, &out, &err) == kExitInvalid);
  CHECK(err.find("--out-dir: two files named \"rnicsim_app_test_same.json\"") != std::string::npos);
}

TEST_CASE("bad command lines are refused with a reason", "[app]") {
  CliOptions o;
  std::string error;
  CHECK_FALSE(parse_cli({}, &o, &error));
  CHECK_FALSE(parse_cli({"frobnicate"}, &o, &error));
  CHECK(error == "unknown command \"frobnicate\"");
  CHECK_FALSE(parse_cli({"run"}, &o, &error));
  CHECK(error == "run needs a scenario file");
  CHECK_FALSE(parse_cli({"validate", "a.json", "b.json"}, &o, &error));
  CHECK(error == "more than one file given (\"a.json\", \"b.json\")");
  CHECK_FALSE(parse_cli({"run", "a.json", "b.json", "--out", "r.json"}, &o, &error));
  CHECK(error == "--out takes a single scenario file (several: --out-dir DIR)");
  CHECK_FALSE(parse_cli({"run", "a.json", "b.json", "--trace", "t.json"}, &o, &error));
  CHECK(error == "--trace and --vcd take a single scenario file");
  CHECK_FALSE(parse_cli({"run", "a.json", "--out", "r.json", "--out-dir", "d"}, &o, &error));
  CHECK(error == "--out and --out-dir together");
  CHECK_FALSE(parse_cli({"run", "a.json", "--bogus"}, &o, &error));
  CHECK(error == "unknown option \"--bogus\" for run");
  CHECK_FALSE(parse_cli({"run", "a.json", "--out"}, &o, &error));
  CHECK(error == "--out needs a value");
  CHECK_FALSE(parse_cli({"run", "a.json", "--seed", "-3"}, &o, &error));
  CHECK_FALSE(parse_cli({"validate", "a.json", "--out", "x"}, &o, &error));
  CHECK_FALSE(parse_cli({"params", "a.json"}, &o, &error));
  CHECK(run({"run", "a.json", "--bogus"}) == kExitInvalid);
}

TEST_CASE("misspelt commands and options: the closest names are suggested", "[app]") {
  CliOptions o;
  std::string error;
  CHECK_FALSE(parse_cli({"valdiate", "a.json"}, &o, &error));
  CHECK(error == "unknown command \"valdiate\"; did you mean \"validate\"?");
  CHECK_FALSE(parse_cli({"--verison"}, &o, &error));
  CHECK(error == "unknown command \"--verison\"; did you mean \"--version\"?");
  CHECK_FALSE(parse_cli({"run", "a.json", "--qiet"}, &o, &error));
  CHECK(error == "unknown option \"--qiet\" for run; did you mean \"--quiet\"?");
  CHECK_FALSE(parse_cli({"run", "a.json", "--no_summary"}, &o, &error));
  CHECK(error == "unknown option \"--no_summary\" for run; did you mean \"--no-summary\"?");
  CHECK_FALSE(parse_cli({"run", "a.json", "--trace-limt=5"}, &o, &error));
  CHECK(error == "unknown option \"--trace-limt\" for run; did you mean \"--trace-limit\"?");
  // Only the command's own options: --out is gen's, not validate's, and nothing is close.
  CHECK_FALSE(parse_cli({"validate", "a.json", "--out", "x"}, &o, &error));
  CHECK(error == "unknown option \"--out\" for validate");
  // What the user sees: the suggestion, then where the options are listed; exit 2.
  std::string out, err;
  CHECK(run({"run", "a.json", "--qiet"}, &out, &err) == kExitInvalid);
  CHECK(err ==
        "rnicsim: unknown option \"--qiet\" for run; did you mean \"--quiet\"? (see rnicsim run "
        "--help)\n");
  CHECK(run({"frobnicate"}, &out, &err) == kExitInvalid);
  CHECK(err == "rnicsim: unknown command \"frobnicate\" (see rnicsim --help)\n");
  CHECK(run({"params", "--preset", "Default"}, &out, &err) == kExitInvalid);
  CHECK(err == "rnicsim: unknown preset \"Default\"; did you mean \"default\"?\n");
}

TEST_CASE("a misspelt key in --set: the closest keys are suggested, exit 2", "[app]") {
  const std::string good =
      temp_file("set_key.json", R"({"name": "g", "steps": [{"op": "wait", "ns": 5}]})");
  std::string out, err;
  CHECK(run({"validate", good, "--set", "pcie.mrr=512"}, &out, &err) == kExitInvalid);
  CHECK(err == good +
                   ": --set pcie.mrr=512: unknown config key \"pcie.mrr\"; did you mean "
                   "\"pcie.mrrs\"?\n");
  // Two keys end in lookup_cycles: both are named (five end in cache_entries: too many).
  CHECK(run({"run", good, "--quiet", "--set=lookup_cycles=4"}, &out, &err) == kExitInvalid);
  CHECK(err == good +
                   ": --set lookup_cycles=4: unknown config key \"lookup_cycles\"; did you "
                   "mean \"mtt.lookup_cycles\" or \"context.lookup_cycles\"?\n");
  CHECK(run({"validate", good, "--set", "nonsense=1"}, &out, &err) == kExitInvalid);
  CHECK(err ==
        good + ": --set nonsense=1: unknown config key \"nonsense\" (see `rnicsim params`)\n");
  CHECK(out.empty());
  std::remove(good.c_str());
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
  // The preset's value, whatever the column width: "mtt.cache_entries   64 entries ...".
  const size_t key = out.find("mtt.cache_entries ");
  REQUIRE(key != std::string::npos);
  CHECK(out.substr(out.find_first_not_of(' ', key + 17), 3) == "64 ");
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

TEST_CASE("gen and expect: options, and refusals with a reason", "[app]") {
  CliOptions o;
  std::string error;
  REQUIRE(parse_cli({"gen", "--seed", "7", "--steps", "12", "--out", "g.json"}, &o, &error));
  CHECK(o.command == "gen");
  CHECK(o.seed == 7u);
  CHECK(o.steps == 12u);
  CHECK(o.out == "g.json");
  REQUIRE(parse_cli({"expect", "f.json", "--strict", "--out=x.json"}, &o, &error));
  CHECK(o.command == "expect");
  CHECK(o.file == "f.json");
  CHECK(o.strict);
  CHECK(o.out == "x.json");
  CHECK_FALSE(parse_cli({"gen"}, &o, &error));
  CHECK(error == "gen needs --seed N");
  CHECK_FALSE(parse_cli({"gen", "--seed", "abc"}, &o, &error));
  CHECK(error == "--seed needs a non-negative integer, got \"abc\"");
  CHECK_FALSE(parse_cli({"gen", "--seed", "1", "--steps", "-2"}, &o, &error));
  CHECK_FALSE(parse_cli({"gen", "--seed", "1", "--steps", "1000001"}, &o, &error));
  CHECK_FALSE(parse_cli({"gen", "--seed", "1", "f.json"}, &o, &error));
  CHECK(error == "gen takes no file");
  CHECK_FALSE(parse_cli({"gen", "--seed", "1", "--strict"}, &o, &error));
  CHECK_FALSE(parse_cli({"expect"}, &o, &error));
  CHECK(error == "expect needs a scenario file");
  std::string out, err;
  CHECK(run({"gen", "--seed", "-1"}, &out, &err) == kExitInvalid);
  CHECK(err.find("--seed") != std::string::npos);
  CHECK(run({"gen", "--help"}, &out) == 0);
  CHECK(out.find("usage: rnicsim gen --seed N") != std::string::npos);
  CHECK(run({"expect", "--help"}, &out) == 0);
  CHECK(out.find("--strict") != std::string::npos);
  CHECK(run({"--help"}, &out) == 0);
  CHECK(out.find("gen --seed N") != std::string::npos);
  CHECK(run({"expect", "/nonexistent/x.json"}, &out, &err) == kExitInvalid);
}

TEST_CASE("gen writes a scenario, expect recomputes it, refuses what it cannot predict",
          "[app]") {
  std::string out, err;
  REQUIRE(run({"gen", "--seed", "3", "--steps", "10"}, &out, &err) == kExitPassed);
  CHECK(out.find("\"name\": \"gen-3\"") != std::string::npos);
  const std::string generated = temp_file("gen3.json", out);
  CHECK(run({"validate", generated, "--quiet"}) == kExitPassed);
  std::string again;
  REQUIRE(run({"expect", generated, "--strict"}, &again, &err) == kExitPassed);
  CHECK(again == out);
  // A random fill's bytes come from the host's generator: the model cannot predict them.
  const std::string random = temp_file(
      "random.json",
      R"({"name": "r", "steps": [{"op": "alloc", "node": "A", "name": "b", "size": 64, "fill": "random"}]})");
  CHECK(run({"expect", random}, &out, &err) == kExitInvalid);
  CHECK(err.find("cannot predict") != std::string::npos);
  // A memory check while a read may still be landing: a warning, an error with --strict.
  const std::string racy = temp_file("racy.json", R"({"name": "racy", "steps": [
    {"op": "alloc", "node": "A", "name": "sink", "size": 4096},
    {"op": "alloc", "node": "B", "name": "src", "size": 4096, "fill": "incrementing"},
    {"op": "create_pd", "node": "A", "name": "pdA"},
    {"op": "create_pd", "node": "B", "name": "pdB"},
    {"op": "create_cq", "node": "A", "name": "cqA"},
    {"op": "create_cq", "node": "B", "name": "cqB"},
    {"op": "create_qp", "name": "qpA", "pd": "pdA", "cq": "cqA"},
    {"op": "create_qp", "name": "qpB", "pd": "pdB", "cq": "cqB"},
    {"op": "connect", "qp": "qpA", "peer": "qpB"},
    {"op": "create_mr", "name": "mrA", "pd": "pdA"},
    {"op": "register_mr", "mr": "mrA", "buffer": "sink", "flags": ["ALLOW_LOCAL_WRITE", "RDMA_READ_SINK"]},
    {"op": "create_mr", "name": "mrB", "pd": "pdB"},
    {"op": "register_mr", "mr": "mrB", "buffer": "src", "flags": ["ALLOW_REMOTE_READ"]},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 0, "length": 64}], "remote": {"target": "mrB", "offset": 0}, "context": 1},
    {"op": "fill_memory", "buffer": "sink", "offset": 0, "length": 8, "fill": "0x11"}
  ]})");
  CHECK(run({"expect", racy}, &out, &err) == kExitPassed);
  CHECK(err.find("warning: steps[14] (fill_memory): completions on CQ \"cqA\"") !=
        std::string::npos);
  CHECK(out.find("\"context\": 1, \"type\": \"Read\", \"status\": \"STATUS_SUCCESS\"") !=
        std::string::npos);
  CHECK(run({"expect", racy, "--strict"}, &out, &err) == kExitInvalid);
  for (const std::string& f : {generated, random, racy}) std::remove(f.c_str());
}

TEST_CASE("stats lists every counter with owner, unit and meaning", "[app]") {
  std::string out;
  REQUIRE(run({"stats"}, &out) == 0);
  CHECK(out.find("NODE.rnic.mtt\tmtt_hits\tlookups\t") != std::string::npos);
  CHECK(out.find("NODE.pcie\t") != std::string::npos);
  CHECK(out.find("NODE.monitor\t") != std::string::npos);
  CHECK(out.find("\nswitch\t") != std::string::npos);
  std::istringstream lines(out);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    std::vector<std::string> fields;
    std::istringstream cells(line);
    for (std::string f; std::getline(cells, f, '\t');) fields.push_back(f);
    INFO(line);
    REQUIRE(fields.size() == 4);
    CHECK_FALSE(fields[2].empty());
    CHECK_FALSE(fields[3].empty());
  }
  CHECK(count > 40);
  CHECK(run({"stats", "extra"}) == 2);
}

TEST_CASE("the run summary has one metrics line per workload step", "[app]") {
  RunResult run_result;
  StepResult setup;
  setup.index = 0;
  setup.op = "alloc";
  StepResult stream;
  stream.index = 14;
  stream.op = "read_stream";
  stream.metrics = {{"ops", 20000},
                    {"mops", 5.829},
                    {"gbps", 2.98},
                    {"latency_ns.p50", 2753},
                    {"latency_ns.p99", 2753.4},
                    {"latency_ns.max", 4218},
                    {"mtt.hit_rate", 1},
                    {"mpt.hit_rate", 0.5},
                    {"A.requester.mtt.hit_rate", 1},
                    {"A.requester.mpt.hit_rate", 0.25},
                    {"B.responder.mtt.hit_rate", 0.004}};
  stream.warnings = {"B.responder.mtt cache still warming: 900 misses in the first half"};
  run_result.steps = {setup, stream};
  const std::string table = workload_table(run_result);
  // The metrics, the hit rates by node and side (not the totals), the warning.
  CHECK(std::count(table.begin(), table.end(), '\n') == 3);
  CHECK(table.find("step 14") != std::string::npos);
  CHECK(table.find("read_stream") != std::string::npos);
  CHECK(table.find("20000 ops") != std::string::npos);
  CHECK(table.find("5.829 Mops/s") != std::string::npos);
  CHECK(table.find("2.98 Gb/s") != std::string::npos);
  CHECK(table.find("p50 2753 p99 2753 max 4218 ns") != std::string::npos);
  CHECK(table.find("hit rate  A.requester mtt 1.000 mpt 0.250  B.responder mtt 0.004\n") !=
        std::string::npos);
  CHECK(table.find("mpt 0.500") == std::string::npos);
  CHECK(table.find("warning: B.responder.mtt cache still warming") != std::string::npos);
  CHECK(workload_table(RunResult{}).empty());
}

TEST_CASE("the memory budget: validate and run refuse a file estimated above it", "[app]") {
  // 64 nodes with the largest caches: 9.5 GB measured, about 10 GiB estimated.
  std::string nodes;
  for (int i = 0; i < 64; ++i)
    nodes += std::string(i ? ", " : "") + "\"N" + std::to_string(i) + "\"";
  const std::string file = temp_file(
      "budget.json", R"({"name": "caches", "nodes": [)" + nodes + R"(],
        "config": {"set": {"mtt.cache_entries": 1048576, "mtt.cache_ways": 8,
                           "mpt.cache_entries": 1048576}},
        "steps": [{"op": "create_pd", "node": "N0", "name": "pd"}]})");
  const std::string results = "/tmp/rnicsim_app_test_budget_results.json";
  std::remove(results.c_str());
  std::string out, err;
  CHECK(run({"validate", file}, &out, &err) == kExitInvalid);
  CHECK_THAT(err, Catch::StartsWith(file + ": needs about "));
  CHECK_THAT(err,
             Catch::Contains("more than the budget of 4 GiB (--memory-budget SIZE raises it)"));
  CHECK_THAT(err, Catch::Contains("\n  on-chip caches: "));
  CHECK(out.empty());
  // Refused before simulating: no results file.
  CHECK(run({"run", file, "--out", results, "--quiet"}, &out, &err) == kExitInvalid);
  CHECK_THAT(err, Catch::Contains("more than the budget of 4 GiB"));
  CHECK_FALSE(std::ifstream(results).good());
  // A larger budget accepts it; validate says how much of the budget it takes.
  CHECK(run({"validate", file, "--memory-budget", "16GiB"}, &out, &err) == kExitPassed);
  CHECK_THAT(out, Catch::Contains("valid (1 steps); memory estimate "));
  CHECK_THAT(out, Catch::EndsWith(" of the 16 GiB budget\n"));
  // A smaller one refuses what the default accepts.
  const std::string small =
      temp_file("small.json", R"({"name": "s", "steps": [{"op": "alloc", "node": "A",
                                  "name": "b", "size": 134217728}]})");
  CHECK(run({"validate", small}, &out, &err) == kExitPassed);
  CHECK(run({"validate", small, "--memory-budget=100M"}, &out, &err) == kExitInvalid);
  CHECK_THAT(err, Catch::Contains("more than the budget of 100 MiB"));
  CHECK_THAT(err, Catch::Contains("host buffers: 132 MiB"));
  // Sizes the option refuses.
  for (const char* bad : {"4GB", "lots", "1M", "2P", ""}) {
    CAPTURE(bad);
    CHECK(run({"validate", small, "--memory-budget", bad}, &out, &err) == kExitInvalid);
  }
  CHECK_THAT(err, Catch::Contains("--memory-budget"));
  CliOptions o;
  std::string error;
  CHECK_FALSE(parse_cli({"run", "a.json", "--memory-budget", "1M"}, &o, &error));
  CHECK(error == "--memory-budget needs a size from 64 MiB to 1 PiB such as 8GiB, got \"1M\"");
  REQUIRE(parse_cli({"run", "a.json", "--memory-budget", "1.5GiB"}, &o, &error));
  CHECK(o.memory_budget == 3ull << 29);
  std::remove(file.c_str());
  std::remove(small.c_str());
}

TEST_CASE("one option table: each command accepts its options, its --help lists them", "[app]") {
  CliOptions o;
  std::string error;
  REQUIRE(parse_cli({"validate", "a.json", "-q", "--set", "pcie.gen=4"}, &o, &error));
  CHECK(o.quiet);
  CHECK_FALSE(parse_cli({"params", "--quiet"}, &o, &error));
  CHECK(error == "unknown option \"--quiet\" for params");
  CHECK_FALSE(parse_cli({"run", "a.json", "--trace-limit", "10000001"}, &o, &error));
  CHECK(error == "--trace-limit is at most 10000000, got \"10000001\"");
  CHECK_FALSE(parse_cli({"run", "a.json", "--vcd-period", "0"}, &o, &error));
  CHECK(error == "--vcd-period needs a positive integer, got \"0\"");
  CHECK_FALSE(parse_cli({"run", "a.json", "--out="}, &o, &error));
  CHECK(error == "--out needs a non-empty value");
  std::string out;
  REQUIRE(run({"validate", "--help"}, &out) == 0);
  CHECK(out.find("  --set K=V      override a config key") != std::string::npos);
  CHECK(out.find("--out") == std::string::npos);
  REQUIRE(run({"run", "--help"}, &out) == 0);
  // A long option name pushes its help two spaces on; continuation lines keep that column.
  CHECK(out.find("  --trace-limit N  record at most N trace events") != std::string::npos);
  CHECK(out.find("\n                 name without .json") != std::string::npos);
  REQUIRE(run({"gen", "--help"}, &out) == 0);
  CHECK(out.find("  --steps K      random actions") != std::string::npos);
}

TEST_CASE("schema: the generated JSON Schema, to stdout or --out", "[app]") {
  std::string out, err;
  REQUIRE(run({"schema"}, &out, &err) == 0);
  CHECK(out == scenario_schema_text());
  CHECK(out.find("\"http://json-schema.org/draft-07/schema#\"") != std::string::npos);
  const std::string path = "/tmp/rnicsim_app_test_schema.json";
  REQUIRE(run({"schema", "--out", path}) == 0);
  std::ifstream written(path);
  std::ostringstream text;
  text << written.rdbuf();
  CHECK(text.str() == out);
  std::remove(path.c_str());
  CHECK(run({"schema", "x.json"}, &out, &err) == kExitInvalid);
  CHECK(err.find("schema takes no file") != std::string::npos);
  CHECK(run({"schema", "--seed", "1"}) == kExitInvalid);
  CHECK(run({"schema", "--out", "/nonexistent/dir/s.json"}, &out, &err) == kExitInvalid);
  CHECK(err.find("no directory \"/nonexistent/dir\"") != std::string::npos);
}

TEST_CASE("an error found while running names the file's line, as a load error does", "[app]") {
  std::string out, err;
  const std::string file = RNICSIM_SOURCE_DIR "/tests/scenario/invalid-at-run/reference-wraps.json";
  CHECK(run({"run", file, "--quiet"}, &out, &err) == kExitInvalid);
  CHECK(err.find(file + ":3:") == 0);
  CHECK(err.find("steps[1].value: \"$sink.length+18446744073709551615\": 0x1000 + "
                 "18446744073709551615 leaves the 64-bit range") != std::string::npos);
}

TEST_CASE("expect_memory compares in chunks: a difference across 1 MiB is found whole",
          "[app]") {
  // 3 MiB of 0x11, with 0x22 over [1 MiB - 4, 1 MiB + 12): the first 16 bytes shown start
  // 4 bytes before the chunk boundary; every difference is counted.
  const std::string file = temp_file("chunks.json", R"({"name": "chunks", "steps": [
      {"op": "alloc", "node": "A", "name": "b", "size": 3145728, "fill": "0x11"},
      {"op": "fill_memory", "buffer": "b", "offset": 1048572, "length": 16, "fill": "0x22"},
      {"op": "fill_memory", "buffer": "b", "offset": 3145720, "length": 8, "fill": "0x33"},
      {"op": "expect_memory", "buffer": "b", "length": 3145728, "fill": "0x11"}]})");
  const std::string results = "/tmp/rnicsim_app_test_chunks_results.json";
  std::string out, err;
  CHECK(run({"run", file, "--out", results, "--quiet"}, &out, &err) == kExitFailed);
  CHECK_THAT(err, Catch::Contains("byte 1048572 (offset 1048572 of \"b\"): expected 0x11, got "
                                  "0x22; 24 of 3145728 bytes differ"));
  std::ifstream in(results);
  std::ostringstream text;
  text << in.rdbuf();
  CHECK_THAT(text.str(), Catch::Contains("\"expected\": \"" + std::string(32, '1') + "\""));
  CHECK_THAT(text.str(), Catch::Contains("\"got\": \"" + [] {
    std::string s;
    for (int i = 0; i < 16; ++i) s += "22";
    return s;
  }() + "\""));
  std::remove(file.c_str());
  std::remove(results.c_str());
}

TEST_CASE("coverage: run --coverage, merge, report and bins, bad input exits 2", "[app]") {
  const std::string scenario =
      std::string(RNICSIM_SOURCE_DIR) + "/scenarios/conformance/r5-read-sink-pd.json";
  const std::string cov = "/tmp/rnicsim_app_test_cov.json";
  const std::string merged = "/tmp/rnicsim_app_test_cov_merged.json";
  std::string out, err;
  // Outputs are checked before anything runs: a directory is not replaced.
  CHECK(run({"run", scenario, "--quiet", "--coverage", "/tmp"}, &out, &err) == kExitInvalid);
  CHECK(err.find("--coverage \"/tmp\": is a directory") != std::string::npos);
  REQUIRE(run({"run", scenario, "--quiet", "--coverage", cov}, &out, &err) == kExitPassed);
  std::ifstream in(cov);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str().find("\"format\": \"rnicsim-coverage\"") != std::string::npos);
  CHECK(text.str().find("\"rule:R5.read.sink.pd:decided\": 1") != std::string::npos);
  CHECK(text.str().find("\"status:Read:STATUS_ACCESS_VIOLATION\": 1") != std::string::npos);
  REQUIRE(run({"coverage", "merge", cov, cov, "--out", merged}, &out, &err) == kExitPassed);
  REQUIRE(run({"coverage", "report", merged}, &out, &err) == kExitPassed);
  CHECK(out.find("over 2 runs") != std::string::npos);
  CHECK(out.find("  R5.read.sink.pd ") != std::string::npos);
  CHECK(out.find("holes (reachable bins never hit): ") != std::string::npos);
  REQUIRE(run({"coverage", "report", merged, "--markdown"}, &out, &err) == kExitPassed);
  CHECK(out.find("| `rule:` |") != std::string::npos);
  REQUIRE(run({"coverage", "bins"}, &out, &err) == kExitPassed);
  CHECK(out.find("rule:R5.read.sink.pd:decided\treachable\n") != std::string::npos);
  CHECK(out.find("rule:R2.remote_write_implies_local:decided\tALLOW_REMOTE_WRITE") !=
        std::string::npos);
  CHECK(run({"coverage"}, &out, &err) == kExitInvalid);
  CHECK(err.find("coverage needs merge, report or bins") != std::string::npos);
  CHECK(run({"coverage", "reprot", cov}, &out, &err) == kExitInvalid);
  CHECK(err.find("did you mean \"report\"") != std::string::npos);
  CHECK(run({"coverage", "report", cov, merged}, &out, &err) == kExitInvalid);
  CHECK(run({"coverage", "merge"}, &out, &err) == kExitInvalid);
  CHECK(run({"coverage", "report", "/nonexistent/c.json"}, &out, &err) == kExitInvalid);
  CHECK(err.find("no such file") != std::string::npos);
  CHECK(run({"coverage", "report", scenario}, &out, &err) == kExitInvalid);
  CHECK(err.find("not a coverage file") != std::string::npos);
  CHECK(run({"coverage", "report", "/tmp"}, &out, &err) == kExitInvalid);
  CHECK(err.find("not a regular file") != std::string::npos);
  CHECK(run({"coverage", "merge", cov, "--out", cov}, &out, &err) == kExitInvalid);
  CHECK(err.find("is an input of this run") != std::string::npos);
  CHECK(run({"gen", "--seed", "1", "--focus", "status:Read:STATUS_SUCESS"}, &out, &err) ==
        kExitInvalid);
  CHECK(err.find("did you mean \"status:Read:STATUS_SUCCESS\"") != std::string::npos);
  CHECK(run({"gen", "--seed", "1", "--weights", "/nonexistent/w.json"}, &out, &err) ==
        kExitInvalid);
  const std::string weights = temp_file("weights.json", R"({"rule:R5.nope.": 2})");
  CHECK(run({"gen", "--seed", "1", "--weights", weights}, &out, &err) == kExitInvalid);
  CHECK(err.find("unknown bin \"rule:R5.nope.\"") != std::string::npos);
  for (const std::string& f : {cov, merged, weights}) std::remove(f.c_str());
}
