// SPDX-License-Identifier: Apache-2.0
// End-to-end Send, Receive and SendAndInvalidate through the real units of two nodes.
#include <catch2/catch.hpp>

#include <vector>

#include "support/two_nodes.h"

using namespace rnic;
using namespace rnic::ndk;
using rnic::test::TwoNodes;

namespace {
// B posts a receive of `length` bytes into its source buffer at `offset`.
void post_receive(TwoNodes& t, uint64_t context, uint64_t offset, uint32_t length) {
  NDK_SGE sge{t.b.ObjectBaseVa(t.mr_b) + offset, length, t.b.GetLocalTokenFromMr(t.mr_b)};
  REQUIRE(t.b.NdkReceive(t.qp_b, context, &sge, 1) == STATUS_SUCCESS);
}
NDK_SGE sink_sge(TwoNodes& t, uint32_t length) {
  return NDK_SGE{t.a.ObjectBaseVa(t.mr_a), length, t.a.GetLocalTokenFromMr(t.mr_a)};
}
}  // namespace

TEST_CASE("a send lands in the posted receive", "[tlm][send]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    post_receive(t, 40, 1000, 256);
    const NDK_SGE sge = sink_sge(t, 100);
    REQUIRE(t.a.NdkSend(t.qp_a, 41, &sge, 1, 0) == STATUS_SUCCESS);
    const NDK_RESULT_EX sent = TwoNodes::next(t.a, t.cq_a);
    CHECK(sent.Status == STATUS_SUCCESS);
    CHECK(sent.Type == NdkOperationTypeSend);
    const NDK_RESULT_EX received = TwoNodes::next(t.b, t.cq_b);
    CHECK(received.Status == STATUS_SUCCESS);
    CHECK(received.Type == NdkOperationTypeReceive);
    CHECK(received.RequestContext == 40);
    CHECK(received.BytesTransferred == 100);
    CHECK(received.QPContext == 0xB);
    std::vector<uint8_t> got(110);
    REQUIRE(t.b.ReadBuffer(t.src, 1000, got.data(), got.size()));
    for (uint32_t i = 0; i < 100; ++i) REQUIRE(got[i] == 0xEE);
    for (uint32_t i = 100; i < 110; ++i) REQUIRE(got[i] == uint8_t(1000 + i));
  });
}

TEST_CASE("a send with no receive posted times out after RNR retries", "[tlm][send]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    const NDK_SGE sge = sink_sge(t, 16);
    REQUIRE(t.a.NdkSend(t.qp_a, 50, &sge, 1, 0) == STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.a, t.cq_a).Status == STATUS_IO_TIMEOUT);
  });
  uint64_t retries = 0;
  t.system.visit_stats([&](const std::string& owner, const Counter& c) {
    if (owner == "A.rnic.requester" && c.name == "rnr_retries") retries = c.value;
  });
  CHECK(retries == t.config.rnic.qp.rnr_retry_count);
}

TEST_CASE("a receive posted during the RNR retries is used", "[tlm][send]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    const NDK_SGE sge = sink_sge(t, 16);
    REQUIRE(t.a.NdkSend(t.qp_a, 51, &sge, 1, 0) == STATUS_SUCCESS);
    sc_core::wait(25, sc_core::SC_US);  // a few RNR timer periods
    post_receive(t, 52, 0, 64);
    CHECK(TwoNodes::next(t.a, t.cq_a).Status == STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.b, t.cq_b).BytesTransferred == 16);
  });
}

TEST_CASE("a receive buffer too small is a receiver overrun", "[tlm][send]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    post_receive(t, 60, 0, 32);
    post_receive(t, 61, 64, 32);
    const NDK_SGE sge = sink_sge(t, 64);
    REQUIRE(t.a.NdkSend(t.qp_a, 62, &sge, 1, 0) == STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.a, t.cq_a).Status == STATUS_DATA_ERROR);
    auto received = t.b.WaitCq(t.cq_b, 2, sc_core::sc_time(1, sc_core::SC_MS));
    REQUIRE(received.size() == 2);
    CHECK(received[0].Status == STATUS_DATA_OVERRUN);
    CHECK(received[0].RequestContext == 60);
    CHECK(received[1].Status == STATUS_CANCELLED);  // the receiver's QP went to error
    CHECK(received[1].RequestContext == 61);
    std::vector<uint8_t> got(32);
    REQUIRE(t.b.ReadBuffer(t.src, 0, got.data(), got.size()));
    for (uint32_t i = 0; i < 32; ++i) REQUIRE(got[i] == uint8_t(i));  // nothing landed
  });
}

TEST_CASE("send-and-invalidate invalidates the window at the receiver", "[tlm][send]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    t.bind_window(0, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    const uint32_t token = t.b.GetRemoteTokenFromMw(t.mw_b);
    post_receive(t, 70, 16384, 64);
    const NDK_SGE sge = sink_sge(t, 8);
    REQUIRE(t.a.NdkSendAndInvalidate(t.qp_a, 71, &sge, 1, token, 0) == STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.a, t.cq_a).Status == STATUS_SUCCESS);
    const NDK_RESULT_EX received = TwoNodes::next(t.b, t.cq_b);
    CHECK(received.Status == STATUS_SUCCESS);
    CHECK(received.Type == NdkOperationTypeReceiveAndInvalidate);
    CHECK(received.TypeSpecific == token);
    // The window started at the MR's base; its token is now stale.
    CHECK(t.read(t.b.ObjectBaseVa(t.mr_b), token, 64, 72).Status == STATUS_ACCESS_VIOLATION);
  });
}

TEST_CASE("send-and-invalidate with an invalid token fails the receiver", "[tlm][send]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    post_receive(t, 80, 0, 64);
    const NDK_SGE sge = sink_sge(t, 8);
    // mr_b is a normally registered MR: it can never be invalidated.
    REQUIRE(t.a.NdkSendAndInvalidate(t.qp_a, 81, &sge, 1, t.b.GetRemoteTokenFromMr(t.mr_b), 0) ==
            STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.a, t.cq_a).Status == STATUS_DATA_ERROR);
    CHECK(TwoNodes::next(t.b, t.cq_b).Status == STATUS_ACCESS_VIOLATION);
  });
}

TEST_CASE("an access error flushes the responder's posted receives", "[tlm][error]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    post_receive(t, 90, 0, 64);
    post_receive(t, 91, 64, 64);
    NDK_SGE sge = sink_sge(t, 64);
    REQUIRE(t.a.NdkRead(t.qp_a, 92, &sge, 1, t.b.ObjectBaseVa(t.mr_b), 0x12345678, 0) ==
            STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.a, t.cq_a).Status == STATUS_ACCESS_VIOLATION);
    auto flushed = t.b.WaitCq(t.cq_b, 2, sc_core::sc_time(1, sc_core::SC_MS));
    REQUIRE(flushed.size() == 2);
    CHECK(flushed[0].Status == STATUS_CANCELLED);
    CHECK(flushed[0].RequestContext == 90);
    CHECK(flushed[1].Status == STATUS_CANCELLED);
    CHECK(flushed[1].RequestContext == 91);
  });
}
