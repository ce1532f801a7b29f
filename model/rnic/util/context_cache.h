// SPDX-License-Identifier: Apache-2.0
// On-chip copies of QP / CQ context entries that the driver keeps in host memory (ICM).
// Read by DMA on first use; dropped when the driver reports a change (ContextChange).
#pragma once

#include <cstdint>
#include <unordered_map>

#include <systemc>

namespace rnic {

template <typename Entry, uint32_t kEntryBytes>
class ContextCache {
 public:
  // `read(addr, buffer, length, delay)` performs the DMA and returns false on an error.
  template <typename ReadFn>
  const Entry* get(uint64_t entry_addr, uint32_t index, ReadFn&& read, sc_core::sc_time& delay) {
    auto it = entries_.find(index);
    if (it != entries_.end()) return &it->second;
    uint8_t raw[kEntryBytes];
    if (!read(entry_addr, raw, kEntryBytes, delay)) return nullptr;
    ++misses_;
    return &entries_.emplace(index, Entry::decode(raw)).first->second;
  }
  void invalidate(uint32_t index) { entries_.erase(index); }
  uint64_t misses() const { return misses_; }

 private:
  std::unordered_map<uint32_t, Entry> entries_;
  uint64_t misses_ = 0;
};

}  // namespace rnic
