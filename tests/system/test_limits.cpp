// SPDX-License-Identifier: Apache-2.0
// The host API's limits: every table and queue is bounded, and running into a bound is the NTSTATUS
// of docs/behaviour.md (INSUFFICIENT_RESOURCES for a full table or queue, INVALID_PARAMETER for a
// size the adapter never takes, IMPLEMENTATION_LIMIT above FRMRPageCount), inline, with no
// completion. docs/user-guide.md "Limits" lists them.
#include <catch2/catch.hpp>
#include <algorithm>
#include <vector>

#include "host_api/limits.h"
#include "support/two_nodes.h"

using namespace rnic;
using namespace rnic::ndk;
using rnic::test::TwoNodes;

namespace {

SystemConfig small_tables() {
  SystemConfig c;
  c.rnic.qp.max_qps = 4;  // numbers 1..3
  c.rnic.qp.max_cqs = 3;  // numbers 1..2
  c.rnic.qp.max_mpt_entries = 6;
  c.rnic.qp.max_mtt_entries = 64;
  return c;
}

}  // namespace

TEST_CASE("the adapter reports its limits", "[tlm][limits]") {
  TwoNodes t;
  t.run([&] {
    const NDK_ADAPTER_INFO info = t.a.QueryAdapterInfo();
    CHECK(info.MaxCqDepth == host::kMaxCqDepth);
    CHECK(info.MaxInitiatorQueueDepth == host::kMaxQueueDepth);
    CHECK(info.MaxReceiveQueueDepth == host::kMaxQueueDepth);
    CHECK(info.MaxInitiatorSge == std::min<uint32_t>(t.config.rnic.qp.max_sge, kMaxSge));
    CHECK(info.FRMRPageCount == t.config.rnic.qp.max_fr_pages);
    CHECK(info.MaxInlineDataSize == kMaxInlineBytes);
    CHECK(info.MaxOutboundReadLimit == t.config.rnic.qp.max_ord);
  });
}

TEST_CASE("depths outside the adapter's range are invalid parameters", "[tlm][limits]") {
  TwoNodes t;
  t.run([&] {
    host::PdHandle pd = 0;
    host::CqHandle cq = 0;
    host::QpHandle qp = 0;
    REQUIRE(t.a.CreatePd(&pd) == STATUS_SUCCESS);
    CHECK(t.a.CreateCq(0, &cq) == STATUS_INVALID_PARAMETER);
    CHECK(t.a.CreateCq(host::kMaxCqDepth + 1, &cq) == STATUS_INVALID_PARAMETER);
    CHECK(t.a.CreateCq(0xffffffffu, &cq) == STATUS_INVALID_PARAMETER);
    REQUIRE(t.a.CreateCq(host::kMaxCqDepth, &cq) == STATUS_SUCCESS);
    const uint32_t max = host::kMaxQueueDepth;
    CHECK(t.a.CreateQp(pd, cq, 0, 1, 1, 1, 0, &qp) == STATUS_INVALID_PARAMETER);
    CHECK(t.a.CreateQp(pd, cq, max + 1, 1, 1, 1, 0, &qp) == STATUS_INVALID_PARAMETER);
    CHECK(t.a.CreateQp(pd, cq, 1, max + 1, 1, 1, 0, &qp) == STATUS_INVALID_PARAMETER);
    const uint32_t ord = t.config.rnic.qp.max_ord, ird = t.config.rnic.qp.max_ird;
    CHECK(t.a.CreateQp(pd, cq, 1, 1, ord + 1, 1, 0, &qp) == STATUS_INVALID_PARAMETER);
    CHECK(t.a.CreateQp(pd, cq, 1, 1, 1, ird + 1, 0, &qp) == STATUS_INVALID_PARAMETER);
    CHECK(t.a.CreateQp(pd, cq, max, max, ord, ird, 0, &qp) == STATUS_SUCCESS);
    CHECK(t.a.Usage().qps == 1);
  });
}

