// SPDX-License-Identifier: Apache-2.0
// Declared statistics (gem5 ADD_STAT / DRAMSys stat groups): a unit owns named counters,
// latency histograms and occupancies with a description and a unit; one walk over the groups
// writes them all out. Recording is O(1) (amortized) and never allocates once warm: no
// strings, no formatting on the hot path.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tlm/histogram.h"

namespace rnic {

struct Counter {
  std::string name;
  std::string unit;
  std::string description;
  uint64_t value = 0;

  Counter& operator+=(uint64_t n) {
    value += n;
    return *this;
  }
  Counter& operator++() {
    ++value;
    return *this;
  }
};

// A latency distribution. Samples come in picoseconds (sc_time values, no conversion by the
// caller) and are kept in whole nanoseconds: exact below 256 ns, within 1% above. What a
// sample updates comes first, in one cache line (the sum, the counters, the buckets' address).
struct alignas(64) Histogram {
  void add_ps(uint64_t ps) {
    sum_ps += ps;
    buckets.add((ps + 500) / 1000);
  }
  uint64_t count() const { return buckets.count(); }
  double mean_ns() const { return count() ? double(sum_ps) / 1000.0 / double(count()) : 0.0; }
  uint64_t percentile_ns(double q) const { return buckets.percentile(q); }
  uint64_t max_ns() const { return buckets.max(); }

  uint64_t sum_ps = 0;
  LatencyHistogram buckets;
  std::string name;
  std::string unit;  // "ns"
  std::string description;
};

// The time-weighted level of a limited resource (read tags, IRD slots, queue entries): its
// mean over a window and its maximum. The mean needs no order: the area under the level is
// the sum of release times minus the sum of take times. The maximum does. Units book
// resources ahead in simulated time (loosely timed), so changes arrive out of time order,
// but never before the caller's current time: changes before it are final. Takes and
// releases are appended to two sorted lanes (each lane arrives nearly in order: a take is
// earlier than the releases booked before it, but rarely earlier than another take); when a
// lane is full, the final changes of both are merged in time order and dropped. Recording is
// an append; merging costs a few instructions per change, in batches.
class Occupancy {
 public:
  Occupancy(std::string name_, std::string unit_, std::string description_)
      : name(std::move(name_)), unit(std::move(unit_)), description(std::move(description_)) {
    for (Lane* l : {&ups_, &downs_}) {
      std::vector<uint64_t>& storage = l == &ups_ ? ups_storage_ : downs_storage_;
      storage.assign(64, kEnd);
      storage[0] = 0;
      l->at = storage.data();
      l->last = storage.size() - 1;
    }
  }
  Occupancy(const Occupancy&) = delete;  // the lanes point into the storage
  Occupancy& operator=(const Occupancy&) = delete;

  // One more in use from `at_ps` on / one fewer from `at_ps` on; `now_ps` <= `at_ps` is the
  // caller's simulated time. At equal times releases come first: a slot freed and taken
  // again at the same instant is not two.
  void up(uint64_t now_ps, uint64_t at_ps) {
    if (!ups_.append(at_ps)) insert_slow(ups_, now_ps, at_ps);
    up_sum_ps_ += at_ps;
  }
  void down(uint64_t now_ps, uint64_t at_ps) {
    if (!downs_.append(at_ps)) insert_slow(downs_, now_ps, at_ps);
    down_sum_ps_ += at_ps;
  }
  // One in use during [start_ps, end_ps); an empty interval holds nothing.
  void hold(uint64_t now_ps, uint64_t start_ps, uint64_t end_ps) {
    if (end_ps <= start_ps) return;
    up(now_ps, start_ps);
    down(now_ps, end_ps);
  }

  // The largest level reached, changes booked ahead included.
  uint64_t max() const {
    Level l = level_;
    merge(l, ups_head_, downs_head_, kEnd);
    return l.max > 0 ? uint64_t(l.max) : 0;
  }
  // The mean level over [0, window_ps), window_ps not before the last `now_ps` given (the end
  // of the run): every change counts from its time to the window's end (a take adds, a
  // release subtracts); changes booked beyond the window do not count.
  double mean(uint64_t window_ps) const {
    if (window_ps == 0) return 0.0;
    // Sum over changes of (window - t) = (takes - releases) x window - sum of times; the
    // level after every change is takes - releases.
    const int64_t net =
        level_.level + int64_t(ups_.tail - ups_head_) - int64_t(downs_.tail - downs_head_);
    double area = double(net) * double(window_ps) - (double(up_sum_ps_) - double(down_sum_ps_));
    for (size_t i = ups_head_; i < ups_.tail; ++i) {
      if (ups_.at[i] >= window_ps) area -= double(window_ps) - double(ups_.at[i]);
    }
    for (size_t i = downs_head_; i < downs_.tail; ++i) {
      if (downs_.at[i] >= window_ps) area += double(window_ps) - double(downs_.at[i]);
    }
    return area / double(window_ps);
  }
  // The level at `t_ps`, changes at t_ps included (waveforms).
  uint64_t level_at(uint64_t t_ps) const {
    Level l = level_;
    merge(l, ups_head_, downs_head_, t_ps + 1);
    return l.level > 0 ? uint64_t(l.level) : 0;
  }

