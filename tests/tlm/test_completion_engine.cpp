// SPDX-License-Identifier: Apache-2.0
// CompletionEngine alone: CompletionRecords and CQ doorbells from stubs, the CQ context and
// ring in a memory stub.
#include <catch2/catch.hpp>

#include <vector>

#include <systemc>

#include "model/host/msi.h"
#include "model/rnic/completion/completion_engine.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

constexpr uint64_t kRing = 0x800000;

struct CompletionBench {
  CompletionEngine::Config config;
  IcmLayout icm;
  CompletionEngine engine;
  SenderStub<CompletionProtocol> requester{"requester"};
  SenderStub<CompletionProtocol> responder{"responder"};
  SenderStub<CompletionControlProtocol> doorbell{"doorbell"};
  SenderStub<ContextChangeProtocol> ctrl{"ctrl"};
  MemoryStub memory{"memory"};
  ContextStub contexts{"contexts", memory, icm};

  CompletionBench() : icm(small_icm()), engine("engine", config, icm) {
    requester.isock.bind(engine.cqe_tsock);
    responder.isock.bind(engine.cqe_tsock);
    doorbell.isock.bind(engine.doorbell_tsock);
    ctrl.isock.bind(engine.ctrl_tsock);
    engine.dma_isock.bind(memory.tsock);
    engine.context_isock.bind(contexts.tsock);
  }
  void create_cq(uint32_t cqn, uint32_t depth) {
    CqcEntry c;
    c.valid = 1;
    c.depth = depth;
    c.ring_base = kRing;
    memory.put(icm.cqc_addr(cqn), c, kCqcEntryBytes);
  }
  Cqe slot(uint32_t i) const { return memory.get<Cqe>(kRing + uint64_t(i) * kCqeBytes, kCqeBytes); }
  static CompletionRecord record(uint32_t cqn, uint64_t wr_id,
                                 CqeStatus status = CqeStatus::Success) {
    CompletionRecord r;
    r.cqn = cqn;
    r.cqe.status = status;
    r.cqe.opcode = CqeOpcode::Read;
    r.cqe.wr_id = wr_id;
    r.cqe.qpn = 3;
    r.cqe.byte_count = uint32_t(wr_id * 2);
    return r;
  }
  // Successful completions with wr_id first .. end - 1 on CQ `cqn`, sent by the requester
  // (call from its script).
  void send_records(uint32_t cqn, uint64_t first, uint64_t end) {
    for (uint64_t id = first; id < end; ++id) {
      CompletionRecord r = record(cqn, id);
      requester.send(r);
    }
  }
  std::vector<MemoryStub::Access> ring_writes() const {
    std::vector<MemoryStub::Access> out;
    for (const auto& a : memory.accesses(tlm::TLM_WRITE_COMMAND))
      if (a.address >= kRing) out.push_back(a);
    return out;
  }
};

}  // namespace

