// SPDX-License-Identifier: Apache-2.0
// ProtectionChecker alone: MPT entries in a memory stub, requests from a stub initiator.
#include <catch2/catch.hpp>

#include <vector>

#include <systemc>

#include "model/rnic/protection/protection_checker.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

constexpr uint32_t kPd = 5;
constexpr uint32_t kQpn = 9;
constexpr uint32_t kMr = 3;
constexpr uint32_t kMw = 4;
constexpr uint8_t kMrTag = 0x11;
constexpr uint64_t kBase = 0x20000;

struct CheckerBench {
  ProtectionChecker::Config config;
  IcmLayout icm;
  ProtectionChecker checker;
  SenderStub<ProtectionProtocol> requester{"requester"};
  SenderStub<ProtectionProtocol> responder{"responder"};
  SenderStub<ContextChangeProtocol> ctrl{"ctrl"};
  MemoryStub memory{"memory"};

  CheckerBench() : icm(small_icm()), checker("checker", config, icm) {
    // The check socket is shared by the Requester and the Responder.
    requester.isock.bind(checker.check_tsock);
    responder.isock.bind(checker.check_tsock);
    ctrl.isock.bind(checker.ctrl_tsock);
    checker.dma_isock.bind(memory.tsock);
    MptEntry mr;
    mr.state = MptState::Valid;
    mr.kind = MptKind::Mr;
    mr.access = kAccessLocalWrite | kAccessRemoteRead | kAccessReadSink;
    mr.tag = kMrTag;
    mr.pd = kPd;
    mr.base_va = kBase;
    mr.length = 0x8000;
    mr.mtt_index = 40;
    put(kMr, mr);
    MptEntry mw;
    mw.state = MptState::Free;
    mw.kind = MptKind::Mw;
    mw.pd = kPd;
    mw.tag = 0x21;
    put(kMw, mw);
  }
  void put(uint32_t index, const MptEntry& e) {
    memory.put(icm.mpt_addr(index), e, kMptEntryBytes);
  }
  MptEntry entry(uint32_t index) const {
    return memory.get<MptEntry>(icm.mpt_addr(index), kMptEntryBytes);
  }
};

ProtectionRequest local(uint32_t token, uint64_t va, uint64_t length) {
  ProtectionRequest r;
  r.op = ProtectionOp::LocalAccess;
  r.token = token;
  r.pd = kPd;
  r.qpn = kQpn;
  r.va = va;
  r.length = length;
  r.access = kAccessLocalWrite;
  return r;
}

ProtectionRequest remote(uint32_t token, uint64_t va, uint64_t length, uint32_t qpn = kQpn) {
  ProtectionRequest r;
  r.op = ProtectionOp::RemoteAccess;
  r.token = token;
  r.pd = kPd;
  r.qpn = qpn;
  r.va = va;
  r.length = length;
  r.access = kAccessRemoteRead;
  return r;
}

ProtectionRequest bind(uint8_t new_tag, uint64_t va, uint64_t length) {
  ProtectionRequest r;
  r.op = ProtectionOp::Bind;
  r.token = make_token(kMw, new_tag);
  r.mr_token = make_token(kMr, kMrTag);
  r.pd = kPd;
  r.qpn = kQpn;
  r.va = va;
  r.length = length;
  r.rights = kAccessRemoteRead;
  return r;
}

}  // namespace

