// SPDX-License-Identifier: Apache-2.0
// Requester alone: WQEs from a stub fetcher, stub protection checker / MTT / DMA engines /
// port / completion engine; the QP context comes with each WQE, as from the fetcher.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <vector>

#include <systemc>

#include "model/rnic/engines/requester.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

constexpr uint32_t kQpn = 3;
constexpr uint32_t kPd = 5;
constexpr uint32_t kCqn = 2;
constexpr uint32_t kGoodToken = 0x201;
constexpr uint32_t kBadToken = 0x2FF;

struct RequesterBench {
  Requester::Config config;
  Requester requester;
  SenderStub<WorkProtocol> fetcher{"fetcher"};
  SenderStub<PacketProtocol> port_rx{"port_rx"};
  SenderStub<QpEventProtocol> responder{"responder"};
  SenderStub<ContextChangeProtocol> ctrl{"ctrl"};
  MessageSink<ProtectionRequest> check{"check"};
  MessageSink<TranslateRequest> xlate{"xlate"};
  MessageSink<DmaRequest> dma_write{"dma_write"};
  MessageSink<DmaRequest> dma_read{"dma_read"};
  MessageSink<Packet> tx{"tx"};
  MessageSink<CompletionRecord> cq{"cq"};
  MessageSink<QpErrorEvent> responder_notice{"responder_notice"};
  MessageSink<SendQueueReady> fetcher_ready{"fetcher_ready"};
  QpcEntry context;  // the QP's context, handed with every WQE
  std::map<uint64_t, uint8_t> landed;  // bytes written through the DMA write engine
  uint64_t mpt_generation = 7;          // the stub checker's MPT generation
  uint32_t valid_token = kGoodToken;    // the one token the stub checker allows

