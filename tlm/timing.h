// SPDX-License-Identifier: Apache-2.0
// Timing helpers. Units move whole transactions and annotate delays (TLM-2.0 loosely timed);
// shared resources keep the time until which they are busy, so contention decides when work
// proceeds without a wait() per cycle or per byte.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <queue>
#include <vector>

#include <systemc>

namespace rnic {

// A clock domain: converts cycle counts into time.
class Clock {
 public:
  explicit Clock(double mhz) : period_ps_(mhz > 0 ? uint64_t(1e6 / mhz + 0.5) : 1) {}
  sc_core::sc_time cycles(uint64_t n) const;
  uint64_t period_ps() const { return period_ps_; }

 private:
  uint64_t period_ps_;
};

// The current simulated time of the kernel `unit` belongs to: the value of
// sc_core::sc_time_stamp() without its library call. Units read the time about 50 times per
// 64 B read (docs/development.md, "Simulator speed").
inline const sc_core::sc_time& sim_time(const sc_core::sc_object& unit) {
  return unit.simcontext()->time_stamp();
}

// Where a unit reads the current time when it is not the kernel's: a device that runs its
// timed stages ahead of the kernel (model/rnic/device_clock.h).
class TimeSource {
 public:
  virtual const sc_core::sc_time& now() const = 0;

 protected:
  ~TimeSource() = default;
};

// Picoseconds as sc_time (the resolution is 1 ps unless a user changes it). At 1 ps the value
// is the count itself: from_value skips sc_time(double, unit)'s unit conversion, which was the
// top entry of the profile once the kernel's queue was fixed (5%: every delay is built here).
// Below 2^53 ps (about 2.5 hours) one picosecond times n is exact in a double and inline
// (sc_time::operator*=), where from_value is a library call: 25 instructions, about 12 calls
// per 64 B read.
inline sc_core::sc_time ps(uint64_t n) {
  static const bool one_ps_unit = sc_core::sc_time(1, sc_core::SC_PS).value() == 1;
  static const sc_core::sc_time one_ps = sc_core::sc_time::from_value(1);
  if (!one_ps_unit) return sc_core::sc_time(double(n), sc_core::SC_PS);
  return n < (uint64_t(1) << 53) ? one_ps * double(n) : sc_core::sc_time::from_value(n);
}
// The inverse of ps(): a time as a count of picoseconds.
inline uint64_t to_ps(const sc_core::sc_time& t) {
  static const bool one_ps_unit = sc_core::sc_time(1, sc_core::SC_PS).value() == 1;
  return one_ps_unit ? t.value() : uint64_t(t / sc_core::sc_time(1, sc_core::SC_PS) + 0.5);
}
inline sc_core::sc_time Clock::cycles(uint64_t n) const { return ps(n * period_ps_); }
inline sc_core::sc_time ns(double n) { return sc_core::sc_time(n, sc_core::SC_NS); }

// For a host thread that has just woken and is about to look at memory the device writes:
// waits, in delta cycles, until nothing else is left to run at the current time. Which of
// two simultaneous timed wakeups runs first is unspecified (IEEE 1666-2011's scheduler) and
// follows the kernel's whole event queue, so without this a completion landing in the same
// picosecond would be seen or missed depending on unrelated activity. With it: device first
// at equal times, whatever that order. Bounded, because two host threads settling at the
// same time are each other's pending activity; device chains within one instant are far
// shorter.
inline void settle_current_time() {
  constexpr int kMaxDeltas = 16;
  for (int i = 0; i < kMaxDeltas && sc_core::sc_pending_activity_at_current_time(); ++i)
    sc_core::wait(sc_core::SC_ZERO_TIME);
}

// A pipelined unit: a transaction enters no earlier than `ii_cycles` (the initiation interval)
// after the previous one entered and leaves `latency_cycles` after entering. `items` > 1 (pages
// of one translation) enter back to back, one interval each; the last leaves latency later.
class PipelineStage {
 public:
  PipelineStage(const Clock& clock, uint32_t latency_cycles, uint32_t ii_cycles)
      : latency_(clock.cycles(latency_cycles)), ii_(clock.cycles(ii_cycles ? ii_cycles : 1)) {}
  // Without contention (fast functional mode) only the latency counts: with temporal
  // decoupling arrivals come out of time order (see BandwidthPipe::set_contention).
  void set_contention(bool on) { contention_ = on; }
  // When a transaction arriving at `arrival` leaves the stage.
  sc_core::sc_time pass(const sc_core::sc_time& arrival, uint64_t items = 1) {
    // A single item (nearly every pass) needs no multiply through a double.
    const sc_core::sc_time spread = items > 1 ? ii_ * double(items - 1) : sc_core::SC_ZERO_TIME;
    if (!contention_) return arrival + spread + latency_;
    const sc_core::sc_time start = arrival > next_entry_ ? arrival : next_entry_;
    const sc_core::sc_time last = start + spread;
    next_entry_ = last + ii_;
    return last + latency_;
  }

