// SPDX-License-Identifier: Apache-2.0
// WqeFetcher alone: doorbells from a stub, QP context and send-queue ring in a memory stub,
// decoded WorkRequests collected by a sink.
#include <catch2/catch.hpp>

#include <vector>

#include <systemc>

#include "model/rnic/front/wqe_fetcher.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

constexpr uint32_t kQpn = 3;
constexpr uint64_t kRing = 0x200000;

struct FetchBench {
  WqeFetcher::Config config;
  IcmLayout icm;
  WqeFetcher fetcher;
  SenderStub<DoorbellProtocol> doorbell{"doorbell"};
  SenderStub<ContextChangeProtocol> ctrl{"ctrl"};
  MemoryStub memory{"memory"};
  ContextStub contexts{"contexts", memory, icm};
  MessageSink<WorkRequest> requester{"requester"};
  SenderStub<ReadyProtocol> requester_ready{"requester_ready"};  // SendQueueReady

  explicit FetchBench(uint32_t fetch_batch = 4, uint32_t cache_entries = WqeConfig{}.cache_entries)
      : config(with_batch(fetch_batch, cache_entries)),
        icm(small_icm()),
        fetcher("fetcher", config, icm) {
    doorbell.isock.bind(fetcher.doorbell_tsock);
    ctrl.isock.bind(fetcher.ctrl_tsock);
    fetcher.dma_isock.bind(memory.tsock);
    fetcher.context_isock.bind(contexts.tsock);
    fetcher.work_isock.bind(requester.tsock);
    requester_ready.isock.bind(fetcher.ready_tsock);
  }
  static WqeFetcher::Config with_batch(uint32_t batch, uint32_t cache_entries) {
    WqeFetcher::Config c;
    c.wqe.fetch_batch = batch;
    c.wqe.cache_entries = cache_entries;
    return c;
  }
  void create_qp(uint32_t qpn, uint32_t depth, uint8_t valid = 1, uint64_t ring = kRing) {
    QpcEntry q;
    q.valid = valid;
    q.connected = 1;
    q.sq_base = ring;
    q.sq_depth = depth;
    memory.put(icm.qpc_addr(qpn), q, kQpcEntryBytes);
  }
  // A Read WQE with recognisable fields in ring slot `slot`.
  void post(uint32_t slot, uint64_t wr_id, uint64_t ring = kRing) {
    Wqe w;
    w.opcode = WqeOpcode::Read;
    w.nsge = 2;
    w.flags = 0x002;
    w.wr_id = wr_id;
    w.remote_addr = 0xABC0000 + wr_id;
    w.remote_token = make_token(7, uint8_t(wr_id));
    w.sge[0] = {0x10000 + wr_id, 64, make_token(2, 1)};
    w.sge[1] = {0x20000 + wr_id, 32, make_token(2, 1)};
    memory.put(ring + uint64_t(slot) * kWqeBytes, w, kWqeBytes);
  }
  // A requester busy `per_wqe` with each WQE it takes: it refuses WQEs meanwhile and says
  // when it can go on (SendQueueReady), as the real one does for a QP at its ORD.
  void slow_requester(sc_core::sc_time per_wqe) {
    requester.on_message = [this, per_wqe](WorkRequest& w, sc_core::sc_time& delay) {
      const sc_core::sc_time start = sc_core::sc_time_stamp() + delay;
      if (start < busy_until) {
        w.refused = true;
        refused_qps.push_back(w.qpn);
        free_again.notify(busy_until - sc_core::sc_time_stamp());
        return;
      }
      busy_until = start + per_wqe;
    };
    requester_ready.script = [this] {
      for (;;) {
        sc_core::wait(free_again);
        std::vector<uint32_t> qps;
        qps.swap(refused_qps);
        for (uint32_t qpn : qps) {
          SendQueueReady ready{qpn};
          requester_ready.send(ready);
        }
      }
    };
  }
  sc_core::sc_time busy_until;
  std::vector<uint32_t> refused_qps;
  sc_core::sc_event free_again;
  // The WQEs the requester took, in order (refused tries left out).
  std::vector<MessageSink<WorkRequest>::Received> taken() const {
    std::vector<MessageSink<WorkRequest>::Received> out;
    for (const auto& r : requester.received)
      if (!r.message.refused) out.push_back(r);
    return out;
  }
  std::vector<MemoryStub::Access> wqe_reads() const {
    std::vector<MemoryStub::Access> out;
    for (const auto& a : memory.log)
      if (a.source == DmaSource::WqeFetch) out.push_back(a);
    return out;
  }
};

}  // namespace