TEST_CASE("protection checker: local access through the socket, MPT cache hits",
          "[tlm][protection]") {
  CheckerBench t;
  std::vector<ProtectionRequest> out;
  t.requester.script = [&] {
    for (ProtectionRequest r : {local(make_token(kMr, kMrTag), kBase + 0x100, 0x200),
                                local(make_token(kMr, kMrTag), kBase + 0x7F00, 0x100),
                                local(make_token(kMr, kMrTag + 1), kBase, 16),  // stale
                                local(make_token(kMr, kMrTag), kBase + 0x7F00, 0x101),
                                local(make_token(0, 0), kBase, 16)}) {  // index 0: never valid
      t.requester.send(r);
      out.push_back(r);
    }
  };
  run_simulation();
  REQUIRE(out.size() == 5);
  CHECK(out[0].status == CqeStatus::Success);
  CHECK(out[0].region.mtt_index == 40);
  CHECK(out[0].region.page_base_va == kBase);
  CHECK(out[0].target_va == kBase + 0x100);
  CHECK(out[1].status == CqeStatus::Success);
  CHECK(out[2].status == CqeStatus::LocalProtection);
  CHECK(out[3].status == CqeStatus::LocalProtection);
  CHECK(out[4].status == CqeStatus::LocalProtection);
  // One MPT read for entry 3, then hits; index 0 is refused without a DMA.
  REQUIRE(t.memory.log.size() == 1);
  CHECK(t.memory.log[0].address == t.icm.mpt_addr(kMr));
  CHECK(t.memory.log[0].length == kMptEntryBytes);
  CHECK(t.memory.log[0].source == DmaSource::MptTable);
  CHECK(counter(t.checker.stats, "mpt_misses") == 1);
  CHECK(counter(t.checker.stats, "mpt_hits") == 3);
  CHECK(counter(t.checker.stats, "checks") == 5);
  CHECK(counter(t.checker.stats, "failures") == 3);
}

TEST_CASE("protection checker: bind writes both entries back, then remote access uses the window",
          "[tlm][protection]") {
  CheckerBench t;
  ProtectionRequest b = bind(0x22, kBase + 0x1000, 0x2000);
  ProtectionRequest rebind = bind(0x23, kBase + 0x1000, 0x2000);
  std::vector<ProtectionRequest> out;
  t.requester.script = [&] {
    t.requester.send(b);
    t.requester.send(rebind);
  };
  t.responder.script = [&] {
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));  // after the bind
    for (ProtectionRequest r : {remote(make_token(kMw, 0x22), kBase + 0x1800, 0x100),
                                remote(make_token(kMw, 0x22), kBase + 0x1800, 0x100, kQpn + 1),
                                remote(make_token(kMw, 0x21), kBase + 0x1800, 0x100),  // old tag
                                remote(make_token(kMw, 0x22), kBase + 0x2F00, 0x101),
                                remote(make_token(kMr, kMrTag), kBase + 0x4000, 0x100)}) {
      t.responder.send(r);
      out.push_back(r);
    }
  };
  run_simulation();
  REQUIRE(b.status == CqeStatus::Success);
  CHECK(b.new_token == make_token(kMw, 0x22));
  CHECK(rebind.status == CqeStatus::MwBind);  // a VALID window is not rebound

  const MptEntry mw = t.entry(kMw);
  CHECK(mw.state == MptState::Valid);
  CHECK(mw.kind == MptKind::Mw);
  CHECK(mw.tag == 0x22);
  CHECK(mw.base_va == kBase + 0x1000);
  CHECK(mw.length == 0x2000);
  CHECK(mw.access == kAccessRemoteRead);
  CHECK(mw.bound_qpn == kQpn);
  CHECK(mw.parent_index == kMr);
  const MptEntry mr = t.entry(kMr);
  CHECK(mr.bound_windows == 1);
  CHECK(mr.state == MptState::Valid);
  CHECK(t.memory.count(tlm::TLM_WRITE_COMMAND) == 2);

  REQUIRE(out.size() == 5);
  CHECK(out[0].status == CqeStatus::Success);
  CHECK(out[0].region.mtt_index == 40);  // the parent MR's translation
  CHECK(out[0].target_va == kBase + 0x1800);
  CHECK(out[1].status == CqeStatus::RemoteAccess);  // bound to another QP
  CHECK(out[2].status == CqeStatus::RemoteAccess);  // stale token
  CHECK(out[3].status == CqeStatus::RemoteAccess);  // past the window end
  CHECK(out[4].status == CqeStatus::Success);       // the MR's own remote read right
  CHECK(counter(t.checker.stats, "binds") == 1);
  // Bind and every later access hit the cache: entries 3 and 4 read once each.
  CHECK(t.memory.count(tlm::TLM_READ_COMMAND) == 2);
}