TEST_CASE("completion engine: entries at ring slots, owner bit flips on wrap", "[tlm][cq]") {
  CompletionBench t;
  t.create_cq(2, 4);
  t.requester.script = [&] {
    t.send_records(2, 100, 104);
    sc_core::wait(sc_core::sc_time(2, sc_core::SC_US));
    Doorbell consumed{Doorbell::Kind::CqConsumer, 2, 3};  // the driver polled three
    t.doorbell.send(consumed);
    for (uint64_t id = 104; id < 107; ++id) {
      CompletionRecord r = CompletionBench::record(2, id, id == 105 ? CqeStatus::RemoteAccess
                                                                     : CqeStatus::Success);
      t.requester.send(r);
    }
  };
  run_simulation();
  // Second pass over the ring: slots 0..2 rewritten with owner 2, slot 3 keeps pass one.
  const uint64_t expected_id[4] = {104, 105, 106, 103};
  const uint8_t expected_owner[4] = {2, 2, 2, 1};
  for (uint32_t i = 0; i < 4; ++i) {
    const Cqe c = t.slot(i);
    CHECK(c.wr_id == expected_id[i]);
    CHECK(c.owner == expected_owner[i]);
    CHECK(c.qpn == 3);
    CHECK(c.opcode == CqeOpcode::Read);
    CHECK(c.byte_count == uint32_t(expected_id[i] * 2));
  }
  CHECK(t.slot(1).status == CqeStatus::RemoteAccess);
  // Written in hand-over order, one 64-byte write each.
  const auto writes = t.ring_writes();
  REQUIRE(writes.size() == 7);
  const uint32_t expected_slot[7] = {0, 1, 2, 3, 0, 1, 2};
  for (size_t i = 0; i < writes.size(); ++i) {
    CHECK(writes[i].address == kRing + expected_slot[i] * kCqeBytes);
    CHECK(writes[i].length == kCqeBytes);
    CHECK(writes[i].source == DmaSource::Completion);
    if (i) CHECK(writes[i].at >= writes[i - 1].at);
  }
  CHECK(counter(t.engine.stats, "completions") == 7);
  CHECK(counter(t.engine.stats, "error_completions") == 1);
  CHECK(counter(t.engine.stats, "overflows") == 0);
  // The CQ context is asked of the QP-context unit for every entry; no table read here.
  CHECK(t.memory.count(tlm::TLM_READ_COMMAND) == 0);
  REQUIRE(t.contexts.asked.size() == 7);
  CHECK(t.contexts.asked[0].kind == ContextKind::Cqc);
}

TEST_CASE("completion engine: a full ring sets the overflow flag and writes nothing",
          "[tlm][cq]") {
  CompletionBench t;
  t.create_cq(1, 2);
  t.requester.script = [&] {
    t.send_records(1, 1, 4);
  };
  run_simulation();
  CHECK(t.slot(0).wr_id == 1);
  CHECK(t.slot(1).wr_id == 2);
  CHECK(t.slot(2).wr_id == 0);  // nothing beyond the ring
  CHECK(t.ring_writes().size() == 2);
  const CqcEntry cqc = t.memory.get<CqcEntry>(t.icm.cqc_addr(1), kCqcEntryBytes);
  CHECK(cqc.overflow == 1);
  CHECK(cqc.depth == 2);  // only the flag byte was written
  CHECK(counter(t.engine.stats, "overflows") == 1);
  CHECK(counter(t.engine.stats, "completions") == 2);
}

TEST_CASE("completion engine: a ring that looks full reads the consumer index the driver "
          "stored in the CQ context, and overflows only if it is full by that",
          "[tlm][cq]") {
  CompletionBench t;
  t.create_cq(1, 2);
  t.requester.script = [&] {
    t.send_records(1, 1, 3);
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    // The driver took both and stored its consumer index (a CPU store, no doorbell).
    uint8_t index[4];
    CqcEntry::encode_consumer(2, index);
    t.memory.write(t.icm.cqc_addr(1) + CqcEntry::kConsumerOffset, index, 4);
    t.send_records(1, 3, 6);
  };
  run_simulation();
  CHECK(t.slot(0).wr_id == 3);  // the second pass over the ring
  CHECK(t.slot(1).wr_id == 4);
  CHECK(t.ring_writes().size() == 4);
  CHECK(counter(t.engine.stats, "completions") == 4);
  CHECK(counter(t.engine.stats, "overflows") == 1);  // entry 5: full by index 2 as well
  // Read when entry 3 found the ring full by index 0, and again for entry 5.
  CHECK(counter(t.engine.stats, "consumer_reads") == 2);
  const uint64_t index_address = t.icm.cqc_addr(1) + CqcEntry::kConsumerOffset;
  size_t index_reads = 0;
  for (const auto& a : t.memory.accesses(tlm::TLM_READ_COMMAND))
    if (a.address == index_address && a.length == 4) ++index_reads;
  CHECK(index_reads == 2);
}

