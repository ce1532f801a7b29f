// SPDX-License-Identifier: Apache-2.0
// The responder's read-response contexts, shared by all QPs, plain C++ (no SystemC; times in
// picoseconds). A read in service holds one from the time it starts reading its data until
// the data is read (as it holds its QP's IRD slot); a read that finds every context held
// waits for the first to free, it is not refused. An assumption: a requester may have as
// many reads outstanding as the IRD it negotiated, so a responder that shares fewer contexts
// among its QPs has no NAK to answer with; it can only serve the read later.
//
// The responder books reads ahead in simulated time, one request at a time in the order they
// reach it: a context's release time is known when it is taken. A context free by the time a
// request is ready stays free for every later request (as SlotPool, with the contexts that
// are free kept as a count, so that a pool of millions costs only the reads in flight).
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace rnic {

class ReadContextPool {
 public:
  explicit ReadContextPool(uint32_t contexts) : size_(contexts ? contexts : 1) {}

  // A read ready at `ready_ps` takes a context: when it has one (>= ready_ps). The caller
  // then calls release() with the time it frees it.
  uint64_t acquire(uint64_t ready_ps) {
    while (!busy_until_.empty() && busy_until_.top() <= ready_ps) busy_until_.pop();
    uint64_t start = ready_ps;
    if (taken_ + busy_until_.size() >= size_) {
      start = busy_until_.top();  // every context held: the first to free
      busy_until_.pop();
      ++waits_;
      wait_ps_ += start - ready_ps;
    }
    ++taken_;
    return start;
  }
  void release(uint64_t at_ps) {
    --taken_;
    busy_until_.push(at_ps);
  }

  uint32_t size() const { return size_; }
  uint64_t waits() const { return waits_; }      // reads that found every context held
  uint64_t wait_ps() const { return wait_ps_; }  // their time waiting, summed

 private:
  uint32_t size_;
  uint32_t taken_ = 0;  // acquired, release time not yet given
  // Release times of the contexts held or booked beyond the last request's ready time.
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> busy_until_;
  uint64_t waits_ = 0;
  uint64_t wait_ps_ = 0;
};

}  // namespace rnic
