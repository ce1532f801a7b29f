// SPDX-License-Identifier: Apache-2.0
// The MTT's address arithmetic: the pages and MTT entries a virtual range touches and the
// physical segment of each, with 4 KiB and 2 MiB pages, a region starting inside its first
// page (FBO), ranges across pages, the zero-length range and the ranges refused. Plain C++.
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <vector>

#include "model/rnic/translation/page_walk.h"

using rnic::PageWalk;

namespace {

constexpr uint64_t k4K = 4096;
constexpr uint64_t k2M = uint64_t(2) << 20;

struct Walked {
  std::vector<uint32_t> entries;
  std::vector<PageWalk::Segment> segments;
};

// Walks every page, the page of MTT entry e being at phys_of(e).
Walked walk_all(PageWalk& walk, const std::function<uint64_t(uint32_t)>& phys_of) {
  Walked w;
  for (uint64_t i = 0; i < walk.pages(); ++i) {
    w.entries.push_back(walk.entry());
    w.segments.push_back(walk.next(phys_of(walk.entry())));
  }
  return w;
}

// MTT entry e maps to a physical page of its own, far from the others.
uint64_t scattered_4k(uint32_t e) { return 0x100000000ull + uint64_t(e) * 16 * k4K; }

}  // namespace

TEST_CASE("page walk: 4 KiB pages, inside one page", "[unit][mtt]") {
  PageWalk walk;
  const uint64_t base = 0x7000;  // the region's first page, MTT entry 40
  REQUIRE(walk.begin(40, 12, base, base + 2 * k4K + 0x10, 64));
  CHECK(walk.pages() == 1);
  const Walked w = walk_all(walk, scattered_4k);
  REQUIRE(w.entries.size() == 1);
  CHECK(w.entries[0] == 42);
  CHECK(w.segments[0].addr == scattered_4k(42) + 0x10);
  CHECK(w.segments[0].length == 64);
}

TEST_CASE("page walk: a range across pages, one segment per page", "[unit][mtt]") {
  PageWalk walk;
  // From 0x100 before the end of the first page to 0x80 into the fourth.
  const uint64_t va = 0x10000 + k4K - 0x100;
  const uint64_t length = 0x100 + 2 * k4K + 0x80;
  REQUIRE(walk.begin(7, 12, 0x10000, va, length));
  CHECK(walk.pages() == 4);
  const Walked w = walk_all(walk, scattered_4k);
  CHECK(w.entries == std::vector<uint32_t>{7, 8, 9, 10});
  REQUIRE(w.segments.size() == 4);
  CHECK(w.segments[0].addr == scattered_4k(7) + k4K - 0x100);
  CHECK(w.segments[0].length == 0x100);
  CHECK(w.segments[1].addr == scattered_4k(8));
  CHECK(w.segments[1].length == k4K);
  CHECK(w.segments[2].addr == scattered_4k(9));
  CHECK(w.segments[2].length == k4K);
  CHECK(w.segments[3].addr == scattered_4k(10));
  CHECK(w.segments[3].length == 0x80);
  uint64_t total = 0;
  for (const auto& s : w.segments) total += s.length;
  CHECK(total == length);
}

TEST_CASE("page walk: pages contiguous in host memory still give a segment each",
          "[unit][mtt]") {
  // Merging them would change the TLPs: the write engine posts one write per segment.
  PageWalk walk;
  REQUIRE(walk.begin(0, 12, 0, 0x800, 2 * k4K));
  auto contiguous = [](uint32_t e) { return 0x200000 + uint64_t(e) * k4K; };
  const Walked w = walk_all(walk, contiguous);
  REQUIRE(w.segments.size() == 3);
  CHECK(w.segments[0].addr == 0x200800);
  CHECK(w.segments[0].length == k4K - 0x800);
  CHECK(w.segments[1].addr == 0x201000);
  CHECK(w.segments[1].length == k4K);
  CHECK(w.segments[2].addr == 0x202000);
  CHECK(w.segments[2].length == 0x800);
}

TEST_CASE("page walk: 2 MiB pages", "[unit][mtt]") {
  PageWalk walk;
  const uint64_t base = 0x40000000;  // 2 MiB aligned
  auto huge = [](uint32_t e) { return 0x800000000ull + uint64_t(e) * 4 * k2M; };
  // 1 MiB into the second page, to 64 KiB into the third.
  const uint64_t va = base + k2M + (k2M / 2);
  REQUIRE(walk.begin(3, 21, base, va, k2M / 2 + 0x10000));
  CHECK(walk.pages() == 2);
  const Walked w = walk_all(walk, huge);
  CHECK(w.entries == std::vector<uint32_t>{4, 5});
  CHECK(w.segments[0].addr == huge(4) + k2M / 2);
  CHECK(w.segments[0].length == k2M / 2);
  CHECK(w.segments[1].addr == huge(5));
  CHECK(w.segments[1].length == 0x10000);
}

TEST_CASE("page walk: a region starting inside its first page (FBO)", "[unit][mtt]") {
  // The region's first byte is 0x234 into its first page: the page base is rounded down,
  // and the offset stays in the segment's address.
  PageWalk walk;
  const uint64_t region_va = 0x55000 + 0x234;
  const uint64_t page_base = region_va & ~(k4K - 1);
  REQUIRE(walk.begin(100, 12, page_base, region_va, k4K));  // the region's first 4 KiB
  CHECK(walk.pages() == 2);
  const Walked w = walk_all(walk, scattered_4k);
  CHECK(w.entries == std::vector<uint32_t>{100, 101});
  CHECK(w.segments[0].addr == scattered_4k(100) + 0x234);
  CHECK(w.segments[0].length == k4K - 0x234);
  CHECK(w.segments[1].addr == scattered_4k(101));
  CHECK(w.segments[1].length == 0x234);
}

TEST_CASE("page walk: a zero-length range walks no page", "[unit][mtt]") {
  PageWalk walk;
  REQUIRE(walk.begin(5, 12, 0x1000, 0x1800, 0));
  CHECK(walk.pages() == 0);
  // ...but only in the region: below it is refused first, as is a bad page size.
  CHECK_FALSE(walk.begin(5, 12, 0x1000, 0x800, 0));
  CHECK_FALSE(walk.begin(5, 11, 0x1000, 0x1800, 0));
}

TEST_CASE("page walk: ranges that cannot be walked are refused", "[unit][mtt]") {
  PageWalk walk;
  CHECK_FALSE(walk.begin(0, 11, 0, 0, 64));               // pages below 4 KiB
  CHECK_FALSE(walk.begin(0, 31, 0, 0, 64));               // pages above 1 GiB
  CHECK(walk.begin(0, 30, 0, 0, 64));                     // 1 GiB: the largest
  CHECK_FALSE(walk.begin(0, 12, 0x2000, 0x1fff, 64));     // below the region
  CHECK_FALSE(walk.begin(0, 12, 0, UINT64_MAX - 10, 64));  // past 2^64
  CHECK(walk.pages() == 0);                                // a refused walk walks nothing
  // The last entry must stay below 2^32.
  CHECK(walk.begin(UINT32_MAX - 1, 12, 0, k4K, 64));
  CHECK(walk.entry() == UINT32_MAX);
  CHECK_FALSE(walk.begin(UINT32_MAX - 1, 12, 0, 2 * k4K, 64));
}
