// SPDX-License-Identifier: Apache-2.0
// Scenario parsing and validation: good files load into the right structs, bad ones are
// refused with the exact JSON path and, where it can be found, the line.
#include <catch2/catch.hpp>
#include <string>

#include "app/scenario/scenario.h"
#include "host_api/ndk.h"

using namespace rnic;
using namespace rnic::app;

namespace {

// Setup shared by most cases: two buffers, PDs, CQs, connected QPs, MRs, a window.
const std::string kSetup = R"(
    {"op": "alloc", "node": "A", "name": "sink", "size": 4096},
    {"op": "alloc", "node": "B", "name": "src", "size": 65536, "fill": "incrementing"},
    {"op": "create_pd", "node": "A", "name": "pdA"},
    {"op": "create_pd", "node": "B", "name": "pdB"},
    {"op": "create_cq", "node": "A", "name": "cqA", "depth": 64},
    {"op": "create_cq", "node": "B", "name": "cqB", "depth": 64},
    {"op": "create_qp", "name": "qpA", "pd": "pdA", "cq": "cqA", "ord": 16, "ird": 16},
    {"op": "create_qp", "name": "qpB", "pd": "pdB", "cq": "cqB"},
    {"op": "connect", "qp": "qpA", "peer": "qpB"},
    {"op": "create_mr", "name": "mrA", "pd": "pdA"},
    {"op": "register_mr", "mr": "mrA", "buffer": "sink", "flags": ["ALLOW_LOCAL_WRITE", "RDMA_READ_SINK"]},
    {"op": "create_mr", "name": "mrB", "pd": "pdB"},
    {"op": "register_mr", "mr": "mrB", "buffer": "src", "offset": 0, "length": 65536, "flags": ["ALLOW_LOCAL_WRITE"]},
    {"op": "create_mw", "name": "mwB", "pd": "pdB"})";
constexpr size_t kSetupSteps = 14;

std::string with_steps(const std::string& more) {
  return R"({"name": "t", "steps": [)" + kSetup + (more.empty() ? "" : ",\n    " + more) + "\n]}";
}

// The message of the ScenarioError that loading `text` throws ("" when it loads).
std::string error_of(const std::string& text, size_t* line = nullptr) {
  try {
    load_scenario(text);
  } catch (const ScenarioError& e) {
    if (line) *line = e.line;
    return e.what();
  }
  return "";
}

std::string step_error(const std::string& step) {
  return error_of(with_steps(step));
}
std::string at(size_t index) {
  return "steps[" + std::to_string(kSetupSteps + index) + "]";
}

}  // namespace

TEST_CASE("the setup used by these tests is valid", "[app]") {
  const Scenario s = load_scenario(with_steps(""));
  CHECK(s.name == "t");
  CHECK(s.seed == 1);
  CHECK(s.preset == "default");
  CHECK(s.nodes == std::vector<std::string>{"A", "B"});
  REQUIRE(s.steps.size() == kSetupSteps);
  CHECK(s.steps[1].fill == Fill::Incrementing);
  CHECK(s.steps[1].node_index == 1);
  CHECK(s.steps[6].ord == 16u);
  CHECK_FALSE(s.steps[7].ord.has_value());
  CHECK(s.steps[10].flags ==
        (ndk::NDK_MR_FLAG_ALLOW_LOCAL_WRITE | ndk::NDK_MR_FLAG_RDMA_READ_SINK));
  CHECK(s.steps[10].length.literal == 4096);  // default: the rest of the buffer
  CHECK(s.steps[12].node_index == 1);
}