  explicit RequesterBench(uint32_t ord = 4)
      : requester("requester", config, /*node_id=*/0) {
    fetcher.isock.bind(requester.work_tsock);
    port_rx.isock.bind(requester.response_tsock);
    responder.isock.bind(requester.qp_event_tsock);
    ctrl.isock.bind(requester.ctrl_tsock);
    requester.check_isock.bind(check.tsock);
    requester.xlate_isock.bind(xlate.tsock);
    requester.write_isock.bind(dma_write.tsock);
    requester.read_isock.bind(dma_read.tsock);
    requester.tx_isock.bind(tx.tsock);
    requester.cq_isock.bind(cq.tsock);
    requester.qp_event_isock.bind(responder_notice.tsock);
    requester.ready_isock.bind(fetcher_ready.tsock);
    fetcher_ready.on_message = [this](SendQueueReady&, sc_core::sc_time&) {
      ready_event.notify(sc_core::SC_ZERO_TIME);
    };

    context.valid = 1;
    context.connected = 1;
    context.pd = kPd;
    context.cqn = kCqn;
    context.sq_depth = 64;
    context.ord = ord;
    context.ird = 4;
    context.peer_node = 1;
    context.peer_qpn = 7;

    // Checker: only valid_token is valid; its region translates 1:1 (identity MTT).
    check.on_message = [this](ProtectionRequest& r, sc_core::sc_time&) {
      if (r.op == ProtectionOp::Recheck) {
        r.mpt_changed = r.generation != mpt_generation;
        r.generation = mpt_generation;
        r.status = CqeStatus::Success;
        return;
      }
      r.generation = mpt_generation;
      const bool ok = r.op == ProtectionOp::Bind ? token_index(r.token) == 9
                                                 : r.token == valid_token;
      r.status = ok ? CqeStatus::Success
                    : r.op == ProtectionOp::Bind ? CqeStatus::MwBind : CqeStatus::LocalProtection;
      r.region = Region{40, 12, 0};
      r.target_va = r.va;
    };
    xlate.on_message = [](TranslateRequest& r, sc_core::sc_time&) {
      r.segments.assign(1, PhysSegment{r.va, uint32_t(r.length)});
      r.ok = true;
    };
    dma_write.on_message = [this](DmaRequest& r, sc_core::sc_time&) {
      uint64_t offset = 0;
      for (const PhysSegment& s : *r.segments)
        for (uint32_t i = 0; i < s.length; ++i) landed[s.addr + i] = r.data[offset++];
      r.ok = true;
    };
    dma_read.on_message = [](DmaRequest& r, sc_core::sc_time&) {
      uint64_t offset = 0;
      for (const PhysSegment& s : *r.segments)
        for (uint32_t i = 0; i < s.length; ++i) r.data[offset++] = uint8_t(s.addr + i);
      r.ok = true;
    };
  }
  // Hands a WQE over as the fetcher does; false when the requester refused it (not taken).
  bool post(const Wqe& wqe, uint32_t index) {
    WorkRequest work;
    work.qpn = kQpn;
    work.wqe_index = index;
    work.wqe = wqe;
    work.context = context;
    fetcher.send(work);
    return !work.refused;
  }
  // As the fetcher does with a refused WQE: again once the requester says the QP can go on.
  void post_until_taken(const Wqe& wqe, uint32_t index) {
    while (!post(wqe, index)) sc_core::wait(ready_event);
  }
  sc_core::sc_event ready_event;  // a SendQueueReady arrived
  static Wqe read(uint64_t wr_id, uint32_t token, uint64_t sink, uint32_t length,
                  uint16_t flags = 0) {
    Wqe w;
    w.opcode = WqeOpcode::Read;
    w.wr_id = wr_id;
    w.flags = flags;
    w.remote_addr = 0xBEEF000 + wr_id;
    w.remote_token = 0x777;
    w.nsge = 2;
    w.sge[0] = {sink, length / 2, token};
    w.sge[1] = {sink + 0x1000, length - length / 2, token};
    return w;
  }
  static Wqe bind(uint64_t wr_id, uint32_t mw_token, uint16_t flags) {
    Wqe w;
    w.opcode = WqeOpcode::Bind;
    w.wr_id = wr_id;
    w.flags = flags;
    w.access = 0x008;  // ALLOW_REMOTE_READ
    w.remote_addr = 0x40000;
    w.remote_token = mw_token;
    w.aux_token = kGoodToken;
    w.length = 0x1000;
    return w;
  }
  void respond(const Packet& request, PacketKind kind = PacketKind::ReadResponse) {
    Packet r;
    r.kind = kind;
    r.src_node = 1;
    r.dst_node = 0;
    r.src_qpn = request.dst_qpn;
    r.dst_qpn = request.src_qpn;
    r.sequence = request.sequence;
    r.length = request.length;
    if (kind == PacketKind::ReadResponse) {
      r.payload.resize(request.length);
      for (uint32_t i = 0; i < request.length; ++i) r.payload[i] = uint8_t(0x30 + i);
    } else {
      r.syndrome = CqeStatus::RemoteAccess;
    }
    port_rx.send(r);
  }
  // One 100-byte read over two sinks at 0x60000; 2 us later its request is answered, after
  // `meanwhile` (what changes while the read is out).
  void read_answered_later(const std::function<void()>& meanwhile) {
    fetcher.script = [this] { post(read(42, kGoodToken, 0x60000, 100), 17); };
    port_rx.script = [this, meanwhile] {
      sc_core::wait(sc_core::sc_time(2, sc_core::SC_US));
      REQUIRE(tx.size() == 1);
      meanwhile();
      respond(tx[0]);
    };
  }
};

}  // namespace

