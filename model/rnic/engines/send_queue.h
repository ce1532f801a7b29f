// SPDX-License-Identifier: Apache-2.0
// A send queue's completion rules, plain C++ (docs/behaviour.md, "Posting rules"; R4.order,
// R4.error.*): requests keep their posting order; each ends once; completions leave in posting
// order, so a request that ended waits behind an earlier one still running; the first error puts
// the QP in the error state and every later request completes CANCELLED (a later error too); a
// flush cancels everything not yet completed, a request that ended well but waits included.
//
// `Entry` is the engine's record of one request; the queue needs its `sequence` (set by
// post), `done`, `status` and `rule` (the rule that decided it). Cancelling calls back into
// the engine first (`on_cancel`), so it can give back what the request held (an ORD slot, a
// read in flight).
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "model/rnic/abi/rules.h"
#include "model/rnic/abi/wqe.h"

namespace rnic {

// An error completion status: the request failed itself, it was not cancelled.
inline bool is_error_status(CqeStatus status) {
  return status != CqeStatus::Success && status != CqeStatus::Flush;
}

template <typename Entry>
class SendQueue {
 public:
  // What ending one request did to the others.
  struct Outcome {
    uint32_t cancelled = 0;       // later requests that now complete CANCELLED
    uint32_t errors_revoked = 0;  // of those, requests that had ended with an error themselves
    bool entered_error = false;   // this was the QP's first error
  };

  // Appends a request in posting order and numbers it; the reference stays valid until the
  // request is retired and handed to `deliver`.
  Entry& post(Entry entry) {
    Entry& slot = post_new();
    const uint64_t sequence = slot.sequence;
    slot = std::move(entry);
    slot.sequence = sequence;
    slot.done = false;
    return slot;
  }
  // The same for a default request the caller then fills in: built in place, not copied (a
  // requester's entry holds its SGE list and a packet to resend).
  Entry& post_new() {
    if (size_ == ring_.size()) grow();
    Entry* entry;
    if (free_.empty()) {
      owned_.push_back(std::make_unique<Entry>());
      entry = owned_.back().get();
    } else {
      entry = free_.back();
      free_.pop_back();
      std::destroy_at(entry);
      ::new (static_cast<void*>(entry)) Entry();
    }
    entry->sequence = next_sequence_++;
    entry->done = false;
    ring_[(head_ + size_) & mask_] = entry;
    ++size_;
    return *entry;
  }

  // The request numbered `sequence`, or null once it was retired.
  Entry* find(uint64_t sequence) {
    if (size_ == 0) return nullptr;
    const uint64_t first = at(0).sequence;
    if (sequence < first || sequence - first >= size_) return nullptr;
    return &at(size_t(sequence - first));
  }

  // Ends `entry` with `decision`. An error cancels every later request and puts the QP in the
  // error state: they complete CANCELLED under R4.error.flush_later.
  template <typename OnCancel>
  Outcome finish(Entry& entry, Decision decision, OnCancel&& on_cancel) {
    entry.done = true;
    entry.status = decision.status;
    entry.rule = decision.rule;
    Outcome outcome;
    if (!is_error_status(decision.status)) return outcome;
    // Completions leave in posting order, so the error completion is that of the earliest
    // failed request: a later one can fail first (a local check, an overtaking NAK) while an
    // earlier read still waits, and is then cancelled when the earlier one fails.
    for (size_t i = 0; i < size_; ++i) {
      Entry& later = at(i);
      if (later.sequence <= entry.sequence) continue;
      on_cancel(later);
      if (!later.done || later.status != CqeStatus::Flush) ++outcome.cancelled;
      if (later.done && is_error_status(later.status)) ++outcome.errors_revoked;
      later.done = true;
      later.status = CqeStatus::Flush;
      later.rule = RuleId::R4_error_flush_later;
    }
    outcome.entered_error = !error_;
    error_ = true;
    return outcome;
  }

  // Flush: the QP enters the error state and every request not yet retired completes
  // CANCELLED under `rule` (R5.flush for the verb, R4.error.flush_later for the peer's error),
  // one that ended well but waits behind a running one included (only CANCELLED may follow a
  // CANCELLED). Returns how many were cancelled (not counting those that had already ended
  // with an error or a flush).
  template <typename OnCancel>
  uint32_t flush_all(RuleId rule, OnCancel&& on_cancel) {
    error_ = true;
    uint32_t cancelled = 0;
    for (size_t i = 0; i < size_; ++i) {
      Entry& entry = at(i);
      if (!entry.done || entry.status == CqeStatus::Success) ++cancelled;
      on_cancel(entry);
      if (entry.status != CqeStatus::Flush || !entry.done) entry.rule = rule;
      entry.done = true;
      entry.status = CqeStatus::Flush;
    }
    return cancelled;
  }

  // Hands `deliver` every request whose completion may leave now: the ended ones at the
  // front, in posting order. Each leaves the queue before it is delivered, and its storage is
  // reused only after, so a delivery may post or retire again.
  template <typename Deliver>
  void retire(Deliver&& deliver) {
    while (size_ != 0 && at(0).done) {
      Entry* entry = ring_[head_];
      head_ = (head_ + 1) & mask_;
      --size_;
      deliver(static_cast<const Entry&>(*entry));
      free_.push_back(entry);
    }
  }

  // Is an error completion still queued? (the QP's error is reported to its receive side once
  // that completion has left)
  bool error_pending() const {
    for (size_t i = 0; i < size_; ++i)
      if (at(i).done && is_error_status(at(i).status)) return true;
    return false;
  }

  // Is a request posted before `sequence` still running? (fences, and verbs that wait for
  // the work before them)
  bool running_before(uint64_t sequence) const {
    for (size_t i = 0; i < size_; ++i) {
      if (at(i).sequence >= sequence) break;
      if (!at(i).done) return true;
    }
    return false;
  }

  // Is any request posted so far still running? (a verb that waits for all work before it)
  bool any_running() const { return running_before(next_sequence_); }

  bool in_error() const { return error_; }
  // A QP being (re)created starts clean, if nothing of its former life is queued.
  bool reset_if_idle() {
    if (size_ != 0) return false;
    error_ = false;
    return true;
  }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

 private:
  // The queue is a ring of pointers, in posting order, to entries that never move: a request
  // keeps its address from post to delivery while others are posted around it, and a retired
  // entry's storage is recycled (no allocation per request once the queue has been as deep).
  Entry& at(size_t i) { return *ring_[(head_ + i) & mask_]; }
  const Entry& at(size_t i) const { return *ring_[(head_ + i) & mask_]; }
  void grow() {
    std::vector<Entry*> ring(ring_.empty() ? 8 : ring_.size() * 2);
    for (size_t i = 0; i < size_; ++i) ring[i] = ring_[(head_ + i) & mask_];
    ring_.swap(ring);
    head_ = 0;
    mask_ = ring_.size() - 1;
  }

  std::vector<Entry*> ring_;  // a power of two long
  size_t head_ = 0;
  size_t size_ = 0;
  size_t mask_ = 0;
  std::vector<std::unique_ptr<Entry>> owned_;  // every entry made
  std::vector<Entry*> free_;                   // retired entries, to be reused
  uint64_t next_sequence_ = 0;
  bool error_ = false;
};

}  // namespace rnic