TEST_CASE("bind, read and poll load into the step structs", "[app]") {
  const Scenario s = load_scenario(with_steps(R"(
    {"op": "bind", "qp": "qpB", "mr": "mrB", "mw": "mwB", "offset": "0x1000", "length": 8192, "flags": ["ALLOW_REMOTE_READ"], "context": 1},
    {"op": "poll", "cq": "cqB", "expect": [{"context": 1, "type": "Bind", "status": "STATUS_SUCCESS"}]},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 0, "length": 256}], "remote": {"target": "mwB", "offset": 100}, "context": 2},
    {"op": "read", "qp": "qpA", "sgl": [{"token": "$mrA.local_token", "address": "$sink.va+16", "length": 16}], "remote": {"token": "$mwB.token+1", "address": "$mwB.va-1"}, "flags": ["READ_FENCE"], "expect": "STATUS_SUCCESS"},
    {"op": "poll", "cq": "cqA", "count": 0, "timeout_ns": 5000},
    {"op": "expect_memory", "buffer": "sink", "length": 256, "equals": {"buffer": "src", "offset": 4196}},
    {"op": "expect_memory", "buffer": "sink", "offset": 256, "bytes": "00 01 0a ff"},
    {"op": "save", "name": "oldtoken", "value": "$mwB.token"},
    {"op": "wait", "ns": 1000})"));
  REQUIRE(s.steps.size() == kSetupSteps + 9);
  const Step& bind = s.steps[kSetupSteps];
  CHECK(bind.op == Op::Bind);
  CHECK(bind.offset.literal == 0x1000);
  CHECK(bind.flags == ndk::NDK_OP_FLAG_ALLOW_REMOTE_READ);
  CHECK(bind.context.literal == 1);
  const Step& poll = s.steps[kSetupSteps + 1];
  CHECK(poll.count == 1);  // from the expect list
  CHECK(poll.timeout_ns == 1000000);
  REQUIRE(poll.completions.size() == 1);
  CHECK(*poll.completions[0].type == ndk::NdkOperationTypeBind);
  CHECK(*poll.completions[0].status == ndk::STATUS_SUCCESS);
  const Step& read = s.steps[kSetupSteps + 2];
  REQUIRE(read.sgl.size() == 1);
  CHECK(read.sgl[0].mr == "mrA");
  CHECK(read.remote.target == "mwB");
  CHECK(read.remote.offset.literal == 100);
  const Step& literal = s.steps[kSetupSteps + 3];
  CHECK(literal.sgl[0].mr.empty());
  CHECK(literal.sgl[0].token.is_ref);
  CHECK(literal.sgl[0].token.field == Value::Field::LocalToken);
  CHECK(literal.remote.token.name == "mwB");
  CHECK(literal.remote.token.adjust == 1);
  CHECK(literal.remote.address.negative);
  CHECK(literal.flags == ndk::NDK_OP_FLAG_READ_FENCE);
  CHECK(s.steps[kSetupSteps + 4].count == 0);
  CHECK(s.steps[kSetupSteps + 4].timeout_ns == 5000);
  CHECK(s.steps[kSetupSteps + 5].equals_buffer == "src");
  CHECK(s.steps[kSetupSteps + 5].equals_offset.literal == 4196);
  CHECK(s.steps[kSetupSteps + 6].bytes == std::vector<uint8_t>{0x00, 0x01, 0x0a, 0xff});
  CHECK(s.steps[kSetupSteps + 6].length.literal == 4);
  CHECK(s.steps[kSetupSteps + 7].value.field == Value::Field::Token);
  CHECK(s.steps[kSetupSteps + 8].ns == 1000);
}

TEST_CASE("unknown objects and wrong kinds name the path", "[app]") {
  CHECK(step_error(R"({"op": "read", "qp": "qpX", "sgl": [], "remote": {"target": "mwB"}})") ==
        at(0) + ".qp: unknown QP \"qpX\"; did you mean \"qpA\" or \"qpB\"?");
  CHECK(step_error(R"({"op": "read", "qp": "cqA", "sgl": [], "remote": {"target": "mwB"}})") ==
        at(0) + ".qp: \"cqA\" is a CQ, not a QP");
  CHECK(
      step_error(
          R"({"op": "read", "qp": "qpA", "sgl": [{"mr": "mrB", "length": 4}], "remote": {"target": "mwB"}})") ==
      at(0) + ".sgl[0].mr: MR \"mrB\" is on node B, QP \"qpA\" on node A");
  CHECK(step_error(R"({"op": "read", "qp": "qpA", "sgl": [], "remote": {"target": "pdB"}})") ==
        at(0) + ".remote.target: \"pdB\" is a PD, not a MR or MW");
  CHECK(step_error(R"({"op": "poll", "cq": "cqZ", "count": 1})") ==
        at(0) + ".cq: unknown CQ \"cqZ\"; did you mean \"cqA\" or \"cqB\"?");
  // Only objects of the wanted kind are suggested: "mwB" is no QP.
  CHECK(step_error(R"({"op": "read", "qp": "mwb", "sgl": [], "remote": {"target": "mwB"}})") ==
        at(0) + ".qp: unknown QP \"mwb\"");
  // Objects must be created by an EARLIER step.
  CHECK(error_of(R"({"name": "t", "steps": [{"op": "create_qp", "name": "q", "pd": "p", "cq": "c"},
      {"op": "create_pd", "node": "A", "name": "p"}]})") == "steps[0].pd: unknown PD \"p\"");
}