TEST_CASE("wqe fetcher: five WQEs in batches of four, handed on in order", "[tlm][fetcher]") {
  FetchBench t(4);
  t.create_qp(kQpn, 8);
  for (uint32_t i = 0; i < 5; ++i) t.post(i, 1000 + i);
  t.doorbell.script = [&] {
    Doorbell db{Doorbell::Kind::SendQueue, kQpn, 5};
    t.doorbell.send(db);
  };
  run_simulation();
  CHECK(counter(t.fetcher.stats, "bad_doorbells") == 0);
  REQUIRE(t.requester.size() == 5);
  for (uint32_t i = 0; i < 5; ++i) {
    const WorkRequest& w = t.requester[i];
    CHECK(w.qpn == kQpn);
    CHECK(w.wqe_index == i);
    CHECK(w.wqe.opcode == WqeOpcode::Read);
    CHECK(w.wqe.wr_id == 1000 + i);
    CHECK(w.wqe.flags == 0x002);
    CHECK(w.wqe.nsge == 2);
    CHECK(w.wqe.remote_addr == 0xABC0000 + 1000 + i);
    CHECK(w.wqe.remote_token == make_token(7, uint8_t(1000 + i)));
    CHECK(w.wqe.sge[1].addr == 0x20000 + 1000 + i);
    CHECK(w.wqe.sgl_length() == 96);
    // The QP context read for the batch travels with each WQE.
    CHECK(w.context.valid == 1);
    CHECK(w.context.connected == 1);
    CHECK(w.context.sq_base == kRing);
    CHECK(w.context.sq_depth == 8);
    if (i) CHECK(t.requester.received[i].at >= t.requester.received[i - 1].at);
  }
  const auto reads = t.wqe_reads();
  REQUIRE(reads.size() == 2);
  CHECK(reads[0].address == kRing);
  CHECK(reads[0].length == 4 * kWqeBytes);
  CHECK(reads[1].address == kRing + 4 * kWqeBytes);
  CHECK(reads[1].length == kWqeBytes);
  CHECK(reads[1].at >= reads[0].at);  // the stub memory answers in zero time
  // Both batch reads were issued together (prefetch), after one lookup of the QP context.
  CHECK(reads[1].at == reads[0].at);
  REQUIRE(t.memory.log.size() == 2);
  REQUIRE(!t.contexts.asked.empty());
  CHECK(t.contexts.asked[0].kind == ContextKind::Qpc);
  CHECK(t.contexts.asked[0].index == kQpn);
  CHECK(counter(t.fetcher.stats, "fetch_reads") == 2);
  CHECK(counter(t.fetcher.stats, "wqes_fetched") == 5);
  CHECK(counter(t.fetcher.stats, "bad_doorbells") == 0);
  // The buffer (64 entries) always had room: no read waited for it.
  CHECK(counter(t.fetcher.stats, "buffer_full") == 0);
  CHECK(counter(t.fetcher.stats, "buffer_wait_ps") == 0);
}

