// SPDX-License-Identifier: Apache-2.0
// The host's per-line read service (model/host/line_service.h): lines a read touches, slots,
// and accesses to one line that never overlap. Plain C++, times in ps.
#include <catch2/catch.hpp>

#include "model/host/line_service.h"

using rnic::LineService;

TEST_CASE("line service: a lone read waits for nothing, however many lines it touches",
          "[unit][host]") {
  LineService service({40, 32});
  const auto aligned = service.serve(1000, 0x1000, 64);
  CHECK(aligned.lines == 1);
  CHECK(aligned.wait_ps == 0);
  const auto straddling = service.serve(1'000'000, 0x2030, 65);  // 0x2030..0x2070: 2 lines
  CHECK(straddling.lines == 2);
  CHECK(straddling.wait_ps == 0);
  const auto large = service.serve(2'000'000, 0x8000, 2048);
  CHECK(large.lines == 32);
  CHECK(large.wait_ps == 0);
  CHECK(large.slot_waits == 0);
}

TEST_CASE("line service: a second access to a line in service waits for the first",
          "[unit][host]") {
  LineService service({40, 32});
  CHECK(service.serve(0, 0x1000, 65).wait_ps == 0);  // lines 0x1000 and 0x1040
  // 10 ns later a read starting in line 0x1040: served after the first access ends (40 ns),
  // i.e. 30 ns beyond its own service.
  const auto second = service.serve(10'000, 0x1041, 64);
  CHECK(second.lines == 2);
  CHECK(second.line_conflicts == 1);
  CHECK(second.wait_ps == 30'000);
  // Once that access has ended, the line is free again.
  const auto later = service.serve(1'000'000, 0x1040, 64);
  CHECK(later.line_conflicts == 0);
  CHECK(later.wait_ps == 0);
}

TEST_CASE("line service: lines beyond the slots wait one service per round", "[unit][host]") {
  LineService service({40, 4});
  // 10 lines on 4 slots: rounds of 4, 4, 2: the last line is ready at 3 x 40 ns.
  const auto read = service.serve(0, 0, 640);
  CHECK(read.lines == 10);
  CHECK(read.slot_waits == 6);
  CHECK(read.wait_ps == 80'000);
  // A read of other lines arriving at 50 ns finds the slots busy until 80 ns.
  const auto next = service.serve(50'000, 0x10000, 64);
  CHECK(next.slot_waits == 1);
  CHECK(next.wait_ps == 30'000);
}

TEST_CASE("line service: the line table stays as small as the lines in flight",
          "[unit][host]") {
  LineService service({40, 8});
  // 100,000 reads of distinct lines, 10 ns apart: never more than a few lines in service.
  uint64_t waits = 0;
  for (uint64_t i = 0; i < 100'000; ++i) waits += service.serve(i * 10'000, i * 64, 64).wait_ps;
  CHECK(waits == 0);  // 8 slots x 40 ns serve one line per 5 ns
  CHECK(service.tracked_lines() <= 64);
}