TEST_CASE("ops, fields, types and values are checked", "[app]") {
  CHECK(step_error(R"({"op": "raed", "qp": "qpA"})") ==
        at(0) + ".op: unknown op \"raed\"; did you mean \"read\"?");
  CHECK(step_error(R"({"op": "raed_stream", "qp": "qpA"})") ==
        at(0) + ".op: unknown op \"raed_stream\"; did you mean \"read_stream\"?");
  // Nothing close: the ops are listed (tests/tools/check_scenario_doc.py reads that list).
  CHECK(step_error(R"({"op": "frobnicate", "qp": "qpA"})")
            .rfind(at(0) + ".op: unknown op \"frobnicate\" (known: alloc, create_pd, ", 0) == 0);
  CHECK(step_error(R"({"qp": "qpA"})") == at(0) + ".op: missing required field");
  CHECK(step_error(R"("read")") == at(0) + ": must be an object with an \"op\", not string");
  CHECK(step_error(R"({"op": "bind", "qp": "qpB", "mr": "mrB", "mw": "mwB", "lenght": 4})") ==
        at(0) + ".lenght: unknown field; did you mean \"length\"?");
  CHECK(step_error(R"({"op": "bind", "qp": "qpB", "mr": "mrB", "mw": "mwB", "zz": 4})") ==
        at(0) + ".zz: unknown field (allowed here: op, description, comment, qp, mr, mw, offset, " +
            "length, flags, context, va, zero_based, wait, expect)");
  CHECK(
      step_error(R"({"op": "alloc", "node": "A", "name": "b", "size": "big"})") ==
      at(0) +
          ".size: must be an integer, a hex string like \"0x1000\" or a $reference (got \"big\")");
  CHECK(step_error(R"({"op": "alloc", "node": "A", "name": "b", "size": -4096})") ==
        at(0) + ".size: must not be negative (got -4096)");
  CHECK(step_error(R"({"op": "alloc", "node": "A", "name": "b", "size": 1.5})") ==
        at(0) + ".size: must be an integer (got 1.5)");
  CHECK(step_error(R"({"op": "alloc", "node": "A", "name": "b", "size": true})") ==
        at(0) + ".size: must be an integer, a hex string or a $reference, not boolean");
  CHECK(step_error(R"({"op": "alloc", "node": "A", "name": "b", "size": 0})") ==
        at(0) + ".size: 0 is out of range (at least 1)");
  CHECK(step_error(R"({"op": "alloc", "node": "A", "name": "b", "size": "0x10000000000000000"})") ==
        at(0) + ".size: 0x10000000000000000 is out of range (more than 64 bits)");
  CHECK(
      step_error(R"({"op": "alloc", "node": "A", "name": "b", "size": 4096, "page_size": 8192})") ==
      at(0) + ".page_size: must be 4096 or 2097152");
  CHECK(step_error(R"({"op": "alloc", "node": "A", "name": "b", "size": 4096, "fill": "ones"})") ==
        at(0) +
            ".fill: unknown fill \"ones\" (zero, incrementing, random or a byte like \"0xAB\")");
  CHECK(step_error(R"({"op": "alloc", "node": "A", "name": "b", "size": 4096, "fill": "Zero"})") ==
        at(0) + ".fill: unknown fill \"Zero\"; did you mean \"zero\"?");
  CHECK(step_error(R"({"op": "alloc", "node": "C", "name": "b", "size": 4096})") ==
        at(0) + ".node: unknown node \"C\" (nodes: A, B)");
  CHECK(step_error(R"({"op": "alloc", "node": "a", "name": "b", "size": 4096})") ==
        at(0) + ".node: unknown node \"a\"; did you mean \"A\"?");
  CHECK(step_error(R"({"op": "alloc", "node": "A", "name": "sink", "size": 4096})") ==
        at(0) + ".name: duplicate name \"sink\" (first defined by steps[0])");
  CHECK(
      step_error(
          R"({"op": "register_mr", "mr": "mrA", "buffer": "sink", "flags": ["ALLOW_LOCAL_WRITE", "RDMA_READ_SNK"]})") ==
      at(0) + ".flags[1]: unknown flag \"RDMA_READ_SNK\"; did you mean \"RDMA_READ_SINK\"?");
  // Op flags and MR flags are different tables: READ_FENCE is no MR flag.
  CHECK(step_error(
            R"({"op": "register_mr", "mr": "mrA", "buffer": "sink", "flags": ["READ_FENCE"]})") ==
        at(0) + ".flags[0]: unknown flag \"READ_FENCE\" (known: ALLOW_LOCAL_READ, " +
            "ALLOW_LOCAL_WRITE, ALLOW_REMOTE_READ, ALLOW_REMOTE_WRITE, RDMA_READ_SINK)");
  CHECK(
      step_error(
          R"({"op": "register_mr", "mr": "mrA", "buffer": "sink", "flags": ["NDK_MR_FLAG_RDMA_READ_SINK"]})") ==
      at(0) + ".flags[0]: unknown flag \"NDK_MR_FLAG_RDMA_READ_SINK\"; did you mean " +
          "\"RDMA_READ_SINK\"?");
  CHECK(step_error(R"({"op": "connect", "qp": "qpA", "peer": "qpB", "expect": "STATUS_OK"})") ==
        at(0) + ".expect: unknown status \"STATUS_OK\" (known: STATUS_SUCCESS, STATUS_PENDING, " +
            "STATUS_CANCELLED, STATUS_ACCESS_VIOLATION, STATUS_DATA_OVERRUN, " +
            "STATUS_DATA_ERROR, STATUS_REMOTE_RESOURCES, STATUS_IO_TIMEOUT, " +
            "STATUS_INTERNAL_ERROR, STATUS_CONNECTION_INVALID, STATUS_INVALID_PARAMETER, " +
            "STATUS_INSUFFICIENT_RESOURCES, STATUS_DEVICE_BUSY, STATUS_IMPLEMENTATION_LIMIT)");
  CHECK(step_error(
            R"({"op": "connect", "qp": "qpA", "peer": "qpB", "expect": "ACCESS_VIOLATION"})") ==
        at(0) + ".expect: unknown status \"ACCESS_VIOLATION\"; did you mean " +
            "\"STATUS_ACCESS_VIOLATION\"?");
  CHECK(
      step_error(
          R"({"op": "poll", "cq": "cqA", "count": 1, "expect": [{"status": "STATUS_SUCESS"}]})") ==
      at(0) + ".expect[0].status: unknown status \"STATUS_SUCESS\"; did you mean " +
          "\"STATUS_SUCCESS\"?");
  CHECK(step_error(R"({"op": "poll", "cq": "cqA", "expect": [{"type": "Reed"}]})") ==
        at(0) + ".expect[0].type: unknown completion type \"Reed\"; did you mean \"Read\"?");
  CHECK(step_error(R"({"op": "poll", "cq": "cqA"})") == at(0) + ".count: missing required field");
  CHECK(step_error(R"({"op": "poll", "cq": "cqA", "count": 1, "expect": [{}, {}]})") ==
        at(0) + ".expect: 2 expected completions but count is 1");
  CHECK(
      step_error(
          R"({"op": "expect_memory", "buffer": "sink", "offset": 4000, "length": 200, "fill": "zero"})") ==
      at(0) + ".length: offset 4000 + length 200 is outside buffer \"sink\" (4096 bytes)");
  CHECK(step_error(R"({"op": "expect_memory", "buffer": "sink", "length": 4, "fill": "random"})") ==
        at(0) + ".fill: unknown fill \"random\" (zero, incrementing or a byte like \"0xAB\")");
  CHECK(step_error(R"({"op": "expect_memory", "buffer": "sink", "bytes": "0a0"})") ==
        at(0) + ".bytes: odd number of hex digits");
  CHECK(step_error(R"({"op": "connect", "qp": "qpA", "peer": "qpA"})") ==
        at(0) + ".peer: a QP cannot be connected to itself");
}