 private:
  static constexpr uint64_t kEnd = UINT64_MAX;  // after each lane's last time: no bounds checks
  struct Level {
    int64_t level = 0;
    int64_t max = 0;
  };
  // Sorted times in at[head, tail) (the head is kept apart, with the cold fields), then
  // kEnd. at[0] is a floor (0): at[tail - 1] is always readable, and a merged time is below
  // any time still to come.
  struct Lane {
    // In order and room left: the common case.
    bool append(uint64_t t) {
      if (tail == last || at[tail - 1] > t) return false;
      at[tail] = t;
      at[++tail] = kEnd;
      return true;
    }
    uint64_t* at = nullptr;
    size_t tail = 1;
    size_t last = 0;  // the storage's last index: room for kEnd after the last time
  };
  // Applies the changes of both lanes before `until_ps` to `l` in time order, releases first
  // at equal times, from read positions `u` and `d`; returns the new positions.
  std::pair<size_t, size_t> merge(Level& l, size_t u, size_t d, uint64_t until_ps) const {
    const uint64_t* ups = ups_.at;
    const uint64_t* downs = downs_.at;
    for (;;) {
      if (downs[d] <= ups[u]) {
        if (downs[d] >= until_ps) break;
        --l.level;
        ++d;
      } else {
        if (ups[u] >= until_ps) break;
        if (++l.level > l.max) l.max = l.level;
        ++u;
      }
    }
    return {u, d};
  }
  // Merges what is final, makes room (moving the rest to the front, or growing; the storage
  // never shrinks: no allocation once warm), inserts in order.
  __attribute__((noinline)) void insert_slow(Lane& lane, uint64_t now_ps, uint64_t t) {
    std::tie(ups_head_, downs_head_) = merge(level_, ups_head_, downs_head_, now_ps);
    for (Lane* l : {&ups_, &downs_}) {
      size_t& head = l == &ups_ ? ups_head_ : downs_head_;
      std::copy(l->at + head, l->at + l->tail + 1, l->at + 1);  // with kEnd
      l->tail -= head - 1;
      head = 1;
    }
    if (2 * lane.tail > lane.last) {
      std::vector<uint64_t>& storage = &lane == &ups_ ? ups_storage_ : downs_storage_;
      storage.resize(2 * storage.size(), kEnd);
      lane.at = storage.data();
      lane.last = storage.size() - 1;
    }
    size_t i = lane.tail;
    while (i > 1 && lane.at[i - 1] > t) {
      lane.at[i] = lane.at[i - 1];
      --i;
    }
    lane.at[i] = t;
    lane.at[++lane.tail] = kEnd;
  }

  // What up() and down() touch, in one cache line: a recording is then one line here and one
  // in its lane's storage.
  alignas(64) uint64_t up_sum_ps_ = 0;  // every take's time
  uint64_t down_sum_ps_ = 0;
  Lane ups_;
  Lane downs_;
  size_t ups_head_ = 1;
  size_t downs_head_ = 1;
  Level level_;  // after the merged changes
  std::vector<uint64_t> ups_storage_;
  std::vector<uint64_t> downs_storage_;

 public:
  std::string name;
  std::string unit;
  std::string description;
};

// A unit's statistics. Deques keep references to earlier entries valid as more are added.
class StatGroup {
 public:
  explicit StatGroup(std::string owner) : owner_(std::move(owner)) {}
  Counter& add(const std::string& name, const std::string& unit, const std::string& description) {
    counters_.push_back(Counter{name, unit, description, 0});
    return counters_.back();
  }
  // A latency histogram, reported in ns (count, mean, p50, p90, p99, max).
  Histogram& add_histogram(const std::string& name, const std::string& description) {
    histograms_.emplace_back();
    Histogram& h = histograms_.back();
    h.name = name;
    h.unit = "ns";
    h.description = description;
    return h;
  }
  // A time-weighted occupancy in `unit` (mean and max).
  Occupancy& add_occupancy(const std::string& name, const std::string& unit,
                           const std::string& description) {
    occupancies_.emplace_back(name, unit, description);
    return occupancies_.back();
  }
  const std::string& owner() const { return owner_; }
  const std::deque<Counter>& counters() const { return counters_; }
  const std::deque<Histogram>& histograms() const { return histograms_; }
  const std::deque<Occupancy>& occupancies() const { return occupancies_; }

 private:
  std::string owner_;
  std::deque<Counter> counters_;
  std::deque<Histogram> histograms_;
  std::deque<Occupancy> occupancies_;
};

// Visitor over every counter of a model: (group owner path, counter).
using StatVisitor = std::function<void(const std::string& owner, const Counter& counter)>;
// Visitor over every group of a model (counters, histograms and occupancies).
using StatGroupVisitor = std::function<void(const StatGroup& group)>;

}  // namespace rnic
