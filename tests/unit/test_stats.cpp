// SPDX-License-Identifier: Apache-2.0
// Declared statistics on exact inputs: latency histograms, time-weighted occupancies (in and
// out of time order, against a brute-force sweep), stat groups, link busy time.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <systemc>
#include <vector>

#include "tlm/stats.h"
#include "tlm/timing.h"

using namespace rnic;

TEST_CASE("histogram keeps whole ns and reports count, mean and percentiles", "[unit][stats]") {
  Histogram h;
  CHECK(h.count() == 0);
  CHECK(h.mean_ns() == 0.0);
  CHECK(h.percentile_ns(0.5) == 0);
  CHECK(h.max_ns() == 0);
  // 1..100 ns: exact below 256 ns.
  for (uint64_t ns = 1; ns <= 100; ++ns) h.add_ps(ns * 1000);
  CHECK(h.count() == 100);
  CHECK(h.mean_ns() == Approx(50.5));
  CHECK(h.percentile_ns(0.50) == 50);
  CHECK(h.percentile_ns(0.90) == 90);
  CHECK(h.percentile_ns(0.99) == 99);
  CHECK(h.max_ns() == 100);
  CHECK(h.buckets.min() == 1);
}

TEST_CASE("histogram rounds picoseconds to the nearest ns, the mean keeps them", "[unit][stats]") {
  Histogram h;
  h.add_ps(1499);  // 1 ns
  h.add_ps(1500);  // 2 ns
  CHECK(h.percentile_ns(0.5) == 1);
  CHECK(h.max_ns() == 2);
  CHECK(h.mean_ns() == Approx(1.4995));
  // Above 256 ns a value lands in a bucket within 1%; the maximum stays exact.
  Histogram big;
  big.add_ps(123456789);  // 123457 ns
  CHECK(big.max_ns() == 123457);
  CHECK(big.percentile_ns(0.5) == 123457);  // capped at the maximum
  big.add_ps(1000000);                      // 1000 ns
  CHECK(big.percentile_ns(0.5) >= 1000);
  CHECK(big.percentile_ns(0.5) <= 1010);
}

TEST_CASE("occupancy: mean and maximum of intervals in time order", "[unit][stats]") {
  Occupancy o("slots", "slots", "test");
  CHECK(o.max() == 0);
  CHECK(o.mean(100) == 0.0);
  o.hold(0, 10, 20);
  o.hold(0, 15, 30);
  // Freed and taken at the same instant (30) is not two at once.
  o.hold(0, 30, 40);
  CHECK(o.max() == 2);
  // Area 10 + 15 + 10 over 40 ps.
  CHECK(o.mean(40) == Approx(35.0 / 40.0));
  CHECK(o.mean(80) == Approx(35.0 / 80.0));
  // Only what lies inside the window counts: [10,20) + [15,25) in 25 ps.
  CHECK(o.mean(25) == Approx(20.0 / 25.0));
  CHECK(o.level_at(9) == 0);
  CHECK(o.level_at(10) == 1);
  CHECK(o.level_at(17) == 2);
  CHECK(o.level_at(30) == 1);
  CHECK(o.level_at(40) == 0);
  // An empty interval holds nothing.
  o.hold(50, 50, 50);
  CHECK(o.max() == 2);
}

TEST_CASE("occupancy: bookings ahead of time and out of order, up and down apart",
          "[unit][stats]") {
  Occupancy o("reads", "reads", "test");
  // At time 0 a unit books [100, 200); at time 50 another books [60, 110): earlier, but not
  // before its own `now`. They overlap in [100, 110).
  o.hold(0, 100, 200);
  o.hold(50, 60, 110);
  CHECK(o.max() == 2);
  // Taken at 150 (announced at 120), released at 300 (announced at 250).
  o.up(120, 150);
  o.down(250, 300);
  CHECK(o.max() == 2);
  CHECK(o.level_at(160) == 2);
  // Area: 100 + 50 + 150 = 300 over 400 ps.
  CHECK(o.mean(400) == Approx(300.0 / 400.0));
  o.up(300, 300);
  o.up(300, 305);
  o.up(300, 310);
  CHECK(o.max() == 3);
  CHECK(o.level_at(1000) == 3);  // never released
}