TEST_CASE("wqe fetcher: the ring wraps", "[tlm][fetcher]") {
  FetchBench t(4);
  t.create_qp(kQpn, 4);
  for (uint32_t i = 0; i < 3; ++i) t.post(i, 10 + i);
  t.doorbell.script = [&] {
    Doorbell first{Doorbell::Kind::SendQueue, kQpn, 3};
    t.doorbell.send(first);
    sc_core::wait(sc_core::sc_time(5, sc_core::SC_US));
    // Slots 0 and 1 were consumed: the driver reuses them for WQEs 4 and 5.
    t.post(3, 13);
    t.post(0, 14);
    t.post(1, 15);
    Doorbell second{Doorbell::Kind::SendQueue, kQpn, 6};
    t.doorbell.send(second);
  };
  run_simulation();
  REQUIRE(t.requester.size() == 6);
  for (uint32_t i = 0; i < 6; ++i) {
    CHECK(t.requester[i].wqe_index == i);
    CHECK(t.requester[i].wqe.wr_id == 10 + i);
  }
  const auto reads = t.wqe_reads();
  REQUIRE(reads.size() == 3);
  CHECK(reads[0].address == kRing);
  CHECK(reads[0].length == 3 * kWqeBytes);
  CHECK(reads[1].address == kRing + 3 * kWqeBytes);  // up to the ring end only
  CHECK(reads[1].length == kWqeBytes);
  CHECK(reads[2].address == kRing);
  CHECK(reads[2].length == 2 * kWqeBytes);
}

TEST_CASE("wqe fetcher: a doorbell claiming more than the ring holds is ignored",
          "[tlm][fetcher]") {
  FetchBench t(4);
  t.create_qp(kQpn, 4);
  for (uint32_t i = 0; i < 4; ++i) t.post(i, 50 + i);
  t.doorbell.script = [&] {
    Doorbell too_many{Doorbell::Kind::SendQueue, kQpn, 5};
    t.doorbell.send(too_many);
  };
  run_simulation();
  CHECK(t.requester.size() == 0);
  CHECK(t.wqe_reads().empty());  // no ring memory read at all
  CHECK(counter(t.fetcher.stats, "bad_doorbells") == 1);
}

TEST_CASE("wqe fetcher: doorbells for unknown QPs are refused", "[tlm][fetcher]") {
  FetchBench t(4);
  t.create_qp(2, 4, 0);  // QP 2 exists in the table but is not valid
  t.post(0, 1);
  t.doorbell.script = [&] {
    Doorbell beyond{Doorbell::Kind::SendQueue, 8, 1};  // max_qps = 8
    t.doorbell.send(beyond);
    Doorbell invalid{Doorbell::Kind::SendQueue, 2, 1};
    t.doorbell.send(invalid);
  };
  run_simulation();
  CHECK(t.requester.size() == 0);
  CHECK(t.wqe_reads().empty());
  CHECK(counter(t.fetcher.stats, "bad_doorbells") == 2);
}

TEST_CASE("wqe fetcher: a ContextChange(Qpc) re-reads the QP context", "[tlm][fetcher]") {
  FetchBench t(4);
  t.create_qp(kQpn, 4);
  t.post(0, 70);
  t.doorbell.script = [&] {
    Doorbell db{Doorbell::Kind::SendQueue, kQpn, 1};
    t.doorbell.send(db);
    sc_core::wait(sc_core::sc_time(5, sc_core::SC_US));
    // The QP is re-created: a new ring elsewhere, indices from zero.
    QpcEntry q;
    q.valid = 1;
    q.sq_base = kRing + 0x10000;
    q.sq_depth = 4;
    t.memory.put(t.icm.qpc_addr(kQpn), q, kQpcEntryBytes);
    Wqe w;
    w.opcode = WqeOpcode::Write;
    w.wr_id = 71;
    t.memory.put(kRing + 0x10000, w, kWqeBytes);
    ContextChange change{ContextKind::Qpc, kQpn, 1};
    t.ctrl.send(change);
    Doorbell again{Doorbell::Kind::SendQueue, kQpn, 1};
    t.doorbell.send(again);
  };
  run_simulation();
  REQUIRE(t.requester.size() == 2);
  CHECK(t.requester[0].wqe.wr_id == 70);
  CHECK(t.requester[1].wqe.wr_id == 71);
  CHECK(t.requester[1].wqe.opcode == WqeOpcode::Write);
  CHECK(t.requester[1].wqe_index == 0);
  const auto reads = t.wqe_reads();
  REQUIRE(reads.size() == 2);
  CHECK(reads[1].address == kRing + 0x10000);
}

