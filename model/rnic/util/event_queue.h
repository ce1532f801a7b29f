// SPDX-License-Identifier: Apache-2.0
// The timed stages of one device in one queue, ordered by due time: plain C++, times in
// picoseconds. DeviceClock runs it on one kernel event.
//
// A stage is notified as a SystemC event is (IEEE 1666-2011 sc_event::notify): it is due at
// most once; a notification earlier than the pending one replaces it, a later or equal one is
// ignored. So the queue holds at most one entry per stage, and a device has a handful of
// stages: the queue is their due times, the first found by a scan when it changes, which costs
// less than a heap's sifting of the same entries (measured).
//
// Stages due at one time run in the order they were added (the device adds them in pipeline
// order: WQE fetch, requester, completion), whatever order they were notified in. As separate
// kernel processes their order at one time was the kernel's (unspecified by IEEE 1666, and in
// practice that of its event heap, which every other timed event of the simulation shapes); a
// fixed order does not depend on the rest of the simulation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rnic {

class EventQueue {
 public:
  using Stage = uint32_t;
  static constexpr uint64_t kNever = ~uint64_t(0);

  // A new stage, never due until notified.
  Stage add_stage();
  size_t stages() const { return due_.size(); }

  // Stage `s` is due at `at_ps`, unless it already is at or before then.
  void notify(Stage s, uint64_t at_ps) {
    if (due_[s] <= at_ps) return;
    due_[s] = at_ps;
    if (at_ps < next_ps_ || (at_ps == next_ps_ && s < next_)) {
      next_ps_ = at_ps;
      next_ = s;
    }
  }
  // Stage `s` is no longer due.
  void cancel(Stage s) {
    if (due_[s] == kNever) return;
    due_[s] = kNever;
    if (s == next_) find_next();
  }
  // When stage `s` is due (kNever: not pending).
  uint64_t due_ps(Stage s) const { return due_[s]; }

  bool empty() const { return next_ps_ == kNever; }
  // The due time of the first entry (kNever when empty).
  uint64_t next_ps() const { return next_ps_; }
  // Takes the first entry (the queue must not be empty): its stage is no longer pending.
  Stage pop() {
    const Stage s = next_;
    due_[s] = kNever;
    find_next();
    return s;
  }

 private:
  // The earliest due stage, the first added among equals.
  void find_next();

  std::vector<uint64_t> due_;  // by stage
  uint64_t next_ps_ = kNever;
  Stage next_ = 0;
};

}  // namespace rnic
