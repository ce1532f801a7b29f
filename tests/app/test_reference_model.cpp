// SPDX-License-Identifier: Apache-2.0
// The reference model (app/reference/model.h) on hand-written steps: statuses, completions,
// bytes and the race rules; the generator's output and the expectation refill.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "app/generator/generator.h"
#include "app/reference/model.h"
#include "app/scenario/scenario.h"
#include "host_api/ndk.h"

using namespace rnic::app;
using namespace rnic::ndk;

namespace {

// Two nodes, a connected QP pair, a sink MR on A and a source MR and a window on B.
const char* const kSetup = R"(
  {"op": "alloc", "node": "A", "name": "sink", "size": 8192, "fill": "0xEE"},
  {"op": "alloc", "node": "B", "name": "src", "size": 16384, "fill": "incrementing"},
  {"op": "alloc", "node": "B", "name": "inbox", "size": 4096, "fill": "0xEE"},
  {"op": "create_pd", "node": "A", "name": "pdA"},
  {"op": "create_pd", "node": "B", "name": "pdB"},
  {"op": "create_cq", "node": "A", "name": "cqA", "depth": 64},
  {"op": "create_cq", "node": "B", "name": "cqB", "depth": 64},
  {"op": "create_qp", "name": "qpA", "pd": "pdA", "cq": "cqA", "context": 7},
  {"op": "create_qp", "name": "qpB", "pd": "pdB", "cq": "cqB", "context": 8},
  {"op": "connect", "qp": "qpA", "peer": "qpB"},
  {"op": "create_mr", "name": "mrA", "pd": "pdA"},
  {"op": "register_mr", "mr": "mrA", "buffer": "sink", "flags": ["ALLOW_LOCAL_WRITE", "RDMA_READ_SINK"]},
  {"op": "create_mr", "name": "mrB", "pd": "pdB"},
  {"op": "register_mr", "mr": "mrB", "buffer": "src", "flags": ["ALLOW_LOCAL_WRITE", "ALLOW_REMOTE_READ"]},
  {"op": "create_mr", "name": "mrIn", "pd": "pdB"},
  {"op": "register_mr", "mr": "mrIn", "buffer": "inbox", "flags": ["ALLOW_LOCAL_WRITE"]},
  {"op": "create_mw", "name": "mwB", "pd": "pdB"},
)";
constexpr size_t kSetupSteps = 17;

// Runs the setup and `steps` through the model; outcome i is that of the i-th given step.
struct Play {
  explicit Play(const std::string& steps, const std::string& config = "",
                const RefOptions& options = {})
      : scenario(
            load_scenario("{\"name\": \"t\", " + config + "\"steps\": [" + kSetup + steps + "]}")),
        model(scenario, options) {
    for (const Step& s : scenario.steps) {
      races.push_back(model.race(s));
      outcomes.push_back(model.execute(s));
    }
  }
  const RefOutcome& at(size_t i) const { return outcomes.at(kSetupSteps + i); }
  uint32_t status(size_t i) const { return at(i).status.value(); }
  const std::string& race(size_t i) const { return races.at(kSetupSteps + i); }
  const std::vector<rnic::app::refm::Completion>& polled(size_t i) const { return at(i).polled; }

  Scenario scenario;
  ReferenceModel model;
  std::vector<RefOutcome> outcomes;
  std::vector<std::string> races;
};

void check(const rnic::app::refm::Completion& c, uint64_t context, uint32_t type, uint32_t status) {
  CHECK(c.context == context);
  CHECK(c.type == type);
  CHECK(c.status == status);
}

}  // namespace

