// SPDX-License-Identifier: Apache-2.0
// DmaWriteEngine alone: DmaRequest messages from a stub, a memory stub receiving the writes.
#include <catch2/catch.hpp>

#include <vector>

#include <systemc>

#include "model/rnic/dma/dma_write_engine.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

struct WriteBench {
  DmaWriteEngine engine{"engine"};
  SenderStub<DataMoveProtocol> requester{"requester"};
  MemoryStub memory{"memory"};

  WriteBench() {
    requester.isock.bind(engine.write_tsock);
    engine.dma_isock.bind(memory.tsock);
  }
};

}  // namespace

TEST_CASE("dma write: bytes land per segment", "[tlm][dma]") {
  WriteBench t;
  const std::vector<PhysSegment> segments = {{0x3000, 16}, {0x9FF8, 8}, {0x100, 40}};
  std::vector<uint8_t> data(64);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(0xA0 + i);
  DmaRequest req;
  req.segments = &segments;
  req.data = data.data();
  t.requester.script = [&] { t.requester.send(req); };
  run_simulation();
  REQUIRE(req.ok);
  CHECK(t.memory.read(0x3000, 16) == std::vector<uint8_t>(data.begin(), data.begin() + 16));
  CHECK(t.memory.read(0x9FF8, 8) == std::vector<uint8_t>(data.begin() + 16, data.begin() + 24));
  CHECK(t.memory.read(0x100, 40) == std::vector<uint8_t>(data.begin() + 24, data.end()));
  CHECK(t.memory.byte(0x3010) == 0);  // nothing past a segment
  REQUIRE(t.memory.log.size() == 3);
  CHECK(t.memory.log[0].command == tlm::TLM_WRITE_COMMAND);
  CHECK(t.memory.log[1].address == 0x9FF8);
  CHECK(t.memory.log[1].length == 8);
  CHECK(t.memory.log[2].source == DmaSource::WriteData);
  CHECK(counter(t.engine.stats, "bytes") == 64);
  CHECK(counter(t.engine.stats, "requests") == 1);
}

TEST_CASE("dma write: a failing segment reports not ok", "[tlm][dma]") {
  WriteBench t;
  t.memory.size_bytes = 0x1000;
  const std::vector<PhysSegment> segments = {{0x800, 8}, {0x1000, 8}};
  std::vector<uint8_t> data(16, 0x5A);
  DmaRequest req;
  req.segments = &segments;
  req.data = data.data();
  t.requester.script = [&] { t.requester.send(req); };
  run_simulation();
  CHECK_FALSE(req.ok);
  CHECK(t.memory.read(0x800, 8) == std::vector<uint8_t>(8, 0x5A));
}
