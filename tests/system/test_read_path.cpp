// SPDX-License-Identifier: Apache-2.0
// End-to-end RDMA read through the real units of two nodes: bytes, statuses and counters.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <string>
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

// Host memory's copy of B's entry for `mr` changed behind the device's back (no context change:
// the device keeps its cached copy and serves the read as before).
namespace {
void change_mpt_in_host_memory(TwoNodes& t, uint32_t mr, const std::function<void(MptEntry&)>& f) {
  const IcmLayout icm = IcmLayout::from(t.config.rnic.qp);
  uint8_t raw[kMptEntryBytes];
  REQUIRE(t.system.node(1).cpu.mem_read(icm.mpt_addr(mr), raw, kMptEntryBytes));
  MptEntry entry = MptEntry::decode(raw);
  f(entry);
  entry.encode(raw);
  REQUIRE(t.system.node(1).cpu.mem_write(icm.mpt_addr(mr), raw, kMptEntryBytes));
}
}  // namespace

TEST_CASE("the protection monitor holds a DMA to the token its request named and not to any "
          "valid region", "[tlm][monitor]") {
  // B's window moves to another PD, in host memory only. Its bytes are still those of a VALID
  // region, so only a check of the token the read named sees it: R5.read.resp.pd.
  test::expect_reports("rnicsim/protection_monitor");
  TwoNodes t;
  t.provokes_violations = true;
  t.run([&] {
    t.setup();
    REQUIRE(t.bind_window(0, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ).Status == STATUS_SUCCESS);
    const uint64_t va = t.b.ObjectBaseVa(t.mw_b);
    const uint32_t token = t.b.GetRemoteTokenFromMw(t.mw_b);
    CHECK(t.read(va, token, 64, 1).Status == STATUS_SUCCESS);  // warms the device's MPT cache
    change_mpt_in_host_memory(t, t.mw_b, [](MptEntry& e) { e.pd += 1; });
    CHECK(t.read(va, token, 64, 2).Status == STATUS_SUCCESS);  // the device did not notice
  });
  REQUIRE(t.system.protection_violations() == 1);
  const std::string line = t.system.first_protection_violation();
  CHECK(line.find("node B: read of 64 B") != std::string::npos);
  CHECK(line.find("'s read (remote_read checks") != std::string::npos);
  CHECK(line.find("breaks R5.read.resp.pd") != std::string::npos);
  test::expect_reports("");
}

TEST_CASE("the protection monitor checks the bytes against the named region's translation",
          "[tlm][monitor]") {
  // The MR under B's window now translates its first page elsewhere, in host memory only: the
  // device, with its cached translation, reads the old page, which the MR no longer maps
  // (R6.no_touch).
  test::expect_reports("rnicsim/protection_monitor");
  TwoNodes t;
  t.provokes_violations = true;
  t.run([&] {
    t.setup();
    REQUIRE(t.bind_window(0, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ).Status == STATUS_SUCCESS);
    const uint64_t va = t.b.ObjectBaseVa(t.mw_b);
    const uint32_t token = t.b.GetRemoteTokenFromMw(t.mw_b);
    CHECK(t.read(va, token, 64, 1).Status == STATUS_SUCCESS);  // warms the MPT and MTT caches
    const IcmLayout icm = IcmLayout::from(t.config.rnic.qp);
    uint8_t raw[kMptEntryBytes];
    REQUIRE(t.system.node(1).cpu.mem_read(icm.mpt_addr(t.mr_b), raw, kMptEntryBytes));
    const MptEntry mr = MptEntry::decode(raw);
    uint8_t mtt[kMttEntryBytes];
    REQUIRE(t.system.node(1).cpu.mem_read(icm.mtt_addr(mr.mtt_index), mtt, kMttEntryBytes));
    mtt[1] ^= 0x10;  // 4 KiB pages: another page of the same host memory
    REQUIRE(t.system.node(1).cpu.mem_write(icm.mtt_addr(mr.mtt_index), mtt, kMttEntryBytes));
    CHECK(t.read(va, token, 64, 2).Status == STATUS_SUCCESS);
  });
  REQUIRE(t.system.protection_violations() == 1);
  CHECK(t.system.first_protection_violation().find("breaks R6.no_touch") != std::string::npos);
  test::expect_reports("");
}