TEST_CASE("protection checker: invalidating a window frees it and unpins its MR",
          "[tlm][protection]") {
  CheckerBench t;
  ProtectionRequest b = bind(0x30, kBase, 0x1000);
  ProtectionRequest inv;
  inv.op = ProtectionOp::Invalidate;
  inv.token = make_token(kMw, 0x30);
  inv.pd = kPd;
  inv.qpn = kQpn;
  ProtectionRequest after = remote(make_token(kMw, 0x30), kBase, 0x10);
  t.requester.script = [&] {
    t.requester.send(b);
    t.requester.send(inv);
    t.requester.send(after);
  };
  run_simulation();
  REQUIRE(b.status == CqeStatus::Success);
  CHECK(inv.status == CqeStatus::Success);
  CHECK(after.status == CqeStatus::RemoteAccess);
  CHECK(t.entry(kMw).state == MptState::Free);
  CHECK(t.entry(kMr).bound_windows == 0);
  CHECK(counter(t.checker.stats, "invalidates") == 1);
}

TEST_CASE("protection checker: ContextChange(Mpt) drops the cached entry", "[tlm][protection]") {
  CheckerBench t;
  std::vector<ProtectionRequest> out;
  t.requester.script = [&] {
    ProtectionRequest r = local(make_token(kMr, kMrTag), kBase, 0x10);
    t.requester.send(r);
    out.push_back(r);
    // The driver deregisters the MR in host memory...
    MptEntry freed = t.entry(kMr);
    freed.state = MptState::Free;
    t.put(kMr, freed);
    r = local(make_token(kMr, kMrTag), kBase, 0x10);
    t.requester.send(r);  // ...the cached copy still says VALID
    out.push_back(r);
    ContextChange other{ContextKind::Mtt, kMr, 1};
    t.ctrl.send(other);
    r = local(make_token(kMr, kMrTag), kBase, 0x10);
    t.requester.send(r);
    out.push_back(r);
    ContextChange change{ContextKind::Mpt, kMr - 1, 2};  // a range covering entry 3
    t.ctrl.send(change);
    r = local(make_token(kMr, kMrTag), kBase, 0x10);
    t.requester.send(r);
    out.push_back(r);
  };
  run_simulation();
  REQUIRE(out.size() == 4);
  CHECK(out[0].status == CqeStatus::Success);
  CHECK(out[1].status == CqeStatus::Success);
  CHECK(out[2].status == CqeStatus::Success);
  CHECK(out[3].status == CqeStatus::LocalProtection);
  CHECK(counter(t.checker.stats, "mpt_misses") == 2);
  CHECK(t.memory.count(tlm::TLM_READ_COMMAND) == 2);
}

TEST_CASE("protection checker: an unreadable MPT entry fails the check", "[tlm][protection]") {
  CheckerBench t;
  t.memory.size_bytes = t.icm.mpt_addr(kMr);  // the table read gets an address error
  ProtectionRequest r = local(make_token(kMr, kMrTag), kBase, 0x10);
  ProtectionRequest rr = remote(make_token(kMr, kMrTag), kBase, 0x10);
  ProtectionRequest big = local(make_token(16, 0), kBase, 0x10);  // index past the table
  t.requester.script = [&] {
    t.requester.send(r);
    t.requester.send(rr);
    t.requester.send(big);
  };
  run_simulation();
  CHECK(r.status == CqeStatus::LocalProtection);
  CHECK(rr.status == CqeStatus::RemoteAccess);
  CHECK(big.status == CqeStatus::LocalProtection);
  CHECK(t.memory.log.size() == 2);  // no read for the index past the table
}