TEST_CASE("absurd sizes are refused before anything is allocated", "[app]") {
  CHECK(step_error(R"({"op": "alloc", "node": "A", "name": "b", "size": 1099511627776})") ==
        at(0) + ".size: 1099511627776 is out of range (at most 1073741824)");
  CHECK(step_error(R"({"op": "alloc", "node": "B", "name": "b1", "size": "0x30000000"},
                      {"op": "alloc", "node": "B", "name": "b2", "size": "0x10000000"})") ==
        at(1) +
            ".size: buffers on node B would total more than the 1 GiB a scenario may allocate per "
            "node");
  CHECK(step_error(R"({"op": "wait", "ns": "0xFFFFFFFFFFFFFFFF"})") ==
        at(0) + ".ns: 0xFFFFFFFFFFFFFFFF is out of range (at most 1000000000000)");
  // Many long waits must not overflow simulated time (sc_time counts picoseconds in 64 bits).
  std::string waits = R"({"name": "t", "steps": [)";
  for (int i = 0; i < 1001; ++i)
    waits += std::string(i ? "," : "") + R"({"op": "wait", "ns": 1000000000000})";
  CHECK(error_of(waits + "]}") ==
        "steps[1000].ns: waits and poll timeouts add up to more than 10^6 s of simulated time");
}

