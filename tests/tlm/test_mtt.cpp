// SPDX-License-Identifier: Apache-2.0
// Mtt alone: translation requests from a stub, the MTT table in a memory stub.
#include <catch2/catch.hpp>

#include <vector>

#include <systemc>

#include "model/rnic/util/byte_order.h"
#include "model/rnic/translation/mtt.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

IcmLayout small_layout() {
  QpConfig limits;
  limits.max_mpt_entries = 16;
  limits.max_mtt_entries = 64;
  limits.max_qps = 8;
  limits.max_cqs = 8;
  return IcmLayout::from(limits);
}

struct MttBench {
  Mtt::Config config;
  IcmLayout icm = small_layout();
  Mtt mtt;
  SenderStub<TranslationProtocol> xlate{"xlate"};
  SenderStub<ContextChangeProtocol> ctrl{"ctrl"};
  MemoryStub memory{"memory"};

  explicit MttBench(const MttConfig& mtt_config = MttConfig{})
      : config(with(mtt_config)), mtt("mtt", config, icm) {
    xlate.isock.bind(mtt.xlate_tsock);
    ctrl.isock.bind(mtt.ctrl_tsock);
    mtt.dma_isock.bind(memory.tsock);
  }
  static Mtt::Config with(const MttConfig& m) {
    Mtt::Config c;
    c.mtt = m;
    return c;
  }
  void set_entry(uint32_t index, uint64_t phys) {
    uint8_t raw[8];
    put_le<uint64_t>(raw, phys);
    memory.write(icm.mtt_addr(index), raw, 8);
  }
  TranslateRequest translate(uint32_t mtt_index, uint64_t page_base_va, uint64_t va,
                             uint64_t length) {
    TranslateRequest req;
    req.region = Region{mtt_index, 12, page_base_va};
    req.va = va;
    req.length = length;
    xlate.send(req);
    return req;
  }
};

constexpr uint64_t kVa = 0x40000000;

}  // namespace

TEST_CASE("mtt: translation over several scattered pages", "[tlm][mtt]") {
  MttBench t;
  t.set_entry(10, 0x7000000);
  t.set_entry(11, 0x3000000);
  t.set_entry(12, 0x5000000);
  TranslateRequest first, again;
  t.xlate.script = [&] {
    first = t.translate(10, kVa, kVa + 0xF00, 0x1200);
    again = t.translate(10, kVa, kVa + 0xF00, 0x1200);
  };
  run_simulation();
  REQUIRE(first.ok);
  REQUIRE(first.segments.size() == 3);
  CHECK(first.segments[0].addr == 0x7000F00);
  CHECK(first.segments[0].length == 0x100);
  CHECK(first.segments[1].addr == 0x3000000);
  CHECK(first.segments[1].length == 0x1000);
  CHECK(first.segments[2].addr == 0x5000000);
  CHECK(first.segments[2].length == 0x100);
  REQUIRE(again.ok);
  REQUIRE(again.segments.size() == 3);
  CHECK(again.segments[1].addr == 0x3000000);
  // Entries 10..12 sit in one 8-entry line: one miss fetches all three.
  REQUIRE(t.memory.log.size() == 1);
  CHECK(t.memory.log[0].command == tlm::TLM_READ_COMMAND);
  CHECK(t.memory.log[0].address == t.icm.mtt_addr(8));
  CHECK(t.memory.log[0].length == 8 * kMttEntryBytes);
  CHECK(t.memory.log[0].source == DmaSource::MttTable);
  CHECK(counter(t.mtt.stats, "mtt_misses") == 1);
  CHECK(counter(t.mtt.stats, "mtt_hits") == 5);
  CHECK(counter(t.mtt.stats, "translations") == 2);
  CHECK(counter(t.mtt.stats, "pages") == 6);
}

TEST_CASE("mtt: conflicting entries evict each other in a direct-mapped cache", "[tlm][mtt]") {
  MttConfig m;
  m.cache_entries = 4;
  m.cache_ways = 1;
  m.entries_per_fetch = 1;
  MttBench t(m);
  t.set_entry(10, 0xA000);
  t.set_entry(14, 0xE000);  // 14 % 4 == 10 % 4
  t.set_entry(11, 0xB000);
  std::vector<TranslateRequest> out;
  t.xlate.script = [&] {
    out.push_back(t.translate(10, kVa, kVa, 16));           // miss
    out.push_back(t.translate(10, kVa, kVa + 0x4000, 16));  // entry 14: miss, evicts 10
    out.push_back(t.translate(10, kVa, kVa + 0x1000, 16));  // entry 11: miss, other set
    out.push_back(t.translate(10, kVa, kVa, 16));           // entry 10 again: miss
    out.push_back(t.translate(10, kVa, kVa + 0x1000, 16));  // entry 11: hit
  };
  run_simulation();
  REQUIRE(out.size() == 5);
  CHECK(out[0].segments.at(0).addr == 0xA000);
  CHECK(out[1].segments.at(0).addr == 0xE000);
  CHECK(out[2].segments.at(0).addr == 0xB000);
  CHECK(out[3].segments.at(0).addr == 0xA000);
  CHECK(out[4].segments.at(0).addr == 0xB000);
  CHECK(counter(t.mtt.stats, "mtt_misses") == 4);
  CHECK(counter(t.mtt.stats, "mtt_hits") == 1);
  CHECK(t.memory.count(tlm::TLM_READ_COMMAND) == 4);
}