TEST_CASE("completion engine: entries for a CQ that does not exist are counted, not written",
          "[tlm][cq]") {
  CompletionBench t;
  t.requester.script = [&] {
    CompletionRecord no_context = CompletionBench::record(4, 1);  // CQC all zero: not valid
    t.requester.send(no_context);
    CompletionRecord past_table = CompletionBench::record(8, 2);  // beyond max_cqs
    t.responder.send(past_table);
  };
  run_simulation();
  CHECK(counter(t.engine.stats, "bad_cq") == 2);
  CHECK(counter(t.engine.stats, "completions") == 0);
  CHECK(t.memory.count(tlm::TLM_WRITE_COMMAND) == 0);
}

TEST_CASE("completion engine: a ContextChange(Cqc) re-reads the context and restarts the ring",
          "[tlm][cq]") {
  CompletionBench t;
  t.create_cq(5, 8);
  t.requester.script = [&] {
    CompletionRecord r = CompletionBench::record(5, 11);
    t.requester.send(r);
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    // The driver destroys and re-creates CQ 5 with another depth.
    t.create_cq(5, 2);
    ContextChange change{ContextKind::Cqc, 5, 1};
    t.ctrl.send(change);
    for (uint64_t id = 12; id <= 14; ++id) {
      CompletionRecord again = CompletionBench::record(5, id);
      t.requester.send(again);
    }
  };
  run_simulation();
  CHECK(t.slot(0).wr_id == 12);  // a fresh ring starts at slot 0, owner 1
  CHECK(t.slot(0).owner == 1);
  CHECK(t.slot(1).wr_id == 13);
  CHECK(counter(t.engine.stats, "overflows") == 1);  // depth 2 now: the third overflows
  CHECK(t.contexts.asked.size() == 4);
}

TEST_CASE("completion engine: an interrupt message follows an entry of an armed CQ, once per "
          "arm, and at once when armed with entries pending", "[tlm][cq]") {
  CompletionBench t;
  t.create_cq(2, 8);
  const sc_core::sc_time us(1, sc_core::SC_US);
  sc_core::sc_time immediate_arm_sent, armed_at;
  t.requester.script = [&] {
    CompletionRecord first = CompletionBench::record(2, 100);
    t.requester.send(first);  // no address yet: no message
    sc_core::wait(us);
    InterruptVector vector{kMsiWindowBase + 0x40};
    t.doorbell.send(vector);
    CompletionRecord second = CompletionBench::record(2, 101);
    t.requester.send(second);  // not armed: no message
    sc_core::wait(us);
    // Armed with consumer index 0 while two entries are in the ring: a message at once.
    immediate_arm_sent = sc_core::sc_time_stamp();
    Doorbell arm{Doorbell::Kind::CqConsumer, 2, 0};
    arm.arm = true;
    t.doorbell.send(arm);
    sc_core::wait(us);
    // The driver took both and arms again: the next entry sends one message, the one after
    // none (one-shot).
    armed_at = sc_core::sc_time_stamp();
    Doorbell rearm{Doorbell::Kind::CqConsumer, 2, 2};
    rearm.arm = true;
    t.doorbell.send(rearm);
    sc_core::wait(us);
    t.send_records(2, 102, 104);
  };
  run_simulation();
  const auto writes = t.memory.accesses(tlm::TLM_WRITE_COMMAND);
  std::vector<MemoryStub::Access> entries, messages;
  for (const auto& a : writes) (a.source == DmaSource::Interrupt ? messages : entries).push_back(a);
  REQUIRE(entries.size() == 4);
  REQUIRE(messages.size() == 2);
  for (const auto& m : messages) {
    CHECK(m.address == kMsiWindowBase + 0x40);
    CHECK(m.length == 4);
  }
  CHECK(t.memory.read(kMsiWindowBase + 0x40, 4) == std::vector<uint8_t>{2, 0, 0, 0});  // the CQ
  CHECK(messages[0].at >= immediate_arm_sent);
  CHECK(messages[0].at < armed_at);          // at the arm, not at a later entry
  CHECK(messages[1].at >= entries[2].at);    // behind the entry it announces
  CHECK(counter(t.engine.stats, "interrupts") == 2);
  CHECK(counter(t.engine.stats, "immediate_interrupts") == 1);
  CHECK(counter(t.engine.stats, "interrupt_errors") == 0);
}