namespace {

// QPs 1..n, each with its own ring and one WQE rung at time zero. The memory answers reads in
// 500 ns; the requester is busy 1 us with each WQE it takes (as one whose ORD is full).
void ring_one_wqe_each(FetchBench& t, uint32_t n) {
  t.memory.read_latency = sc_core::sc_time(500, sc_core::SC_NS);
  t.slow_requester(sc_core::sc_time(1, sc_core::SC_US));
  for (uint32_t qpn = 1; qpn <= n; ++qpn) {
    const uint64_t ring = kRing + qpn * 0x1000;
    t.create_qp(qpn, 4, 1, ring);
    t.post(0, 100 + qpn, ring);
  }
  t.doorbell.script = [&t, n] {
    for (uint32_t qpn = 1; qpn <= n; ++qpn) {
      Doorbell db{Doorbell::Kind::SendQueue, qpn, 1};
      t.doorbell.send(db);
    }
  };
  run_simulation();
}

}  // namespace

TEST_CASE("wqe fetcher: reads of QPs waiting their turn go out before a busy requester frees up",
          "[tlm][fetcher]") {
  FetchBench t(4);
  ring_one_wqe_each(t, 4);
  const auto taken = t.taken();
  REQUIRE(taken.size() == 4);
  for (uint32_t i = 0; i < 4; ++i) CHECK(taken[i].message.wqe.wr_id == 101 + i);  // round-robin
  const auto reads = t.wqe_reads();
  REQUIRE(reads.size() == 4);
  // All four ring reads were issued before the first WQE reached the requester (500 ns): one
  // read latency covers them all, where handing QP 1's batch first would space them 1.5 us.
  for (const auto& read : reads) CHECK(read.at < sc_core::sc_time(500, sc_core::SC_NS));
  // Spaced by the requester's 1 us and the decode alone, not by another read's 500 ns.
  const sc_core::sc_time spread = taken[3].at - taken[0].at;
  CHECK(spread >= sc_core::sc_time(3, sc_core::SC_US));
  CHECK(spread < sc_core::sc_time(3100, sc_core::SC_NS));
}

TEST_CASE("wqe fetcher: reads ahead stop at the WQE buffer's size", "[tlm][fetcher]") {
  FetchBench t(1, 2);  // two WQE buffer entries
  ring_one_wqe_each(t, 4);
  REQUIRE(t.taken().size() == 4);
  const auto reads = t.wqe_reads();
  REQUIRE(reads.size() == 4);
  CHECK(reads[0].at < sc_core::sc_time(500, sc_core::SC_NS));
  CHECK(reads[1].at < sc_core::sc_time(500, sc_core::SC_NS));
  // The third waits for a buffer entry: QP 1's WQE leaves it when it is handed on (500 ns).
  CHECK(reads[2].at >= sc_core::sc_time(500, sc_core::SC_NS));
  CHECK(counter(t.fetcher.stats, "wqes_fetched") == 4);
  CHECK(counter(t.fetcher.stats, "buffer_full") >= 1);
  // The third read waited from the turn that found no room (when the second went out) to
  // its issue, the fourth from then to its own: together, the second's issue to the fourth's
  // (each issue follows the same QP-context lookup).
  CHECK(counter(t.fetcher.stats, "buffer_wait_ps") == (reads[3].at - reads[1].at).value());
}

