// SPDX-License-Identifier: Apache-2.0
// A set-associative cache with LRU replacement inside each set (plain C++). Keys map to a set
// by modulo. A lookup scans its set when the sets are small (the 8-way MTT and context caches:
// no allocation per fill); wide sets (the fully associative MPT cache) keep a hash index, so a
// lookup stays O(1). Either way the same line is found and the same victim chosen.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace rnic {

template <typename Value>
class SetAssocCache {
 public:
  SetAssocCache(uint32_t entries, uint32_t ways) { configure(entries, ways); }

  void configure(uint32_t entries, uint32_t ways) {
    if (entries == 0) entries = 1;
    if (ways == 0 || ways > entries) ways = entries;
    ways_ = ways;
    sets_ = entries / ways;
    if (sets_ == 0) sets_ = 1;
    lines_.assign(size_t(sets_) * ways_, Line{});
    indexed_ = ways_ > kMaxScannedWays;
    index_.clear();
    if (indexed_) index_.reserve(size_t(sets_) * ways_ * 2);
    clock_ = 0;
  }

  // Present entry (marked most recently used), or null.
  Value* lookup(uint64_t key) {
    const size_t at = find(key);
    if (at == kNone) return nullptr;
    Line& line = lines_[at];
    line.last_use = ++clock_;
    return &line.value;
  }

  // What an insert pushed out of the cache.
  struct Eviction {
    bool happened = false;
    uint64_t key = 0;
    Value value{};
  };

  // Inserts or overwrites; evicts the least recently used line of the set when full, and
  // reports it in `eviction` if given (a write-back cache needs the line it lost).
  Value& insert(uint64_t key, const Value& value, Eviction* eviction = nullptr) {
    const size_t at = find(key);
    if (at != kNone) {
      Line& line = lines_[at];
      line.value = value;
      line.last_use = ++clock_;
      return line.value;
    }
    size_t base = size_t(key % sets_) * ways_;
    size_t victim = base;
    for (size_t i = base; i < base + ways_; ++i) {
      if (!lines_[i].valid) {
        victim = i;
        break;
      }
      if (lines_[i].last_use < lines_[victim].last_use) victim = i;
    }
    Line& line = lines_[victim];
    if (line.valid) {
      if (indexed_) index_.erase(line.key);
      ++evictions_;
      if (eviction) *eviction = Eviction{true, line.key, line.value};
    }
    line.valid = true;
    line.key = key;
    line.value = value;
    line.last_use = ++clock_;
    if (indexed_) index_[key] = victim;
    return line.value;
  }

  void invalidate(uint64_t key) {
    const size_t at = find(key);
    if (at == kNone) return;
    lines_[at].valid = false;
    if (indexed_) index_.erase(key);
  }

  uint32_t sets() const { return sets_; }
  uint32_t ways() const { return ways_; }
  uint64_t evictions() const { return evictions_; }

 private:
  struct Line {
    bool valid = false;
    uint64_t key = 0;
    uint64_t last_use = 0;
    Value value{};
  };
  static constexpr uint32_t kMaxScannedWays = 16;
  static constexpr size_t kNone = ~size_t(0);
  // The line holding `key`, or kNone.
  size_t find(uint64_t key) const {
    if (indexed_) {
      const auto it = index_.find(key);
      return it == index_.end() ? kNone : it->second;
    }
    const size_t base = size_t(key % sets_) * ways_;
    for (size_t i = base; i < base + ways_; ++i)
      if (lines_[i].valid && lines_[i].key == key) return i;
    return kNone;
  }

  uint32_t sets_ = 1;
  uint32_t ways_ = 1;
  uint64_t clock_ = 0;
  uint64_t evictions_ = 0;
  std::vector<Line> lines_;
  bool indexed_ = false;
  std::unordered_map<uint64_t, size_t> index_;  // key -> line, for wide sets only
};

}  // namespace rnic