TEST_CASE("reference model: a read through a bound window lands the source bytes", "[app]") {
  const Play p(R"(
    {"op": "bind", "qp": "qpB", "mr": "mrB", "mw": "mwB", "offset": 4096, "length": 8192, "flags": ["ALLOW_REMOTE_READ"], "context": 1},
    {"op": "poll", "cq": "cqB", "count": 1},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 0, "length": 200}, {"mr": "mrA", "offset": 1000, "length": 56}], "remote": {"target": "mwB", "offset": 100}, "context": 2},
    {"op": "poll", "cq": "cqA", "count": 1}
  )");
  CHECK(p.status(0) == STATUS_SUCCESS);
  REQUIRE(p.polled(1).size() == 1);
  check(p.polled(1)[0], 1, NdkOperationTypeBind, STATUS_SUCCESS);
  CHECK(p.polled(1)[0].qp_context == 8);
  REQUIRE(p.polled(3).size() == 1);
  check(p.polled(3)[0], 2, NdkOperationTypeRead, STATUS_SUCCESS);
  const std::vector<uint8_t> sink = p.model.memory("sink");
  // R5.read.sgl_order: data lands in the sink SGEs in order; nothing else moves.
  for (size_t i = 0; i < 200; ++i) CHECK(sink[i] == uint8_t(4196 + i));
  for (size_t i = 0; i < 56; ++i) CHECK(sink[1000 + i] == uint8_t(4396 + i));
  CHECK(sink[200] == 0xEE);
  CHECK(sink[999] == 0xEE);
  CHECK(sink[1056] == 0xEE);
}

TEST_CASE("reference model: a rebind fails, then everything on the QP is CANCELLED", "[app]") {
  const Play p(R"(
    {"op": "receive", "qp": "qpB", "sgl": [{"mr": "mrIn", "offset": 0, "length": 64}], "context": 10},
    {"op": "bind", "qp": "qpB", "mr": "mrB", "mw": "mwB", "offset": 0, "length": 4096, "flags": ["ALLOW_REMOTE_READ"], "context": 1},
    {"op": "bind", "qp": "qpB", "mr": "mrB", "mw": "mwB", "offset": 4096, "length": 4096, "flags": ["ALLOW_REMOTE_READ"], "context": 2},
    {"op": "invalidate", "qp": "qpB", "target": "mwB", "context": 3},
    {"op": "poll", "cq": "cqB", "count": 4},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 0, "length": 64}], "remote": {"target": "mrB", "offset": 0}, "context": 4},
    {"op": "poll", "cq": "cqA", "count": 1}
  )");
  const auto& b = p.polled(4);
  REQUIRE(b.size() == 4);
  check(b[0], 1, NdkOperationTypeBind, STATUS_SUCCESS);
  // R5.bind.rebind: a bound window cannot be bound again; the QP goes to error (R4.error.*):
  // its posted receive is flushed after the error, the later invalidate is CANCELLED.
  check(b[1], 2, NdkOperationTypeBind, STATUS_ACCESS_VIOLATION);
  check(b[2], 10, NdkOperationTypeReceive, STATUS_CANCELLED);
  check(b[3], 3, NdkOperationTypeInvalidate, STATUS_CANCELLED);
  // The peer of a QP in error drops requests: retries run out (R5.peer_error, R3.map.rnr).
  REQUIRE(p.polled(6).size() == 1);
  check(p.polled(6)[0], 4, NdkOperationTypeRead, STATUS_IO_TIMEOUT);
}

