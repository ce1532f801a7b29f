// SPDX-License-Identifier: Apache-2.0
// Responder alone: request packets from a stub port, stub protection checker / MTT / DMA
// engines / port / requester / completion engine, QP context and receive ring in a memory stub.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include <systemc>

#include "model/rnic/engines/responder.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

constexpr uint32_t kQpn = 7;
constexpr uint32_t kPd = 5;
constexpr uint32_t kGoodToken = 0x301;
constexpr uint64_t kTargetVa = 0xABC000;
constexpr uint64_t kRq = 0x300000;

struct ResponderBench {
  Responder::Config config;
  IcmLayout icm;
  Responder responder;
  SenderStub<PacketProtocol> port_rx{"port_rx"};
  SenderStub<ContextChangeProtocol> ctrl{"ctrl"};
  SenderStub<DoorbellProtocol> doorbell{"doorbell"};
  SenderStub<QpEventProtocol> requester_notice{"requester_notice"};
  MessageSink<ProtectionRequest> check{"check"};
  MessageSink<TranslateRequest> xlate{"xlate"};
  MessageSink<DmaRequest> dma_read{"dma_read"};
  MessageSink<DmaRequest> dma_write{"dma_write"};
  MessageSink<Packet> tx{"tx"};
  MessageSink<QpErrorEvent> qp_event{"qp_event"};
  MessageSink<CompletionRecord> cq{"cq"};
  MemoryStub memory{"memory"};
  ContextStub contexts{"contexts", memory, icm};
  std::map<uint64_t, uint8_t> landed;

  static Responder::Config make_config(uint32_t read_contexts) {
    Responder::Config c;
    c.responder.read_contexts = read_contexts;
    return c;
  }
  explicit ResponderBench(uint32_t read_contexts = ResponderConfig{}.read_contexts)
      : config(make_config(read_contexts)),
        icm(small_icm()),
        responder("responder", config, icm, /*node_id=*/1) {
    port_rx.isock.bind(responder.request_tsock);
    ctrl.isock.bind(responder.ctrl_tsock);
    doorbell.isock.bind(responder.doorbell_tsock);
    requester_notice.isock.bind(responder.qp_event_tsock);
    responder.check_isock.bind(check.tsock);
    responder.xlate_isock.bind(xlate.tsock);
    responder.read_isock.bind(dma_read.tsock);
    responder.write_isock.bind(dma_write.tsock);
    responder.tx_isock.bind(tx.tsock);
    responder.qp_event_isock.bind(qp_event.tsock);
    responder.cq_isock.bind(cq.tsock);
    responder.dma_isock.bind(memory.tsock);
    responder.context_isock.bind(contexts.tsock);

    QpcEntry q;
    q.valid = 1;
    q.connected = 1;
    q.pd = kPd;
    q.cqn = 4;
    q.rq_base = kRq;
    q.rq_depth = 8;
    q.ord = 4;
    q.ird = 4;
    q.peer_node = 0;
    q.peer_qpn = 3;
    memory.put(icm.qpc_addr(kQpn), q, kQpcEntryBytes);

    // Only kGoodToken passes; the absolute VA differs from the requested one (as for a
    // zero-based window) so the test sees that the translation uses the checker's answer.
    check.on_message = [](ProtectionRequest& r, sc_core::sc_time&) {
      r.status = r.token == kGoodToken ? CqeStatus::Success : CqeStatus::RemoteAccess;
      r.region = Region{40, 12, 0};
      r.target_va = r.op == ProtectionOp::RemoteAccess ? kTargetVa + r.va : r.va;
    };
    xlate.on_message = [](TranslateRequest& r, sc_core::sc_time&) {
      r.segments.assign(1, PhysSegment{r.va, uint32_t(r.length)});
      r.ok = true;
    };
    dma_read.on_message = [](DmaRequest& r, sc_core::sc_time&) {
      uint64_t offset = 0;
      for (const PhysSegment& s : *r.segments)
        for (uint32_t i = 0; i < s.length; ++i) r.data[offset++] = uint8_t(s.addr + i);
      r.ok = true;
    };
    dma_write.on_message = [this](DmaRequest& r, sc_core::sc_time&) {
      uint64_t offset = 0;
      for (const PhysSegment& s : *r.segments)
        for (uint32_t i = 0; i < s.length; ++i) landed[s.addr + i] = r.data[offset++];
      r.ok = true;
    };
  }
  static Packet request(PacketKind kind, uint64_t sequence, uint32_t token, uint64_t va,
                        uint32_t length) {
    Packet p;
    p.kind = kind;
    p.src_node = 0;
    p.dst_node = 1;
    p.src_qpn = 3;
    p.dst_qpn = kQpn;
    p.sequence = sequence;
    p.remote_addr = va;
    p.remote_token = token;
    p.length = length;
    if (kind != PacketKind::ReadRequest) {
      p.payload.resize(length);
      for (uint32_t i = 0; i < length; ++i) p.payload[i] = uint8_t(0xC0 + i);
    }
    return p;
  }
  void post_receive(uint32_t slot, uint64_t wr_id, uint64_t addr, uint32_t length) {
    Wqe w;
    w.opcode = WqeOpcode::Receive;
    w.wr_id = wr_id;
    w.nsge = 1;
    w.sge[0] = {addr, length, kGoodToken};
    memory.put(kRq + uint64_t(slot) * kWqeBytes, w, kWqeBytes);
  }
};

}  // namespace

