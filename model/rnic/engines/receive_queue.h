// SPDX-License-Identifier: Apache-2.0
// A receive queue's rules, plain C++ (docs/behaviour.md, "Write, Send, Receive";
// R4.error.flush_receives, R5.send.*): the driver posts receives and tells the device its producer
// index by doorbell; each incoming send consumes the oldest posted receive, and with none posted
// the send is refused (RNR); a QP in the error state completes every posted receive with a flush
// status, those posted later too. Indices count up and wrap at 2^32; the ring slot is index %
// depth.
#pragma once

#include <cstdint>

namespace rnic {

class ReceiveQueue {
 public:
  // A range of receive indices, [first, end) (modulo 2^32).
  struct Range {
    uint32_t first = 0;
    uint32_t end = 0;
    uint32_t size() const { return end - first; }
  };

  // Receive doorbell: the driver has posted receives up to (not including) `producer`.
  void post(uint32_t producer) { producer_ = producer; }

  // The receive an incoming send lands in: consumes and returns its index, or false when
  // none is posted (or the ring has no slots): the send is refused, RNR.
  bool take(uint32_t depth, uint32_t* index) {
    if (depth == 0 || consumer_ == producer_) return false;
    *index = consumer_++;
    return true;
  }

  // Consumes every posted receive, to complete with a flush status. A producer index more
  // than a ring ahead is a driver bug: at most the last `depth` are returned, the rest
  // skipped.
  Range take_all(uint32_t depth) {
    if (producer_ - consumer_ > depth) consumer_ = producer_ - depth;
    const Range range{consumer_, producer_};
    consumer_ = producer_;
    return range;
  }

  // The QP enters the error state; returns false if it already was in it.
  bool enter_error() {
    if (error_) return false;
    error_ = true;
    return true;
  }
  // The QP context was (re)written: a fresh QP. Receives posted before Connect stay.
  void leave_error() { error_ = false; }
  // The QP is closed: a QP created later with this number starts with an empty queue.
  void clear() { producer_ = consumer_ = 0; }

  bool in_error() const { return error_; }
  uint32_t posted() const { return producer_ - consumer_; }

 private:
  uint32_t producer_ = 0;  // from receive doorbells
  uint32_t consumer_ = 0;  // receives used or flushed
  bool error_ = false;
};

}  // namespace rnic