TEST_CASE("requester: a read sends a request and lands the response in the sinks",
          "[tlm][requester]") {
  RequesterBench t;
  t.read_answered_later([&] { REQUIRE(t.cq.size() == 0); });  // nothing completes before
  run_simulation();
  // The sink checks: both SGEs, local write + read sink, the QP's PD; when the response
  // lands, one recheck with the MPT generation of the first check (nothing changed: no
  // second full check).
  REQUIRE(t.check.size() == 3);
  CHECK(t.check[2].op == ProtectionOp::Recheck);
  CHECK(t.check[2].generation == 7);
  CHECK(t.check[0].op == ProtectionOp::LocalAccess);
  CHECK(t.check[0].token == kGoodToken);
  CHECK(t.check[0].pd == kPd);
  CHECK(t.check[0].qpn == kQpn);
  CHECK(t.check[0].va == 0x60000);
  CHECK(t.check[0].length == 50);
  CHECK(t.check[0].access == (kAccessLocalWrite | kAccessReadSink));
  CHECK(t.check[1].va == 0x61000);
  REQUIRE(t.tx.size() == 1);
  const Packet& p = t.tx[0];
  CHECK(p.kind == PacketKind::ReadRequest);
  CHECK(p.src_node == 0);
  CHECK(p.dst_node == 1);
  CHECK(p.src_qpn == kQpn);
  CHECK(p.dst_qpn == 7);
  CHECK(p.remote_addr == 0xBEEF000 + 42);
  CHECK(p.remote_token == 0x777);
  CHECK(p.length == 100);
  CHECK(p.payload.empty());
  // Response bytes split over the two sinks in order.
  REQUIRE(t.landed.size() == 100);
  for (uint32_t i = 0; i < 50; ++i) REQUIRE(t.landed.at(0x60000 + i) == uint8_t(0x30 + i));
  for (uint32_t i = 0; i < 50; ++i) REQUIRE(t.landed.at(0x61000 + i) == uint8_t(0x30 + 50 + i));
  REQUIRE(t.cq.size() == 1);
  const CompletionRecord& c = t.cq[0];
  CHECK(c.cqn == kCqn);
  CHECK(c.cqe.status == CqeStatus::Success);
  CHECK(c.cqe.opcode == CqeOpcode::Read);
  CHECK(c.cqe.byte_count == 100);
  CHECK(c.cqe.wr_id == 42);
  CHECK(c.cqe.qpn == kQpn);
  CHECK(c.cqe.wqe_index == 17);
  CHECK(counter(t.requester.stats, "reads") == 1);
  CHECK(counter(t.requester.stats, "read_bytes") == 100);
}

TEST_CASE("requester: an MPT change while a read is out checks its sinks again in full",
          "[tlm][requester]") {
  RequesterBench t;
  // Some MPT entry changed; the sink's token still passes.
  t.read_answered_later([&] { t.mpt_generation = 8; });
  run_simulation();
  REQUIRE(t.check.size() == 5);
  CHECK(t.check[2].op == ProtectionOp::Recheck);
  for (int i = 0; i < 2; ++i) {  // the same checks as at the start, with the QP's PD
    CHECK(t.check[3 + i].op == ProtectionOp::LocalAccess);
    CHECK(t.check[3 + i].token == t.check[i].token);
    CHECK(t.check[3 + i].pd == kPd);
    CHECK(t.check[3 + i].va == t.check[i].va);
    CHECK(t.check[3 + i].length == t.check[i].length);
    CHECK(t.check[3 + i].access == t.check[i].access);
  }
  REQUIRE(t.landed.size() == 100);
  REQUIRE(t.cq.size() == 1);
  CHECK(t.cq[0].cqe.status == CqeStatus::Success);
}

TEST_CASE("requester: a sink invalidated while its read is out gets no byte",
          "[tlm][requester]") {
  RequesterBench t;
  t.read_answered_later([&] {  // the sink's MR was invalidated
    t.mpt_generation = 8;
    t.valid_token = 0;
  });
  run_simulation();
  REQUIRE(t.check.size() == 4);  // two checks, the recheck, the first sink refused
  CHECK(t.check[3].token == kGoodToken);
  CHECK(t.landed.empty());
  CHECK(t.xlate.size() == 0);
  REQUIRE(t.cq.size() == 1);
  CHECK(t.cq[0].cqe.status == CqeStatus::LocalProtection);
}

// The fetcher hands each WQE with its decode time as annotated delay. The requester executes
// it at that time without a wait: a wait would hold the fetcher's thread through every WQE's
// decode latency, so the decoder could start one WQE per latency, not per initiation interval.
TEST_CASE("requester: a WQE runs at its annotated time without holding the caller",
          "[tlm][requester]") {
  RequesterBench t;
  const sc_core::sc_time decoded(40, sc_core::SC_NS);
  sc_core::sc_time returned_at = sc_core::SC_ZERO_TIME;
  t.fetcher.script = [&] {
    WorkRequest work;
    work.qpn = kQpn;
    work.wqe_index = 0;
    work.wqe = RequesterBench::read(1, kGoodToken, 0x60000, 8);
    work.context = t.context;
    sc_core::sc_time delay = decoded;
    t.fetcher.send(work, delay);
    returned_at = sc_core::sc_time_stamp();
    CHECK(delay >= decoded);  // the time it took stays annotated, for the caller to honour
  };
  run_simulation();
  CHECK(returned_at == sc_core::SC_ZERO_TIME);  // the fetcher was not held
  REQUIRE(t.tx.size() == 1);
  CHECK(t.tx.received[0].at >= decoded);  // and the request still left no earlier than that
  REQUIRE(t.check.size() >= 1);
  CHECK(t.check.received[0].at >= decoded);  // nor was its sink checked earlier
}

