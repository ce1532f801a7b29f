// SPDX-License-Identifier: Apache-2.0
// The table cache behind the QPC/CQC, MPT and MTT caches: hits, merged misses, miss-status
// registers and their stall, LRU eviction, invalidation, write-back, and the statistics by
// asker. Plain C++, times in ps; the unit's table read is played by the test.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "model/rnic/util/table_cache.h"

using rnic::StatGroup;
using rnic::TableCacheLabels;
using Cache = rnic::TableCache<int>;
using Outcome = Cache::Outcome;

namespace {

Cache::Config config(uint32_t entries, uint32_t ways, uint32_t registers,
                     bool write_back = false) {
  Cache::Config c;
  c.entries = entries;
  c.ways = ways;
  c.miss_registers = registers;
  c.write_back = write_back;
  return c;
}

// Two askers, the all-asker totals and every optional statistic.
TableCacheLabels labels() {
  TableCacheLabels l;
  l.askers = {"left", "right"};
  l.all_hits = {"t_hits", "hits"};
  l.all_misses = {"t_misses", "misses"};
  l.all_merged = {"t_merged", "merged"};
  l.hits = {"t_hits_{asker}", "hits asked by the {asker}"};
  l.misses = {"t_misses_{asker}", "misses asked by the {asker}"};
  l.merged = {"t_merged_{asker}", "merged asked by the {asker}"};
  l.evictions = {"t_evictions", "evictions"};
  l.write_backs = {"t_write_backs", "write-backs"};
  l.stall = {"t_stall_ps", "stall"};
  l.fill = {"t_fill_ns", "fill"};
  l.in_flight = {"t_outstanding", "in flight"};
  return l;
}

uint64_t counter(const StatGroup& stats, const std::string& name) {
  for (const auto& c : stats.counters())
    if (c.name == name) return c.value;
  FAIL("no counter " << name);
  return 0;
}

// A miss whose table read takes `read_ps` from when its register is free; returns the
// access as lookup() answered it.
Cache::Access miss_and_fill(Cache& cache, uint64_t key, int value, uint32_t asker,
                            uint64_t asked_ps, uint64_t read_ps) {
  const Cache::Access a = cache.lookup(key, asker, asked_ps);
  REQUIRE(a.outcome == Outcome::Miss);
  cache.fill(a, asked_ps, a.ready_ps + read_ps, value);
  return a;
}

}  // namespace

TEST_CASE("table cache: a present line is a hit at once, under other misses", "[unit][cache]") {
  StatGroup stats("t");
  Cache cache(config(8, 2, 4), stats, labels());
  miss_and_fill(cache, 9, 7, 0, 0, 500);
  // Another miss in flight until 1700 ps.
  const Cache::Access other = cache.lookup(13, 0, 700);
  REQUIRE(other.outcome == Outcome::Miss);
  cache.fill(other, 700, 1700, 1);
  const Cache::Access hit = cache.lookup(9, 0, 800);
  CHECK(hit.outcome == Outcome::Hit);
  CHECK(hit.ready_ps == 800);
  CHECK(*hit.entry == 7);
  CHECK(counter(stats, "t_hits") == 1);
  CHECK(counter(stats, "t_misses") == 2);
}

TEST_CASE("table cache: a line in flight is a merged miss until its fill lands",
          "[unit][cache]") {
  StatGroup stats("t");
  Cache cache(config(8, 2, 4), stats, labels());
  const Cache::Access a = miss_and_fill(cache, 5, 42, 0, 100, 500);
  CHECK(a.ready_ps == 100);  // a register was free: no stall
  // Asked again before 600 ps: no second read, ready when the first lands.
  const Cache::Access merged = cache.lookup(5, 1, 300);
  CHECK(merged.outcome == Outcome::Merged);
  CHECK(merged.ready_ps == 600);
  CHECK(*merged.entry == 42);
  // Asked at or after the fill: a hit.
  CHECK(cache.lookup(5, 1, 600).outcome == Outcome::Hit);
  CHECK(counter(stats, "t_merged") == 1);
  CHECK(counter(stats, "t_merged_right") == 1);
  CHECK(counter(stats, "t_misses") == 1);
  // The fill's latency is from when it was asked.
  const auto& fill = stats.histograms().front();
  CHECK(fill.count() == 1);
  CHECK(fill.sum_ps == 500);
}