 private:
  sc_core::sc_time latency_;
  sc_core::sc_time ii_;
  sc_core::sc_time next_entry_ = sc_core::SC_ZERO_TIME;
  bool contention_ = true;
};

// A serial resource (one direction of a link, a cache port). reserve() books `bytes` starting
// no earlier than `earliest` and returns when they are done.
//
// Two service orders:
// - In call order (the default): first booked, first served. Right where the order is a
//   property of the hardware: a port's transmit queue and a switch egress keep packets in
//   order (a read must not overtake the write before it on the same connection).
// - In time order (set_time_ordered): a booking takes the earliest idle span at or after
//   `earliest` long enough to hold it. Units annotate delays (loosely timed), so bookings
//   reach a resource in call order, not time order: the table-miss read of the next request
//   is booked after the data read of the previous one although it happens first. Served in
//   call order, every miss would queue behind a full round trip (64 B reads with every
//   translation missing floored at one per PCIe round trip). Bookings already made keep
//   their slot (no preemption), the approximation left. Used for the PCIe link directions.
class BandwidthPipe {
 public:
  BandwidthPipe() = default;
  explicit BandwidthPipe(double bytes_per_ns) { set_rate(bytes_per_ns); }
  void set_rate(double bytes_per_ns) {
    ps_per_byte_ = bytes_per_ns > 0 ? 1000.0 / bytes_per_ns : 0;
  }

  // Without contention (fast functional mode) a booking starts at `earliest` whatever was
  // booked before: with temporal decoupling bookings arrive out of time order, and a FIFO
  // would queue an early transfer behind one booked microseconds ahead, compounding per op.
  void set_contention(bool on) { contention_ = on; }
  void set_time_ordered(bool on) { time_ordered_ = on; }
  // Adds every booking's duration (ps) to `*busy_ps`, a declared counter's value: busy time
  // over simulated time is the resource's utilisation.
  void count_busy(uint64_t* busy_ps) { busy_ps_ = busy_ps; }

  sc_core::sc_time duration(uint64_t bytes) const { return ps(duration_ps(bytes)); }
  uint64_t duration_ps(uint64_t bytes) const { return uint64_t(bytes * ps_per_byte_ + 0.5); }
  sc_core::sc_time reserve(const sc_core::sc_time& earliest, uint64_t bytes) {
    return ps(reserve_ps(to_ps(earliest), bytes));
  }
  // reserve() in picoseconds: for callers that do their arithmetic in integers and build an
  // sc_time once (each one built is a library call).
  uint64_t reserve_ps(uint64_t earliest_ps, uint64_t bytes) {
    const uint64_t d = duration_ps(bytes);
    busy_ps_total_ += d;
    if (busy_ps_) *busy_ps_ += d;
    const uint64_t end = !contention_     ? earliest_ps + d
                         : time_ordered_ ? book(earliest_ps, d)
                                         : std::max(earliest_ps, busy_until_ps_) + d;
    if (end > busy_until_ps_) busy_until_ps_ = end;
    return end;
  }
  // The end of the latest booking.
  sc_core::sc_time busy_until() const { return ps(busy_until_ps_); }
  sc_core::sc_time busy_time() const { return ps(busy_ps_total_); }
  // Busy spans still ahead of simulated time, time-ordered service (statistics and tests).
  size_t pending_spans() const { return spans_.size(); }