TEST_CASE("responder: a read is checked, translated, read and answered", "[tlm][responder]") {
  ResponderBench t;
  t.port_rx.script = [&] {
    Packet r = ResponderBench::request(PacketKind::ReadRequest, 12, kGoodToken, 0x40, 300);
    t.port_rx.send(r);
  };
  run_simulation();
  REQUIRE(t.check.size() == 1);
  const ProtectionRequest& c = t.check[0];
  CHECK(c.op == ProtectionOp::RemoteAccess);
  CHECK(c.token == kGoodToken);
  CHECK(c.pd == kPd);
  CHECK(c.qpn == kQpn);
  CHECK(c.va == 0x40);
  CHECK(c.length == 300);
  CHECK(c.access == kAccessRemoteRead);
  REQUIRE(t.xlate.size() == 1);
  CHECK(t.xlate[0].va == kTargetVa + 0x40);  // the checker's absolute VA, not the offset
  CHECK(t.xlate[0].region.mtt_index == 40);
  REQUIRE(t.tx.size() == 1);
  const Packet& p = t.tx[0];
  CHECK(p.kind == PacketKind::ReadResponse);
  CHECK(p.src_node == 1);
  CHECK(p.dst_node == 0);
  CHECK(p.src_qpn == kQpn);
  CHECK(p.dst_qpn == 3);
  CHECK(p.sequence == 12);
  REQUIRE(p.payload.size() == 300);
  for (uint32_t i = 0; i < 300; ++i) REQUIRE(p.payload[i] == uint8_t(kTargetVa + 0x40 + i));
  CHECK(t.qp_event.size() == 0);
  CHECK(counter(t.responder.stats, "read_requests") == 1);
  CHECK(counter(t.responder.stats, "read_bytes") == 300);
}