TEST_CASE("reference model: stale tokens fail, zero-length reads skip the key checks", "[app]") {
  const Play p(R"(
    {"op": "bind", "qp": "qpB", "mr": "mrB", "mw": "mwB", "offset": 0, "length": 4096, "flags": ["ALLOW_REMOTE_READ"], "context": 1},
    {"op": "save", "name": "old", "value": "$mwB.token"},
    {"op": "invalidate", "qp": "qpB", "target": "mwB", "context": 2},
    {"op": "bind", "qp": "qpB", "mr": "mrB", "mw": "mwB", "offset": 0, "length": 4096, "flags": ["ALLOW_REMOTE_READ"], "context": 3},
    {"op": "poll", "cq": "cqB", "count": 3},
    {"op": "read", "qp": "qpA", "sgl": [], "remote": {"token": "0x7fff00", "address": 0}, "context": 4},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 0, "length": 8}], "remote": {"token": "$old", "address": "$src.va"}, "context": 5},
    {"op": "poll", "cq": "cqA", "count": 2},
    {"op": "receive", "qp": "qpB", "sgl": [{"mr": "mrIn", "offset": 0, "length": 64}], "context": 6},
    {"op": "poll", "cq": "cqB", "count": 1}
  )");
  const auto& b = p.polled(4);
  REQUIRE(b.size() == 3);
  for (const auto& c : b) CHECK(c.status == STATUS_SUCCESS);
  const auto& a = p.polled(7);
  REQUIRE(a.size() == 2);
  check(a[0], 4, NdkOperationTypeRead, STATUS_SUCCESS);           // R5.read.zero_length
  check(a[1], 5, NdkOperationTypeRead, STATUS_ACCESS_VIOLATION);  // the old binding's tag
  // Both QPs are in error: a receive posted later is flushed at once.
  REQUIRE(p.polled(9).size() == 1);
  check(p.polled(9)[0], 6, NdkOperationTypeReceive, STATUS_CANCELLED);
  CHECK(p.model.memory("sink")[0] == 0xEE);
}

TEST_CASE("reference model: silent successes complete nothing and keep their queue slot", "[app]") {
  const Play p(R"(
    {"op": "create_cq", "node": "A", "name": "cqS", "depth": 8},
    {"op": "create_qp", "name": "qpS", "pd": "pdA", "cq": "cqS", "send_depth": 2},
    {"op": "create_cq", "node": "B", "name": "cqT", "depth": 8},
    {"op": "create_qp", "name": "qpT", "pd": "pdB", "cq": "cqT"},
    {"op": "connect", "qp": "qpS", "peer": "qpT"},
    {"op": "read", "qp": "qpS", "sgl": [{"mr": "mrA", "offset": 0, "length": 8}], "remote": {"target": "mrB", "offset": 0}, "flags": ["SILENT_SUCCESS"], "context": 1},
    {"op": "read", "qp": "qpS", "sgl": [{"mr": "mrA", "offset": 8, "length": 8}], "remote": {"target": "mrB", "offset": 8}, "flags": ["SILENT_SUCCESS"], "context": 2},
    {"op": "read", "qp": "qpS", "sgl": [{"mr": "mrA", "offset": 16, "length": 8}], "remote": {"target": "mrB", "offset": 16}, "context": 3},
    {"op": "poll", "cq": "cqS", "count": 0}
  )");
  CHECK(p.status(5) == STATUS_SUCCESS);
  CHECK(p.status(6) == STATUS_SUCCESS);
  // send_depth 2: both slots stay taken until a later completion is polled (R4.inline.sq_full).
  CHECK(p.status(7) == STATUS_INSUFFICIENT_RESOURCES);
  CHECK(p.polled(8).empty());
  CHECK(p.model.memory("sink")[15] == 15);
  CHECK(p.model.memory("sink")[16] == 0xEE);
  // With a deliberately wrong model the silent successes complete.
  RefOptions broken;
  broken.broken_rule = "silent-success";
  const Play q(R"(
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 0, "length": 8}], "remote": {"target": "mrB", "offset": 0}, "flags": ["SILENT_SUCCESS"], "context": 1},
    {"op": "poll", "cq": "cqA", "count": 1}
  )",
               "", broken);
  CHECK(q.polled(1).size() == 1);
}

