// SPDX-License-Identifier: Apache-2.0
// Closing objects (CloseQp, CloseCq, CloseMr, CloseMw, ClosePd, FreeBuffer): every request of
// a closed QP completes once, dependents keep their objects open, closed numbers and memory
// serve new objects, and nothing of a closed object stays usable.
#include <catch2/catch.hpp>
#include <map>
#include <vector>

#include "support/two_nodes.h"

using namespace rnic;
using namespace rnic::ndk;
using rnic::test::TwoNodes;

namespace {

// Every completion of `cq` within `ns` of simulated time.
std::vector<NDK_RESULT_EX> drain(host::Adapter& adapter, host::CqHandle cq, double ns = 200000) {
  return adapter.WaitCq(cq, 0, sc_core::sc_time(ns, sc_core::SC_NS));
}

SystemConfig small_tables() {
  SystemConfig c;
  c.rnic.qp.max_qps = 4;  // QP numbers 1..3
  c.rnic.qp.max_cqs = 4;
  c.rnic.qp.max_mpt_entries = 8;
  return c;
}

}  // namespace

TEST_CASE("closing a QP completes each of its requests once, then the QP is gone", "[tlm][close]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    const NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), 256, t.a.GetLocalTokenFromMr(t.mr_a)};
    const uint64_t remote = t.b.ObjectBaseVa(t.mr_b);
    const uint32_t token = t.b.GetRemoteTokenFromMr(t.mr_b);
    // mr_b allows no remote read: the first read fails and the rest are flushed; the deferred
    // ones were never rung. A receive is posted too.
    REQUIRE(t.a.NdkRead(t.qp_a, 1, &sge, 1, remote, token, 0) == STATUS_SUCCESS);
    for (uint64_t c = 2; c <= 5; ++c)
      REQUIRE(t.a.NdkRead(t.qp_a, c, &sge, 1, remote, token, NDK_OP_FLAG_DEFER) == STATUS_SUCCESS);
    REQUIRE(t.a.NdkReceive(t.qp_a, 6, &sge, 1) == STATUS_SUCCESS);
    REQUIRE(t.a.CloseQp(t.qp_a) == STATUS_SUCCESS);
    // Everything is in the CQ when CloseQp returns: no waiting needed.
    std::vector<NDK_RESULT_EX> got(16);
    got.resize(t.a.GetCqResults(t.cq_a, got.data(), got.size()));
    std::map<uint64_t, int> seen;
    for (const NDK_RESULT_EX& r : got) {
      ++seen[r.RequestContext];
      CHECK(r.QPContext == 0xA);  // the closed QP's context
      if (r.RequestContext != 1) CHECK(r.Status == STATUS_CANCELLED);
    }
    CHECK(got.size() == 6);
    for (uint64_t c = 1; c <= 6; ++c) CHECK(seen[c] == 1);
    CHECK(drain(t.a, t.cq_a).empty());
    // The handle is gone.
    CHECK(t.a.NdkRead(t.qp_a, 7, &sge, 1, remote, token, 0) == STATUS_INVALID_PARAMETER);
    CHECK(t.a.CloseQp(t.qp_a) == STATUS_INVALID_PARAMETER);
    // The peer's requests to the closed QP fail.
    const NDK_SGE src{t.b.ObjectBaseVa(t.mr_b), 16, t.b.GetLocalTokenFromMr(t.mr_b)};
    REQUIRE(t.b.NdkSend(t.qp_b, 8, &src, 1, 0) == STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.b, t.cq_b).Status != STATUS_SUCCESS);
  });
}

TEST_CASE("a silent success before the close needs no completion to close", "[tlm][close]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    // A window, then a silent read through it: succeeds with no completion.
    t.bind_window(0, 4096, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    const NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), 64, t.a.GetLocalTokenFromMr(t.mr_a)};
    REQUIRE(t.a.NdkRead(t.qp_a, 1, &sge, 1, t.b.ObjectBaseVa(t.mw_b),
                        t.b.GetRemoteTokenFromMw(t.mw_b),
                        NDK_OP_FLAG_SILENT_SUCCESS) == STATUS_SUCCESS);
    CHECK(drain(t.a, t.cq_a).empty());
    REQUIRE(t.a.CloseQp(t.qp_a) == STATUS_SUCCESS);
    CHECK(drain(t.a, t.cq_a).empty());
    CHECK(t.sink_bytes(64)[0] == 0);  // the read landed (B's bytes 0, 1, 2, ...)
  });
}