TEST_CASE("wqe fetcher: a BlueFlame doorbell's WQE is used as is, with no ring read",
          "[tlm][fetcher]") {
  FetchBench t(4);
  t.create_qp(kQpn, 8);
  t.post(0, 500);  // in the ring too, as the driver writes it: only a read would see it
  Wqe w;
  w.opcode = WqeOpcode::Write;
  w.wr_id = 501;
  t.doorbell.script = [&] {
    Doorbell db{Doorbell::Kind::SendQueue, kQpn, 1};
    db.with_wqe = true;
    w.encode(db.wqe.data());
    t.doorbell.send(db);
    sc_core::wait(sc_core::sc_time(5, sc_core::SC_US));
    Doorbell plain{Doorbell::Kind::SendQueue, kQpn, 2};  // WQE 1 from the ring
    t.post(1, 502);
    t.doorbell.send(plain);
  };
  run_simulation();
  REQUIRE(t.requester.size() == 2);
  CHECK(t.requester[0].wqe.wr_id == 501);  // the doorbell's bytes, not the ring's
  CHECK(t.requester[0].wqe.opcode == WqeOpcode::Write);
  CHECK(t.requester[1].wqe.wr_id == 502);
  const auto reads = t.wqe_reads();
  REQUIRE(reads.size() == 1);  // only WQE 1 was read
  CHECK(reads[0].address == kRing + kWqeBytes);
  CHECK(counter(t.fetcher.stats, "blueflame_wqes") == 1);
  CHECK(counter(t.fetcher.stats, "wqes_fetched") == 1);
}

TEST_CASE("wqe fetcher: a re-created QP forgets a BlueFlame WQE it had not used",
          "[tlm][fetcher]") {
  FetchBench t(1, 1);  // one WQE per read, one buffer entry: WQE 2 waits behind 0 and 1
  t.create_qp(kQpn, 8);
  for (uint32_t i = 0; i < 3; ++i) t.post(i, 600 + i);
  // The requester takes 2 us per WQE, so the QP is re-created before WQE 2 is fetched.
  t.slow_requester(sc_core::sc_time(2, sc_core::SC_US));
  Wqe stale;
  stale.opcode = WqeOpcode::Write;
  stale.wr_id = 999;
  t.doorbell.script = [&] {
    Doorbell db{Doorbell::Kind::SendQueue, kQpn, 3};
    db.with_wqe = true;  // WQE 2 with the doorbell
    stale.encode(db.wqe.data());
    t.doorbell.send(db);
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    ContextChange change{ContextKind::Qpc, kQpn, 1};  // re-created: indices from zero
    t.ctrl.send(change);
    for (uint32_t i = 0; i < 3; ++i) t.post(i, 700 + i);
    Doorbell again{Doorbell::Kind::SendQueue, kQpn, 3};  // a plain doorbell this time
    t.doorbell.send(again);
  };
  run_simulation();
  std::vector<uint64_t> ids;
  for (const auto& r : t.taken()) ids.push_back(r.message.wqe.wr_id);
  REQUIRE(!ids.empty());
  CHECK(ids.back() == 702);  // the new ring's WQE 2, read by DMA
  for (uint64_t id : ids) CHECK(id != 999);
  CHECK(counter(t.fetcher.stats, "blueflame_wqes") == 0);
}

TEST_CASE("wqe fetcher: a QP whose first batch fills the WQE buffer still gets its turn",
          "[tlm][fetcher]") {
  FetchBench t(4, 4);  // the buffer holds one batch: the second must wait for the first's hand
  t.create_qp(kQpn, 16);
  for (uint32_t i = 0; i < 10; ++i) t.post(i, 800 + i);
  t.doorbell.script = [&] {
    Doorbell db{Doorbell::Kind::SendQueue, kQpn, 10};
    t.doorbell.send(db);
  };
  run_simulation();
  REQUIRE(t.requester.size() == 10);
  for (uint32_t i = 0; i < 10; ++i) CHECK(t.requester[i].wqe.wr_id == 800 + i);
  const auto reads = t.wqe_reads();
  REQUIRE(reads.size() == 3);  // 4 + 4 + 2
  CHECK(counter(t.fetcher.stats, "buffer_full") >= 1);
  // The second batch waited for the first's hand-over, the third for the second's.
  CHECK(counter(t.fetcher.stats, "buffer_wait_ps") == (reads[2].at - reads[0].at).value());
}