TEST_CASE("reference model: fast register, FBO and the consumer's tag", "[app]") {
  const Play p(R"(
    {"op": "create_mr", "name": "frA", "pd": "pdA", "fast_register": true, "pages": 2},
    {"op": "fast_register", "qp": "qpA", "mr": "frA", "buffer": "sink", "offset": 100, "length": 5000, "flags": ["ALLOW_LOCAL_WRITE", "RDMA_READ_SINK"], "context": 1},
    {"op": "poll", "cq": "cqA", "count": 1},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "frA", "offset": 4000, "length": 200}], "remote": {"target": "mrB", "offset": 0}, "context": 2},
    {"op": "poll", "cq": "cqA", "count": 1},
    {"op": "create_mr", "name": "frA2", "pd": "pdA", "fast_register": true, "pages": 1},
    {"op": "fast_register", "qp": "qpA", "mr": "frA2", "buffer": "sink", "offset": 0, "length": 64, "base_va": "$sink.va+8", "context": 3},
    {"op": "poll", "cq": "cqA", "count": 1},
    {"op": "create_mr", "name": "frBig", "pd": "pdA", "fast_register": true, "pages": 100000}
  )");
  check(p.polled(2).at(0), 1, NdkOperationTypeFastRegister, STATUS_SUCCESS);
  check(p.polled(4).at(0), 2, NdkOperationTypeRead, STATUS_SUCCESS);
  // FBO 100: the region's offset 4000 is byte 4100 of the buffer, across its first page end.
  const std::vector<uint8_t> sink = p.model.memory("sink");
  CHECK(sink[4099] == 0xEE);
  CHECK(sink[4100] == 0);
  CHECK(sink[4299] == 199);
  // R5.fr.fbo: BaseVA % PAGE_SIZE must be FBO.
  check(p.polled(7).at(0), 3, NdkOperationTypeFastRegister, STATUS_ACCESS_VIOLATION);
  // R1.token.refused: the refused FastRegister leaves the tag, so the consumer's token is current.
  const auto& fr = p.model.state().mpts.at("frA2");
  CHECK(fr.consumer_tag == fr.tag);
  CHECK(p.status(8) == STATUS_IMPLEMENTATION_LIMIT);  // above FRMRPageCount
}

TEST_CASE("reference model: inline checks complete nothing", "[app]") {
  const Play p(R"(
    {"op": "create_qp", "name": "lonely", "pd": "pdA", "cq": "cqA"},
    {"op": "read", "qp": "lonely", "sgl": [], "remote": {"target": "mrB", "offset": 0}, "context": 1},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 0, "length": 1}, {"mr": "mrA", "offset": 0, "length": 1}, {"mr": "mrA", "offset": 0, "length": 1}, {"mr": "mrA", "offset": 0, "length": 1}, {"mr": "mrA", "offset": 0, "length": 1}], "remote": {"target": "mrB", "offset": 0}, "context": 2},
    {"op": "write", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 0, "length": 65}], "remote": {"target": "mrB", "offset": 0}, "flags": ["INLINE"], "context": 3},
    {"op": "bind", "qp": "qpB", "mr": "mrIn", "mw": "mwB", "offset": 0, "length": 64, "flags": ["ALLOW_REMOTE_WRITE"], "context": 4},
    {"op": "create_mr", "name": "noLocalWrite", "pd": "pdB"},
    {"op": "register_mr", "mr": "noLocalWrite", "buffer": "src", "flags": ["ALLOW_REMOTE_READ"]},
    {"op": "bind", "qp": "qpB", "mr": "noLocalWrite", "mw": "mwB", "offset": 0, "length": 64, "flags": ["ALLOW_REMOTE_WRITE"], "context": 5},
    {"op": "register_mr", "mr": "mrB", "buffer": "src", "length": 0},
    {"op": "poll", "cq": "cqA", "count": 0},
    {"op": "poll", "cq": "cqB", "count": 1}
  )");
  CHECK(p.status(1) == STATUS_CONNECTION_INVALID);
  CHECK(p.status(2) == STATUS_INVALID_PARAMETER);  // 5 SGEs, the adapter takes 4
  CHECK(p.status(3) == STATUS_INVALID_PARAMETER);  // INLINE above MaxInlineDataSize
  CHECK(p.status(4) == STATUS_SUCCESS);
  CHECK(p.status(7) == STATUS_ACCESS_VIOLATION);  // remote write on an MR without local write
  CHECK(p.status(8) == STATUS_INVALID_PARAMETER);
  CHECK(p.polled(9).empty());
  REQUIRE(p.polled(10).size() == 1);
  check(p.polled(10)[0], 4, NdkOperationTypeBind, STATUS_SUCCESS);
}

