// SPDX-License-Identifier: Apache-2.0
// The translation/MPT cache: modulo set mapping, LRU inside a set, invalidation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

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
  SetAssocCache<int>::Eviction lost;
  cache.insert(4, 104, &lost);
  CHECK(cache.lookup(2) == nullptr);
  CHECK(lost.happened);
  CHECK(lost.key == 2);
  CHECK(lost.value == 102);
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
  SetAssocCache<int>::Eviction none;
  cache.insert(4, 204, &none);
  CHECK_FALSE(none.happened);
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

namespace {

// A brute-force LRU set-associative cache: each set a list of keys, most recent last.
struct ReferenceCache {
  uint32_t sets, ways;
  std::vector<std::vector<uint64_t>> order;
  uint64_t evictions = 0;
  ReferenceCache(uint32_t entries, uint32_t w) : sets(entries / w), ways(w), order(sets) {}
  std::vector<uint64_t>& set_of(uint64_t key) { return order[key % sets]; }
  bool lookup(uint64_t key) {
    auto& s = set_of(key);
    auto it = std::find(s.begin(), s.end(), key);
    if (it == s.end()) return false;
    s.erase(it);
    s.push_back(key);
    return true;
  }
  void insert(uint64_t key) {
    if (lookup(key)) return;
    auto& s = set_of(key);
    if (s.size() == ways) {
      s.erase(s.begin());
      ++evictions;
    }
    s.push_back(key);
  }
  void invalidate(uint64_t key) {
    auto& s = set_of(key);
    s.erase(std::remove(s.begin(), s.end(), key), s.end());
  }
};

void matches_reference(uint32_t entries, uint32_t ways) {
  rnic::SetAssocCache<uint64_t> cache(entries, ways);
  ReferenceCache reference(entries, ways);
  std::mt19937_64 rng(entries * 1000 + ways);
  for (int step = 0; step < 20000; ++step) {
    const uint64_t key = rng() % (entries * 3);
    switch (rng() % 4) {
      case 0:
      case 1: {
        const uint64_t* found = cache.lookup(key);
        REQUIRE((found != nullptr) == reference.lookup(key));
        if (found) REQUIRE(*found == key * 7);
        break;
      }
      case 2:
        cache.insert(key, key * 7);
        reference.insert(key);
        break;
      default:
        cache.invalidate(key);
        reference.invalidate(key);
    }
  }
  CHECK(cache.evictions() == reference.evictions);
}

}  // namespace

TEST_CASE("set-assoc cache: narrow sets (scanned) and wide ones (indexed) match a brute-force LRU",
          "[unit][cache]") {
  matches_reference(64, 8);   // 8 sets of 8: each lookup scans its set
  matches_reference(64, 64);  // fully associative: the hash index
  matches_reference(96, 32);  // 3 sets of 32: indexed, more than one set
}
