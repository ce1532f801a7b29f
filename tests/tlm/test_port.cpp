// SPDX-License-Identifier: Apache-2.0
// Port alone: packets from stub engines and from a stub fabric; sinks on the wire and on the
// request/response outputs.
#include <catch2/catch.hpp>

#include <vector>

#include <systemc>

#include "model/rnic/net/port.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

struct PortBench {
  Port::Config config;
  Port port{"port", config};
  SenderStub<PacketProtocol> requester{"requester"};
  SenderStub<PacketProtocol> responder{"responder"};
  SenderStub<WireProtocol> fabric{"fabric"};
  MessageSink<Packet, WireProtocol> wire{"wire"};
  MessageSink<Packet> requests{"requests"};
  MessageSink<Packet> responses{"responses"};

  PortBench() {
    requester.isock.bind(port.tx_tsock);
    responder.isock.bind(port.tx_tsock);
    fabric.isock.bind(port.wire_tsock);
    port.wire_isock.bind(wire.tsock);
    port.request_isock.bind(requests.tsock);
    port.response_isock.bind(responses.tsock);
  }
};

Packet packet(PacketKind kind, uint64_t sequence, size_t payload = 0) {
  Packet p;
  p.kind = kind;
  p.src_node = 1;
  p.dst_node = 0;
  p.src_qpn = 4;
  p.dst_qpn = 6;
  p.sequence = sequence;
  p.remote_addr = 0x1234;
  p.remote_token = 0x500;
  p.length = uint32_t(payload);
  p.payload.assign(payload, uint8_t(sequence));
  return p;
}

}  // namespace

TEST_CASE("port: wire bytes with MTU segmentation and headers", "[unit][port]") {
  PortConfig c;
  c.mtu_bytes = 4096;
  c.header_bytes = 66;
  CHECK(wire_bytes(packet(PacketKind::ReadRequest, 0), c) == 66 + 16);
  CHECK(wire_bytes(packet(PacketKind::ReadResponse, 0, 10000), c) == 10000 + 3 * 66);
  CHECK(wire_bytes(packet(PacketKind::ReadResponse, 0, 4096), c) == 4096 + 66);
  CHECK(wire_bytes(packet(PacketKind::WriteRequest, 0, 4097), c) == 4097 + 2 * 66 + 16);
  CHECK(wire_bytes(packet(PacketKind::Ack, 0), c) == 66 + 4);
  CHECK(wire_bytes(packet(PacketKind::Nak, 0), c) == 66);
  c.mtu_bytes = 100;  // below the minimum IB MTU: 256 is used
  CHECK(wire_bytes(packet(PacketKind::ReadResponse, 0, 1000), c) == 1000 + 4 * 66);
}

TEST_CASE("port: transmitted packets are serialized on the wire", "[tlm][port]") {
  PortBench t;
  t.requester.script = [&] {
    Packet a = packet(PacketKind::ReadResponse, 1, 4096);
    Packet b = packet(PacketKind::ReadResponse, 2, 8192);
    t.requester.send(a);
    t.requester.send(b);
  };
  run_simulation();
  REQUIRE(t.wire.size() == 2);
  CHECK(t.wire[0].sequence == 1);
  CHECK(t.wire[1].sequence == 2);
  CHECK(t.wire[1].payload.size() == 8192);
  CHECK(t.wire[1].payload[100] == 2);
  CHECK(t.wire.received[0].at > sc_core::SC_ZERO_TIME);
  CHECK(t.wire.received[1].at > t.wire.received[0].at);  // waited for the first
  CHECK(counter(t.port.stats, "tx_packets") == 1 + 2);
  const uint32_t header = PortConfig{}.header_bytes;  // RoCEv2 per packet on the wire
  CHECK(counter(t.port.stats, "tx_bytes") == (4096 + header) + (8192 + 2 * header));
}

TEST_CASE("port: received requests go to the responder, responses to the requester",
          "[tlm][port]") {
  PortBench t;
  t.fabric.script = [&] {
    for (Packet p : {packet(PacketKind::ReadRequest, 10), packet(PacketKind::ReadResponse, 11, 64),
                     packet(PacketKind::Nak, 12), packet(PacketKind::WriteRequest, 13, 32),
                     packet(PacketKind::Ack, 14), packet(PacketKind::SendRequest, 15, 8),
                     packet(PacketKind::RnrNak, 16)}) {
      t.fabric.send(p);
    }
  };
  run_simulation();
  REQUIRE(t.requests.size() == 3);
  CHECK(t.requests[0].kind == PacketKind::ReadRequest);
  CHECK(t.requests[0].sequence == 10);
  CHECK(t.requests[0].remote_token == 0x500);
  CHECK(t.requests[1].kind == PacketKind::WriteRequest);
  CHECK(t.requests[1].payload.size() == 32);
  CHECK(t.requests[2].kind == PacketKind::SendRequest);
  REQUIRE(t.responses.size() == 4);
  CHECK(t.responses[0].kind == PacketKind::ReadResponse);
  CHECK(t.responses[0].payload == std::vector<uint8_t>(64, 11));
  CHECK(t.responses[1].kind == PacketKind::Nak);
  CHECK(t.responses[2].kind == PacketKind::Ack);
  CHECK(t.responses[3].kind == PacketKind::RnrNak);
  CHECK(t.wire.size() == 0);
  CHECK(counter(t.port.stats, "rx_packets") == 7);
}