TEST_CASE("full QP, CQ, MPT and MTT tables are insufficient resources until closed",
          "[tlm][limits]") {
  TwoNodes t(small_tables());
  t.run([&] {
    host::PdHandle pd = 0;
    REQUIRE(t.a.CreatePd(&pd) == STATUS_SUCCESS);
    std::vector<host::CqHandle> cqs(2);
    for (host::CqHandle& cq : cqs) REQUIRE(t.a.CreateCq(4, &cq) == STATUS_SUCCESS);
    host::CqHandle cq = 0;
    CHECK(t.a.CreateCq(4, &cq) == STATUS_INSUFFICIENT_RESOURCES);
    std::vector<host::QpHandle> qps(3);
    for (host::QpHandle& qp : qps)
      REQUIRE(t.a.CreateQp(pd, cqs[0], 4, 4, 1, 1, 0, &qp) == STATUS_SUCCESS);
    host::QpHandle qp = 0;
    CHECK(t.a.CreateQp(pd, cqs[0], 4, 4, 1, 1, 0, &qp) == STATUS_INSUFFICIENT_RESOURCES);
    // MPT: 5 usable entries (index 0 is never used), MRs and MWs alike.
    std::vector<host::MrHandle> mrs(3);
    for (host::MrHandle& mr : mrs) REQUIRE(t.a.CreateMr(pd, false, &mr) == STATUS_SUCCESS);
    host::MwHandle mw = 0;
    REQUIRE(t.a.CreateMw(pd, &mw) == STATUS_SUCCESS);
    REQUIRE(t.a.CreateMw(pd, &mw) == STATUS_SUCCESS);
    host::MrHandle mr = 0;
    CHECK(t.a.CreateMr(pd, true, &mr) == STATUS_INSUFFICIENT_RESOURCES);
    CHECK(t.a.CreateMw(pd, &mw) == STATUS_INSUFFICIENT_RESOURCES);
    // MTT: 64 pages. 48 + 16 fit, one more page does not, fast-register capacity neither.
    host::Buffer buffer;
    REQUIRE(t.a.AllocBuffer(65 * 4096, 4096, false, host::BufferFill::Zero, 0, &buffer) ==
            STATUS_SUCCESS);
    REQUIRE(t.a.RegisterMr(mrs[0], buffer, 0, 48 * 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE) ==
            STATUS_SUCCESS);
    REQUIRE(t.a.RegisterMr(mrs[1], buffer, 0, 16 * 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE) ==
            STATUS_SUCCESS);
    CHECK(t.a.RegisterMr(mrs[2], buffer, 0, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE) ==
          STATUS_INSUFFICIENT_RESOURCES);
    CHECK(t.a.Usage().free_mtt_entries == 0);
    // Closing gives each back.
    REQUIRE(t.a.DeregisterMr(mrs[1]) == STATUS_SUCCESS);
    CHECK(t.a.RegisterMr(mrs[2], buffer, 0, 4096, NDK_MR_FLAG_ALLOW_LOCAL_WRITE) == STATUS_SUCCESS);
    REQUIRE(t.a.CloseMr(mrs[1]) == STATUS_SUCCESS);
    CHECK(t.a.CreateMr(pd, true, &mr) == STATUS_SUCCESS);
    REQUIRE(t.a.CloseQp(qps[2]) == STATUS_SUCCESS);
    CHECK(t.a.CreateQp(pd, cqs[1], 4, 4, 1, 1, 0, &qp) == STATUS_SUCCESS);
    CHECK(qp == qps[2]);
    REQUIRE(t.a.CloseCq(cqs[1]) == STATUS_DEVICE_BUSY);  // qp completes on it
    REQUIRE(t.a.CloseQp(qp) == STATUS_SUCCESS);
    REQUIRE(t.a.CloseCq(cqs[1]) == STATUS_SUCCESS);
    CHECK(t.a.CreateCq(4, &cq) == STATUS_SUCCESS);
  });
}

TEST_CASE("at most 65536 PDs are open at once", "[tlm][limits]") {
  TwoNodes t;
  t.run([&] {
    host::PdHandle pd = 0, first = 0;
    for (uint32_t i = 0; i < host::kMaxPds; ++i) {
      REQUIRE(t.a.CreatePd(&pd) == STATUS_SUCCESS);
      if (i == 0) first = pd;
    }
    CHECK(t.a.CreatePd(&pd) == STATUS_INSUFFICIENT_RESOURCES);
    REQUIRE(t.a.ClosePd(first) == STATUS_SUCCESS);
    CHECK(t.a.CreatePd(&pd) == STATUS_SUCCESS);
    CHECK(t.a.Usage().pds == host::kMaxPds);
  });
}