TEST_CASE("responder: a failed remote check NAKs and puts the QP in error", "[tlm][responder]") {
  ResponderBench t;
  t.post_receive(0, 900, 0x70000, 64);
  t.port_rx.script = [&] {
    Doorbell posted{Doorbell::Kind::ReceiveQueue, kQpn, 1};
    t.doorbell.send(posted);
    Packet bad = ResponderBench::request(PacketKind::ReadRequest, 1, 0x3FF, 0x40, 64);
    t.port_rx.send(bad);
    Packet later = ResponderBench::request(PacketKind::ReadRequest, 2, kGoodToken, 0x40, 64);
    t.port_rx.send(later);
  };
  run_simulation();
  REQUIRE(t.tx.size() == 2);
  CHECK(t.tx[0].kind == PacketKind::Nak);
  CHECK(t.tx[0].syndrome == CqeStatus::RemoteAccess);
  CHECK(t.tx[0].sequence == 1);
  CHECK(t.tx[0].payload.empty());
  CHECK(t.tx[1].kind == PacketKind::Nak);  // the QP stays in error
  CHECK(t.tx[1].syndrome == CqeStatus::RetryExceeded);  // dropped: the peer's retries run out
  REQUIRE(t.qp_event.size() == 1);  // reported once
  CHECK(t.qp_event[0].qpn == kQpn);
  CHECK(t.qp_event[0].cause == CqeStatus::RemoteAccess);
  CHECK(t.dma_read.size() == 0);  // no byte read
  CHECK(t.xlate.size() == 0);
  // The posted receive is flushed (R5.read.error.both_qps).
  REQUIRE(t.cq.size() == 1);
  CHECK(t.cq[0].cqn == 4);
  CHECK(t.cq[0].cqe.status == CqeStatus::Flush);
  CHECK(t.cq[0].cqe.opcode == CqeOpcode::Receive);
  CHECK(t.cq[0].cqe.wr_id == 900);
  CHECK(counter(t.responder.stats, "naks") == 2);
  CHECK(counter(t.responder.stats, "access_errors") == 1);
}

TEST_CASE("responder: a zero-length read skips the key check", "[tlm][responder]") {
  ResponderBench t;
  t.port_rx.script = [&] {
    Packet r = ResponderBench::request(PacketKind::ReadRequest, 3, 0x3FF, 0, 0);  // bad token
    t.port_rx.send(r);
  };
  run_simulation();
  CHECK(t.check.size() == 0);
  REQUIRE(t.tx.size() == 1);
  CHECK(t.tx[0].kind == PacketKind::ReadResponse);
  CHECK(t.tx[0].payload.empty());
  CHECK(t.qp_event.size() == 0);
}

TEST_CASE("responder: a request from a QP that is not the peer is refused without an error state",
          "[tlm][responder]") {
  ResponderBench t;
  t.port_rx.script = [&] {
    Packet stranger = ResponderBench::request(PacketKind::ReadRequest, 4, kGoodToken, 0, 16);
    stranger.src_qpn = 6;
    t.port_rx.send(stranger);
    Packet peer = ResponderBench::request(PacketKind::ReadRequest, 5, kGoodToken, 0, 16);
    t.port_rx.send(peer);
  };
  run_simulation();
  REQUIRE(t.tx.size() == 2);
  CHECK(t.tx[0].kind == PacketKind::Nak);
  CHECK(t.tx[0].syndrome == CqeStatus::RemoteInvalidRequest);
  CHECK(t.tx[0].dst_qpn == 6);
  CHECK(t.tx[1].kind == PacketKind::ReadResponse);
  CHECK(t.qp_event.size() == 0);
}

TEST_CASE("responder: a write lands its data and is acknowledged", "[tlm][responder]") {
  ResponderBench t;
  t.port_rx.script = [&] {
    Packet w = ResponderBench::request(PacketKind::WriteRequest, 8, kGoodToken, 0x10, 40);
    t.port_rx.send(w);
  };
  run_simulation();
  REQUIRE(t.check.size() == 1);
  CHECK(t.check[0].access == kAccessRemoteWrite);
  REQUIRE(t.tx.size() == 1);
  CHECK(t.tx[0].kind == PacketKind::Ack);
  CHECK(t.tx[0].sequence == 8);
  REQUIRE(t.landed.size() == 40);
  for (uint32_t i = 0; i < 40; ++i) REQUIRE(t.landed.at(kTargetVa + 0x10 + i) == uint8_t(0xC0 + i));
  CHECK(counter(t.responder.stats, "write_bytes") == 40);
}