TEST_CASE("requester: ORD 1 refuses the second read until the first response, then says so",
          "[tlm][requester]") {
  RequesterBench t(/*ord=*/1);
  const sc_core::sc_time respond_at(10, sc_core::SC_US);
  bool first_taken = false, second_refused = false;
  t.fetcher.script = [&] {
    first_taken = t.post(RequesterBench::read(1, kGoodToken, 0x60000, 8), 0);
    // ORD full: not taken, and the caller is not held (the fetcher serves other QPs).
    second_refused = !t.post(RequesterBench::read(2, kGoodToken, 0x70000, 8), 1);
    CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
    sc_core::wait(t.ready_event);
    t.post_until_taken(RequesterBench::read(2, kGoodToken, 0x70000, 8), 1);
  };
  t.port_rx.script = [&] {
    sc_core::wait(respond_at);
    REQUIRE(t.tx.size() == 1);  // the second read is not on the wire yet
    t.respond(t.tx[0]);
    sc_core::wait(respond_at);
    REQUIRE(t.tx.size() == 2);
    t.respond(t.tx[1]);
  };
  run_simulation();
  REQUIRE(t.tx.size() == 2);
  CHECK(t.tx.received[0].at < respond_at);
  CHECK(t.tx.received[1].at >= respond_at);
  CHECK(t.tx[1].sequence == t.tx[0].sequence + 1);
  REQUIRE(t.cq.size() == 2);
  CHECK(t.cq[0].cqe.wr_id == 1);
  CHECK(t.cq[1].cqe.wr_id == 2);
  CHECK(first_taken);
  CHECK(second_refused);
  REQUIRE(t.fetcher_ready.size() == 1);  // once, when the response freed the slot
  CHECK(t.fetcher_ready[0].qpn == kQpn);
  CHECK(t.fetcher_ready.received[0].at >= respond_at);
  CHECK(counter(t.requester.stats, "ord_stalls") == 1);
  CHECK(counter(t.requester.stats, "wqes") == 2);  // a refused WQE is not executed
}

TEST_CASE("requester: a local protection error completes with an error, later WQEs flush",
          "[tlm][requester]") {
  RequesterBench t;
  t.fetcher.script = [&] {
    t.post(RequesterBench::read(1, kBadToken, 0x60000, 8), 0);
    t.post(RequesterBench::read(2, kGoodToken, 0x60000, 8), 1);
    t.post(RequesterBench::bind(3, make_token(9, 1), 0), 2);
  };
  run_simulation();
  CHECK(t.tx.size() == 0);  // nothing sent
  REQUIRE(t.cq.size() == 3);
  CHECK(t.cq[0].cqe.wr_id == 1);
  CHECK(t.cq[0].cqe.status == CqeStatus::LocalProtection);
  CHECK(t.cq[0].cqe.opcode == CqeOpcode::Read);
  CHECK(t.cq[0].cqe.byte_count == 0);
  CHECK(t.cq[1].cqe.wr_id == 2);
  CHECK(t.cq[1].cqe.status == CqeStatus::Flush);
  CHECK(t.cq[2].cqe.wr_id == 3);
  CHECK(t.cq[2].cqe.status == CqeStatus::Flush);
  CHECK(t.cq[2].cqe.opcode == CqeOpcode::Bind);
  CHECK(t.check.size() == 1);  // flushed requests are never checked
  CHECK(counter(t.requester.stats, "errors") == 1);
  CHECK(counter(t.requester.stats, "flushed") == 2);
  // The whole QP is in error: its responder side is told once, after the error completion.
  REQUIRE(t.responder_notice.size() == 1);
  CHECK(t.responder_notice[0].qpn == kQpn);
  CHECK(t.responder_notice[0].cause == CqeStatus::LocalProtection);
  CHECK(t.responder_notice.received[0].at >= t.cq.received[0].at);
}