TEST_CASE("host memory runs out as insufficient resources", "[tlm][limits]") {
  SystemConfig c;
  c.host_memory.size_bytes = 16ull << 20;
  c.rnic.qp.max_qps = 256;  // small tables: most of the 16 MiB is left to buffers
  c.rnic.qp.max_cqs = 256;
  TwoNodes t(c);
  t.run([&] {
    host::Buffer b;
    CHECK(t.a.AllocBuffer(0, 4096, false, host::BufferFill::Zero, 0, &b) ==
          STATUS_INVALID_PARAMETER);
    CHECK(t.a.AllocBuffer(1ull << 40, 4096, false, host::BufferFill::Zero, 0, &b) ==
          STATUS_INSUFFICIENT_RESOURCES);
    CHECK(t.a.AllocBuffer(~0ull, 4096, false, host::BufferFill::Zero, 0, &b) ==
          STATUS_INSUFFICIENT_RESOURCES);
    // Fill memory, then queues and rings have none either.
    while (t.a.AllocBuffer(1 << 20, 4096, false, host::BufferFill::Zero, 0, &b) == STATUS_SUCCESS) {
    }
    while (t.a.AllocBuffer(4096, 4096, false, host::BufferFill::Zero, 0, &b) == STATUS_SUCCESS) {
    }
    CHECK(t.a.Usage().free_memory_bytes == 0);
    host::PdHandle pd = 0;
    host::CqHandle cq = 0;
    host::QpHandle qp = 0;
    REQUIRE(t.a.CreatePd(&pd) == STATUS_SUCCESS);
    CHECK(t.a.CreateCq(4, &cq) == STATUS_INSUFFICIENT_RESOURCES);
    CHECK(t.a.Usage().cqs == 0);
    REQUIRE(t.a.FreeBuffer(b) == STATUS_SUCCESS);  // one page: the CQ ring
    REQUIRE(t.a.CreateCq(4, &cq) == STATUS_SUCCESS);
    CHECK(t.a.CreateQp(pd, cq, 4, 4, 1, 1, 0, &qp) == STATUS_INSUFFICIENT_RESOURCES);
    CHECK(t.a.Usage().qps == 0);
  });
}

TEST_CASE("requests beyond the SGE, length and inline limits fail inline, uncompleted",
          "[tlm][limits]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    const uint32_t max_sge = t.a.QueryAdapterInfo().MaxInitiatorSge;
    std::vector<NDK_SGE> sgl(max_sge + 1,
                             NDK_SGE{t.a.ObjectBaseVa(t.mr_a), 8, t.a.GetLocalTokenFromMr(t.mr_a)});
    const uint64_t remote = t.b.ObjectBaseVa(t.mr_b);
    const uint32_t token = t.b.GetRemoteTokenFromMr(t.mr_b);
    CHECK(t.a.NdkRead(t.qp_a, 1, sgl.data(), max_sge + 1, remote, token, 0) ==
          STATUS_INVALID_PARAMETER);
    CHECK(t.a.NdkWrite(t.qp_a, 2, sgl.data(), max_sge + 1, remote, token, 0) ==
          STATUS_INVALID_PARAMETER);
    CHECK(t.a.NdkReceive(t.qp_a, 3, sgl.data(), max_sge + 1) == STATUS_INVALID_PARAMETER);
    CHECK(t.a.NdkRead(t.qp_a, 4, nullptr, 1, remote, token, 0) == STATUS_INVALID_PARAMETER);
    // Longer than MaxTransferLength: 2^31 + 1 bytes over two SGEs.
    NDK_SGE huge[2] = {{t.a.ObjectBaseVa(t.mr_a), 0x80000000u, t.a.GetLocalTokenFromMr(t.mr_a)},
                       {t.a.ObjectBaseVa(t.mr_a), 1, t.a.GetLocalTokenFromMr(t.mr_a)}};
    CHECK(t.a.NdkRead(t.qp_a, 5, huge, 2, remote, token, 0) == STATUS_INVALID_PARAMETER);
    // INLINE above MaxInlineDataSize.
    NDK_SGE inline_sge{t.a.ObjectBaseVa(t.mr_a), kMaxInlineBytes + 1, 0};
    CHECK(t.a.NdkSend(t.qp_a, 6, &inline_sge, 1, NDK_OP_FLAG_INLINE) == STATUS_INVALID_PARAMETER);
    // None of them completes.
    CHECK(t.a.WaitCq(t.cq_a, 0, sc_core::sc_time(100, sc_core::SC_US)).empty());
  });
}

