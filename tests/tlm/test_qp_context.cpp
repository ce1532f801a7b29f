// SPDX-License-Identifier: Apache-2.0
// QpContext alone: lookups from stub engines (one per role), the QPC and CQC tables in a
// memory stub answering reads after a fixed latency.
#include <catch2/catch.hpp>

#include <systemc>

#include "model/rnic/front/qp_context.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

struct ContextBench {
  IcmLayout icm = small_icm();
  QpContext unit;
  // One stub per role, bound in ContextRole order as the Rnic binds the engines: the unit
  // knows the role from the socket. The tests' scripts run on the fetcher's.
  SenderStub<ContextLookupProtocol> engine{"engine"};
  SenderStub<ContextLookupProtocol> responder{"responder"};
  SenderStub<ContextLookupProtocol> completion{"completion"};
  SenderStub<ContextChangeProtocol> ctrl{"ctrl"};
  MemoryStub memory{"memory"};

  explicit ContextBench(const QpContextConfig& config)
      : unit("context", QpContext::Config{config, /*clock_mhz=*/500.0}, icm) {
    engine.isock.bind(unit.lookup_tsock);
    responder.isock.bind(unit.lookup_tsock);
    completion.isock.bind(unit.lookup_tsock);
    ctrl.isock.bind(unit.ctrl_tsock);
    unit.dma_isock.bind(memory.tsock);
    memory.read_latency = sc_time(500, SC_NS);
    for (uint32_t qpn = 0; qpn < icm.qpc_entries; ++qpn) {
      QpcEntry q;
      q.valid = 1;
      q.pd = 100 + qpn;  // tells the entries apart
      memory.put(icm.qpc_addr(qpn), q, kQpcEntryBytes);
    }
    CqcEntry c;
    c.valid = 1;
    c.depth = 16;
    memory.put(icm.cqc_addr(2), c, kCqcEntryBytes);
  }
  // A QPC lookup by `role` annotated at `at`; returns when its entry is on chip.
  sc_time lookup(uint32_t qpn, ContextRole role, sc_time at, QpcEntry* out = nullptr) {
    ContextRead req;
    req.kind = ContextKind::Qpc;
    req.index = qpn;
    QpcEntry entry;
    req.qpc = &entry;
    sc_time delay = at - sc_core::sc_time_stamp();
    by(role).send(req, delay);
    REQUIRE(req.ok);
    if (out) *out = entry;
    return sc_core::sc_time_stamp() + delay;
  }
  SenderStub<ContextLookupProtocol>& by(ContextRole role) {
    return role == ContextRole::Fetcher ? engine
           : role == ContextRole::Responder ? responder
                                            : completion;
  }
  static QpContextConfig config(uint32_t entries, uint32_t ways, uint32_t misses) {
    QpContextConfig c;
    c.qpc = {entries, ways, misses};
    c.lookup_cycles = 2;  // 4 ns at 500 MHz
    return c;
  }
};

}  // namespace

TEST_CASE("qp context: a miss reads ICM once, later lookups hit, counted per role",
          "[tlm][context]") {
  ContextBench t(ContextBench::config(8, 2, 4));
  t.engine.script = [&] {
    QpcEntry q;
    const sc_time first = t.lookup(3, ContextRole::Fetcher, sc_time(0, SC_NS), &q);
    CHECK(q.pd == 103);
    CHECK(first == sc_time(504, SC_NS));  // lookup 4 ns + the table read 500 ns
    sc_core::wait(sc_time(1, sc_core::SC_US));
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    CHECK(t.lookup(3, ContextRole::Responder, now) == now + sc_time(4, SC_NS));
    CHECK(t.lookup(3, ContextRole::Completion, now) == now + sc_time(4, SC_NS));
  };
  run_simulation();
  CHECK(t.memory.count(tlm::TLM_READ_COMMAND) == 1);
  CHECK(t.memory.log[0].address == t.icm.qpc_addr(3));
  CHECK(t.memory.log[0].source == DmaSource::ContextTable);
  CHECK(counter(t.unit.stats, "qpc_misses_fetcher") == 1);
  CHECK(counter(t.unit.stats, "qpc_hits_responder") == 1);
  CHECK(counter(t.unit.stats, "qpc_hits_completion") == 1);
  CHECK(counter(t.unit.stats, "qpc_hits_fetcher") == 0);
}