TEST_CASE("requester: SILENT_SUCCESS suppresses a success completion, never a failure",
          "[tlm][requester]") {
  RequesterBench t;
  t.fetcher.script = [&] {
    t.post(RequesterBench::bind(1, make_token(9, 1), 0x001), 0);  // silent, succeeds
    t.post(RequesterBench::bind(2, make_token(9, 2), 0), 1);      // reported
    t.post(RequesterBench::bind(3, make_token(8, 1), 0x001), 2);  // silent, fails
  };
  run_simulation();
  REQUIRE(t.check.size() == 3);
  CHECK(t.check[0].op == ProtectionOp::Bind);
  CHECK(t.check[0].token == make_token(9, 1));
  CHECK(t.check[0].mr_token == kGoodToken);
  CHECK(t.check[0].pd == kPd);
  CHECK(t.check[0].qpn == kQpn);
  CHECK(t.check[0].va == 0x40000);
  CHECK(t.check[0].length == 0x1000);
  CHECK(t.check[0].rights == kAccessRemoteRead);
  REQUIRE(t.cq.size() == 2);
  CHECK(t.cq[0].cqe.wr_id == 2);
  CHECK(t.cq[0].cqe.status == CqeStatus::Success);
  CHECK(t.cq[0].cqe.opcode == CqeOpcode::Bind);
  CHECK(t.cq[1].cqe.wr_id == 3);
  CHECK(t.cq[1].cqe.status == CqeStatus::MwBind);
  CHECK(counter(t.requester.stats, "binds") == 2);
  CHECK(counter(t.requester.stats, "completions") == 2);
}

TEST_CASE("requester: a NAK fails the read, a responder QP error flushes outstanding reads",
          "[tlm][requester]") {
  RequesterBench t;
  t.fetcher.script = [&] {
    t.post(RequesterBench::read(1, kGoodToken, 0x60000, 8), 0);
    t.post(RequesterBench::read(2, kGoodToken, 0x60000, 8), 1);
  };
  t.port_rx.script = [&] {
    sc_core::wait(sc_core::sc_time(5, sc_core::SC_US));
    REQUIRE(t.tx.size() == 2);
    t.respond(t.tx[0], PacketKind::Nak);
    QpErrorEvent event{kQpn, CqeStatus::RemoteAccess};
    t.responder.send(event);
    t.respond(t.tx[1]);  // arrives after the flush: stray
  };
  run_simulation();
  REQUIRE(t.cq.size() == 2);
  CHECK(t.cq[0].cqe.status == CqeStatus::RemoteAccess);
  CHECK(t.cq[1].cqe.status == CqeStatus::Flush);
  CHECK(t.landed.empty());
  CHECK(counter(t.requester.stats, "stray_responses") == 1);
}

TEST_CASE("requester: a write reads the source SGEs and completes on the ACK",
          "[tlm][requester]") {
  RequesterBench t;
  Wqe w;
  w.opcode = WqeOpcode::Write;
  w.wr_id = 77;
  w.remote_addr = 0x9000;
  w.remote_token = 0x888;
  w.nsge = 2;
  w.sge[0] = {0x50000, 16, kGoodToken};
  w.sge[1] = {0x58000, 8, kGoodToken};
  t.fetcher.script = [&] { t.post(w, 4); };
  t.port_rx.script = [&] {
    sc_core::wait(sc_core::sc_time(2, sc_core::SC_US));
    REQUIRE(t.tx.size() == 1);
    t.respond(t.tx[0], PacketKind::Ack);
  };
  run_simulation();
  REQUIRE(t.check.size() == 2);
  CHECK(t.check[0].access == 0);  // local read is always granted
  REQUIRE(t.tx.size() == 1);
  const Packet& p = t.tx[0];
  CHECK(p.kind == PacketKind::WriteRequest);
  CHECK(p.remote_addr == 0x9000);
  CHECK(p.remote_token == 0x888);
  CHECK(p.length == 24);
  REQUIRE(p.payload.size() == 24);
  CHECK(p.payload[0] == uint8_t(0x50000));
  CHECK(p.payload[15] == uint8_t(0x50000 + 15));
  CHECK(p.payload[16] == uint8_t(0x58000));
  REQUIRE(t.cq.size() == 1);
  CHECK(t.cq[0].cqe.status == CqeStatus::Success);
  CHECK(t.cq[0].cqe.opcode == CqeOpcode::Write);
  CHECK(t.cq[0].cqe.byte_count == 24);
}

