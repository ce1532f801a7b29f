// SPDX-License-Identifier: Apache-2.0
// The address arithmetic of a translation (plain C++): which pages of a region, and so which
// MTT entries, a virtual range [va, va + length) touches, and the physical segment of each
// page once its entry is known. The MTT (mtt.h) looks the entries up and times the walk.
//
// One segment per page, even where consecutive pages are consecutive in host memory: the
// write engine issues one posted write per segment and the link splits each at MPS, so
// merging them would change the TLPs on the link.
#pragma once

#include <algorithm>
#include <cstdint>

namespace rnic {

class PageWalk {
 public:
  // A piece of the range inside one page: where it is in host memory, and its length.
  struct Segment {
    uint64_t addr = 0;
    uint32_t length = 0;
  };

  // Starts a walk of [va, va + length) in a region of 2^page_shift byte pages whose page at
  // `page_base_va` (page aligned; the region's first byte is at an offset into it, its FBO) is
  // MTT entry `mtt_index`. False when it cannot be walked: a page size outside 4 KiB..1 GiB,
  // a range starting below the region's first page, ending past 2^64, or needing entries past
  // 2^32 - 1. An empty range walks no page (once the first two checks pass).
  bool begin(uint32_t mtt_index, uint8_t page_shift, uint64_t page_base_va, uint64_t va,
             uint64_t length);

  // Pages the range touches.
  uint64_t pages() const { return pages_; }
  // The MTT entry of the next page.
  uint32_t entry() const { return uint32_t(entry_); }
  // The next page starts at `phys` in host memory: the range's segment in it. The walk moves
  // on to the following page.
  Segment next(uint64_t phys) {
    const uint64_t in_page = va_ & page_mask_;
    const uint64_t n = std::min(remaining_, page_mask_ + 1 - in_page);
    va_ += n;
    remaining_ -= n;
    ++entry_;
    return Segment{phys + in_page, uint32_t(n)};
  }

 private:
  uint64_t page_mask_ = 0;
  uint64_t pages_ = 0;
  uint64_t entry_ = 0;
  uint64_t va_ = 0;         // where the next page's segment starts
  uint64_t remaining_ = 0;  // bytes of the range not yet in a segment
};

}  // namespace rnic