TEST_CASE("objects others depend on are not closed", "[tlm][close]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    t.bind_window(0, 4096, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    CHECK(t.b.ClosePd(t.pd_b) == STATUS_DEVICE_BUSY);
    CHECK(t.b.CloseCq(t.cq_b) == STATUS_DEVICE_BUSY);
    CHECK(t.b.CloseMr(t.mr_b) == STATUS_DEVICE_BUSY);    // the window is bound to it
    CHECK(t.b.FreeBuffer(t.src) == STATUS_DEVICE_BUSY);  // mr_b is registered on it
    // Closing the QP frees the window bound to it: the MR can go, then the buffer.
    REQUIRE(t.b.CloseQp(t.qp_b) == STATUS_SUCCESS);
    CHECK(t.b.ObjectLength(t.mw_b) == 0);
    CHECK(t.b.CloseMr(t.mr_b) == STATUS_SUCCESS);
    CHECK(t.b.FreeBuffer(t.src) == STATUS_SUCCESS);
    CHECK(t.b.FreeBuffer(t.src) == STATUS_INVALID_PARAMETER);
    CHECK(t.b.CloseMw(t.mw_b) == STATUS_SUCCESS);
    CHECK(t.b.CloseCq(t.cq_b) == STATUS_SUCCESS);
    CHECK(t.b.ClosePd(t.pd_b) == STATUS_SUCCESS);
    CHECK(t.b.ClosePd(t.pd_b) == STATUS_INVALID_PARAMETER);
    CHECK(t.b.CloseMw(t.mw_b) == STATUS_INVALID_PARAMETER);
    CHECK(t.b.CloseMr(t.mr_b) == STATUS_INVALID_PARAMETER);
    CHECK(t.b.CloseCq(t.cq_b) == STATUS_INVALID_PARAMETER);
  });
}

TEST_CASE("a closed window's number comes back with a new tag: the old token stays stale",
          "[tlm][close]") {
  TwoNodes t(small_tables());
  t.run([&] {
    t.setup();  // B's MPT: mr_b 1, mw_b 2
    const NDK_RESULT_EX bound = t.bind_window(0, 4096, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    REQUIRE(bound.Status == STATUS_SUCCESS);
    const uint32_t old_token = t.b.GetRemoteTokenFromMw(t.mw_b);
    const uint64_t va = t.b.ObjectBaseVa(t.mw_b);
    REQUIRE(t.b.CloseMw(t.mw_b) == STATUS_SUCCESS);
    // Fill the table: 5 fresh indices (3..7), then the closed one comes back.
    host::MwHandle mw = 0;
    for (int i = 0; i < 5; ++i) REQUIRE(t.b.CreateMw(t.pd_b, &mw) == STATUS_SUCCESS);
    REQUIRE(t.b.CreateMw(t.pd_b, &mw) == STATUS_SUCCESS);
    REQUIRE(mw == t.mw_b);
    CHECK(t.b.CreateMw(t.pd_b, &mw) == STATUS_INSUFFICIENT_RESOURCES);
    REQUIRE(t.b.NdkBind(t.qp_b, 2, t.mr_b, t.mw_b, va, 4096, NDK_OP_FLAG_ALLOW_REMOTE_READ) ==
            STATUS_SUCCESS);
    REQUIRE(TwoNodes::next(t.b, t.cq_b).Status == STATUS_SUCCESS);
    const uint32_t new_token = t.b.GetRemoteTokenFromMw(t.mw_b);
    CHECK(new_token != old_token);
    CHECK(t.read(va, new_token, 64, 3).Status == STATUS_SUCCESS);
    CHECK(t.read(va, old_token, 64, 4).Status == STATUS_ACCESS_VIOLATION);
  });
}

TEST_CASE("a QP number used again starts with an empty receive queue", "[tlm][close]") {
  TwoNodes t(small_tables());
  t.run([&] {
    t.setup();  // qp_b is B's QP 1
    const NDK_SGE old_receive{t.b.ObjectBaseVa(t.mr_b), 4096, t.b.GetLocalTokenFromMr(t.mr_b)};
    for (uint64_t c = 1; c <= 3; ++c)
      REQUIRE(t.b.NdkReceive(t.qp_b, c, &old_receive, 1) == STATUS_SUCCESS);
    REQUIRE(t.b.CloseQp(t.qp_b) == STATUS_SUCCESS);
    CHECK(drain(t.b, t.cq_b).size() == 3);  // flushed
    // B's QPs 2 and 3, then QP 1 again, connected to a new QP of A.
    host::QpHandle qp = 0, reused = 0, peer = 0;
    for (int i = 0; i < 2; ++i)
      REQUIRE(t.b.CreateQp(t.pd_b, t.cq_b, 8, 8, 1, 1, 0, &qp) == STATUS_SUCCESS);
    REQUIRE(t.b.CreateQp(t.pd_b, t.cq_b, 8, 8, 1, 1, 0xC, &reused) == STATUS_SUCCESS);
    REQUIRE(reused == t.qp_b);
    CHECK(t.b.CreateQp(t.pd_b, t.cq_b, 8, 8, 1, 1, 0, &qp) == STATUS_INSUFFICIENT_RESOURCES);
    REQUIRE(t.a.CreateQp(t.pd_a, t.cq_a, 8, 8, 1, 1, 0xD, &peer) == STATUS_SUCCESS);
    REQUIRE(host::Adapter::Connect(t.a, peer, t.b, reused) == STATUS_SUCCESS);
    // One receive at offset 8192: the send must land there, not in a receive of the old QP.
    const NDK_SGE receive{t.b.ObjectBaseVa(t.mr_b) + 8192, 64, t.b.GetLocalTokenFromMr(t.mr_b)};
    REQUIRE(t.b.NdkReceive(reused, 9, &receive, 1) == STATUS_SUCCESS);
    const NDK_SGE src{t.a.ObjectBaseVa(t.mr_a), 32, t.a.GetLocalTokenFromMr(t.mr_a)};
    REQUIRE(t.a.NdkSend(peer, 10, &src, 1, 0) == STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.a, t.cq_a).Status == STATUS_SUCCESS);
    const NDK_RESULT_EX r = TwoNodes::next(t.b, t.cq_b);
    CHECK(r.RequestContext == 9);
    CHECK(r.QPContext == 0xC);
    CHECK(r.BytesTransferred == 32);
    std::vector<uint8_t> got(4096);
    REQUIRE(t.b.ReadBuffer(t.src, 0, got.data(), got.size()));
    for (uint32_t i = 0; i < 4096; ++i) REQUIRE(got[i] == uint8_t(i));  // old receive untouched
    REQUIRE(t.b.ReadBuffer(t.src, 8192, got.data(), 32));
    for (uint32_t i = 0; i < 32; ++i) REQUIRE(got[i] == 0xEE);
  });
}

