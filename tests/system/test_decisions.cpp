// SPDX-License-Identifier: Apache-2.0
// The decision sink (model/instruments/decision_sink.h): every decision of the protection
// checker reaches it with its rule and its inputs (the request, the entry the token named as
// the check read it, a window's MR), so an external implementation can be asked the same
// question (docs/validation.md, "A worked example").
#include <catch2/catch.hpp>

#include <vector>

#include "model/instruments/decision_sink.h"
#include "model/rnic/msg/messages.h"
#include "support/two_nodes.h"

namespace rnic::test {
namespace {

// A decision as the sink saw it, the request copied (its pointer lives only during decided()).
struct Seen {
  DecisionRecord record;
  ProtectionRequest request;
  bool has_request = false;
};

struct Recorder : DecisionSink {
  std::vector<Seen> seen;
  void decided(const DecisionRecord& r) override {
    Seen s;
    s.record = r;
    s.record.request = nullptr;
    if (r.request) {
      s.request = *r.request;
      s.has_request = true;
    }
    seen.push_back(s);
  }
  // The decisions of node `node` on check list `list`.
  std::vector<Seen> of(uint32_t node, CheckList list) const {
    std::vector<Seen> out;
    for (const Seen& s : seen)
      if (s.record.node == node && s.record.list == list) out.push_back(s);
    return out;
  }
};

TEST_CASE("decisions reach the sink with their rule and inputs", "[system][decisions]") {
  TwoNodes t;
  Recorder sink;
  t.system.attach_decisions(&sink);
  t.run([&] {
    t.setup();
    const uint64_t base = t.b.ObjectBaseVa(t.mr_b);
    REQUIRE(t.bind_window(4096, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ).Status == STATUS_SUCCESS);
    const uint32_t window = t.b.GetRemoteTokenFromMw(t.mw_b);

    // The Bind: the window as it was (FREE) and the MR it binds to.
    const std::vector<Seen> binds = sink.of(1, CheckList::Bind);
    REQUIRE(binds.size() == 1);
    const DecisionRecord& bind = binds[0].record;
    CHECK(bind.side == EngineSide::Requester);
    CHECK(bind.decision == Decision::ok(RuleId::R5_bind_token_on_return));
    CHECK(bind.object.kind == MptKind::Mw);
    CHECK(bind.object.state == MptState::Free);
    REQUIRE(bind.has_parent);
    CHECK(bind.parent.kind == MptKind::Mr);
    CHECK(bind.parent.base_va == base);
    REQUIRE(binds[0].has_request);
    CHECK(binds[0].request.va == base + 4096);
    CHECK(binds[0].request.length == 8192);

    // A read through the window: the responder's check sees the window and its MR.
    CHECK(t.read(base + 4096 + 100, window, 64, 7).Status == STATUS_SUCCESS);
    std::vector<Seen> reads = sink.of(1, CheckList::RemoteRead);
    REQUIRE(reads.size() == 1);
    const Seen& ok = reads[0];
    CHECK(ok.record.side == EngineSide::Responder);
    CHECK_FALSE(ok.record.decision.failed());
    REQUIRE(ok.has_request);
    CHECK(ok.request.token == window);
    CHECK(ok.request.va == base + 4096 + 100);
    CHECK(ok.request.length == 64);
    CHECK(ok.request.pd == ok.record.object.pd);
    CHECK(ok.record.object.kind == MptKind::Mw);
    CHECK(ok.record.object.state == MptState::Valid);
    CHECK(ok.record.object.base_va == base + 4096);
    CHECK(ok.record.object.length == 8192);
    CHECK(ok.record.object.tag == token_tag(window));
    REQUIRE(ok.record.has_parent);
    CHECK(ok.record.parent.kind == MptKind::Mr);
    // The requester's check of the sink, on node A.
    const std::vector<Seen> sinks = sink.of(0, CheckList::ReadSink);
    REQUIRE(sinks.size() == 1);
    CHECK(sinks[0].record.object.kind == MptKind::Mr);
    CHECK_FALSE(sinks[0].record.decision.failed());

    // Past the window's end: refused by the bounds, the entry as the check read it.
    CHECK(t.read(base + 4096 + 8192 - 32, window, 64, 8).Status == STATUS_ACCESS_VIOLATION);
    reads = sink.of(1, CheckList::RemoteRead);
    REQUIRE(reads.size() == 2);
    CHECK(reads[1].record.decision ==
          Decision::fail(CqeStatus::RemoteAccess, RuleId::R5_read_resp_bounds));
    CHECK(reads[1].record.object.length == 8192);
  });
}

TEST_CASE("a token that names no entry is decided with an entry of no kind",
          "[system][decisions]") {
  TwoNodes t;
  Recorder sink;
  t.system.attach_decisions(&sink);
  t.run([&] {
    t.setup();
    CHECK(t.read(t.b.ObjectBaseVa(t.mr_b), make_token(0xFFFF, 1), 64, 1).Status ==
          STATUS_ACCESS_VIOLATION);
    const std::vector<Seen> reads = sink.of(1, CheckList::RemoteRead);
    REQUIRE(reads.size() == 1);
    CHECK(reads[0].record.decision ==
          Decision::fail(CqeStatus::RemoteAccess, RuleId::R5_read_resp_index));
    CHECK(reads[0].record.object.kind == MptKind::None);
    CHECK_FALSE(reads[0].record.has_parent);
  });
}

}  // namespace
}  // namespace rnic::test
