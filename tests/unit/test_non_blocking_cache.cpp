// SPDX-License-Identifier: Apache-2.0
// The non-blocking cache behind the MTT, MPT and QP-context units: miss-status registers,
// hits under misses, merged misses, bounded LRU. Plain C++, times in ps.
#include <catch2/catch.hpp>

#include "model/rnic/util/non_blocking_cache.h"

using rnic::NonBlockingCache;
using Outcome = NonBlockingCache<int>::Outcome;

TEST_CASE("non-blocking cache: a line in flight is a merged miss until its fill lands",
          "[unit][cache]") {
  NonBlockingCache<int> cache(8, 2, 4);
  CHECK(cache.lookup(5, 100).outcome == Outcome::Miss);
  const uint64_t issue = cache.begin_miss(100);
  CHECK(issue == 100);  // a register was free
  cache.end_miss(600);
  cache.insert(5, 42, 600);
  // Asked again before 600 ps: no second read, ready when the first lands.
  auto merged = cache.lookup(5, 300);
  CHECK(merged.outcome == Outcome::Merged);
  CHECK(merged.ready_ps == 600);
  CHECK(*merged.value == 42);
  // Asked at or after the fill: a hit.
  CHECK(cache.lookup(5, 600).outcome == Outcome::Hit);
  // A line present since before is a hit under the other's miss.
  cache.insert(9, 7, 0);
  CHECK(cache.begin_miss(700) == 700);
  cache.end_miss(1200);
  cache.insert(13, 1, 1200);
  CHECK(cache.lookup(9, 800).outcome == Outcome::Hit);
}

TEST_CASE("non-blocking cache: N registers keep N misses in flight, 1 is a blocking cache",
          "[unit][cache]") {
  NonBlockingCache<int> two(64, 4, 2);
  CHECK(two.registers() == 2);
  // Three misses at the same time, each 500 ps: the third waits for the first register.
  const uint64_t a = two.begin_miss(0);
  two.end_miss(a + 500);
  const uint64_t b = two.begin_miss(0);
  two.end_miss(b + 500);
  const uint64_t c = two.begin_miss(0);
  two.end_miss(c + 500);
  CHECK(a == 0);
  CHECK(b == 0);
  CHECK(c == 500);

  NonBlockingCache<int> blocking(64, 4, 1);
  const uint64_t x = blocking.begin_miss(0);
  blocking.end_miss(x + 500);
  CHECK(blocking.begin_miss(10) == 500);
  blocking.end_miss(1000);
  NonBlockingCache<int> zero(64, 4, 0);  // zero registers still means one
  CHECK(zero.registers() == 1);
}

TEST_CASE("non-blocking cache: bounded, LRU within a set", "[unit][cache]") {
  NonBlockingCache<int> cache(4, 2, 1);  // 2 sets of 2 ways
  CHECK(cache.sets() == 2);
  cache.insert(0, 0);
  cache.insert(2, 2);
  CHECK(cache.lookup(0, 0).outcome == Outcome::Hit);  // 0 most recently used
  NonBlockingCache<int>::Eviction lost;
  cache.insert(4, 4, 0, &lost);  // same set: evicts 2, and says so (key and value)
  CHECK(lost.happened);
  CHECK(lost.key == 2);
  CHECK(lost.value == 2);
  CHECK(cache.evictions() == 1);
  NonBlockingCache<int>::Eviction none;
  cache.insert(1, 1, 0, &none);  // the other set has room
  CHECK_FALSE(none.happened);
  CHECK(cache.lookup(2, 0).outcome == Outcome::Miss);
  CHECK(cache.lookup(0, 0).outcome == Outcome::Hit);
  CHECK(cache.lookup(4, 0).outcome == Outcome::Hit);
  // insert_if_absent keeps a present line (a newer copy), invalidate drops it.
  cache.insert_if_absent(4, 99, 0);
  CHECK(*cache.lookup(4, 0).value == 4);
  cache.invalidate(4);
  CHECK(cache.lookup(4, 0).outcome == Outcome::Miss);
}