namespace {

struct Interval {
  uint64_t now, start, end;
};

// The exact answer by a sweep over every change, releases first at equal times.
void brute_force(const std::vector<Interval>& intervals, uint64_t window, uint64_t* max,
                 double* mean) {
  std::vector<std::pair<uint64_t, int>> changes;
  for (const Interval& i : intervals) {
    if (i.end <= i.start) continue;
    changes.push_back({i.start, +1});
    changes.push_back({i.end, -1});
  }
  std::sort(changes.begin(), changes.end());
  int64_t level = 0, top = 0;
  double area = 0;
  uint64_t last = 0;
  for (const auto& [t, delta] : changes) {
    const uint64_t until = std::min(t, window);
    if (until > last) {
      area += double(level) * double(until - last);
      last = until;
    }
    level += delta;
    top = std::max(top, level);
  }
  if (window > last) area += double(level) * double(window - last);
  *max = uint64_t(top);
  *mean = area / double(window);
}

}  // namespace

TEST_CASE("occupancy matches a brute-force sweep on random bookings", "[unit][stats]") {
  std::mt19937_64 random(7);
  for (int round = 0; round < 20; ++round) {
    Occupancy o("x", "x", "x");
    std::vector<Interval> intervals;
    uint64_t now = 0;
    // Enough bookings to fill, compact and grow the lanes several times.
    const int count = 200 + round * 300;
    for (int i = 0; i < count; ++i) {
      now += random() % 50;
      // Mostly in order, sometimes booked far ahead, sometimes early (but never before now).
      const uint64_t start = now + (random() % 8 == 0 ? random() % 5000 : random() % 20);
      const uint64_t end = start + random() % (round % 2 ? 3000 : 300);
      intervals.push_back({now, start, end});
      o.hold(now, start, end);
    }
    const uint64_t window = now + 2000;
    uint64_t max = 0;
    double mean = 0;
    brute_force(intervals, window, &max, &mean);
    INFO("round " << round);
    CHECK(o.max() == max);
    CHECK(o.mean(window) == Approx(mean).epsilon(1e-9));
    // A window that ends before bookings made ahead (but not before the last `now`).
    brute_force(intervals, now + 100, &max, &mean);
    CHECK(o.mean(now + 100) == Approx(mean).epsilon(1e-9));
  }
}

TEST_CASE("stat group keeps counters, histograms and occupancies with their units",
          "[unit][stats]") {
  StatGroup group("A.rnic.unit");
  Counter& c = group.add("things", "things", "counted things");
  Histogram& h = group.add_histogram("latency_ns", "a latency");
  Occupancy& o = group.add_occupancy("slots_in_use", "slots", "slots held");
  // References stay valid as more are added.
  for (int i = 0; i < 100; ++i) group.add_histogram("more_ns", "filler");
  ++c;
  h.add_ps(5000);
  o.hold(0, 1, 2);
  CHECK(group.owner() == "A.rnic.unit");
  CHECK(group.counters().front().value == 1);
  CHECK(group.histograms().front().unit == "ns");
  CHECK(group.histograms().front().count() == 1);
  CHECK(group.histograms().size() == 101);
  CHECK(group.occupancies().front().unit == "slots");
  CHECK(group.occupancies().front().max() == 1);
}

TEST_CASE("bandwidth pipe adds its busy time to a counter", "[unit][stats]") {
  using sc_core::SC_NS;
  using sc_core::sc_time;
  Counter busy{"busy_ps", "ps", "busy", 0};
  BandwidthPipe pipe(1.0);  // 1 byte per ns
  pipe.count_busy(&busy.value);
  pipe.reserve(sc_time(0, SC_NS), 100);
  pipe.reserve(sc_time(50, SC_NS), 10);  // queued behind the first: busy 10 ns more
  CHECK(busy.value == 110000);
  CHECK(pipe.busy_time() == sc_time(110, SC_NS));
}