TEST_CASE("reference model: sends, receives, overruns and SendAndInvalidate", "[app]") {
  const Play p(R"(
    {"op": "alloc", "node": "A", "name": "msg", "size": 4096, "fill": "incrementing"},
    {"op": "create_mr", "name": "mrMsg", "pd": "pdA"},
    {"op": "register_mr", "mr": "mrMsg", "buffer": "msg", "flags": []},
    {"op": "bind", "qp": "qpB", "mr": "mrIn", "mw": "mwB", "offset": 0, "length": 4096, "flags": ["ALLOW_REMOTE_READ"], "context": 1},
    {"op": "poll", "cq": "cqB", "count": 1},
    {"op": "receive", "qp": "qpB", "sgl": [{"mr": "mrIn", "offset": 0, "length": 16}, {"mr": "mrIn", "offset": 100, "length": 16}], "context": 2},
    {"op": "send", "qp": "qpA", "sgl": [{"mr": "mrMsg", "offset": 0, "length": 20}], "invalidate": "$mwB.token", "context": 3},
    {"op": "poll", "cq": "cqA", "count": 1},
    {"op": "poll", "cq": "cqB", "count": 1},
    {"op": "receive", "qp": "qpB", "sgl": [{"mr": "mrIn", "offset": 200, "length": 8}], "context": 4},
    {"op": "send", "qp": "qpA", "sgl": [{"mr": "mrMsg", "offset": 0, "length": 9}], "context": 5},
    {"op": "poll", "cq": "cqA", "count": 1},
    {"op": "poll", "cq": "cqB", "count": 1},
    {"op": "send", "qp": "qpA", "sgl": [{"mr": "mrMsg", "offset": 0, "length": 9}], "context": 6},
    {"op": "poll", "cq": "cqA", "count": 1}
  )");
  check(p.polled(7).at(0), 3, NdkOperationTypeSend, STATUS_SUCCESS);
  const auto& r = p.polled(8).at(0);
  check(r, 2, NdkOperationTypeReceiveAndInvalidate, STATUS_SUCCESS);
  CHECK(r.bytes == 20);
  CHECK(r.type_specific == (uint64_t(p.model.state().mpts.at("mwB").index) << 8 | 1));
  CHECK_FALSE(p.model.state().mpts.at("mwB").valid);
  // 20 bytes: 16 into the first SGE, 4 into the second, in order.
  const std::vector<uint8_t> inbox = p.model.memory("inbox");
  CHECK(inbox[15] == 15);
  CHECK(inbox[16] == 0xEE);
  CHECK(inbox[100] == 16);
  CHECK(inbox[103] == 19);
  CHECK(inbox[104] == 0xEE);
  // A 9-byte send into an 8-byte receive: the receiver's DATA_OVERRUN, the sender's DATA_ERROR;
  // nothing lands.
  check(p.polled(11).at(0), 5, NdkOperationTypeSend, STATUS_DATA_ERROR);
  check(p.polled(12).at(0), 4, NdkOperationTypeReceive, STATUS_DATA_OVERRUN);
  CHECK(p.model.memory("inbox")[200] == 0xEE);
  // Both QPs are in error now: the next send is CANCELLED.
  check(p.polled(14).at(0), 6, NdkOperationTypeSend, STATUS_CANCELLED);
}

TEST_CASE("reference model: DEFER holds requests until a later post rings", "[app]") {
  const Play p(R"(
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 0, "length": 8}], "remote": {"target": "mrB", "offset": 0}, "flags": ["DEFER"], "context": 1},
    {"op": "poll", "cq": "cqA", "count": 1},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 8, "length": 8}], "remote": {"target": "mrB", "offset": 8}, "context": 2},
    {"op": "poll", "cq": "cqA", "count": 2}
  )");
  CHECK(p.polled(1).empty());
  CHECK(p.race(1).empty());  // polling is never a race
  REQUIRE(p.polled(3).size() == 2);
  check(p.polled(3)[0], 1, NdkOperationTypeRead, STATUS_SUCCESS);
  check(p.polled(3)[1], 2, NdkOperationTypeRead, STATUS_SUCCESS);
}