TEST_CASE("top level: name, steps, nodes, config", "[app]") {
  CHECK(error_of(R"({"steps": []})") == "name: missing required field");
  CHECK(error_of(R"({"name": "t"})") == "steps: missing required field");
  CHECK(error_of(R"({"name": "t", "steps": {}})") == "steps: must be an array, not object");
  CHECK(error_of(R"({"name": "t", "steps": [], "stpes": []})") ==
        "stpes: unknown field; did you mean \"steps\"?");
  CHECK(error_of(R"({"name": "t", "steps": [], "zz": []})") ==
        "zz: unknown field (allowed here: $schema, name, description, comment, seed, config, "
        "nodes, steps)");
  CHECK(error_of(R"({"name": "t", "config": {"presets": "default"}, "steps": []})") ==
        "config.presets: unknown field; did you mean \"preset\"?");
  CHECK(error_of(R"([])") == "the top level must be an object");
  CHECK(error_of(R"({"name": "t", "nodes": ["A", "A"], "steps": []})") ==
        "nodes[1]: duplicate node \"A\"");
  CHECK(error_of(R"({"name": "t", "nodes": ["A b"], "steps": []})") ==
        "nodes[0]: node names are 1-32 letters, digits or '_' (got \"A b\")");
  CHECK(error_of(R"({"name": "t", "config": {"set": {"pcie.genx": 3}}, "steps": []})") ==
        "config.set[\"pcie.genx\"]: unknown config key \"pcie.genx\"; did you mean \"pcie.gen\"?");
  // Too many keys to list: the message says where they are.
  CHECK(error_of(R"({"name": "t", "config": {"set": {"zz": "3"}}, "steps": []})") ==
        "config.set.zz: unknown config key \"zz\" (see `rnicsim params`)");
  CHECK(error_of(R"({"name": "t", "config": {"set": {"pcie.gen": 6}}, "steps": []})") ==
        "config.set[\"pcie.gen\"]: 6 is out of range 1..5");
  CHECK(error_of(R"({"name": "t", "config": {"set": {"pcie.gen": "3"}}, "steps": []})") ==
        "config.set[\"pcie.gen\"]: must be a number or a hex string, not \"3\"");
  CHECK(error_of(R"({"name": "t", "config": {"preset": "fast"}, "steps": []})") ==
        "config.preset: unknown preset \"fast\" (known: default, connectx5, connectx3, "
        "connect-ib, connectx6, pcie-bench-gen3x8)");
  CHECK(error_of(R"({"name": "t", "config": {"preset": "pcie_bench_gen3x8"}, "steps": []})") ==
        "config.preset: unknown preset \"pcie_bench_gen3x8\"; did you mean \"pcie-bench-gen3x8\"?");
  CHECK(error_of(R"({"name": "t", "config": {"set": {"mtt.cache_ways": 7}}, "steps": []})") ==
        "config: mtt.cache_ways (7) must divide mtt.cache_entries (1024)");

  const Scenario s = load_scenario(
      R"({"name": "t", "seed": 7, "nodes": ["X"], "config": {"preset": "pcie-bench-gen3x8",
          "set": {"pcie.lanes": 4, "device.clock_mhz": 250.5, "pcie.mrrs": "0x100"}}, "steps": []})");
  CHECK(s.seed == 7);
  CHECK(s.nodes == std::vector<std::string>{"X"});
  CHECK(s.config.rnic.pcie.lanes == 4);
  CHECK(s.config.rnic.pcie.mrrs_bytes == 256);
  CHECK(s.config.rnic.timing.clock_mhz == 250.5);
  CHECK(s.config.rnic.mtt.cache_entries == 64);  // from the preset
}

