// SPDX-License-Identifier: Apache-2.0
// End-to-end Write, FastRegister, Invalidate and Flush through the real units of two nodes.
#include <catch2/catch.hpp>

#include <vector>

#include "support/two_nodes.h"

using namespace rnic;
using namespace rnic::ndk;
using rnic::test::TwoNodes;

TEST_CASE("an RDMA write lands the source bytes in the remote MR", "[tlm][write]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    // B's region needs remote write for this; register a second MR on B's source buffer.
    host::MrHandle target = 0;
    REQUIRE(t.b.CreateMr(t.pd_b, false, &target) == STATUS_SUCCESS);
    REQUIRE(t.b.RegisterMr(target, t.src, 8192, 4096, NDK_MR_FLAG_ALLOW_REMOTE_WRITE) ==
            STATUS_SUCCESS);
    // A writes 100 bytes of its sink (0xEE) to B at target + 10.
    NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), 100, t.a.GetLocalTokenFromMr(t.mr_a)};
    REQUIRE(t.a.NdkWrite(t.qp_a, 7, &sge, 1, t.b.ObjectBaseVa(target) + 10,
                         t.b.GetRemoteTokenFromMr(target), 0) == STATUS_SUCCESS);
    const NDK_RESULT_EX r = TwoNodes::next(t.a, t.cq_a);
    CHECK(r.Status == STATUS_SUCCESS);
    CHECK(r.Type == NdkOperationTypeWrite);
    std::vector<uint8_t> got(120);
    REQUIRE(t.b.ReadBuffer(t.src, 8192, got.data(), got.size()));
    for (uint32_t i = 0; i < 10; ++i) REQUIRE(got[i] == uint8_t(8192 + i));  // untouched
    for (uint32_t i = 10; i < 110; ++i) REQUIRE(got[i] == 0xEE);
    for (uint32_t i = 110; i < 120; ++i) REQUIRE(got[i] == uint8_t(8192 + i));
  });
}

TEST_CASE("a write to an MR without remote write fails and changes nothing", "[tlm][write]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), 64, t.a.GetLocalTokenFromMr(t.mr_a)};
    // mr_b has local write only.
    REQUIRE(t.a.NdkWrite(t.qp_a, 8, &sge, 1, t.b.ObjectBaseVa(t.mr_b),
                         t.b.GetRemoteTokenFromMr(t.mr_b), 0) == STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.a, t.cq_a).Status == STATUS_ACCESS_VIOLATION);
    std::vector<uint8_t> got(64);
    REQUIRE(t.b.ReadBuffer(t.src, 0, got.data(), got.size()));
    for (uint32_t i = 0; i < 64; ++i) REQUIRE(got[i] == uint8_t(i));
  });
}

TEST_CASE("fast-register maps scattered pages that a read returns", "[tlm][fastreg]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    host::MrHandle fr = 0;
    REQUIRE(t.b.CreateMr(t.pd_b, true, &fr) == STATUS_SUCCESS);
    REQUIRE(t.b.InitializeFastRegisterMr(fr, 4, true) == STATUS_SUCCESS);
    // Map 3 pages of B's (scattered) source buffer starting 100 bytes into its 2nd page.
    const std::vector<uint64_t> pages = t.src.page_array(4096 + 100, 3 * 4096 - 200);
    REQUIRE(pages.size() == 3);
    const uint64_t base_va = 0x10000000ull + 100;
    REQUIRE(t.b.NdkFastRegister(t.qp_b, 11, fr, 3, pages.data(), 100, 3 * 4096 - 200, base_va,
                                NDK_OP_FLAG_ALLOW_REMOTE_READ | NDK_OP_FLAG_ALLOW_LOCAL_WRITE) ==
            STATUS_SUCCESS);
    const NDK_RESULT_EX reg = TwoNodes::next(t.b, t.cq_b);
    CHECK(reg.Status == STATUS_SUCCESS);
    CHECK(reg.Type == NdkOperationTypeFastRegister);
    const uint32_t token = t.b.GetRemoteTokenFromMr(fr);
    // Crosses from the first mapped page into the second: the bytes come from two
    // non-contiguous physical pages.
    const NDK_RESULT_EX r = t.read(base_va + 4000, token, 200, 12);
    CHECK(r.Status == STATUS_SUCCESS);
    const std::vector<uint8_t> got = t.sink_bytes(200);
    for (uint32_t i = 0; i < 200; ++i) REQUIRE(got[i] == uint8_t(4096 + 100 + 4000 + i));

    REQUIRE(t.b.NdkInvalidate(t.qp_b, 13, fr, 0) == STATUS_SUCCESS);
    const NDK_RESULT_EX inv = TwoNodes::next(t.b, t.cq_b);
    CHECK(inv.Status == STATUS_SUCCESS);
    CHECK(inv.Type == NdkOperationTypeInvalidate);
  });
}