TEST_CASE("a polling driver takes no interrupt, one that arms takes one per arm, even for an "
          "entry that landed before its arm arrived", "[tlm][read][cq]") {
  TwoNodes t;
  uint64_t interrupts_polled = 0, interrupts_armed = 0, interrupts_late = 0;
  t.run([&] {
    t.setup();
    t.bind_window(0, 8192, NDK_OP_FLAG_ALLOW_REMOTE_READ);
    const uint32_t token = t.b.GetRemoteTokenFromMw(t.mw_b);
    const uint64_t va = t.b.ObjectBaseVa(t.mw_b);
    NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a), 64, t.a.GetLocalTokenFromMr(t.mr_a)};
    const sc_core::sc_time us(1, sc_core::SC_US);
    const uint64_t before = t.system.node(0).cpu.interrupts();
    // Busy polling: four reads, taken with GetCqResults only.
    for (uint64_t i = 0; i < 4; ++i)
      REQUIRE(t.a.NdkRead(t.qp_a, i, &sge, 1, va, token, 0) == STATUS_SUCCESS);
    NDK_RESULT_EX got[8];
    size_t n = 0;
    for (int tries = 0; n < 4 && tries < 100; ++tries) {
      sc_core::wait(us);
      n += t.a.GetCqResults(t.cq_a, got + n, 8 - n);
    }
    REQUIRE(n == 4);
    for (size_t i = 0; i < n; ++i) CHECK(got[i].Status == STATUS_SUCCESS);
    interrupts_polled = t.system.node(0).cpu.interrupts() - before;
    // Sleeping: WaitCq arms, and one interrupt wakes it.
    REQUIRE(t.a.NdkRead(t.qp_a, 4, &sge, 1, va, token, 0) == STATUS_SUCCESS);
    REQUIRE(t.a.WaitCq(t.cq_a, 1, sc_core::sc_time(1, sc_core::SC_MS)).size() == 1);
    interrupts_armed = t.system.node(0).cpu.interrupts() - before - interrupts_polled;
    // An entry already in the ring, not taken, when the driver arms: the device interrupts at
    // once instead of waiting for an entry that may never come.
    REQUIRE(t.a.NdkRead(t.qp_a, 5, &sge, 1, va, token, 0) == STATUS_SUCCESS);
    sc_core::wait(sc_core::sc_time(20, sc_core::SC_US));  // it completes meanwhile
    const uint64_t at_arm = t.system.node(0).cpu.interrupts();
    REQUIRE(t.a.NotifyCq(t.cq_a) == STATUS_SUCCESS);
    sc_core::wait(sc_core::sc_time(20, sc_core::SC_US));
    interrupts_late = t.system.node(0).cpu.interrupts() - at_arm;
    CHECK(t.a.GetCqResults(t.cq_a, got, 8) == 1);
  });
  CHECK(interrupts_polled == 0);
  CHECK(interrupts_armed == 1);
  CHECK(interrupts_late == 1);
  uint64_t immediate = 0, arms = 0;
  t.system.visit_stats([&](const std::string& owner, const Counter& c) {
    if (owner == "A.rnic.completion" && c.name == "immediate_interrupts") immediate = c.value;
    if (owner == "A.rnic.doorbells" && c.name == "cq_arms") arms = c.value;
  });
  CHECK(immediate == 1);
  CHECK(arms == 2);
}

namespace {
// B's source buffer as a remote-readable MR: a window is bound to one QP, and the tests below
// read from several.
host::MrHandle remote_readable_source(TwoNodes& t) {
  host::MrHandle source = 0;
  REQUIRE(t.b.CreateMr(t.pd_b, false, &source) == STATUS_SUCCESS);
  REQUIRE(t.b.RegisterMr(source, t.src, 0, 65536,
                         NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_ALLOW_REMOTE_READ) ==
          STATUS_SUCCESS);
  return source;
}
}  // namespace

TEST_CASE("a QP waiting at its ORD does not hold another QP's reads (no head-of-line blocking)",
          "[tlm][read]") {
  TwoNodes t;
  std::vector<NDK_RESULT_EX> done;
  t.run([&] {
    t.setup();
    const host::MrHandle source = remote_readable_source(t);
    // A second connection whose ORD is 1, sharing A's CQ.
    host::QpHandle slow_a = 0, slow_b = 0;
    REQUIRE(t.a.CreateQp(t.pd_a, t.cq_a, 64, 64, 1, 1, 0x51, &slow_a) == STATUS_SUCCESS);
    REQUIRE(t.b.CreateQp(t.pd_b, t.cq_b, 64, 64, 1, 1, 0x52, &slow_b) == STATUS_SUCCESS);
    REQUIRE(host::Adapter::Connect(t.a, slow_a, t.b, slow_b) == STATUS_SUCCESS);
    const uint32_t token = t.b.GetRemoteTokenFromMr(source);
    const uint64_t va = t.b.ObjectBaseVa(source);
    NDK_SGE big{t.a.ObjectBaseVa(t.mr_a), 4096, t.a.GetLocalTokenFromMr(t.mr_a)};
    NDK_SGE small{t.a.ObjectBaseVa(t.mr_a), 64, t.a.GetLocalTokenFromMr(t.mr_a)};
    // Six 4 KiB reads one at a time on the ORD-1 QP, then six 64 B reads on the other.
    for (uint64_t i = 1; i <= 6; ++i)
      REQUIRE(t.a.NdkRead(slow_a, i, &big, 1, va + i * 4096, token, 0) == STATUS_SUCCESS);
    for (uint64_t i = 101; i <= 106; ++i)
      REQUIRE(t.a.NdkRead(t.qp_a, i, &small, 1, va, token, 0) == STATUS_SUCCESS);
    done = t.a.WaitCq(t.cq_a, 12, sc_core::sc_time(1, sc_core::SC_MS));
  });
  REQUIRE(done.size() == 12);
  size_t third_slow = 0, last_fast = 0, slow_seen = 0;
  for (size_t i = 0; i < done.size(); ++i) {
    INFO("context " << done[i].RequestContext);
    CHECK(done[i].Status == STATUS_SUCCESS);
    if (done[i].RequestContext <= 6 && ++slow_seen == 3) third_slow = i;
    if (done[i].RequestContext > 100) last_fast = i;
  }
  // The fast QP's reads went out while the slow one waited for its ORD slot: all six are
  // back before the slow QP's third (which needs two round trips of 4 KiB before it).
  CHECK(last_fast < third_slow);
  uint64_t refused = 0;
  t.system.visit_stats([&](const std::string& owner, const Counter& c) {
    if (owner == "A.rnic.fetcher" && c.name == "refused_wqes") refused = c.value;
  });
  CHECK(refused >= 1);
}