TEST_CASE("table cache: misses with free registers go out at once, together",
          "[unit][cache]") {
  StatGroup stats("t");
  Cache cache(config(64, 4, 3), stats, labels());
  CHECK(cache.registers() == 3);
  for (uint64_t key = 0; key < 3; ++key) {
    const Cache::Access a = cache.lookup(key, 0, 0);
    CHECK(a.outcome == Outcome::Miss);
    CHECK(a.ready_ps == 0);
    cache.end_miss(a, 0, 500, true);
  }
  CHECK(counter(stats, "t_stall_ps") == 0);
  const auto& in_flight = stats.occupancies().front();
  CHECK(in_flight.max() == 3);
  CHECK(in_flight.level_at(499) == 3);
  CHECK(in_flight.level_at(500) == 0);
}

TEST_CASE("table cache: with every register busy a miss waits for the first to free",
          "[unit][cache]") {
  StatGroup stats("t");
  Cache cache(config(64, 4, 2), stats, labels());
  // Three misses at 100 ps, each read taking 500 ps: the third waits for the first register.
  const Cache::Access a = cache.lookup(1, 0, 100);
  cache.end_miss(a, 100, a.ready_ps + 500, true);
  const Cache::Access b = cache.lookup(2, 0, 100);
  cache.end_miss(b, 100, b.ready_ps + 500, true);
  const Cache::Access c = cache.lookup(3, 0, 100);
  cache.end_miss(c, 100, c.ready_ps + 500, true);
  CHECK(a.ready_ps == 100);
  CHECK(b.ready_ps == 100);
  CHECK(c.ready_ps == 600);
  CHECK(counter(stats, "t_stall_ps") == 500);
  // The fill counts from the ask, the wait included; the occupancy from the register taken.
  CHECK(stats.histograms().front().sum_ps == 500 + 500 + 1000);
  CHECK(stats.occupancies().front().max() == 2);

  // One register: a blocking cache. Zero registers still means one.
  StatGroup one_stats("one");
  Cache blocking(config(64, 4, 1), one_stats, labels());
  const Cache::Access x = blocking.lookup(1, 0, 0);
  blocking.end_miss(x, 0, 500, true);
  CHECK(blocking.lookup(2, 0, 10).ready_ps == 500);
  CHECK(counter(one_stats, "t_stall_ps") == 490);
  StatGroup zero_stats("zero");
  Cache zero(config(64, 4, 0), zero_stats, labels());
  CHECK(zero.registers() == 1);
}

TEST_CASE("table cache: a failed read frees its register and enters nothing", "[unit][cache]") {
  StatGroup stats("t");
  Cache cache(config(8, 2, 1), stats, labels());
  const Cache::Access a = cache.lookup(4, 0, 0);
  cache.end_miss(a, 0, 300, false);
  CHECK(stats.histograms().front().count() == 0);  // no fill
  const Cache::Access again = cache.lookup(4, 0, 400);
  CHECK(again.outcome == Outcome::Miss);
  CHECK(again.ready_ps == 400);  // the register freed at 300
}