TEST_CASE("reference model: windows keep their region busy", "[app]") {
  const Play p(R"(
    {"op": "bind", "qp": "qpB", "mr": "mrB", "mw": "mwB", "offset": 0, "length": 64, "flags": ["ALLOW_REMOTE_READ"], "context": 1},
    {"op": "poll", "cq": "cqB", "count": 1},
    {"op": "deregister_mr", "mr": "mrB"},
    {"op": "invalidate", "qp": "qpB", "target": "mwB", "context": 2},
    {"op": "poll", "cq": "cqB", "count": 1},
    {"op": "deregister_mr", "mr": "mrB"}
  )");
  CHECK(p.status(2) == STATUS_DEVICE_BUSY);
  check(p.polled(4).at(0), 2, NdkOperationTypeInvalidate, STATUS_SUCCESS);
  CHECK(p.status(5) == STATUS_SUCCESS);
}

TEST_CASE("reference model: race rules", "[app]") {
  const Play p(R"(
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 0, "length": 64}], "remote": {"target": "mrB", "offset": 0}, "context": 1},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 32, "length": 8}], "remote": {"target": "mrB", "offset": 100}, "context": 2},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 32, "length": 8}], "remote": {"target": "mrB", "offset": 200}, "flags": ["READ_FENCE"], "context": 3},
    {"op": "receive", "qp": "qpB", "sgl": [{"mr": "mrIn", "offset": 0, "length": 64}], "context": 4},
    {"op": "poll", "cq": "cqA", "count": 3},
    {"op": "receive", "qp": "qpB", "sgl": [{"mr": "mrIn", "offset": 0, "length": 64}], "context": 5}
  )");
  CHECK(p.race(0).empty());
  // The second read lands on bytes the first one is still landing: READ_FENCE or a poll.
  CHECK(p.race(1).find("READ_FENCE") != std::string::npos);
  CHECK(p.race(2).empty());
  // Anything but a post on the batch's QP waits for its completions.
  CHECK(p.race(3).find("not polled") != std::string::npos);
  CHECK(p.race(4).empty());
  CHECK(p.race(5).empty());
  CHECK(p.model.memory("sink")[32] == uint8_t(200));  // in posting order, the fenced one last
}

TEST_CASE("memory checks describe every byte with fills and hex", "[app]") {
  std::vector<uint8_t> bytes(100, 0);
  for (size_t i = 40; i < 70; ++i) bytes[i] = uint8_t(i);
  bytes[80] = 0x12;
  const std::vector<OrderedJson> checks = memory_checks("b", bytes);
  REQUIRE(checks.size() == 4);
  CHECK(checks[0]["fill"] == "zero");
  CHECK(checks[0]["length"] == 40);
  CHECK(checks[1]["fill"] == "incrementing");
  CHECK(checks[1]["offset"] == 40);
  CHECK(checks[1]["length"] == 30);
  // Runs shorter than 16 bytes read better as hex: 10 zeros and 0x12.
  CHECK(checks[2]["offset"] == 70);
  CHECK(checks[2]["bytes"] == "0000000000000000000012");
  CHECK(checks[3]["offset"] == 81);
  CHECK(checks[3]["length"] == 19);
  CHECK(checks[3]["fill"] == "zero");
}

TEST_CASE("generated scenarios are deterministic, valid and carry the model's expectations",
          "[app]") {
  GenOptions options;
  options.seed = 7;
  options.steps = 30;
  const std::string text = format_scenario(generate_scenario(options));
  CHECK(format_scenario(generate_scenario(options)) == text);
  options.seed = 8;
  CHECK(format_scenario(generate_scenario(options)) != text);
  const Scenario scenario = load_scenario(text);
  CHECK(scenario.steps.size() > 30);
  std::vector<std::string> races;
  CHECK(format_scenario(refill_expectations(text, RefOptions{}, &races)) == text);
  CHECK(races.empty());
}