TEST_CASE("protection checker: a recheck compares MPT generations, every change moves it",
          "[tlm][protection]") {
  CheckerBench t;
  auto recheck = [&](uint64_t generation) {
    ProtectionRequest r;
    r.op = ProtectionOp::Recheck;
    r.generation = generation;
    t.requester.send(r);
    return r;
  };
  std::vector<bool> changed;
  std::vector<uint64_t> generations;
  size_t reads_before_recheck = 0;
  size_t reads_after_recheck = 0;
  t.requester.script = [&] {
    ProtectionRequest first = local(make_token(kMr, kMrTag), kBase, 0x10);
    t.requester.send(first);
    REQUIRE(first.status == CqeStatus::Success);
    generations.push_back(first.generation);
    reads_before_recheck = t.memory.log.size();
    changed.push_back(recheck(first.generation).mpt_changed);  // nothing changed
    reads_after_recheck = t.memory.log.size();
    ContextChange mtt{ContextKind::Mtt, kMr, 1};  // not the MPT
    t.ctrl.send(mtt);
    changed.push_back(recheck(first.generation).mpt_changed);
    ContextChange mpt{ContextKind::Mpt, 9, 1};  // the driver changed some other MPT entry
    t.ctrl.send(mpt);
    ProtectionRequest after_change = recheck(first.generation);
    changed.push_back(after_change.mpt_changed);
    generations.push_back(after_change.generation);
    ProtectionRequest b = bind(0x30, kBase, 0x1000);
    t.requester.send(b);
    REQUIRE(b.status == CqeStatus::Success);
    changed.push_back(recheck(after_change.generation).mpt_changed);
    ProtectionRequest failed_bind = bind(0x31, kBase + 0x10000, 0x1000);  // outside the MR
    t.requester.send(failed_bind);
    REQUIRE(failed_bind.status != CqeStatus::Success);
    ProtectionRequest current = recheck(0);
    changed.push_back(recheck(current.generation).mpt_changed);  // a failed bind changes nothing
    ProtectionRequest inv;
    inv.op = ProtectionOp::Invalidate;
    inv.token = make_token(kMw, 0x30);
    inv.pd = kPd;
    inv.qpn = kQpn;
    t.requester.send(inv);
    REQUIRE(inv.status == CqeStatus::Success);
    changed.push_back(recheck(current.generation).mpt_changed);
  };
  run_simulation();
  REQUIRE(changed.size() == 6);
  CHECK_FALSE(changed[0]);
  CHECK(reads_after_recheck == reads_before_recheck);  // a register compare: no MPT read
  CHECK_FALSE(changed[1]);
  CHECK(changed[2]);
  CHECK(generations[1] != generations[0]);
  CHECK(changed[3]);
  CHECK_FALSE(changed[4]);
  CHECK(changed[5]);
  CHECK(counter(t.checker.stats, "rechecks") == 7);
  CHECK(counter(t.checker.stats, "rechecks_changed") == 4);  // incl. recheck(0)
  CHECK(counter(t.checker.stats, "checks") == 4);  // rechecks are not checks
}

namespace {

// A unit in place of the rules (as the RTL transactor is): it refuses every access with the
// rule it was given, and takes `cycles` per decision.
class RefusingUnit final : public ProtectionDatapath {
 public:
  explicit RefusingUnit(uint32_t cycles) : cycles_(cycles) {}
  Decision decide(DatapathCall&) override {
    ++calls;
    return Decision::fail(CqeStatus::RemoteAccess, RuleId::R5_read_resp_pd);
  }
  uint32_t last_cycles() const override { return cycles_; }
  int calls = 0;

 private:
  uint32_t cycles_;
};

}  // namespace

