// SPDX-License-Identifier: Apache-2.0
// DmaReadEngine alone: DmaRequest messages from a stub, host memory as a memory stub that
// records each read TLP the engine issues.
#include <catch2/catch.hpp>

#include <vector>

#include <systemc>

#include "model/rnic/dma/dma_read_engine.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

struct ReadBench {
  PcieConfig config;
  DmaConfig dma;
  DmaReadEngine engine;
  SenderStub<DataMoveProtocol> requester{"requester"};
  SenderStub<DataMoveProtocol> responder{"responder"};
  MemoryStub memory{"memory"};

  // 500 MHz: a channel of `bytes_per_cycle` moves a 64 B line in 64/bytes_per_cycle * 2 ns.
  explicit ReadBench(uint32_t tags = 32, uint32_t channels = 8, uint32_t bytes_per_cycle = 32)
      : config(with_tags(tags)),
        dma(DmaConfig{channels, bytes_per_cycle}),
        engine("engine", DmaReadEngine::Config{config.max_read_tags, config.mrrs_bytes, dma,
                                               /*clock_mhz=*/500.0}) {
    requester.isock.bind(engine.read_tsock);
    responder.isock.bind(engine.read_tsock);
    engine.dma_isock.bind(memory.tsock);
    memory.pattern = [](uint64_t a) { return uint8_t((a * 13) ^ (a >> 9)); };
    memory.read_latency = sc_core::sc_time(400, sc_core::SC_NS);  // a host round trip
  }
  static PcieConfig with_tags(uint32_t tags) {
    PcieConfig c;
    c.mrrs_bytes = 512;
    c.max_read_tags = tags;
    return c;
  }
};

}  // namespace

TEST_CASE("dma read: segments split at MRRS and 4 KiB, data assembled in order",
          "[tlm][dma]") {
  ReadBench t;
  const std::vector<PhysSegment> segments = {{0x1F00, 0x300}, {0x5010, 0x500}};
  std::vector<uint8_t> data(0x800, 0xEE);
  DmaRequest req;
  req.segments = &segments;
  req.data = data.data();
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  t.responder.script = [&] { t.responder.send(req, delay); };
  run_simulation();
  REQUIRE(req.ok);
  // 0x1F00+0x100 stops at the 4 KiB boundary; 0x2000+0x200; then 0x5010 in MRRS pieces.
  const std::vector<std::pair<uint64_t, uint32_t>> expected = {
      {0x1F00, 0x100}, {0x2000, 0x200}, {0x5010, 0x200}, {0x5210, 0x200}, {0x5410, 0x100}};
  REQUIRE(t.memory.log.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(t.memory.log[i].command == tlm::TLM_READ_COMMAND);
    CHECK(t.memory.log[i].address == expected[i].first);
    CHECK(t.memory.log[i].length == expected[i].second);
    CHECK(t.memory.log[i].source == DmaSource::ReadData);
  }
  for (uint32_t i = 0; i < 0x300; ++i) REQUIRE(data[i] == t.memory.byte(0x1F00 + i));
  for (uint32_t i = 0; i < 0x500; ++i) REQUIRE(data[0x300 + i] == t.memory.byte(0x5010 + i));
  CHECK(delay > sc_core::SC_ZERO_TIME);
  CHECK(counter(t.engine.stats, "read_tlps") == 5);
  CHECK(counter(t.engine.stats, "bytes") == 0x800);
  CHECK(counter(t.engine.stats, "requests") == 1);
  // 32 tags: every request is issued at once.
  for (const auto& a : t.memory.log) CHECK(a.at == t.memory.log[0].at);
  CHECK(counter(t.engine.stats, "tag_stall_ps") == 0);
}

TEST_CASE("dma read: one read tag serializes the requests", "[tlm][dma]") {
  ReadBench t(1);
  const std::vector<PhysSegment> segments = {{0x10000, 2048}};
  std::vector<uint8_t> data(2048);
  DmaRequest req;
  req.segments = &segments;
  req.data = data.data();
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  t.requester.script = [&] { t.requester.send(req, delay); };
  run_simulation();
  REQUIRE(req.ok);
  REQUIRE(t.memory.log.size() == 4);
  // Each request starts only once the previous one's data is back.
  for (size_t i = 1; i < t.memory.log.size(); ++i) {
    CHECK(t.memory.log[i].at > t.memory.log[i - 1].at);
    CHECK(t.memory.log[i].at >= t.memory.log[i - 1].at + t.memory.read_latency);
  }
  CHECK(delay >= t.memory.log.back().at + t.memory.read_latency);
  CHECK(counter(t.engine.stats, "tag_stall_ps") > 0);
  for (uint32_t i = 0; i < 2048; ++i) REQUIRE(data[i] == t.memory.byte(0x10000 + i));
}

TEST_CASE("dma read: a failing read reports not ok", "[tlm][dma]") {
  ReadBench t;
  t.memory.size_bytes = 0x3000;
  const std::vector<PhysSegment> segments = {{0x2000, 0x100}, {0x3000, 0x100}};
  std::vector<uint8_t> data(0x200);
  DmaRequest req;
  req.segments = &segments;
  req.data = data.data();
  DmaRequest empty;  // no segment list: refused
  empty.ok = true;
  t.requester.script = [&] {
    t.requester.send(req);
    t.requester.send(empty);
  };
  run_simulation();
  CHECK_FALSE(req.ok);
  CHECK_FALSE(empty.ok);
  CHECK(counter(t.engine.stats, "requests") == 1);  // the refused one is not a request
}