TEST_CASE("QP contexts that do not fit the cache are written back on eviction, the driver's "
          "words intact",
          "[tlm][read]") {
  SystemConfig config;
  config.rnic.context.qpc = {2, 2, 2};  // one set of two: four busy QPs evict each other
  config.rnic.qp.max_qps = 64;
  TwoNodes t(config);
  constexpr uint32_t kQps = 4;
  constexpr uint32_t kRounds = 3;
  t.run([&] {
    t.setup();
    const host::MrHandle source = remote_readable_source(t);
    std::vector<host::QpHandle> qps{t.qp_a};
    for (uint32_t i = 1; i < kQps; ++i) {
      host::QpHandle qa = 0, qb = 0;
      REQUIRE(t.a.CreateQp(t.pd_a, t.cq_a, 64, 64, 16, 16, 0x60 + i, &qa) == STATUS_SUCCESS);
      REQUIRE(t.b.CreateQp(t.pd_b, t.cq_b, 64, 64, 16, 16, 0x70 + i, &qb) == STATUS_SUCCESS);
      REQUIRE(host::Adapter::Connect(t.a, qa, t.b, qb) == STATUS_SUCCESS);
      qps.push_back(qa);
    }
    const uint32_t token = t.b.GetRemoteTokenFromMr(source);
    const uint64_t va = t.b.ObjectBaseVa(source);
    // QP k reads 64 B at source offset 1000 * (round + 1) + 64 * k into sink offset 64 * k,
    // one read at a time, QPs taken round-robin: every lookup misses once the QPs cycle.
    for (uint32_t round = 0; round < kRounds; ++round) {
      for (uint32_t k = 0; k < kQps; ++k) {
        NDK_SGE sge{t.a.ObjectBaseVa(t.mr_a) + 64 * k, 64, t.a.GetLocalTokenFromMr(t.mr_a)};
        const uint64_t offset = 1000 * (round + 1) + 64 * k;
        REQUIRE(t.a.NdkRead(qps[k], k, &sge, 1, va + offset, token, 0) == STATUS_SUCCESS);
        const NDK_RESULT_EX r = TwoNodes::next(t.a, t.cq_a);
        CHECK(r.Status == STATUS_SUCCESS);
        const std::vector<uint8_t> got = t.sink_bytes(64 * kQps);
        for (uint32_t i = 0; i < 64; ++i) REQUIRE(got[64 * k + i] == uint8_t(offset + i));
      }
    }
  });
  std::map<std::string, uint64_t> stats;
  t.system.visit_stats([&](const std::string& owner, const Counter& c) {
    if (owner.find(".rnic.context") != std::string::npos) stats[owner + "." + c.name] = c.value;
  });
  for (const char* node : {"A", "B"}) {
    INFO("node " << node);
    const std::string unit = std::string(node) + ".rnic.context.";
    CHECK(stats[unit + "qpc_evictions"] >= kQps * (kRounds - 1));
    CHECK(stats[unit + "qpc_write_backs"] == stats[unit + "qpc_evictions"]);
  }
  // Every QP's context in A's table still holds what the driver wrote at Connect.
  const IcmLayout icm = IcmLayout::from(t.config.rnic.qp);
  uint32_t connected = 0;
  for (uint32_t qpn = 0; qpn < icm.qpc_entries; ++qpn) {
    uint8_t raw[kQpcEntryBytes];
    REQUIRE(t.system.node(0).cpu.mem_read(icm.qpc_addr(qpn), raw, kQpcEntryBytes));
    const QpcEntry q = QpcEntry::decode(raw);
    if (!q.valid) continue;
    ++connected;
    CHECK(q.connected == 1);
    CHECK(q.peer_node == 1);
    CHECK(q.sq_depth == 64);
  }
  CHECK(connected == kQps);
}
