// SPDX-License-Identifier: Apache-2.0
// Switch alone: stub ports send packets, one sink per node receives them.
#include <catch2/catch.hpp>

#include <vector>

#include <systemc>

#include "model/fabric/switch.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

struct SwitchBench {
  Switch::Config config;
  Switch sw{"switch", config};
  SenderStub<WireProtocol> node0{"node0"};
  SenderStub<WireProtocol> node1{"node1"};
  MessageSink<Packet, WireProtocol> in0{"in0"};
  MessageSink<Packet, WireProtocol> in1{"in1"};
  MessageSink<Packet, WireProtocol> in2{"in2"};

  SwitchBench() {
    node0.isock.bind(sw.port_tsock);
    node1.isock.bind(sw.port_tsock);
    sw.port_isock.bind(in0.tsock);  // node-id order
    sw.port_isock.bind(in1.tsock);
    sw.port_isock.bind(in2.tsock);
  }
};

Packet to(uint32_t dst, uint64_t sequence, size_t payload = 0) {
  Packet p;
  p.kind = payload ? PacketKind::ReadResponse : PacketKind::ReadRequest;
  p.dst_node = dst;
  p.sequence = sequence;
  p.payload.assign(payload, uint8_t(sequence));
  return p;
}

}  // namespace

TEST_CASE("switch: routes by destination node and drops unknown nodes", "[tlm][switch]") {
  SwitchBench t;
  t.node0.script = [&] {
    Packet a = to(2, 1, 100);
    t.node0.send(a);
    a.payload.assign(100, 0xFF);  // the sender reuses its buffer at once
    Packet lost = to(5, 2);
    t.node0.send(lost);
    Packet b = to(1, 3);
    t.node0.send(b);
  };
  run_simulation();
  REQUIRE(t.in2.size() == 1);
  CHECK(t.in2[0].sequence == 1);
  CHECK(t.in2[0].payload == std::vector<uint8_t>(100, 1));  // the copy taken on entry
  REQUIRE(t.in1.size() == 1);
  CHECK(t.in1[0].sequence == 3);
  CHECK(t.in0.size() == 0);
  CHECK(counter(t.sw.stats, "dropped") == 1);
  CHECK(counter(t.sw.stats, "forwarded") == 2);
  // Delivered after the link latency.
  CHECK(t.in2.received[0].at > sc_core::SC_ZERO_TIME);
}

TEST_CASE("switch: packets to one node arrive in order, serialized on its port",
          "[tlm][switch]") {
  SwitchBench t;
  t.node0.script = [&] {
    for (uint64_t s = 1; s <= 3; ++s) {
      Packet p = to(1, s, 4096);
      t.node0.send(p);
    }
  };
  t.node1.script = [&] {
    Packet p = to(0, 9, 4096);  // another output port: not delayed by node 1's traffic
    t.node1.send(p);
  };
  run_simulation();
  REQUIRE(t.in1.size() == 3);
  for (uint64_t s = 0; s < 3; ++s) CHECK(t.in1[s].sequence == s + 1);
  CHECK(t.in1.received[1].at > t.in1.received[0].at);
  CHECK(t.in1.received[2].at > t.in1.received[1].at);
  REQUIRE(t.in0.size() == 1);
  CHECK(t.in0.received[0].at == t.in1.received[0].at);  // same size, same start, no contention
  CHECK(counter(t.sw.stats, "queued_ps") > 0);
}

TEST_CASE("switch: a read response's or write's payload moves, a send's is copied",
          "[tlm][switch]") {
  // A transfer is held once, not twice (docs/user-guide.md, Limits, the memory budget); a
  // send stays whole with its sender, which sends it again after an RNR NAK.
  SwitchBench t;
  t.node0.script = [&] {
    Packet read = to(1, 1, 100);  // a read response
    t.node0.send(read);
    CHECK(read.payload.empty());
    Packet write = to(1, 2, 200);
    write.kind = PacketKind::WriteRequest;
    t.node0.send(write);
    CHECK(write.payload.empty());
    Packet send = to(1, 3, 300);
    send.kind = PacketKind::SendRequest;
    t.node0.send(send);
    CHECK(send.payload == std::vector<uint8_t>(300, 3));
    // A sender reusing its packet builds a new payload: the one sent is not touched.
    read.payload.assign(100, 0xFF);
  };
  run_simulation();
  REQUIRE(t.in1.size() == 3);
  CHECK(t.in1[0].payload == std::vector<uint8_t>(100, 1));
  CHECK(t.in1[1].kind == PacketKind::WriteRequest);
  CHECK(t.in1[1].payload == std::vector<uint8_t>(200, 2));
  CHECK(t.in1[2].payload == std::vector<uint8_t>(300, 3));
}