TEST_CASE("protection checker: a unit in place of the rules decides, its cycles time the check",
          "[tlm][protection]") {
  ProtectionChecker::Config config;
  config.implementation = ProtectionImplementation::Rtl;
  IcmLayout icm = small_icm();
  ProtectionChecker checker("checker", config, icm);
  SenderStub<ProtectionProtocol> requester{"requester"};
  SenderStub<ProtectionProtocol> responder{"responder"};
  MemoryStub memory{"memory"};
  requester.isock.bind(checker.check_tsock);
  responder.isock.bind(checker.check_tsock);
  checker.dma_isock.bind(memory.tsock);
  MptEntry mr;
  mr.state = MptState::Valid;
  mr.kind = MptKind::Mr;
  mr.access = kAccessRemoteRead;
  mr.tag = kMrTag;
  mr.pd = kPd;
  mr.base_va = kBase;
  mr.length = 0x8000;
  memory.put(icm.mpt_addr(kMr), mr, kMptEntryBytes);
  RefusingUnit unit(10);
  checker.use_unit(&unit);
  ProtectionRequest miss = remote(make_token(kMr, kMrTag), kBase, 16);
  ProtectionRequest hit = miss;
  ProtectionRequest nothing = remote(make_token(0, 0), kBase, 16);  // index 0: never reaches it
  sc_core::sc_time hit_delay, nothing_delay;
  responder.script = [&] {
    responder.send(miss);
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    responder.send(hit, hit_delay);
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    responder.send(nothing, nothing_delay);
  };
  run_simulation();
  // The rules would grant both; the unit's answer stands.
  CHECK(miss.status == CqeStatus::RemoteAccess);
  CHECK(miss.rule == RuleId::R5_read_resp_pd);
  CHECK(hit.rule == RuleId::R5_read_resp_pd);
  CHECK(unit.calls == 2);
  // A hit: the unit's 10 cycles at the default 500 MHz replace mpt.check_cycles (4).
  CHECK(hit_delay == sc_core::sc_time(20, sc_core::SC_NS));
  // A token naming no entry is the module's to answer, in mpt.check_cycles.
  CHECK(nothing.rule == RuleId::R5_read_resp_index);
  CHECK(nothing_delay == sc_core::sc_time(8, sc_core::SC_NS));
  CHECK(counter(checker.stats, "rtl_checks") == 2);
  CHECK(counter(checker.stats, "rtl_cycles") == 20);
  CHECK(counter(checker.stats, "rtl_bad_answers") == 0);
  CHECK(counter(checker.stats, "checks") == 3);
}

TEST_CASE("protection checker: lockstep keeps the rules' answer and stops at the first divergence",
          "[tlm][protection]") {
  CheckerBench t;  // the rules decide (implementation tlm): the bench's own checker
  ProtectionChecker::Config config;
  config.implementation = ProtectionImplementation::Lockstep;
  ProtectionChecker checker("lockstep_checker", config, t.icm);
  SenderStub<ProtectionProtocol> requester{"lockstep_requester"};
  SenderStub<ProtectionProtocol> responder{"lockstep_responder"};
  MemoryStub memory{"lockstep_memory"};
  requester.isock.bind(checker.check_tsock);
  responder.isock.bind(checker.check_tsock);
  checker.dma_isock.bind(memory.tsock);
  memory.put(t.icm.mpt_addr(kMr), t.entry(kMr), kMptEntryBytes);
  RefusingUnit unit(4);
  checker.use_unit(&unit);
  ProtectionRequest refused = remote(make_token(kMr, kMrTag), kBase, 16);  // another PD: agree
  refused.pd = kPd + 1;
  ProtectionRequest granted = remote(make_token(kMr, kMrTag), kBase, 16);  // they differ
  bool after_stop = false;
  responder.script = [&] {
    responder.send(refused);
    responder.send(granted);
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    after_stop = true;  // sc_stop() ends the run before this
  };
  run_simulation();
  CHECK(refused.rule == RuleId::R5_read_resp_pd);
  CHECK(granted.status == CqeStatus::Success);  // the rules' answer, not the unit's
  REQUIRE(checker.first_divergence() != nullptr);
  const DatapathDivergence& d = *checker.first_divergence();
  CHECK(d.ordinal == 2);
  CHECK(d.field == "status");
  CHECK(d.unit.decision.rule == RuleId::R5_read_resp_pd);
  CHECK(d.inputs.req.token == make_token(kMr, kMrTag));
  CHECK(d.inputs.req.side == EngineSide::Responder);
  CHECK_FALSE(after_stop);
  CHECK(counter(checker.stats, "lockstep_compared") == 2);
  CHECK(counter(checker.stats, "lockstep_diverged") == 1);
}