TEST_CASE("table cache: bounded, least recently used out first within a set",
          "[unit][cache]") {
  StatGroup stats("t");
  Cache cache(config(4, 2, 1), stats, labels());  // 2 sets of 2 ways: even keys in set 0
  CHECK(cache.sets() == 2);
  cache.insert(0, 0);
  cache.insert(2, 2);
  CHECK(cache.lookup(0, 0, 0).outcome == Outcome::Hit);  // 0 most recently used
  cache.insert(4, 4);                                    // same set: evicts 2
  CHECK(cache.evictions() == 1);
  CHECK(counter(stats, "t_evictions") == 1);
  cache.insert(1, 1);  // the other set has room
  CHECK(counter(stats, "t_evictions") == 1);
  CHECK(cache.lookup(0, 0, 0).outcome == Outcome::Hit);
  CHECK(cache.lookup(4, 0, 0).outcome == Outcome::Hit);
  const Cache::Access gone = cache.lookup(2, 0, 0);
  CHECK(gone.outcome == Outcome::Miss);
  cache.end_miss(gone, 0, 0, false);
  // insert_if_absent keeps a present line (a newer copy than a neighbour's fill).
  cache.insert_if_absent(4, 99, 0);
  CHECK(*cache.lookup(4, 0, 0).entry == 4);
  // A line the unit changed is entered at once (ready_ps 0: a write-through update).
  cache.insert(4, 44);
  CHECK(*cache.lookup(4, 0, 0).entry == 44);
}

TEST_CASE("table cache: a context change drops the line, the next lookup reads it again",
          "[unit][cache]") {
  StatGroup stats("t");
  Cache cache(config(8, 2, 2), stats, labels());
  miss_and_fill(cache, 3, 30, 0, 0, 500);
  CHECK(cache.lookup(3, 0, 600).outcome == Outcome::Hit);
  cache.invalidate(3);
  cache.invalidate(5);  // absent: nothing happens
  const Cache::Access again = cache.lookup(3, 0, 700);
  CHECK(again.outcome == Outcome::Miss);
  cache.fill(again, 700, 1200, 31);
  CHECK(*cache.lookup(3, 0, 1200).entry == 31);
  CHECK(counter(stats, "t_misses") == 2);
  CHECK(counter(stats, "t_evictions") == 0);  // dropped, not evicted
}

TEST_CASE("table cache: a write-back table hands its victims back, a write-through one not",
          "[unit][cache]") {
  StatGroup stats("t");
  Cache cache(config(2, 2, 1, true), stats, labels());  // one set of two ways
  miss_and_fill(cache, 10, 100, 0, 0, 100);
  miss_and_fill(cache, 11, 110, 0, 200, 100);
  Cache::Victim none;
  cache.lookup(10, 0, 400);  // 10 most recently used: 11 goes next
  const Cache::Access c = cache.lookup(12, 0, 500);
  cache.fill(c, 500, 600, 120, &none);
  CHECK(none.happened);
  CHECK(none.key == 11);
  CHECK(none.entry == 110);
  CHECK(counter(stats, "t_evictions") == 1);
  CHECK(counter(stats, "t_write_backs") == 1);

  // A fill into a free way evicts nothing.
  StatGroup roomy_stats("roomy");
  Cache roomy(config(4, 4, 1, true), roomy_stats, labels());
  Cache::Victim victim;
  const Cache::Access d = roomy.lookup(1, 0, 0);
  roomy.fill(d, 0, 100, 1, &victim);
  CHECK_FALSE(victim.happened);

  // Write-through (write_back false): evictions counted, no victim, no write-back.
  StatGroup wt_stats("wt");
  Cache through(config(1, 1, 1, false), wt_stats, labels());
  through.insert(1, 1);
  Cache::Victim kept;
  through.insert(2, 2, 0, &kept);
  CHECK_FALSE(kept.happened);
  CHECK(counter(wt_stats, "t_evictions") == 1);
  CHECK(counter(wt_stats, "t_write_backs") == 0);
}