TEST_CASE("qp context: a lookup of an entry being read merges with that read",
          "[tlm][context]") {
  ContextBench t(ContextBench::config(8, 2, 4));
  t.engine.script = [&] {
    const sc_time first = t.lookup(5, ContextRole::Fetcher, sc_time(0, SC_NS));
    // 100 ns later, while the read is out: no second read, ready with the first.
    CHECK(t.lookup(5, ContextRole::Responder, sc_time(100, SC_NS)) == first);
  };
  run_simulation();
  CHECK(t.memory.count(tlm::TLM_READ_COMMAND) == 1);
  CHECK(counter(t.unit.stats, "qpc_merged_responder") == 1);
}

namespace {
// Four misses at once, `registers` at a time, 500 ns each (one bench per process: SystemC
// elaborates once).
void four_misses(uint32_t registers) {
  ContextBench t(ContextBench::config(8, 2, registers));
  sc_time last;
  t.engine.script = [&] {
    for (uint32_t qpn = 0; qpn < 4; ++qpn)
      last = t.lookup(qpn, ContextRole::Responder, sc_time(0, SC_NS));
  };
  run_simulation();
  CHECK(last == sc_time(4 + 500.0 * (4 / registers), SC_NS));
  CHECK(t.memory.count(tlm::TLM_READ_COMMAND) == 4);
  CHECK(counter(t.unit.stats, "qpc_misses_responder") == 4);
  CHECK((counter(t.unit.stats, "qpc_miss_register_stall_ps") > 0) == (registers < 4));
}
}  // namespace

TEST_CASE("qp context: one miss-status register is a blocking cache", "[tlm][context]") {
  four_misses(1);
}
TEST_CASE("qp context: two registers keep two reads in flight", "[tlm][context]") {
  four_misses(2);
}
TEST_CASE("qp context: four registers keep four reads in flight", "[tlm][context]") {
  four_misses(4);
}

TEST_CASE("qp context: bounded and LRU, a context change drops the entry", "[tlm][context]") {
  ContextBench t(ContextBench::config(2, 2, 4));  // one set of two
  t.engine.script = [&] {
    sc_time at(0, SC_NS);
    for (const uint32_t qpn : {0u, 1u, 0u, 2u, 0u, 1u}) {
      at = t.lookup(qpn, ContextRole::Responder, at);
    }
    // 0, 1 miss; 0 hits; 2 evicts 1; 0 hits; 1 misses again (evicting 2).
    CHECK(counter(t.unit.stats, "qpc_misses_responder") == 4);
    CHECK(counter(t.unit.stats, "qpc_hits_responder") == 2);
    CHECK(counter(t.unit.stats, "qpc_evictions") == 2);
    // The driver rewrote QP 0: the next lookup reads the new entry.
    QpcEntry changed;
    changed.valid = 1;
    changed.pd = 999;
    t.memory.put(t.icm.qpc_addr(0), changed, kQpcEntryBytes);
    ContextChange change{ContextKind::Qpc, 0, 1};
    t.ctrl.send(change);
    QpcEntry q;
    t.lookup(0, ContextRole::Responder, at, &q);
    CHECK(q.pd == 999);
  };
  run_simulation();
}

TEST_CASE("qp context: CQ contexts, numbers outside the tables are refused", "[tlm][context]") {
  ContextBench t(ContextBench::config(8, 2, 4));
  t.engine.script = [&] {
    ContextRead cq;
    cq.kind = ContextKind::Cqc;
    cq.index = 2;
    CqcEntry entry;
    cq.cqc = &entry;
    t.completion.send(cq);
    CHECK(cq.ok);
    CHECK(entry.depth == 16);
    ContextRead beyond;
    beyond.kind = ContextKind::Qpc;
    beyond.index = t.icm.qpc_entries;
    QpcEntry unused;
    beyond.qpc = &unused;
    t.engine.send(beyond);
    CHECK_FALSE(beyond.ok);
  };
  run_simulation();
  CHECK(counter(t.unit.stats, "cqc_misses_completion") == 1);
  CHECK(t.memory.count(tlm::TLM_READ_COMMAND) == 1);
}