TEST_CASE("completions of a closed QP keep its context after the number is reused",
          "[tlm][close]") {
  TwoNodes t(small_tables());
  t.run([&] {
    t.setup();
    const NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), 64, t.a.GetLocalTokenFromMr(t.mr_a)};
    REQUIRE(t.a.NdkReceive(t.qp_a, 1, &sge, 1) == STATUS_SUCCESS);
    REQUIRE(t.a.CloseQp(t.qp_a) == STATUS_SUCCESS);  // the receive's completion is not consumed
    host::QpHandle qp = 0;
    for (int i = 0; i < 3; ++i)
      REQUIRE(t.a.CreateQp(t.pd_a, t.cq_a, 8, 8, 1, 1, 0x77, &qp) == STATUS_SUCCESS);
    REQUIRE(qp == t.qp_a);  // the number is back
    const std::vector<NDK_RESULT_EX> got = drain(t.a, t.cq_a);
    REQUIRE(got.size() == 1);
    CHECK(got[0].QPContext == 0xA);
    CHECK(got[0].Status == STATUS_CANCELLED);
  });
}

TEST_CASE("freed memory comes back zeroed", "[tlm][close]") {
  SystemConfig c;
  c.host_memory.size_bytes = 16ull << 20;  // the tables take the first few MiB
  c.rnic.qp.max_qps = 256;  // small tables: most of the 16 MiB is left to buffers
  c.rnic.qp.max_cqs = 256;
  TwoNodes t(c);
  t.run([&] {
    host::Buffer big, again;
    uint64_t bytes = 1 << 20;
    REQUIRE(t.a.AllocBuffer(bytes, 4096, false, host::BufferFill::Byte, 0x5A, &big) ==
            STATUS_SUCCESS);
    // Take all memory that is left, in 1 MiB buffers.
    std::vector<host::Buffer> rest;
    for (;;) {
      host::Buffer b;
      if (t.a.AllocBuffer(bytes, 4096, false, host::BufferFill::Zero, 0, &b) != STATUS_SUCCESS)
        break;
      rest.push_back(b);
    }
    CHECK(t.a.AllocBuffer(bytes, 4096, false, host::BufferFill::Zero, 0, &again) ==
          STATUS_INSUFFICIENT_RESOURCES);
    REQUIRE(t.a.FreeBuffer(big) == STATUS_SUCCESS);
    REQUIRE(t.a.AllocBuffer(bytes, 4096, false, host::BufferFill::Zero, 0, &again) ==
            STATUS_SUCCESS);
    CHECK(again.pages == big.pages);  // the same memory
    std::vector<uint8_t> got(bytes);
    REQUIRE(t.a.ReadBuffer(again, 0, got.data(), bytes));
    for (uint64_t i = 0; i < bytes; ++i) REQUIRE(got[i] == 0);
  });
}
