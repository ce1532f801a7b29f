// SPDX-License-Identifier: Apache-2.0
// A set-associative cache with LRU replacement inside each set (plain C++). Keys map to a set
// by modulo; a hash index makes a lookup O(1), a replacement scans one set.
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
    index_.clear();
    index_.reserve(size_t(sets_) * ways_ * 2);
    clock_ = 0;
  }

  // Present entry (marked most recently used), or null.
  Value* lookup(uint64_t key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    Line& line = lines_[it->second];
    line.last_use = ++clock_;
    return &line.value;
  }

  // Inserts or overwrites; evicts the least recently used line of the set when full.
  Value& insert(uint64_t key, const Value& value) {
    auto it = index_.find(key);
    if (it != index_.end()) {
      Line& line = lines_[it->second];
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
      index_.erase(line.key);
      ++evictions_;
    }
    line.valid = true;
    line.key = key;
    line.value = value;
    line.last_use = ++clock_;
    index_[key] = victim;
    return line.value;
  }

  void invalidate(uint64_t key) {
    auto it = index_.find(key);
    if (it == index_.end()) return;
    lines_[it->second].valid = false;
    index_.erase(it);
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
  uint32_t sets_ = 1;
  uint32_t ways_ = 1;
  uint64_t clock_ = 0;
  uint64_t evictions_ = 0;
  std::vector<Line> lines_;
  std::unordered_map<uint64_t, size_t> index_;
};

}  // namespace rnic
