// SPDX-License-Identifier: Apache-2.0
// Regression tests for what fuzz_api_sequence found (tests/fuzz/): each case replays the
// essence of a finding through the real units of two nodes.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support/two_nodes.h"

using namespace rnic;
using namespace rnic::ndk;
using rnic::test::TwoNodes;

namespace {

uint64_t counter(const System& system, const std::string& owner, const std::string& name) {
  uint64_t value = 0;
  system.visit_stats([&](const std::string& o, const Counter& c) {
    if (o == owner && c.name == name) value = c.value;
  });
  return value;
}

// Waits until A's requester has sent `reads` read requests (its sink checks are done).
void wait_until_sent(TwoNodes& t, uint64_t reads) {
  for (int i = 0; i < 100000 && counter(t.system, "A.rnic.requester", "reads") < reads; ++i)
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_NS));
  REQUIRE(counter(t.system, "A.rnic.requester", "reads") == reads);
}

}  // namespace

TEST_CASE("read data never lands in a sink MR deregistered while the read is out", "[tlm][fuzz]") {
  // Finding: the requester checked the sink when the read started and wrote the response
  // data into its pages later without looking again; the protection monitor flagged the write.
  TwoNodes t;
  t.run([&] {
    t.setup();
    t.bind_window(0, 4096, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    const NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), 256, t.a.GetLocalTokenFromMr(t.mr_a)};
    REQUIRE(t.a.NdkRead(t.qp_a, 1, &sge, 1, t.b.ObjectBaseVa(t.mw_b),
                        t.b.GetRemoteTokenFromMw(t.mw_b), 0) == STATUS_SUCCESS);
    wait_until_sent(t, 1);
    REQUIRE(t.a.DeregisterMr(t.mr_a) == STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.a, t.cq_a).Status == STATUS_ACCESS_VIOLATION);
    const std::vector<uint8_t> got = t.sink_bytes(256);
    for (uint8_t byte : got) REQUIRE(byte == 0xEE);  // untouched
    // Found by the generation compare when the data landed, then refused by the full check.
    CHECK(counter(t.system, "A.rnic.protection", "rechecks") == 1);
    CHECK(counter(t.system, "A.rnic.protection", "rechecks_changed") == 1);
  });
}

TEST_CASE("read data lands after one generation compare when no MPT entry changed",
          "[tlm][fuzz]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    t.bind_window(0, 4096, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    const uint64_t checks_before = counter(t.system, "A.rnic.protection", "checks");
    const NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), 256, t.a.GetLocalTokenFromMr(t.mr_a)};
    REQUIRE(t.a.NdkRead(t.qp_a, 1, &sge, 1, t.b.ObjectBaseVa(t.mw_b),
                        t.b.GetRemoteTokenFromMw(t.mw_b), 0) == STATUS_SUCCESS);
    CHECK(TwoNodes::next(t.a, t.cq_a).Status == STATUS_SUCCESS);
    CHECK(counter(t.system, "A.rnic.protection", "checks") - checks_before == 1);  // the sink
    CHECK(counter(t.system, "A.rnic.protection", "rechecks") == 1);
    CHECK(counter(t.system, "A.rnic.protection", "rechecks_changed") == 0);
    const std::vector<uint8_t> got = t.sink_bytes(256);
    for (uint32_t i = 0; i < 256; ++i) REQUIRE(got[i] == uint8_t(i));  // the source's bytes
  });
}

TEST_CASE("a request that fails after a later one failed: the later one is CANCELLED",
          "[tlm][fuzz]") {
  // Finding: a read whose sink check fails when it starts fails at once, while the read posted
  // before it waits for its response; when that response is an error too, both completed with an
  // error status instead of one error and CANCELLED after it (R4.error.flush_later).
  TwoNodes t;
  t.run([&] {
    t.setup();
    const NDK_SGE sink{t.a.ObjectBaseVa(t.mr_a), 64, t.a.GetLocalTokenFromMr(t.mr_a)};
    // 1: B refuses it (mr_b has no remote read), after a round trip.
    REQUIRE(t.a.NdkRead(t.qp_a, 1, &sink, 1, t.b.ObjectBaseVa(t.mr_b),
                        t.b.GetRemoteTokenFromMr(t.mr_b), 0) == STATUS_SUCCESS);
    // 2: a sink token of no MR: fails when it starts, before 1's answer is back.
    const NDK_SGE bad{t.a.ObjectBaseVa(t.mr_a), 64, 0x7f00};
    REQUIRE(t.a.NdkRead(t.qp_a, 2, &bad, 1, t.b.ObjectBaseVa(t.mr_b),
                        t.b.GetRemoteTokenFromMr(t.mr_b), 0) == STATUS_SUCCESS);
    const std::vector<NDK_RESULT_EX> done =
        t.a.WaitCq(t.cq_a, 2, sc_core::sc_time(1, sc_core::SC_MS));
    REQUIRE(done.size() == 2);
    CHECK(done[0].RequestContext == 1);
    CHECK(done[0].Status == STATUS_ACCESS_VIOLATION);
    CHECK(done[1].RequestContext == 2);
    CHECK(done[1].Status == STATUS_CANCELLED);
  });
}

TEST_CASE("a flush cancels a request that failed behind one still running", "[tlm][fuzz]") {
  // Finding: a write waits for its acknowledgement, the read after it fails when it starts
  // (a sink token of no MR) and waits behind the write for its completion; a Flush then
  // cancelled the write but left the read's error after it, where only CANCELLED may follow
  // (R4.error.flush_later).
  TwoNodes t;
  t.run([&] {
    t.setup();
    host::MrHandle target = 0;
    REQUIRE(t.b.CreateMr(t.pd_b, false, &target) == STATUS_SUCCESS);
    REQUIRE(t.b.RegisterMr(target, t.src, 8192, 4096, NDK_MR_FLAG_ALLOW_REMOTE_WRITE) ==
            STATUS_SUCCESS);
    const NDK_SGE src{t.a.ObjectBaseVa(t.mr_a), 64, t.a.GetLocalTokenFromMr(t.mr_a)};
    REQUIRE(t.a.NdkWrite(t.qp_a, 1, &src, 1, t.b.ObjectBaseVa(target),
                         t.b.GetRemoteTokenFromMr(target), 0) == STATUS_SUCCESS);
    const NDK_SGE bad{t.a.ObjectBaseVa(t.mr_a), 64, 0x7f00};
    REQUIRE(t.a.NdkRead(t.qp_a, 2, &bad, 1, t.b.ObjectBaseVa(t.mr_b),
                        t.b.GetRemoteTokenFromMr(t.mr_b), 0) == STATUS_SUCCESS);
    // Until the read has failed (the write's acknowledgement takes a round trip longer).
    for (int i = 0; i < 100000 && counter(t.system, "A.rnic.requester", "errors") == 0; ++i)
      sc_core::wait(sc_core::sc_time(10, sc_core::SC_NS));
    REQUIRE(counter(t.system, "A.rnic.requester", "errors") == 1);
    REQUIRE(counter(t.system, "A.rnic.requester", "writes") == 1);
    REQUIRE(t.a.NdkFlush(t.qp_a) == STATUS_SUCCESS);
    const std::vector<NDK_RESULT_EX> done =
        t.a.WaitCq(t.cq_a, 2, sc_core::sc_time(1, sc_core::SC_MS));
    REQUIRE(done.size() == 2);
    CHECK(done[0].RequestContext == 1);
    CHECK(done[0].Status == STATUS_CANCELLED);
    CHECK(done[1].RequestContext == 2);
    CHECK(done[1].Status == STATUS_CANCELLED);
  });
}