TEST_CASE("command-line overrides (--set) come after the file and are checked", "[app]") {
  const std::string text = R"({"name": "t", "config": {"set": {"pcie.lanes": 4}}, "steps": []})";
  CHECK(load_scenario(text, {"pcie.lanes=2"}).config.rnic.pcie.lanes == 2);
  try {
    load_scenario(text, {"pcie.lanes"});
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()) == "--set pcie.lanes: expected key=value");
  }
  try {
    load_scenario(text, {"pcie.bogus=1"});
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()) ==
          "--set pcie.bogus=1: unknown config key \"pcie.bogus\" (see `rnicsim params`)");
  }
  try {
    load_scenario(text, {"pcie.lane=1"});
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()) ==
          "--set pcie.lane=1: unknown config key \"pcie.lane\"; did you mean \"pcie.lanes\"?");
  }
}

TEST_CASE("errors carry the line and column of the offending value", "[app]") {
  size_t line = 0;
  const std::string text =
      "{\"name\": \"t\",\n \"steps\": [\n  {\"op\": \"create_pd\",\n   \"node\": \"Q\",\n   "
      "\"name\": \"p\"}]}";
  CHECK(error_of(text, &line) == "steps[0].node: unknown node \"Q\" (nodes: A, B)");
  CHECK(line == 4);
  // A missing field points at the object that lacks it.
  CHECK(error_of("{\"name\": \"t\",\n\n \"steps\": [\n {\"op\": \"wait\"}]}", &line) ==
        "steps[0].ns: missing required field");
  CHECK(line == 4);
}

TEST_CASE("JSON syntax errors report line and column", "[app]") {
  try {
    load_scenario("{\"name\": \"t\",\n \"steps\": [\n  {\"op\": \"wait\", \"ns\": 1,}\n]}");
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()).rfind("invalid JSON: syntax error", 0) == 0);
    CHECK(e.line == 3);
    CHECK(e.column == 26);
    CHECK(describe(e).find("(line 3, column 26)") != std::string::npos);
  }
  size_t line = 0;
  CHECK(error_of("{\"name\": \"t\", \"steps\": [\n", &line).rfind("invalid JSON:", 0) == 0);
  CHECK(line == 2);
  CHECK(error_of("", &line).rfind("invalid JSON:", 0) == 0);
}

