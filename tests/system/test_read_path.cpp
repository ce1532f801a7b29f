// SPDX-License-Identifier: Apache-2.0
// End-to-end RDMA read through the real units of two nodes: bytes, statuses and counters.
#include <catch2/catch.hpp>

#include <vector>

#include "support/two_nodes.h"

using namespace rnic;
using namespace rnic::ndk;
using rnic::test::TwoNodes;

TEST_CASE("read through a bound window lands the source bytes", "[tlm][read]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    const NDK_RESULT_EX bind = t.bind_window(4096, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    CHECK(bind.Status == STATUS_SUCCESS);
    CHECK(bind.Type == NdkOperationTypeBind);
    const uint64_t window_va = t.b.ObjectBaseVa(t.mw_b);
    CHECK(window_va == t.b.ObjectBaseVa(t.mr_b) + 4096);
    const NDK_RESULT_EX r = t.read(window_va + 100, t.b.GetRemoteTokenFromMw(t.mw_b), 256, 2);
    CHECK(r.Status == STATUS_SUCCESS);
    CHECK(r.Type == NdkOperationTypeRead);
    CHECK(r.RequestContext == 2);
    CHECK(r.QPContext == 0xA);
    const std::vector<uint8_t> got = t.sink_bytes(256);
    for (uint32_t i = 0; i < 256; ++i) REQUIRE(got[i] == uint8_t(4196 + i));
  });
  uint64_t reads = 0, completions = 0;
  t.system.visit_stats([&](const std::string& owner, const Counter& c) {
    if (owner == "A.rnic.requester" && c.name == "reads") reads = c.value;
    if (owner == "A.rnic.completion" && c.name == "completions") completions = c.value;
  });
  CHECK(reads == 1);
  CHECK(completions == 1);
}

TEST_CASE("a read with a stale or wrong token fails and copies nothing", "[tlm][read]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    t.bind_window(0, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    const uint32_t token = t.b.GetRemoteTokenFromMw(t.mw_b);
    const NDK_RESULT_EX r =
        t.read(t.b.ObjectBaseVa(t.mw_b), token ^ 0x1, 64, 3);  // wrong tag
    CHECK(r.Status == STATUS_ACCESS_VIOLATION);
    for (uint8_t byte : t.sink_bytes(4096)) REQUIRE(byte == 0xEE);
  });
}

TEST_CASE("a read past the window end fails and copies nothing", "[tlm][read]") {
  TwoNodes t;
  t.run([&] {
    t.setup();
    t.bind_window(0, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    const NDK_RESULT_EX r =
        t.read(t.b.ObjectBaseVa(t.mw_b) + 8192 - 16, t.b.GetRemoteTokenFromMw(t.mw_b), 32, 4);
    CHECK(r.Status == STATUS_ACCESS_VIOLATION);
    for (uint8_t byte : t.sink_bytes(4096)) REQUIRE(byte == 0xEE);
  });
}

TEST_CASE("a read into a sink without local write fails and copies nothing", "[tlm][read]") {
  TwoNodes t;
  t.run([&] {
    t.setup(NDK_MR_FLAG_RDMA_READ_SINK);  // no ALLOW_LOCAL_WRITE
    t.bind_window(0, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    const NDK_RESULT_EX r =
        t.read(t.b.ObjectBaseVa(t.mw_b), t.b.GetRemoteTokenFromMw(t.mw_b), 64, 5);
    CHECK(r.Status == STATUS_ACCESS_VIOLATION);
    for (uint8_t byte : t.sink_bytes(4096)) REQUIRE(byte == 0xEE);
  });
}

TEST_CASE("the protection monitor flags a DMA the tables in host memory do not allow",
          "[tlm][monitor]") {
  // Deliberately break the device: the driver marks B's MR FREE in host memory but does not
  // tell the device, whose MPT cache still holds it VALID. The device's own check passes and
  // the read completes successfully; the monitor, which reads the tables, must fire.
  test::expect_reports("rnicsim/protection_monitor");
  TwoNodes t;
  t.provokes_violations = true;
  uint64_t violations_before = 0;
  t.run([&] {
    t.setup();
    // Only this MR may cover the source pages: drop the bench's own registration of them.
    REQUIRE(t.b.DeregisterMr(t.mr_b) == STATUS_SUCCESS);
    REQUIRE(t.b.CreateMr(t.pd_b, false, &t.mr_b) == STATUS_SUCCESS);
    REQUIRE(t.b.RegisterMr(t.mr_b, t.src, 0, 4096,
                           NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ) ==
            STATUS_SUCCESS);
    const uint64_t va = t.b.ObjectBaseVa(t.mr_b);
    const uint32_t token = t.b.GetRemoteTokenFromMr(t.mr_b);
    CHECK(t.read(va, token, 64, 1).Status == STATUS_SUCCESS);  // warms the device's MPT cache
    violations_before = t.system.protection_violations();
    const IcmLayout icm = IcmLayout::from(t.config.rnic.qp);
    uint8_t raw[kMptEntryBytes];
    REQUIRE(t.system.node(1).cpu.mem_read(icm.mpt_addr(t.mr_b), raw, kMptEntryBytes));
    MptEntry entry = MptEntry::decode(raw);
    entry.state = MptState::Free;
    entry.encode(raw);
    REQUIRE(t.system.node(1).cpu.mem_write(icm.mpt_addr(t.mr_b), raw, kMptEntryBytes));
    CHECK(t.read(va, token, 64, 2).Status == STATUS_SUCCESS);  // the device did not notice
  });
  CHECK(violations_before == 0);
  CHECK(t.system.protection_violations() == 1);
  test::expect_reports("");
}