TEST_CASE("dma read: a narrow channel paces a transfer by its 64 B lines", "[tlm][dma]") {
  // 8 B per cycle at 500 MHz: 16 ns per line. One 2048 B transfer: four 512 B requests, all
  // back 400 ns after issue (the memory stub has no bandwidth), then 32 lines through the
  // channel, one request after the other.
  ReadBench t(32, 1, 8);
  const std::vector<PhysSegment> segments = {{0x10000, 2048}};
  std::vector<uint8_t> data(2048);
  DmaRequest req;
  req.segments = &segments;
  req.data = data.data();
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  t.requester.script = [&] { t.requester.send(req, delay); };
  run_simulation();
  REQUIRE(req.ok);
  CHECK(delay == sc_core::sc_time(400 + 32 * 16, sc_core::SC_NS));
  CHECK(counter(t.engine.stats, "lines") == 32);
  // Requests 2..4 arrived at 400 ns and waited for the channel: 128 + 256 + 384 ns.
  CHECK(counter(t.engine.stats, "channel_stall_ps") == (128 + 256 + 384) * 1000);
  // Behind its own lines, not another transfer: it never waited for a free channel.
  CHECK(counter(t.engine.stats, "channel_wait_ps") == 0);
  for (uint32_t i = 0; i < 2048; ++i) REQUIRE(data[i] == t.memory.byte(0x10000 + i));
}

TEST_CASE("dma read: crossing a 64 B boundary costs a line", "[tlm][dma]") {
  ReadBench t(32, 1, 8);
  const std::vector<PhysSegment> aligned = {{0x10000, 64}}, crossing = {{0x10020, 64}};
  std::vector<uint8_t> data(64);
  DmaRequest a, b;
  a.segments = &aligned;
  b.segments = &crossing;
  a.data = b.data = data.data();
  sc_core::sc_time da = sc_core::SC_ZERO_TIME, db = sc_core::SC_ZERO_TIME;
  t.requester.script = [&] {
    t.requester.send(a, da);
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));  // the channel is idle again
    t.requester.send(b, db);
  };
  run_simulation();
  CHECK(da == sc_core::sc_time(400 + 16, sc_core::SC_NS));
  CHECK(db == sc_core::sc_time(400 + 2 * 16, sc_core::SC_NS));
  CHECK(counter(t.engine.stats, "lines") == 3);
}

namespace {
// Two 512 B transfers issued at the same time from two engines: their delays, sorted, and the
// channels' statistics.
struct TwoTransfers {
  sc_core::sc_time first, second;
  uint64_t channel_wait_ps = 0;
  uint64_t channels_max = 0;
  double channels_mean = 0;  // over [0, second)
};
TwoTransfers two_transfers(uint32_t channels) {
  ReadBench t(32, channels, 8);
  const std::vector<PhysSegment> s1 = {{0x10000, 512}}, s2 = {{0x20000, 512}};
  std::vector<uint8_t> d1(512), d2(512);
  DmaRequest r1, r2;
  r1.segments = &s1;
  r2.segments = &s2;
  r1.data = d1.data();
  r2.data = d2.data();
  sc_core::sc_time t1 = sc_core::SC_ZERO_TIME, t2 = sc_core::SC_ZERO_TIME;
  t.requester.script = [&] { t.requester.send(r1, t1); };
  t.responder.script = [&] { t.responder.send(r2, t2); };
  run_simulation();
  TwoTransfers out{std::min(t1, t2), std::max(t1, t2)};
  out.channel_wait_ps = counter(t.engine.stats, "channel_wait_ps");
  for (const Occupancy& o : t.engine.stats.occupancies()) {
    if (o.name != "channels_in_use") continue;
    out.channels_max = o.max();
    out.channels_mean = o.mean(out.second.value());
  }
  return out;
}
}  // namespace

TEST_CASE("dma read: transfers on separate channels overlap", "[tlm][dma]") {
  const TwoTransfers r = two_transfers(2);
  CHECK(r.first == sc_core::sc_time(400 + 8 * 16, sc_core::SC_NS));
  CHECK(r.second == r.first);
  // Each had its own channel, holding its data from 400 ns to its last line: no wait.
  CHECK(r.channel_wait_ps == 0);
  CHECK(r.channels_max == 2);
  CHECK(r.channels_mean == Approx(2.0 * 128 / 528));
}

TEST_CASE("dma read: transfers sharing one channel queue behind each other", "[tlm][dma]") {
  const TwoTransfers r = two_transfers(1);
  CHECK(r.first == sc_core::sc_time(400 + 8 * 16, sc_core::SC_NS));
  CHECK(r.second == r.first + sc_core::sc_time(8 * 16, sc_core::SC_NS));
  // The second's data was in at 400 ns and waited for the first to free the channel (528 ns).
  CHECK(r.channel_wait_ps == 8 * 16 * 1000);
  // The one channel held data from 400 ns on: the first's, then the second's.
  CHECK(r.channels_max == 1);
  CHECK(r.channels_mean == Approx(256.0 / 656));
}