TEST_CASE("wqe fetcher: a QP whose batch is still being read does not hold the turn",
          "[tlm][fetcher]") {
  // QP 1 rings first and its WQE comes from the ring (a 500 ns read); QP 2 rings next with
  // its WQE in the doorbell (BlueFlame), on chip once its context is read. QP 1 is ahead in
  // the turn order, but QP 2's WQE goes to the requester first, without waiting for QP 1's
  // read; QP 1's follows when its read is in.
  FetchBench t(4);
  t.memory.read_latency = sc_core::sc_time(500, sc_core::SC_NS);
  const uint64_t ring1 = kRing + 0x1000, ring2 = kRing + 0x2000;
  t.create_qp(1, 4, 1, ring1);
  t.create_qp(2, 4, 1, ring2);
  t.post(0, 101, ring1);
  Wqe w;
  w.opcode = WqeOpcode::Write;
  w.wr_id = 201;
  t.doorbell.script = [&] {
    Doorbell plain{Doorbell::Kind::SendQueue, 1, 1};
    t.doorbell.send(plain);
    Doorbell db{Doorbell::Kind::SendQueue, 2, 1};
    db.with_wqe = true;
    w.encode(db.wqe.data());
    t.doorbell.send(db);
  };
  run_simulation();
  REQUIRE(t.requester.size() == 2);
  CHECK(t.requester[0].wqe.wr_id == 201);
  CHECK(t.requester.received[0].at < sc_core::sc_time(500, sc_core::SC_NS));
  CHECK(t.requester[1].wqe.wr_id == 101);
  CHECK(t.requester.received[1].at >= sc_core::sc_time(500, sc_core::SC_NS));
}

TEST_CASE("wqe fetcher: a QP whose WQE the requester refuses leaves the turns while the others "
          "go on, and comes back on SendQueueReady", "[tlm][fetcher]") {
  FetchBench t(4);
  for (uint32_t qpn = 1; qpn <= 2; ++qpn) {
    const uint64_t ring = kRing + qpn * 0x1000;
    t.create_qp(qpn, 4, 1, ring);
    t.post(0, 100 * qpn + 1, ring);
    t.post(1, 100 * qpn + 2, ring);
  }
  bool refuse = true;  // QP 1's ORD is full, say
  t.requester.on_message = [&](WorkRequest& w, sc_core::sc_time&) {
    if (w.qpn == 1 && refuse) w.refused = true;
  };
  t.doorbell.script = [&] {
    for (uint32_t qpn = 1; qpn <= 2; ++qpn) {
      Doorbell db{Doorbell::Kind::SendQueue, qpn, 2};
      t.doorbell.send(db);
    }
  };
  const sc_core::sc_time ready_at(5, sc_core::SC_US);
  t.requester_ready.script = [&] {
    sc_core::wait(ready_at);
    refuse = false;
    SendQueueReady ready{1};
    t.requester_ready.send(ready);
  };
  run_simulation();
  std::vector<MessageSink<WorkRequest>::Received> taken, refused;
  for (const auto& r : t.requester.received) (r.message.refused ? refused : taken).push_back(r);
  // Tried once, then left alone until the requester said it can go on.
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].message.wqe.wr_id == 101);
  REQUIRE(taken.size() == 4);
  CHECK(taken[0].message.wqe.wr_id == 201);  // QP 2 does not wait behind QP 1
  CHECK(taken[1].message.wqe.wr_id == 202);
  CHECK(taken[1].at < ready_at);
  CHECK(taken[2].message.wqe.wr_id == 101);  // the same WQE again, in posting order
  CHECK(taken[2].message.wqe_index == 0);
  CHECK(taken[3].message.wqe.wr_id == 102);
  // Decoded long before: handed on at the SendQueueReady itself, not a decode later.
  CHECK(taken[2].at == ready_at);
  CHECK(counter(t.fetcher.stats, "refused_wqes") == 1);
  CHECK(counter(t.fetcher.stats, "wqes_fetched") == 4);
}