namespace {
// QPs 0, 1 and 2 through one set of two: the lookup of QP 2 evicts QP 0 (LRU). Each entry's
// running-state words are told apart (QP n: n * 16 + i), and QP 0's are cleared in memory
// once its fill is in, so a write-back shows by restoring them.
void evict_one(bool write_back) {
  QpContextConfig config = ContextBench::config(2, 2, 4);
  config.write_back = write_back;
  ContextBench t(config);
  for (uint32_t qpn = 0; qpn < 3; ++qpn) {
    QpcEntry q;
    q.valid = 1;
    q.pd = 100 + qpn;
    for (uint32_t i = 0; i < QpcEntry::kRunningBytes; ++i) q.running[i] = uint8_t(qpn * 16 + i);
    t.memory.put(t.icm.qpc_addr(qpn), q, kQpcEntryBytes);
  }
  const uint64_t words = t.icm.qpc_addr(0) + QpcEntry::kRunningOffset;
  sc_time evicted_at;
  t.engine.script = [&] {
    sc_time at = t.lookup(0, ContextRole::Fetcher, sc_time(0, SC_NS));
    at = t.lookup(1, ContextRole::Responder, at);
    const std::vector<uint8_t> zeros(QpcEntry::kRunningBytes, 0);
    t.memory.write(words, zeros.data(), zeros.size());
    evicted_at = t.lookup(2, ContextRole::Fetcher, at);
  };
  run_simulation();
  CHECK(counter(t.unit.stats, "qpc_evictions") == 1);
  CHECK(t.memory.count(tlm::TLM_READ_COMMAND) == 3);
  if (!write_back) {
    CHECK(t.memory.count(tlm::TLM_WRITE_COMMAND) == 0);
    CHECK(counter(t.unit.stats, "qpc_write_backs") == 0);
    CHECK(t.memory.byte(words) == 0);
    return;
  }
  CHECK(counter(t.unit.stats, "qpc_write_backs") == 1);
  REQUIRE(t.memory.count(tlm::TLM_WRITE_COMMAND) == 1);
  const MemoryStub::Access& write = t.memory.log.back();
  CHECK(write.command == tlm::TLM_WRITE_COMMAND);
  // The victim's own words, never the driver's (bytes 0..51 of its entry), when the fill
  // that takes its place is in.
  CHECK(write.address == words);
  CHECK(write.length == QpcEntry::kRunningBytes);
  CHECK(write.source == DmaSource::ContextTable);
  CHECK(write.at == evicted_at);
  const std::vector<uint8_t> back = t.memory.read(words, QpcEntry::kRunningBytes);
  for (uint32_t i = 0; i < QpcEntry::kRunningBytes; ++i) CHECK(back[i] == i);
}
}  // namespace

TEST_CASE("qp context: an evicted entry writes its running state back, only those words",
          "[tlm][context]") {
  evict_one(true);
}
TEST_CASE("qp context: with context.write_back off an eviction writes nothing",
          "[tlm][context]") {
  evict_one(false);
}

TEST_CASE("qp context: an evicted CQ context writes back its running state, not the consumer "
          "index the driver stores",
          "[tlm][context]") {
  QpContextConfig config = ContextBench::config(8, 2, 4);
  config.cqc = {1, 1, 1};  // one line: the second CQ evicts the first
  ContextBench t(config);
  for (uint32_t cqn = 2; cqn <= 3; ++cqn) {
    CqcEntry c;
    c.valid = 1;
    c.depth = 16;
    c.consumer = 100 + cqn;
    for (uint32_t i = 0; i < CqcEntry::kRunningBytes; ++i) c.running[i] = uint8_t(0x40 + i);
    t.memory.put(t.icm.cqc_addr(cqn), c, kCqcEntryBytes);
  }
  t.engine.script = [&] {
    for (uint32_t cqn = 2; cqn <= 3; ++cqn) {
      ContextRead cq;
      cq.kind = ContextKind::Cqc;
        cq.index = cqn;
      CqcEntry entry;
      cq.cqc = &entry;
      t.completion.send(cq);
      REQUIRE(cq.ok);
      CHECK(entry.consumer == 100 + cqn);
    }
  };
  run_simulation();
  CHECK(counter(t.unit.stats, "cqc_evictions") == 1);
  CHECK(counter(t.unit.stats, "cqc_write_backs") == 1);
  REQUIRE(t.memory.count(tlm::TLM_WRITE_COMMAND) == 1);
  const MemoryStub::Access& write = t.memory.log.back();
  CHECK(write.address == t.icm.cqc_addr(2) + CqcEntry::kRunningOffset);
  CHECK(write.length == CqcEntry::kRunningBytes);
  // The consumer index (bytes 16..19) is the driver's: the write starts after it.
  CHECK(write.address >= t.icm.cqc_addr(2) + CqcEntry::kConsumerOffset + 4);
  const std::vector<uint8_t> back = t.memory.read(write.address, CqcEntry::kRunningBytes);
  for (uint32_t i = 0; i < CqcEntry::kRunningBytes; ++i) CHECK(back[i] == 0x40 + i);
}