 private:
  struct Span {
    uint64_t start;
    uint64_t end;
  };
  // Books `d` ps at the earliest idle time >= `earliest`; returns the end.
  uint64_t book(uint64_t earliest, uint64_t d) {
    if (d == 0) return earliest;
    if (spans_.size() >= prune_above_) prune();
    // Common case: at or after everything booked.
    if (spans_.empty() || earliest >= spans_.back().end) {
      if (!spans_.empty() && earliest == spans_.back().end) {
        spans_.back().end += d;
      } else {
        spans_.push_back({earliest, earliest + d});
      }
      return earliest + d;
    }
    // The spans never overlap and are sorted, ends included: skip those that end by
    // `earliest`. (The spans prune() drops end by now, and now <= earliest: when it runs
    // never changes a booking.)
    uint64_t start = earliest;
    auto it = std::partition_point(spans_.begin(), spans_.end(),
                                   [start](const Span& s) { return s.end <= start; });
    for (; it != spans_.end(); ++it) {
      if (start + d <= it->start) break;  // fits in the gap before *it
      if (it->end > start) start = it->end;
    }
    const uint64_t end = start + d;
    // Insert [start, end) before `it`, merging with touching neighbours.
    const bool joins_prev = it != spans_.begin() && std::prev(it)->end == start;
    const bool joins_next = it != spans_.end() && it->start == end;
    if (joins_prev && joins_next) {
      std::prev(it)->end = it->end;
      spans_.erase(it);
    } else if (joins_prev) {
      std::prev(it)->end = end;
    } else if (joins_next) {
      it->start = start;
    } else {
      spans_.insert(it, Span{start, end});
    }
    return end;
  }

  // No booking can start before the current time (delays are never negative): spans that
  // ended by then can never matter again. Swept only when the list has doubled since the last
  // sweep (reading the time costs; a vector, not a deque: a few dozen spans, no allocation).
  static constexpr size_t kPruneAt = 64;
  void prune() {
    const uint64_t now = sc_core::sc_time_stamp().value();
    spans_.erase(spans_.begin(),
                 std::partition_point(spans_.begin(), spans_.end(),
                                      [now](const Span& s) { return s.end <= now; }));
    prune_above_ = std::max(kPruneAt, 2 * spans_.size());
  }

  double ps_per_byte_ = 0;
  bool contention_ = true;
  bool time_ordered_ = false;
  uint64_t busy_until_ps_ = 0;
  uint64_t busy_ps_total_ = 0;
  uint64_t* busy_ps_ = nullptr;
  std::vector<Span> spans_;
  size_t prune_above_ = kPruneAt;
};

// A finite pool of identical slots (PCIe read tags, IRD entries): a request takes the slot
// that frees first and holds it until its completion time.
class SlotPool {
 public:
  explicit SlotPool(uint32_t slots = 1) { resize(slots); }
  void resize(uint32_t slots) {
    free_at_ = {};
    for (uint32_t i = 0; i < (slots ? slots : 1); ++i) free_at_.push(sc_core::SC_ZERO_TIME);
    size_ = slots ? slots : 1;
  }
  // Earliest time >= `earliest` at which a slot is free; the caller must then call release().
  sc_core::sc_time acquire(const sc_core::sc_time& earliest) {
    sc_core::sc_time t = free_at_.top();
    free_at_.pop();
    return t > earliest ? t : earliest;
  }
  void release(const sc_core::sc_time& at) { free_at_.push(at); }
  uint32_t size() const { return size_; }

 private:
  std::priority_queue<sc_core::sc_time, std::vector<sc_core::sc_time>,
                      std::greater<sc_core::sc_time>>
      free_at_;
  uint32_t size_ = 1;
};

}  // namespace rnic
