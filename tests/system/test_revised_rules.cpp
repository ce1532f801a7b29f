// SPDX-License-Identifier: Apache-2.0
// The revised rules (docs/behaviour.md, "Changes to these rules"): a refused FastRegister or
// Bind keeps the object's tag (R1.token.refused); BaseVA 0 with FBO 0 (R5.fr.va_zero); a
// CANCELLED memory-management request leaves its object undefined, and the results say whether
// it took effect (R4.cancelled.undefined; not a field of NDK_RESULT_EX).
#include "support/two_nodes.h"

using namespace rnic;
using namespace rnic::test;

namespace {

const sc_core::sc_time kMs(1, sc_core::SC_MS);

// A second connected QP pair A2 <-> B2 (healthy when qp_b is in error).
struct Second {
  CqHandle cq_a = 0, cq_b = 0;
  QpHandle qp_a = 0, qp_b = 0;
  explicit Second(TwoNodes& t) {
    REQUIRE(t.a.CreateCq(64, &cq_a) == STATUS_SUCCESS);
    REQUIRE(t.b.CreateCq(64, &cq_b) == STATUS_SUCCESS);
    REQUIRE(t.a.CreateQp(t.pd_a, cq_a, 64, 64, 16, 16, 0xA2, &qp_a) == STATUS_SUCCESS);
    REQUIRE(t.b.CreateQp(t.pd_b, cq_b, 64, 64, 16, 16, 0xB2, &qp_b) == STATUS_SUCCESS);
    REQUIRE(Adapter::Connect(t.a, qp_a, t.b, qp_b) == STATUS_SUCCESS);
  }
  NDK_RESULT_EX read(TwoNodes& t, uint64_t remote, uint32_t token, uint32_t length) {
    NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), length, t.a.GetLocalTokenFromMr(t.mr_a)};
    REQUIRE(t.a.NdkRead(qp_a, 7, &sge, 1, remote, token, 0) == STATUS_SUCCESS);
    return TwoNodes::next(t.a, cq_a);
  }
};

MrHandle fast_mr(TwoNodes& t) {
  MrHandle fr = 0;
  REQUIRE(t.b.CreateMr(t.pd_b, true, &fr) == STATUS_SUCCESS);
  REQUIRE(t.b.InitializeFastRegisterMr(fr, 4, true) == STATUS_SUCCESS);
  return fr;
}

constexpr uint32_t kRw = NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_LOCAL_WRITE;

}  // namespace

TEST_CASE("a refused fast-register keeps the MR's token, a window binds on it",
          "[system][revised-rules]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    Second two(t);
    const MrHandle fr = fast_mr(t);
    const std::vector<uint64_t> pages = t.src.page_array(0, 8192);
    REQUIRE(t.b.NdkFastRegister(t.qp_b, 1, fr, 2, pages.data(), 0, 8192, 0x40000000ull, kRw) ==
            STATUS_SUCCESS);
    REQUIRE(TwoNodes::next(t.b, t.cq_b).Status == STATUS_SUCCESS);
    const uint32_t token = t.b.GetRemoteTokenFromMr(fr);
    // The MR is VALID: the device refuses a second fast-register (R5.fr.free), tag unchanged.
    REQUIRE(t.b.NdkFastRegister(t.qp_b, 2, fr, 1, pages.data(), 0, 4096, 0x50000000ull, kRw) ==
            STATUS_SUCCESS);
    std::vector<bool> effect;
    const auto refused = t.b.WaitCq(t.cq_b, 1, kMs, &effect);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].Status == STATUS_ACCESS_VIOLATION);
    REQUIRE(effect.size() == 1);
    CHECK_FALSE(effect[0]);
    CHECK(t.b.GetRemoteTokenFromMr(fr) == token);
    CHECK(two.read(t, 0x40000000ull + 10, t.b.GetRemoteTokenFromMr(fr), 64).Status ==
          STATUS_SUCCESS);
    const std::vector<uint8_t> got = t.sink_bytes(64);
    for (uint32_t i = 0; i < 64; ++i) REQUIRE(got[i] == uint8_t(10 + i));
    // A window on the still-VALID MR (the driver names it by its current token).
    REQUIRE(t.b.NdkBind(two.qp_b, 3, fr, t.mw_b, 0x40000000ull + 4096, 4096,
                        NDK_OP_FLAG_ALLOW_REMOTE_READ) == STATUS_SUCCESS);
    effect.clear();
    const auto bound = t.b.WaitCq(two.cq_b, 1, kMs, &effect);
    REQUIRE(bound.size() == 1);
    CHECK(bound[0].Status == STATUS_SUCCESS);
    REQUIRE(effect.size() == 1);
    CHECK(effect[0]);
  });
}