TEST_CASE("full send and receive queues are insufficient resources, uncompleted", "[tlm][limits]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    host::QpHandle qp = 0, peer = 0;
    REQUIRE(t.a.CreateQp(t.pd_a, t.cq_a, 2, 2, 1, 1, 0, &qp) == STATUS_SUCCESS);
    REQUIRE(t.b.CreateQp(t.pd_b, t.cq_b, 2, 2, 1, 1, 0, &peer) == STATUS_SUCCESS);
    REQUIRE(host::Adapter::Connect(t.a, qp, t.b, peer) == STATUS_SUCCESS);
    const NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), 8, t.a.GetLocalTokenFromMr(t.mr_a)};
    const uint64_t remote = t.b.ObjectBaseVa(t.mr_b);
    const uint32_t token = t.b.GetRemoteTokenFromMr(t.mr_b);
    // Deferred: nothing leaves the ring until a doorbell.
    REQUIRE(t.a.NdkRead(qp, 1, &sge, 1, remote, token, NDK_OP_FLAG_DEFER) == STATUS_SUCCESS);
    REQUIRE(t.a.NdkRead(qp, 2, &sge, 1, remote, token, NDK_OP_FLAG_DEFER) == STATUS_SUCCESS);
    CHECK(t.a.NdkRead(qp, 3, &sge, 1, remote, token, 0) == STATUS_INSUFFICIENT_RESOURCES);
    REQUIRE(t.a.NdkReceive(qp, 4, &sge, 1) == STATUS_SUCCESS);
    REQUIRE(t.a.NdkReceive(qp, 5, &sge, 1) == STATUS_SUCCESS);
    CHECK(t.a.NdkReceive(qp, 6, &sge, 1) == STATUS_INSUFFICIENT_RESOURCES);
    // The failed read rang the doorbell for the deferred ones: they complete (mr_b allows no
    // remote read: the first fails, the second is flushed), 3 and 6 never do.
    REQUIRE(t.a.CloseQp(qp) == STATUS_SUCCESS);
    std::vector<uint64_t> contexts;
    for (const NDK_RESULT_EX& r : t.a.WaitCq(t.cq_a, 0, sc_core::sc_time(100, sc_core::SC_US)))
      contexts.push_back(r.RequestContext);
    std::sort(contexts.begin(), contexts.end());  // the two queues complete in any order
    CHECK(contexts == std::vector<uint64_t>{1, 2, 4, 5});
  });
}

TEST_CASE("fast-register page counts above FRMRPageCount", "[tlm][limits]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    const uint32_t limit = t.config.rnic.qp.max_fr_pages;
    host::MrHandle fr = 0;
    REQUIRE(t.b.CreateMr(t.pd_b, true, &fr) == STATUS_SUCCESS);
    CHECK(t.b.InitializeFastRegisterMr(fr, limit + 1, true) == STATUS_IMPLEMENTATION_LIMIT);
    REQUIRE(t.b.InitializeFastRegisterMr(fr, 4, true) == STATUS_SUCCESS);
    const std::vector<uint64_t> pages(limit + 1, t.src.pages[0]);
    CHECK(t.b.NdkFastRegister(t.qp_b, 1, fr, limit + 1, pages.data(), 0, 4096, 0x10000000, 0) ==
          STATUS_INVALID_PARAMETER);
    CHECK(t.b.NdkFastRegister(t.qp_b, 2, fr, 0xffffffffu, pages.data(), 0, 4096, 0x10000000, 0) ==
          STATUS_INVALID_PARAMETER);
    CHECK(t.b.WaitCq(t.cq_b, 0, sc_core::sc_time(50, sc_core::SC_US)).empty());
  });
}