TEST_CASE("duplicate keys and deep nesting are refused", "[app]") {
  size_t line = 0;
  CHECK(error_of("{\"name\": \"t\", \"steps\": [\n {\"op\": \"wait\", \"ns\": 1, \"ns\": 2}]}",
                 &line) == "steps[0].ns: duplicate key");
  CHECK(line == 2);
  // Also after earlier objects and arrays have closed.
  CHECK(error_of(with_steps(R"({"op": "wait", "ns": 1}, {"op": "poll", "cq": "cqA", "count": 0,
      "timeout_ns": 5, "count": 1})")) == at(1) + ".count: duplicate key");
  CHECK(error_of(R"({"name": "t", "nodes": ["A"], "steps": [], "nodes": ["B"]})") ==
        "nodes: duplicate key");
  CHECK(error_of(std::string(100000, '[') + std::string(100000, ']')) ==
        "nesting deeper than 64 levels");
}

TEST_CASE("a byte-order mark is skipped: duplicate keys and positions still found", "[app]") {
  const std::string bom = "\xEF\xBB\xBF";
  size_t line = 0;
  CHECK(error_of(bom + "{\"name\": \"t\", \"steps\": [\n {\"op\": \"wait\", \"ns\": 1, "
                       "\"ns\": 2}]}",
                 &line) == "steps[0].ns: duplicate key");
  CHECK(line == 2);
  CHECK(error_of(bom + "{\"name\": \"t\",\n\"steps\": [{\"op\": \"wait\"}]}", &line) ==
        "steps[0].ns: missing required field");
  CHECK(line == 2);
  CHECK(load_scenario(bom + R"({"name": "t", "steps": []})").name == "t");
}

TEST_CASE("a NUL byte, a directory and an endless file are refused with their reason", "[app]") {
  size_t line = 0;
  const char with_nul[] = "{\"name\": \"t\",\n \"steps\": [\0]}";
  CHECK(error_of(std::string(with_nul, sizeof with_nul - 1), &line) ==
        "invalid JSON: NUL byte (not a text file?)");
  CHECK(line == 2);
  try {
    load_scenario_file(RNICSIM_SOURCE_DIR "/scenarios");
    FAIL("a directory loaded");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()).find("is a directory") != std::string::npos);
  }
  // /dev/zero never ends: the reader stops one chunk past the size limit.
  try {
    load_scenario_file("/dev/zero");
    FAIL("/dev/zero loaded");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()) == "file larger than 64 MiB");
  }
}

TEST_CASE("hostile values get the message that names their fault", "[app]") {
  // An integer beyond 64 bits is out of range, not "not an integer".
  CHECK(step_error(R"({"op": "wait", "ns": 18446744073709551616})") ==
        at(0) + ".ns: is out of range (more than 64 bits)");
  // "+-5" is a bad offset of a defined object, not an unknown object "sink.va+".
  CHECK(step_error(R"({"op": "save", "name": "x", "value": "$sink.va+-5"})").find(
            "bad offset in reference \"$sink.va+-5\"") != std::string::npos);
  // Hex strings are "0x" or "0X" in config.set as in steps.
  CHECK(load_scenario(R"({"name": "t", "config": {"set": {"pcie.mrrs": "0X200"}}, "steps": []})")
            .config.rnic.pcie.mrrs_bytes == 512);
  CHECK(error_of(R"({"name": "", "steps": []})") == "name: must not be empty");
  for (const char* reserved : {"switch", "driver", "vcd_probe"}) {
    CHECK(error_of(std::string(R"({"name": "t", "nodes": ["A", ")") + reserved +
                   R"("], "steps": []})") ==
          "nodes[1]: \"" + std::string(reserved) + "\" is reserved (the platform's own module)");
  }
}

TEST_CASE("a bad --set is blamed on --set, not on the file's config", "[app]") {
  try {
    load_scenario(R"({"name": "t", "steps": []})", {"mtt.cache_ways=7"});
    FAIL("no error");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()) ==
          "--set: mtt.cache_ways (7) must divide mtt.cache_entries (1024)");
    CHECK(e.line == 0);
  }
  // The file's own bad config still points at the file.
  size_t line = 0;
  CHECK(error_of("{\"name\": \"t\",\n \"config\": {\"set\": {\"mtt.cache_ways\": 7}}, "
                 "\"steps\": []}",
                 &line) == "config: mtt.cache_ways (7) must divide mtt.cache_entries (1024)");
  CHECK(line == 2);
}

