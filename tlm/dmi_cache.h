// SPDX-License-Identifier: Apache-2.0
// Direct memory interface (DMI) regions an initiator has been granted, for its untimed
// accesses (a CPU's cache-coherent loads and stores, a checker's table reads): a copy through
// a pointer instead of a transaction per access. Timed device DMA never uses it, since every
// DMA must pay the link and pass the protection monitor.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include <tlm>

namespace rnic {

class DmiCache {
 public:
  // Copies `length` bytes between `data` and [addr, addr + length) through granted regions,
  // asking `socket` for a grant where none is cached. False (nothing copied past the first
  // region without a grant) when the target refuses DMI somewhere: the caller then falls back
  // to a transaction, which also reports address errors as the target defines them.
  template <typename Socket>
  bool copy(Socket& socket, bool write, uint64_t addr, void* data, uint64_t length) {
    auto* bytes = static_cast<uint8_t*>(data);
    uint64_t done = 0;
    while (done < length) {
      const uint64_t a = addr + done;
      const Region* r = find(a, write);
      if (!r && !(r = request(socket, a, write))) return false;
      const uint64_t n = std::min<uint64_t>(length - done, r->end - a + 1);
      uint8_t* p = r->base + (a - r->start);
      if (write) {
        std::memcpy(p, bytes + done, n);
      } else {
        std::memcpy(bytes + done, p, n);
      }
      done += n;
    }
    return true;
  }

  // The bytes [addr, addr + length) in place, for reading: a pointer into a granted region
  // that holds them all, or null (no grant, or the range crosses a region's end).
  template <typename Socket>
  const uint8_t* view(Socket& socket, uint64_t addr, uint64_t length) {
    const Region* r = find(addr, false);
    if (!r && !(r = request(socket, addr, false))) return nullptr;
    if (length > r->end - addr + 1) return nullptr;
    return r->base + (addr - r->start);
  }

  // The target's invalidate_direct_mem_ptr (IEEE 1666-2011 11.2.9): forget every overlapping
  // grant, and the refusal, since what the target allows may have changed.
  void invalidate(uint64_t start, uint64_t end) {
    for (Region& r : regions_) {
      if (r.base && r.start <= end && start <= r.end) r = Region{};
    }
    refused_start_ = 1;
    refused_end_ = 0;
  }

  uint64_t grants() const { return grants_; }

 private:
  struct Region {
    uint64_t start = 1;  // empty while base is null
    uint64_t end = 0;
    uint8_t* base = nullptr;  // the byte at `start`
    bool writable = false;
  };
  // Two ways per set, sets chosen by a multiplicative hash of the 4 KiB page: the device
  // tables sit at aligned bases a power of two apart, which a plain modulo would map onto
  // one slot and thrash.
  static constexpr size_t kSets = 64;
  static size_t set_of(uint64_t addr) {
    return size_t(((addr >> 12) * 0x9E3779B97F4A7C15ull) >> 58);  // top 6 bits: 64 sets
  }

  const Region* find(uint64_t addr, bool write) {
    const size_t set = set_of(addr);
    for (size_t way = 0; way < 2; ++way) {
      const Region& r = regions_[set * 2 + way];
      if (r.base && addr >= r.start && addr <= r.end && (!write || r.writable)) {
        newest_[set] = uint8_t(way);
        return &r;
      }
    }
    return nullptr;
  }

  template <typename Socket>
  const Region* request(Socket& socket, uint64_t addr, bool write) {
    if (addr >= refused_start_ && addr <= refused_end_) return nullptr;
    tlm::tlm_generic_payload& gp = request_gp_;
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    tlm::tlm_dmi dmi;
    if (!socket->get_direct_mem_ptr(gp, dmi)) {
      // The refusal's range is where DMI is not available (IEEE 1666-2011 11.2.5): ask
      // there again only after an invalidate.
      refused_start_ = dmi.get_start_address();
      refused_end_ = dmi.get_end_address();
      return nullptr;
    }
    const bool writable = dmi.is_write_allowed();
    if ((write && !writable) || (!write && !dmi.is_read_allowed()) ||
        addr < dmi.get_start_address() || addr > dmi.get_end_address()) {
      return nullptr;
    }
    const size_t set = set_of(addr);
    const uint8_t way = uint8_t(newest_[set] ^ 1);  // replace the way used less recently
    newest_[set] = way;
    Region& r = regions_[set * 2 + way];
    r.start = dmi.get_start_address();
    r.end = dmi.get_end_address();
    r.base = dmi.get_dmi_ptr();
    r.writable = writable;
    ++grants_;
    return &r;
  }

  std::array<Region, kSets * 2> regions_{};
  std::array<uint8_t, kSets> newest_{};
  tlm::tlm_generic_payload request_gp_;  // reused: a payload costs two heap calls to build
  uint64_t refused_start_ = 1;  // empty range
  uint64_t refused_end_ = 0;
  uint64_t grants_ = 0;
};

}  // namespace rnic