TEST_CASE("requester: a QP without a valid connected context fails the request",
          "[tlm][requester]") {
  RequesterBench t;
  t.context.connected = 0;
  t.fetcher.script = [&] { t.post(RequesterBench::read(5, kGoodToken, 0x60000, 8), 0); };
  run_simulation();
  CHECK(t.tx.size() == 0);
  REQUIRE(t.cq.size() == 1);
  CHECK(t.cq[0].cqe.status == CqeStatus::LocalQpOperation);
  CHECK(t.cq[0].cqe.wr_id == 5);
}

// MODEL BUG (see the report): READ_FENCE is honoured only on Read WQEs (execute_read); a
// Write/Send carrying it is transmitted while an earlier read is still outstanding.
// R2.read_fence: "do not start this request until every earlier RDMA read on this QP has
// completed".
TEST_CASE("requester: READ_FENCE on a write is refused until the earlier read completed",
          "[tlm][requester]") {
  RequesterBench t;
  const sc_core::sc_time respond_at(10, sc_core::SC_US);
  Wqe w;
  w.opcode = WqeOpcode::Write;
  w.wr_id = 2;
  w.flags = 0x002;  // READ_FENCE
  w.remote_addr = 0x9000;
  w.remote_token = 0x888;
  w.nsge = 1;
  w.sge[0] = {0x50000, 16, kGoodToken};
  bool fenced_refused = false;
  t.fetcher.script = [&] {
    t.post(RequesterBench::read(1, kGoodToken, 0x60000, 8), 0);
    fenced_refused = !t.post(w, 1);
    sc_core::wait(t.ready_event);
    t.post_until_taken(w, 1);
  };
  t.port_rx.script = [&] {
    sc_core::wait(respond_at);
    REQUIRE(t.tx.size() >= 1);
    t.respond(t.tx[0]);
    sc_core::wait(respond_at);
    if (t.tx.size() == 2) t.respond(t.tx[1], PacketKind::Ack);
  };
  run_simulation();
  REQUIRE(t.tx.size() == 2);
  CHECK(t.tx[1].kind == PacketKind::WriteRequest);
  CHECK(t.tx.received[1].at >= respond_at);  // not before the read completed
  REQUIRE(t.cq.size() == 2);
  CHECK(t.cq[0].cqe.wr_id == 1);
  CHECK(t.cq[1].cqe.wr_id == 2);
  CHECK(fenced_refused);
  CHECK(t.fetcher_ready.size() == 1);
}

// MODEL BUG (see the report): RDMA_READ_LOCAL_INVALIDATE (0x100) is ignored although the
// default adapter reports RDMA_READ_LOCAL_INVALIDATE_SUPPORTED (config.h adapter_flags 0x10).
// R2.read_local_invalidate: on success the token of the first sink SGE is invalidated.
TEST_CASE("requester: RDMA_READ_LOCAL_INVALIDATE invalidates the first sink token",
          "[tlm][requester]") {
  RequesterBench t;
  REQUIRE((t.config.adapter_flags & 0x10) != 0);  // capability reported
  t.fetcher.script = [&] {
    t.post(RequesterBench::read(1, kGoodToken, 0x60000, 8, /*flags=*/0x100), 0);
  };
  t.port_rx.script = [&] {
    sc_core::wait(sc_core::sc_time(5, sc_core::SC_US));
    REQUIRE(t.tx.size() == 1);
    t.respond(t.tx[0]);
  };
  run_simulation();
  REQUIRE(t.cq.size() == 1);
  CHECK(t.cq[0].cqe.status == CqeStatus::Success);
  size_t invalidates = 0;
  for (const auto& r : t.check.received) {
    if (r.message.op == ProtectionOp::Invalidate) {
      ++invalidates;
      CHECK(r.message.token == kGoodToken);
      CHECK(r.message.qpn == kQpn);
    }
  }
  CHECK(invalidates == 1);
}