TEST_CASE("a workload whose signaled requests can never be in flight is refused", "[app]") {
  const std::string stream =
      R"({"op": "read_stream", "qp": "qpA", "count": 100, "size": 64, "outstanding": 4, )"
      R"("sgl": {"mr": "mrA"}, "remote": {"target": "mrA", "span": 4096}, "signal_every": )";
  CHECK(step_error(stream + "8}").find(
            ".signal_every: with signal_every 8, at most 4 requests in flight (outstanding 4, "
            "send_depth 64 of qpA) and count 100, no signaled request would ever be in "
            "flight") != std::string::npos);
  CHECK(step_error(stream + "4}").empty());
  // Only the last request signals, and it is never among the first 4 in flight.
  CHECK(step_error(stream + "100}").find("no signaled request") != std::string::npos);
}

TEST_CASE("ops this version cannot run still validate", "[app]") {
  const Scenario s = load_scenario(with_steps(R"(
    {"op": "write", "qp": "qpA", "sgl": [{"mr": "mrA", "length": 8}], "remote": {"target": "mrB", "offset": 8}, "context": 3},
    {"op": "invalidate", "qp": "qpB", "target": "mwB", "context": 4},
    {"op": "receive", "qp": "qpB", "sgl": [{"mr": "mrB", "length": 64}]},
    {"op": "send", "qp": "qpA", "sgl": [], "invalidate": "$mwB.token"},
    {"op": "flush", "qp": "qpA"},
    {"op": "read_stream", "qp": "qpA", "count": 100, "size": 64, "outstanding": 8, "sgl": {"mr": "mrA"},
     "remote": {"target": "mrB", "span": 65536, "pattern": "random"}, "expect": {"gbps": {"min": 1}, "latency_ns.p99": {"max": 100000}}},
    {"op": "dma_bench", "node": "A", "kind": "read", "size": 64, "count": 1000, "window": 65536, "pattern": "sequential", "outstanding": 16})"));
  CHECK(s.steps[kSetupSteps].op == Op::Write);
  CHECK(s.steps[kSetupSteps + 5].remote.random);
  REQUIRE(s.steps[kSetupSteps + 5].metrics.size() == 2);
  CHECK(s.steps[kSetupSteps + 6].window == 65536);
  CHECK(
      step_error(
          R"({"op": "read_stream", "qp": "qpA", "count": 1, "size": 64, "sgl": {"mr": "mrA"}, "remote": {"target": "mrB", "span": 64}, "expect": {"gbit": {"min": 1}}})") ==
      at(0) + ".expect.gbit: unknown metric \"gbit\" (known: ops, bytes, sim_ns, mops, gbps, " +
          "latency_ns.p50, latency_ns.p90, latency_ns.p99, latency_ns.max, " +
          "mtt.hit_rate, mpt.hit_rate, deltas_per_op, NODE.SIDE.TABLE.hit_rate, " +
          "NODE.SIDE.TABLE.hits, NODE.SIDE.TABLE.misses, NODE.SIDE.TABLE.merged, " +
          "NODE.SIDE.TABLE.misses_per_op)");
  CHECK(
      step_error(
          R"({"op": "read_stream", "qp": "qpA", "count": 1, "size": 64, "sgl": {"mr": "mrA"}, "remote": {"target": "mrB", "span": 64}, "expect": {"p99": {"max": 1}}})") ==
      at(0) + ".expect.p99: unknown metric \"p99\"; did you mean \"latency_ns.p99\"?");
  CHECK(
      step_error(
          R"({"op": "read_stream", "qp": "qpA", "count": 1, "size": 64, "sgl": {"mr": "mrA"}, "remote": {"target": "mrB", "span": 64}, "expect": {"gpbs": {"min": 1}}})") ==
      at(0) + ".expect.gpbs: unknown metric \"gpbs\"; did you mean \"gbps\"?");
  CHECK(
      step_error(R"({"op": "dma_bench", "node": "A", "kind": "write", "size": 64, "count": 1})") ==
      at(0) + ".kind: unknown kind \"write\" (only \"read\")");
}