TEST_CASE("a stale fast-register token is refused after invalidate", "[tlm][fastreg]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    host::MrHandle fr = 0;
    REQUIRE(t.b.CreateMr(t.pd_b, true, &fr) == STATUS_SUCCESS);
    REQUIRE(t.b.InitializeFastRegisterMr(fr, 2, true) == STATUS_SUCCESS);
    const std::vector<uint64_t> pages = t.src.page_array(0, 4096);
    REQUIRE(t.b.NdkFastRegister(t.qp_b, 1, fr, 1, pages.data(), 0, 4096, 0x20000000ull,
                                NDK_OP_FLAG_ALLOW_REMOTE_READ) == STATUS_SUCCESS);
    REQUIRE(TwoNodes::next(t.b, t.cq_b).Status == STATUS_SUCCESS);
    const uint32_t token = t.b.GetRemoteTokenFromMr(fr);
    REQUIRE(t.b.NdkInvalidate(t.qp_b, 2, fr, 0) == STATUS_SUCCESS);
    REQUIRE(TwoNodes::next(t.b, t.cq_b).Status == STATUS_SUCCESS);
    CHECK(t.read(0x20000000ull, token, 64, 3).Status == STATUS_ACCESS_VIOLATION);
    for (uint8_t byte : t.sink_bytes(4096)) REQUIRE(byte == 0xEE);
  });
}

TEST_CASE("fast-register past the initialised capacity fails on the device", "[tlm][fastreg]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    host::MrHandle fr = 0;
    REQUIRE(t.b.CreateMr(t.pd_b, true, &fr) == STATUS_SUCCESS);
    REQUIRE(t.b.InitializeFastRegisterMr(fr, 1, false) == STATUS_SUCCESS);
    CHECK(t.b.InitializeFastRegisterMr(fr, 1, false) == STATUS_INVALID_PARAMETER);
    const std::vector<uint64_t> pages = t.src.page_array(0, 8192);
    REQUIRE(t.b.NdkFastRegister(t.qp_b, 1, fr, 2, pages.data(), 0, 8192, 0x30000000ull, 0) ==
            STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.b, t.cq_b).Status == STATUS_ACCESS_VIOLATION);
    // Remote rights on an MR initialised without remote access are refused inline.
    CHECK(t.b.NdkFastRegister(t.qp_b, 2, fr, 1, pages.data(), 0, 4096, 0x30000000ull,
                              NDK_OP_FLAG_ALLOW_REMOTE_READ) == STATUS_ACCESS_VIOLATION);
  });
}

TEST_CASE("InitializeFastRegisterMr above FRMRPageCount is an implementation limit",
          "[tlm][fastreg]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    host::MrHandle fr = 0;
    REQUIRE(t.b.CreateMr(t.pd_b, true, &fr) == STATUS_SUCCESS);
    const uint32_t limit = t.b.QueryAdapterInfo().FRMRPageCount;
    CHECK(t.b.InitializeFastRegisterMr(fr, limit + 1, true) == STATUS_IMPLEMENTATION_LIMIT);
    CHECK(t.b.InitializeFastRegisterMr(fr, limit, true) == STATUS_SUCCESS);
  });
}

TEST_CASE("flush cancels later requests in posting order", "[tlm][flush]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    t.bind_window(0, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    REQUIRE(t.a.NdkFlush(t.qp_a) == STATUS_SUCCESS);
    NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), 64, t.a.GetLocalTokenFromMr(t.mr_a)};
    const uint32_t token = t.b.GetRemoteTokenFromMw(t.mw_b);
    for (uint64_t ctx = 20; ctx < 23; ++ctx) {
      REQUIRE(t.a.NdkRead(t.qp_a, ctx, &sge, 1, t.b.ObjectBaseVa(t.mw_b), token,
                          NDK_OP_FLAG_SILENT_SUCCESS) == STATUS_SUCCESS);
    }
    auto done = t.a.WaitCq(t.cq_a, 3, sc_core::sc_time(1, sc_core::SC_MS));
    REQUIRE(done.size() == 3);
    for (uint64_t i = 0; i < 3; ++i) {
      CHECK(done[i].Status == STATUS_CANCELLED);  // failures complete despite SILENT_SUCCESS
      CHECK(done[i].RequestContext == 20 + i);
    }
    for (uint8_t byte : t.sink_bytes(4096)) REQUIRE(byte == 0xEE);
  });
}

TEST_CASE("an access error moves both QPs to error, later requests are cancelled",
          "[tlm][error]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    t.bind_window(0, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), 64, t.a.GetLocalTokenFromMr(t.mr_a)};
    const uint32_t token = t.b.GetRemoteTokenFromMw(t.mw_b);
    const uint64_t va = t.b.ObjectBaseVa(t.mw_b);
    REQUIRE(t.a.NdkRead(t.qp_a, 1, &sge, 1, va, token ^ 0x80, 0) == STATUS_SUCCESS);  // bad
    REQUIRE(t.a.NdkRead(t.qp_a, 2, &sge, 1, va, token, 0) == STATUS_SUCCESS);
    auto done = t.a.WaitCq(t.cq_a, 2, sc_core::sc_time(1, sc_core::SC_MS));
    REQUIRE(done.size() == 2);
    CHECK(done[0].Status == STATUS_ACCESS_VIOLATION);
    CHECK(done[0].RequestContext == 1);
    CHECK(done[1].Status == STATUS_CANCELLED);
    CHECK(done[1].RequestContext == 2);
    // B's QP is in error too: its next request is flushed.
    REQUIRE(t.b.NdkBind(t.qp_b, 9, t.mr_b, t.mw_b, t.b.ObjectBaseVa(t.mr_b), 4096,
                        NDK_OP_FLAG_ALLOW_REMOTE_READ) == STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.b, t.cq_b).Status == STATUS_CANCELLED);
  });
}
