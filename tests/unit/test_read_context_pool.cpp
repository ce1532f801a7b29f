// SPDX-License-Identifier: Apache-2.0
// ReadContextPool without a kernel: reads take contexts at once while some are free, wait for
// the first release when all are held, count their waits, and a pool larger than the reads in
// flight never makes one wait.
#include <catch2/catch.hpp>

#include <cstdint>

#include "model/rnic/engines/read_context_pool.h"

using namespace rnic;

TEST_CASE("read context pool: a full pool makes a read wait for the first context to free",
          "[unit][responder]") {
  ReadContextPool pool(2);
  CHECK(pool.acquire(100) == 100);
  pool.release(500);
  CHECK(pool.acquire(110) == 110);
  pool.release(300);
  // Both held: the third waits for the earlier release (300), not the later one.
  CHECK(pool.acquire(120) == 300);
  pool.release(700);
  CHECK(pool.waits() == 1);
  CHECK(pool.wait_ps() == 180);
  // The next waits for 500 (the context freed at 300 went to the third read).
  CHECK(pool.acquire(130) == 500);
  pool.release(900);
  CHECK(pool.waits() == 2);
  CHECK(pool.wait_ps() == 180 + 370);
  // Later than every release but the last two: free at once.
  CHECK(pool.acquire(800) == 800);
  pool.release(1000);
  CHECK(pool.waits() == 2);
}

TEST_CASE("read context pool: a context taken and not yet released counts as held",
          "[unit][responder]") {
  ReadContextPool pool(1);
  CHECK(pool.acquire(0) == 0);
  pool.release(50);
  CHECK(pool.acquire(10) == 50);  // waits
  pool.release(80);
  CHECK(pool.acquire(90) == 90);  // every release before its ready time: free
  pool.release(95);
  CHECK(pool.waits() == 1);
  CHECK(pool.wait_ps() == 40);
}

TEST_CASE("read context pool: more contexts than reads in flight never wait", "[unit][responder]") {
  ReadContextPool pool(16u * 262144u);  // the default: max_qp_rd_atom x max_qp
  uint64_t t = 0;
  for (int i = 0; i < 100000; ++i) {
    t += 10;
    REQUIRE(pool.acquire(t) == t);
    pool.release(t + 5000);  // 500 in flight
  }
  CHECK(pool.waits() == 0);
  CHECK(pool.size() == 4194304u);
}