TEST_CASE("a refused rebind keeps the window's token", "[system][revised-rules]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    Second two(t);
    const uint64_t base = t.b.ObjectBaseVa(t.mr_b);
    REQUIRE(t.b.NdkBind(two.qp_b, 1, t.mr_b, t.mw_b, base, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ) ==
            STATUS_SUCCESS);
    REQUIRE(TwoNodes::next(t.b, two.cq_b).Status == STATUS_SUCCESS);
    const uint32_t token = t.b.GetRemoteTokenFromMw(t.mw_b);
    REQUIRE(t.b.NdkBind(t.qp_b, 2, t.mr_b, t.mw_b, base + 8192, 4096,
                        NDK_OP_FLAG_ALLOW_REMOTE_READ) == STATUS_SUCCESS);
    // A posted Bind (R5.bind.token_on_return): the token of the tag it asks for is known when
    // the call returns; once the refusal is known, the window's token is the old one again.
    CHECK(t.b.GetRemoteTokenFromMw(t.mw_b) == ((token & ~0xffu) | ((token + 1) & 0xffu)));
    CHECK(TwoNodes::next(t.b, t.cq_b).Status == STATUS_ACCESS_VIOLATION);
    CHECK(t.b.GetRemoteTokenFromMw(t.mw_b) == token);
    CHECK(two.read(t, base + 100, token, 64).Status == STATUS_SUCCESS);
    const std::vector<uint8_t> got = t.sink_bytes(64);
    for (uint32_t i = 0; i < 64; ++i) REQUIRE(got[i] == uint8_t(100 + i));
  });
}

TEST_CASE("fast-register with BaseVA 0 and FBO 0 is valid", "[system][revised-rules]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    const MrHandle fr = fast_mr(t);
    const std::vector<uint64_t> pages = t.src.page_array(0, 4096);
    REQUIRE(t.b.NdkFastRegister(t.qp_b, 1, fr, 1, pages.data(), 0, 4096, 0, kRw) ==
            STATUS_SUCCESS);
    REQUIRE(TwoNodes::next(t.b, t.cq_b).Status == STATUS_SUCCESS);
    CHECK(t.read(200, t.b.GetRemoteTokenFromMr(fr), 32, 2).Status == STATUS_SUCCESS);
    const std::vector<uint8_t> got = t.sink_bytes(32);
    for (uint32_t i = 0; i < 32; ++i) REQUIRE(got[i] == uint8_t(200 + i));
  });
}

namespace {

// A fast-register queued right behind a read that fails at the responder: it completes CANCELLED;
// whether it took effect depends on timing (R4.cancelled.undefined), but the completion says which,
// and the MR's state and token follow it.
void cancelled_fast_register(bool fast) {
  SystemConfig c;
  c.rnic.sim.fast = fast;
  TwoNodes t(c);
  t.provokes_violations = true;
  t.run([&] {
    t.setup();
    Second two(t);
    MrHandle fr = 0;
    REQUIRE(t.a.CreateMr(t.pd_a, true, &fr) == STATUS_SUCCESS);
    REQUIRE(t.a.InitializeFastRegisterMr(fr, 1, true) == STATUS_SUCCESS);
    const uint32_t before = t.a.GetRemoteTokenFromMr(fr);
    // A reads from B with a token B never gave: the responder refuses it.
    NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), 64, t.a.GetLocalTokenFromMr(t.mr_a)};
    REQUIRE(t.a.NdkRead(t.qp_a, 1, &sge, 1, t.b.ObjectBaseVa(t.mr_b), 0x7fff00, 0) ==
            STATUS_SUCCESS);
    const std::vector<uint64_t> pages = t.sink.page_array(0, 4096);
    REQUIRE(t.a.NdkFastRegister(t.qp_a, 2, fr, 1, pages.data(), 0, 4096, 0x60000000ull, kRw) ==
            STATUS_SUCCESS);
    std::vector<bool> effect;
    const auto done = t.a.WaitCq(t.cq_a, 2, kMs, &effect);
    REQUIRE(done.size() == 2);
    CHECK(done[0].Status == STATUS_ACCESS_VIOLATION);
    CHECK(done[1].Status == STATUS_CANCELLED);
    REQUIRE(effect.size() == 2);
    CHECK_FALSE(effect[0]);
    // The token the driver reports is the device's: the new one exactly when it took effect.
    CHECK((t.a.GetRemoteTokenFromMr(fr) != before) == effect[1]);
    // Invalidate names the object: it succeeds exactly when the MR is VALID.
    REQUIRE(t.a.NdkInvalidate(two.qp_a, 3, fr, 0) == STATUS_SUCCESS);
    std::vector<bool> inv_effect;
    const auto inv = t.a.WaitCq(two.cq_a, 1, kMs, &inv_effect);
    REQUIRE(inv.size() == 1);
    CHECK(inv[0].Status == (effect[1] ? STATUS_SUCCESS : STATUS_ACCESS_VIOLATION));
    REQUIRE(inv_effect.size() == 1);
    CHECK(inv_effect[0] == effect[1]);
  });
}

}  // namespace

TEST_CASE("a CANCELLED fast-register says whether it took effect (cycle mode)",
          "[system][revised-rules]") {
  cancelled_fast_register(false);
}

TEST_CASE("a CANCELLED fast-register says whether it took effect (fast mode)",
          "[system][revised-rules]") {
  cancelled_fast_register(true);
}
