// SPDX-License-Identifier: Apache-2.0
// The translation/MPT cache: modulo set mapping, LRU inside a set, invalidation.
#include <catch2/catch.hpp>

#include "model/rnic/util/set_assoc_cache.h"

using rnic::SetAssocCache;

TEST_CASE("set-assoc cache evicts the least recently used line of the set", "[unit][cache]") {
  SetAssocCache<int> cache(4, 2);  // 2 sets x 2 ways: even keys in set 0, odd in set 1
  REQUIRE(cache.sets() == 2);
  REQUIRE(cache.ways() == 2);
  cache.insert(0, 100);
  cache.insert(2, 102);
  cache.insert(1, 101);
  cache.insert(3, 103);
  REQUIRE(cache.lookup(0) != nullptr);  // 0 becomes most recent: 2 is the LRU of set 0
  cache.insert(4, 104);
  CHECK(cache.lookup(2) == nullptr);
  REQUIRE(cache.lookup(0) != nullptr);
  CHECK(*cache.lookup(0) == 100);
  REQUIRE(cache.lookup(4) != nullptr);
  CHECK(*cache.lookup(4) == 104);
  // Set 1 was not touched by the eviction.
  REQUIRE(cache.lookup(1) != nullptr);
  CHECK(*cache.lookup(1) == 101);
  REQUIRE(cache.lookup(3) != nullptr);
  CHECK(cache.evictions() == 1);
  // Overwriting a present key evicts nothing.
  cache.insert(4, 204);
  CHECK(*cache.lookup(4) == 204);
  CHECK(cache.evictions() == 1);
}

TEST_CASE("set-assoc cache invalidate frees the line", "[unit][cache]") {
  SetAssocCache<int> cache(2, 2);  // one set, two ways
  cache.insert(10, 1);
  cache.insert(11, 2);
  cache.invalidate(10);
  CHECK(cache.lookup(10) == nullptr);
  cache.invalidate(99);  // absent: no effect
  // The freed way takes the next insert: no eviction, 11 stays.
  cache.insert(12, 3);
  CHECK(cache.evictions() == 0);
  REQUIRE(cache.lookup(11) != nullptr);
  CHECK(*cache.lookup(11) == 2);
  REQUIRE(cache.lookup(12) != nullptr);
  CHECK(*cache.lookup(12) == 3);
}

TEST_CASE("direct-mapped cache: conflicting keys evict each other", "[unit][cache]") {
  SetAssocCache<int> cache(4, 1);
  REQUIRE(cache.sets() == 4);
  int misses = 0;
  // 1 and 5 share set 1: alternating between them misses every time.
  for (int round = 0; round < 3; ++round) {
    for (uint64_t key : {1, 5}) {
      if (!cache.lookup(key)) {
        ++misses;
        cache.insert(key, int(key));
      }
    }
  }
  CHECK(misses == 6);
  CHECK(cache.evictions() == 5);
  // 2 lives in another set and stays.
  cache.insert(2, 2);
  cache.insert(1, 1);
  CHECK(cache.lookup(2) != nullptr);
}

TEST_CASE("set-assoc cache configure clamps degenerate shapes", "[unit][cache]") {
  SetAssocCache<int> cache(0, 0);
  CHECK(cache.sets() == 1);
  CHECK(cache.ways() == 1);
  cache.configure(8, 16);  // more ways than entries: fully associative
  CHECK(cache.sets() == 1);
  CHECK(cache.ways() == 8);
  for (uint64_t k = 0; k < 8; ++k) cache.insert(k * 3, int(k));
  CHECK(cache.evictions() == 0);
  for (uint64_t k = 0; k < 8; ++k) CHECK(cache.lookup(k * 3) != nullptr);
}