TEST_CASE("responder: a send consumes the posted receive or gets an RNR NAK", "[tlm][responder]") {
  ResponderBench t;
  t.post_receive(0, 500, 0x80000, 64);
  t.port_rx.script = [&] {
    Packet early = ResponderBench::request(PacketKind::SendRequest, 1, 0, 0, 20);
    t.port_rx.send(early);  // nothing posted yet
    Doorbell posted{Doorbell::Kind::ReceiveQueue, kQpn, 1};
    t.doorbell.send(posted);
    Packet send = ResponderBench::request(PacketKind::SendRequest, 2, 0, 0, 20);
    t.port_rx.send(send);
  };
  run_simulation();
  REQUIRE(t.tx.size() == 2);
  CHECK(t.tx[0].kind == PacketKind::RnrNak);
  CHECK(t.tx[1].kind == PacketKind::Ack);
  REQUIRE(t.landed.size() == 20);
  CHECK(t.landed.at(0x80000) == 0xC0);
  REQUIRE(t.cq.size() == 1);
  CHECK(t.cq[0].cqe.status == CqeStatus::Success);
  CHECK(t.cq[0].cqe.opcode == CqeOpcode::Receive);
  CHECK(t.cq[0].cqe.wr_id == 500);
  CHECK(t.cq[0].cqe.byte_count == 20);
  CHECK(t.cq[0].cqe.wqe_index == 0);
  CHECK(counter(t.responder.stats, "rnr_naks") == 1);
}

namespace {

const Occupancy& occupancy(const StatGroup& group, const std::string& name) {
  for (const Occupancy& o : group.occupancies())
    if (o.name == name) return o;
  FAIL("no occupancy " << name);
  return group.occupancies().front();
}

// One QP with IRD 4, four reads at once, each DMA read taking 1 us, `contexts` read contexts.
void four_reads(uint32_t contexts) {
  ResponderBench t(contexts);
  t.dma_read.on_message = [](DmaRequest& r, sc_core::sc_time& delay) {
    for (uint32_t i = 0; i < (*r.segments)[0].length; ++i) r.data[i] = uint8_t(i);
    delay += sc_core::sc_time(1, sc_core::SC_US);
    r.ok = true;
  };
  t.port_rx.script = [&] {
    for (uint64_t seq = 0; seq < 4; ++seq) {
      Packet r = ResponderBench::request(PacketKind::ReadRequest, seq, kGoodToken, 0, 64);
      t.port_rx.send(r);
    }
  };
  run_simulation();
  REQUIRE(t.tx.size() == 4);
  for (size_t i = 0; i < 4; ++i) CHECK(t.tx[i].kind == PacketKind::ReadResponse);
  CHECK(counter(t.responder.stats, "naks") == 0);
  const Occupancy& in_use = occupancy(t.responder.stats, "read_contexts_in_use");
  const uint64_t waits = counter(t.responder.stats, "read_context_waits");
  const uint64_t wait_ps = counter(t.responder.stats, "read_context_wait_ps");
  std::vector<sc_core::sc_time> sent;
  for (const auto& r : t.tx.received) sent.push_back(r.at);
  if (contexts == 2) {
    // The third and fourth wait for the first two to end: a microsecond each.
    CHECK(waits == 2);
    CHECK(wait_ps >= 2 * 900000);
    CHECK(in_use.max() == 2);
    CHECK(sent[2] - sent[0] >= sc_core::sc_time(900, sc_core::SC_NS));
  } else {
    CHECK(waits == 0);
    CHECK(wait_ps == 0);
    CHECK(in_use.max() == 4);  // the QP's IRD bounds them
    CHECK(sent[3] - sent[0] < sc_core::sc_time(100, sc_core::SC_NS));
  }
}

}  // namespace

TEST_CASE("responder: reads beyond the NIC's read contexts wait for one and are not NAKed",
          "[tlm][responder]") {
  four_reads(2);
}

TEST_CASE("responder: the default read contexts never make a read wait", "[tlm][responder]") {
  four_reads(ResponderConfig{}.read_contexts);
}
