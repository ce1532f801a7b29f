// SPDX-License-Identifier: Apache-2.0
// The host's per-line read service (model/host/line_service.h): lines a read touches, the
// host's read capacity booked in time order, and accesses to one line that never overlap.
// Plain C++, times in ps.
#include <catch2/catch.hpp>

#include "model/host/line_service.h"

using rnic::LineService;

TEST_CASE("line service: a lone read waits for nothing, however many lines it touches",
          "[unit][host]") {
  LineService service({40, 32});
  const auto aligned = service.serve(1000, 1000, 0x1000, 64);
  CHECK(aligned.lines == 1);
  CHECK(aligned.wait_ps == 0);
  const auto straddling = service.serve(1'000'000, 1'000'000, 0x2030, 65);  // 2 lines
  CHECK(straddling.lines == 2);
  CHECK(straddling.wait_ps == 0);
  const auto large = service.serve(2'000'000, 2'000'000, 0x8000, 2048);
  CHECK(large.lines == 32);
  CHECK(large.wait_ps == 0);
  CHECK_FALSE(large.capacity_wait);
}

TEST_CASE("line service: a second access to a line in service waits for the first",
          "[unit][host]") {
  LineService service({40, 32});
  CHECK(service.serve(0, 0, 0x1000, 65).wait_ps == 0);  // lines 0x1000 and 0x1040
  // 10 ns later a read starting in line 0x1040: served after the first access ends (40 ns),
  // i.e. 30 ns beyond its own service.
  const auto second = service.serve(10'000, 10'000, 0x1041, 64);
  CHECK(second.lines == 2);
  CHECK(second.line_conflicts == 1);
  CHECK(second.wait_ps == 30'000);
  // Once that access has ended, the line is free again.
  const auto later = service.serve(1'000'000, 1'000'000, 0x1040, 64);
  CHECK(later.line_conflicts == 0);
  CHECK(later.wait_ps == 0);
}

TEST_CASE("line service: more lines than slots take a service per slots' worth",
          "[unit][host]") {
  LineService service({40, 4});  // 4 lines per 40 ns: 10 ns of capacity a line
  // 10 lines: 100 ns of capacity, more than one service.
  const auto read = service.serve(0, 0, 0, 640);
  CHECK(read.lines == 10);
  CHECK(read.wait_ps == 60'000);  // ready at 100 ns, one service (40) is in the round trip
  // A read of other lines reaching the host at 50 ns waits for the capacity until 100 ns.
  const auto next = service.serve(50'000, 50'000, 0x10000, 64);
  CHECK(next.capacity_wait);
  CHECK(next.wait_ps == 50'000);  // booked from 100 ns: ready at 140, 90 ns after arrival
}

TEST_CASE("line service: a read booked ahead does not delay one that reaches the host first",
          "[unit][host]") {
  LineService service({40, 4});
  // Asked at 0 for a read that reaches the host at 1 us (booked ahead)...
  CHECK(service.serve(0, 1'000'000, 0x1000, 256).wait_ps == 0);
  // ...then one reaching it at 100 ns: the capacity is free then.
  const auto early = service.serve(0, 100'000, 0x8000, 256);
  CHECK_FALSE(early.capacity_wait);
  CHECK(early.wait_ps == 0);
}

TEST_CASE("line service: an access to a line booked ahead does not delay an earlier read of it",
          "[unit][host]") {
  LineService service({40, 32});
  // Asked at 0 for a read of line 0x1000 that reaches the host at 1 us (a unit that books
  // its read behind a queue of its own)...
  CHECK(service.serve(0, 1'000'000, 0x1000, 64).wait_ps == 0);
  // ...then a read of the same line reaching the host at 100 ns: over at 140 ns, long before
  // the other starts, so it waits for nothing.
  const auto early = service.serve(0, 100'000, 0x1000, 64);
  CHECK(early.line_conflicts == 0);
  CHECK(early.wait_ps == 0);
  // A read of it at 1.01 us still finds the booked access in service and waits for it.
  const auto during = service.serve(1'010'000, 1'010'000, 0x1000, 64);
  CHECK(during.line_conflicts == 1);
  CHECK(during.wait_ps == 30'000);
}

TEST_CASE("line service: accesses queued on a line serve one after another, first come first",
          "[unit][host]") {
  LineService service({40, 32});
  // Four reads of one line reaching the host 5 ns apart: each waits for all before it, even
  // though the one it reaches is booked to start after its own service would end.
  uint64_t waits[4];
  for (uint64_t k = 0; k < 4; ++k) waits[k] = service.serve(0, k * 5'000, 0x2000, 1).wait_ps;
  CHECK(waits[0] == 0);
  CHECK(waits[1] == 35'000);   // served 40-80 ns
  CHECK(waits[2] == 70'000);   // 80-120 ns
  CHECK(waits[3] == 105'000);  // 120-160 ns
}

TEST_CASE("line service: the line table stays as small as the lines in flight",
          "[unit][host]") {
  LineService service({40, 8});
  // 100,000 reads of distinct lines, 10 ns apart: never more than a few lines in service.
  uint64_t waits = 0;
  for (uint64_t i = 0; i < 100'000; ++i)
    waits += service.serve(i * 10'000, i * 10'000, i * 64, 64).wait_ps;
  CHECK(waits == 0);  // 8 slots x 40 ns serve one line per 5 ns
  CHECK(service.tracked_runs() <= 128);
}

TEST_CASE("line service: a large transfer's requests, booked at once, stay one run",
          "[unit][host]") {
  LineService service({40, 32});
  // 64 MiB in 128-byte requests, all booked at time zero (as the DMA engine books them).
  for (uint64_t offset = 0; offset < (64ull << 20); offset += 128)
    service.serve(0, 0, 0x10000000 + offset, 128);
  CHECK(service.tracked_runs() <= 2);
  // An unaligned neighbour sharing a line still waits for its access.
  LineService other({40, 32});
  other.serve(0, 0, 0x1000, 65);
  CHECK(other.serve(0, 0, 0x1041, 64).line_conflicts == 1);
}