TEST_CASE("mtt: translations outside the table or the region fault", "[tlm][mtt]") {
  MttBench t;
  for (uint32_t i = 56; i < 64; ++i) t.set_entry(i, 0x100000ull * i);
  std::vector<TranslateRequest> out;
  t.xlate.script = [&] {
    out.push_back(t.translate(62, kVa, kVa, 2 * 4096));      // entries 62, 63: inside
    out.push_back(t.translate(62, kVa, kVa, 2 * 4096 + 1));  // entry 64: past the table
    out.push_back(t.translate(10, kVa, kVa - 1, 1));         // below the region base
    TranslateRequest bad_shift;
    bad_shift.region = Region{10, 40, kVa};
    bad_shift.va = kVa;
    bad_shift.length = 1;
    t.xlate.send(bad_shift);
    out.push_back(bad_shift);
  };
  run_simulation();
  REQUIRE(out.size() == 4);
  CHECK(out[0].ok);
  CHECK(out[0].segments.size() == 2);
  CHECK_FALSE(out[1].ok);
  CHECK_FALSE(out[2].ok);
  CHECK_FALSE(out[3].ok);
  CHECK(counter(t.mtt.stats, "faults") == 3);
  // No read ever goes past the table end.
  for (const auto& a : t.memory.log) CHECK(a.address + a.length <= t.icm.mtt_addr(64));
}

TEST_CASE("mtt: a ContextChange(Mtt) drops cached entries and forces a re-read", "[tlm][mtt]") {
  MttBench t;
  t.set_entry(20, 0x111000);
  t.set_entry(21, 0x222000);
  std::vector<TranslateRequest> out;
  t.xlate.script = [&] {
    out.push_back(t.translate(20, kVa, kVa, 8));
    t.set_entry(20, 0x999000);  // the driver rewrites the entry...
    out.push_back(t.translate(20, kVa, kVa, 8));  // ...the cache still holds the old one
    ContextChange other{ContextKind::Mpt, 20, 1};  // another table: no effect
    t.ctrl.send(other);
    out.push_back(t.translate(20, kVa, kVa, 8));
    ContextChange change{ContextKind::Mtt, 20, 1};
    t.ctrl.send(change);
    out.push_back(t.translate(20, kVa, kVa, 8));
    out.push_back(t.translate(20, kVa, kVa + 4096, 8));  // entry 21 was not invalidated
  };
  run_simulation();
  REQUIRE(out.size() == 5);
  CHECK(out[0].segments.at(0).addr == 0x111000);
  CHECK(out[1].segments.at(0).addr == 0x111000);
  CHECK(out[2].segments.at(0).addr == 0x111000);
  CHECK(out[3].segments.at(0).addr == 0x999000);
  CHECK(out[4].segments.at(0).addr == 0x222000);
  CHECK(counter(t.mtt.stats, "mtt_misses") == 2);
  CHECK(t.memory.count(tlm::TLM_READ_COMMAND) == 2);
}

TEST_CASE("mtt: a page-list load writes the table and rejects unaligned pages", "[tlm][mtt]") {
  MttBench t;
  const uint64_t list = 0x500000;
  const uint64_t pages[3] = {0x8000000, 0x2000000, 0x6000000};
  for (int i = 0; i < 3; ++i) {
    uint8_t raw[8];
    put_le<uint64_t>(raw, pages[i]);
    t.memory.write(list + 8 * i, raw, 8);
  }
  const uint64_t bad_list = 0x600000;
  uint8_t raw[8];
  put_le<uint64_t>(raw, 0x8000010);  // not page aligned
  t.memory.write(bad_list, raw, 8);
  t.set_entry(33, 0x1000);  // stale value, will be cached before the load
  PageListLoad load, bad;
  TranslateRequest before, after;
  t.xlate.script = [&] {
    before = t.translate(32, kVa, kVa + 4096, 8);  // caches entry 33
    load.page_list = list;
    load.count = 3;
    load.mtt_index = 32;
    t.xlate.send(load);
    after = t.translate(32, kVa, kVa, 3 * 4096);
    bad.page_list = bad_list;
    bad.count = 1;
    bad.mtt_index = 40;
    t.xlate.send(bad);
  };
  run_simulation();
  CHECK(before.segments.at(0).addr == 0x1000);
  REQUIRE(load.ok);
  for (int i = 0; i < 3; ++i)
    CHECK(get_le<uint64_t>(t.memory.read(t.icm.mtt_addr(32 + i), 8).data()) == pages[i]);
  REQUIRE(after.ok);
  REQUIRE(after.segments.size() == 3);
  CHECK(after.segments[0].addr == pages[0]);
  CHECK(after.segments[1].addr == pages[1]);  // not the stale cached 0x1000
  CHECK(after.segments[2].addr == pages[2]);
  CHECK_FALSE(bad.ok);
  CHECK(t.memory.read(t.icm.mtt_addr(40), 8) == std::vector<uint8_t>(8, 0));  // not written
}
