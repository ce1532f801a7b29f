// SPDX-License-Identifier: Apache-2.0
// The timing helpers every unit relies on: clock cycles, bandwidth pipes (FCFS occupancy)
// and slot pools (read tags, IRD). Plain C++ on sc_time values; no kernel run needed.
#include <catch2/catch.hpp>

#include <systemc>

#include "tlm/timing.h"

using namespace rnic;
using sc_core::SC_NS;
using sc_core::SC_ZERO_TIME;
using sc_core::sc_time;

TEST_CASE("clock converts cycles to time", "[unit][timing]") {
  const Clock clock(500.0);
  CHECK(clock.period_ps() == 2000);
  CHECK(clock.cycles(4) == sc_time(8, SC_NS));
  CHECK(clock.cycles(0) == SC_ZERO_TIME);
  CHECK(Clock(0).period_ps() == 1);  // a zero frequency never divides by zero
}

TEST_CASE("bandwidth pipe serializes first come first served", "[unit][timing]") {
  BandwidthPipe pipe(1.0);  // 1 byte per ns
  CHECK(pipe.duration(100) == sc_time(100, SC_NS));
  CHECK(pipe.reserve(SC_ZERO_TIME, 100) == sc_time(100, SC_NS));
  // Arrives while busy: waits for the first transfer.
  CHECK(pipe.reserve(sc_time(50, SC_NS), 10) == sc_time(110, SC_NS));
  // Arrives when idle: starts at once.
  CHECK(pipe.reserve(sc_time(500, SC_NS), 10) == sc_time(510, SC_NS));
  CHECK(pipe.busy_until() == sc_time(510, SC_NS));
  CHECK(pipe.busy_time() == sc_time(120, SC_NS));

  BandwidthPipe unlimited(0.0);
  CHECK(unlimited.duration(1 << 20) == SC_ZERO_TIME);
}

TEST_CASE("slot pool hands out the slot that frees first", "[unit][timing]") {
  SlotPool pool(2);
  CHECK(pool.size() == 2);
  CHECK(pool.acquire(SC_ZERO_TIME) == SC_ZERO_TIME);
  pool.release(sc_time(100, SC_NS));
  CHECK(pool.acquire(SC_ZERO_TIME) == SC_ZERO_TIME);
  pool.release(sc_time(50, SC_NS));
  // Both busy: the one free at 50 ns is taken.
  CHECK(pool.acquire(sc_time(10, SC_NS)) == sc_time(50, SC_NS));
  pool.release(sc_time(300, SC_NS));
  // Earliest later than every free time: no wait.
  CHECK(pool.acquire(sc_time(200, SC_NS)) == sc_time(200, SC_NS));
  pool.release(sc_time(250, SC_NS));

  SlotPool one(0);  // zero slots still means one
  CHECK(one.size() == 1);
  CHECK(one.acquire(SC_ZERO_TIME) == SC_ZERO_TIME);
  one.release(sc_time(70, SC_NS));
  CHECK(one.acquire(SC_ZERO_TIME) == sc_time(70, SC_NS));
  one.release(sc_time(80, SC_NS));
}

TEST_CASE("pipeline stage: latency per transaction and one entry per initiation interval",
          "[unit][timing]") {
  const Clock clock(500.0);           // 2 ns per cycle
  PipelineStage stage(clock, 4, 3);   // 8 ns latency, a new entry every 6 ns
  const sc_core::sc_time t0(100, sc_core::SC_NS);
  CHECK(stage.pass(t0) == t0 + ns(8));
  CHECK(stage.pass(t0) == t0 + ns(6 + 8));    // entered one interval later
  CHECK(stage.pass(t0 + ns(1)) == t0 + ns(12 + 8));
  // After a gap the stage is free again: no interval to wait.
  CHECK(stage.pass(t0 + ns(100)) == t0 + ns(108));
  // Three pages of one lookup enter back to back; the last leaves latency after entering.
  CHECK(stage.pass(t0 + ns(200), 3) == t0 + ns(200 + 2 * 6 + 8));
  CHECK(stage.pass(t0 + ns(200)) == t0 + ns(200 + 3 * 6 + 8));
}

TEST_CASE("pipeline stage without contention: latency only, in any arrival order",
          "[unit][timing]") {
  const Clock clock(500.0);  // 2 ns cycles
  PipelineStage stage(clock, 4, 3);
  stage.set_contention(false);
  const sc_core::sc_time t0(100, sc_core::SC_NS);
  CHECK(stage.pass(t0 + ns(50)) == t0 + ns(58));
  CHECK(stage.pass(t0) == t0 + ns(8));  // an earlier arrival after a later one is not queued
  CHECK(stage.pass(t0) == t0 + ns(8));
  CHECK(stage.pass(t0, 3) == t0 + ns(2 * 6 + 8));  // pages of one lookup still follow each other
}

TEST_CASE("bandwidth pipe books in time order: an earlier transfer booked later takes the gap",
          "[unit][timing]") {
  // Loosely timed units book in call order; the link must serve in time order.
  BandwidthPipe pipe(1.0);  // 1 byte per ns
  pipe.set_time_ordered(true);
  // A transfer far ahead (a data read after a table miss) is booked first...
  CHECK(pipe.reserve(sc_time(500, SC_NS), 100) == sc_time(600, SC_NS));
  // ...then one that happens earlier: it goes in the idle span before, not after 600 ns.
  CHECK(pipe.reserve(sc_time(10, SC_NS), 100) == sc_time(110, SC_NS));
  // Too long for the gap left at 120 ns (120..500): after the last booking.
  CHECK(pipe.reserve(sc_time(120, SC_NS), 385) == sc_time(985, SC_NS));
  // Fits the gap 110..500: starts when the link is free, at 110 ns.
  CHECK(pipe.reserve(sc_time(100, SC_NS), 300) == sc_time(410, SC_NS));
  // Exactly filling a gap merges the spans around it.
  BandwidthPipe fill(1.0);
  fill.set_time_ordered(true);
  fill.reserve(sc_time(0, SC_NS), 10);
  fill.reserve(sc_time(20, SC_NS), 10);
  CHECK(fill.pending_spans() == 2);
  CHECK(fill.reserve(sc_time(5, SC_NS), 10) == sc_time(20, SC_NS));
  CHECK(fill.pending_spans() == 1);
  CHECK(fill.busy_until() == sc_time(30, SC_NS));
  CHECK(fill.busy_time() == sc_time(30, SC_NS));
}

TEST_CASE("bandwidth pipe in call order keeps first booked first served", "[unit][timing]") {
  // A port's queue: a packet handed later never overtakes one handed earlier.
  BandwidthPipe pipe(1.0);
  CHECK(pipe.reserve(sc_time(500, SC_NS), 100) == sc_time(600, SC_NS));
  CHECK(pipe.reserve(sc_time(10, SC_NS), 100) == sc_time(700, SC_NS));
  CHECK(pipe.pending_spans() == 0);
}