TEST_CASE("the reference model refuses what it cannot predict", "[app]") {
  const Scenario random = load_scenario(R"({"name": "r", "steps": [
    {"op": "alloc", "node": "A", "name": "b", "size": 64, "fill": "random"}]})");
  ReferenceModel model(random);
  CHECK_THROWS_AS(model.execute(random.steps[0]), RefUnsupported);
  RefOptions bad;
  bad.broken_rule = "no-such-rule";
  CHECK_THROWS_AS(ReferenceModel(random, bad), RefUnsupported);
}

TEST_CASE("reference model: a refused rebind keeps the window's token, its descriptor holds "
          "the refused one", "[app]") {
  const Play p(R"(
    {"op": "create_cq", "node": "B", "name": "cqB2", "depth": 64},
    {"op": "create_cq", "node": "A", "name": "cqA2", "depth": 64},
    {"op": "create_qp", "name": "qpB2", "pd": "pdB", "cq": "cqB2"},
    {"op": "create_qp", "name": "qpA2", "pd": "pdA", "cq": "cqA2"},
    {"op": "connect", "qp": "qpA2", "peer": "qpB2"},
    {"op": "bind", "qp": "qpB", "mr": "mrB", "mw": "mwB", "offset": 4096, "length": 4096, "flags": ["ALLOW_REMOTE_READ"], "zero_based": true, "context": 1},
    {"op": "poll", "cq": "cqB", "count": 1},
    {"op": "save", "name": "first", "value": "$mwB.token"},
    {"op": "bind", "qp": "qpB2", "mr": "mrB", "mw": "mwB", "offset": 0, "length": 4096, "flags": ["ALLOW_REMOTE_READ"], "zero_based": true, "context": 2},
    {"op": "poll", "cq": "cqB2", "count": 1},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 0, "length": 16}], "remote": {"token": "$first", "address": 8}, "context": 3},
    {"op": "poll", "cq": "cqA", "count": 1},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "offset": 0, "length": 16}], "remote": {"descriptor": "mwB", "offset": 8}, "context": 5},
    {"op": "poll", "cq": "cqA", "count": 1},
    {"op": "bind", "qp": "qpB2", "mr": "mrB", "mw": "mwB", "offset": 0, "length": 4096, "flags": ["ALLOW_REMOTE_READ"], "context": 4},
    {"op": "poll", "cq": "cqB2", "count": 1}
  )");
  check(p.polled(6).at(0), 1, NdkOperationTypeBind, STATUS_SUCCESS);
  check(p.polled(9).at(0), 2, NdkOperationTypeBind, STATUS_ACCESS_VIOLATION);
  // R1.token.refused: the refused rebind leaves the window's tag; its token still works.
  const auto& mw = p.model.state().mpts.at("mwB");
  CHECK(p.model.state().saved.at("first") == (uint64_t(mw.index) << 8 | mw.tag));
  check(p.polled(11).at(0), 3, NdkOperationTypeRead, STATUS_SUCCESS);
  CHECK(p.model.memory("sink")[0] == uint8_t(4096 + 8));
  // R5.bind.token_on_return: the descriptor the user-mode Bind returned when it was posted
  // holds the token of the tag it asked for, which the refusal left stale (R6.stale).
  check(p.polled(13).at(0), 5, NdkOperationTypeRead, STATUS_ACCESS_VIOLATION);
  // R4.error.posted_later, R4.cancelled.undefined: a Bind posted on a QP in error completes
  // CANCELLED; the window is undefined from then on, and a step naming it is not predictable.
  check(p.polled(15).at(0), 4, NdkOperationTypeBind, STATUS_CANCELLED);
  CHECK(mw.undefined);
  CHECK(p.model.state().mpts.at("mrB").undefined);
}