TEST_CASE("table cache: lookups counted by asker, and over all askers", "[unit][cache]") {
  StatGroup stats("t");
  Cache cache(config(8, 2, 4), stats, labels());
  miss_and_fill(cache, 1, 1, 0, 0, 1000);  // left: a miss
  cache.lookup(1, 1, 500);                 // right: merged
  cache.lookup(1, 1, 1000);                // right: a hit
  cache.lookup(1, 0, 1000);                // left: a hit
  cache.lookup(1, 7, 1000);                // an asker past the list counts as the first
  CHECK(counter(stats, "t_misses_left") == 1);
  CHECK(counter(stats, "t_hits_left") == 2);
  CHECK(counter(stats, "t_merged_left") == 0);
  CHECK(counter(stats, "t_misses_right") == 0);
  CHECK(counter(stats, "t_merged_right") == 1);
  CHECK(counter(stats, "t_hits_right") == 1);
  CHECK(counter(stats, "t_hits") == 3);
  CHECK(counter(stats, "t_misses") == 1);
  CHECK(counter(stats, "t_merged") == 1);
}

TEST_CASE("table cache: statistics declared in order, optional ones left out",
          "[unit][cache]") {
  StatGroup stats("t");
  Cache full(config(8, 2, 1), stats, labels());
  std::string names;
  for (const auto& c : stats.counters()) names += c.name + " ";
  CHECK(names ==
        "t_hits t_misses t_merged t_hits_left t_misses_left t_merged_left t_hits_right "
        "t_misses_right t_merged_right t_evictions t_write_backs t_stall_ps ");
  CHECK(stats.counters()[3].description == "hits asked by the left");
  CHECK(stats.counters()[3].unit == "lookups");
  CHECK(stats.counters()[9].unit == "entries");
  CHECK(stats.counters()[11].unit == "ps");
  CHECK(stats.histograms().front().name == "t_fill_ns");
  CHECK(stats.occupancies().front().name == "t_outstanding");
  CHECK(stats.occupancies().front().unit == "misses");

  TableCacheLabels bare = labels();
  bare.all_hits = bare.all_misses = bare.all_merged = {};
  bare.evictions = bare.write_backs = {};
  StatGroup bare_stats("bare");
  Cache cache(config(8, 2, 1), bare_stats, bare);
  CHECK(bare_stats.counters().size() == 7);  // 2 askers x 3, the stall
  miss_and_fill(cache, 1, 1, 0, 0, 10);       // counting into no declared total is harmless
  CHECK(counter(bare_stats, "t_misses_left") == 1);
}

TEST_CASE("table cache: waiting misses of different askers are granted round-robin",
          "[unit][cache]") {
  StatGroup stats("t");
  Cache cache(config(64, 4, 1), stats, labels());
  // One register, reads of 500 ps. The left asker books four misses at 0: 0, 500, 1000, 1500.
  uint64_t left_ready[4];
  for (uint64_t key = 0; key < 4; ++key) {
    const Cache::Access a = cache.lookup(key, 0, 0);
    left_ready[key] = a.ready_ps;
    cache.end_miss(a, 0, a.ready_ps + 500, true);
  }
  CHECK(left_ready[0] == 0);
  CHECK(left_ready[3] == 1500);
  // The right asker's miss at 10 waits for the next register release (500), not behind the
  // left's whole backlog (2000, first-come), and the pool takes the register back at 2000.
  const Cache::Access right = cache.lookup(10, 1, 10);
  CHECK(right.ready_ps == 500);
  CHECK(right.slot_ps == 2000);
  cache.end_miss(right, 10, right.ready_ps + 500, true);
  CHECK(counter(stats, "t_stall_ps") == 0 + 500 + 1000 + 1500 + 490);
  // The pool's throughput is kept: the left's next miss goes after five reads, at 2500.
  const Cache::Access next = cache.lookup(20, 0, 20);
  CHECK(next.ready_ps == 2500);
  cache.end_miss(next, 20, next.ready_ps + 500, true);
  // One asker alone keeps first-come order.
  StatGroup alone_stats("alone");
  Cache alone(config(64, 4, 1), alone_stats, labels());
  for (uint64_t key = 0; key < 3; ++key) {
    const Cache::Access a = alone.lookup(key, 1, 0);
    CHECK(a.ready_ps == key * 500);
    alone.end_miss(a, 0, a.ready_ps + 500, true);
  }
}
