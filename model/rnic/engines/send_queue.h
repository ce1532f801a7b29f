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
#include <deque>
#include <memory>
#include <utility>

#include "model/rnic/abi/rules.h"
#include "model/rnic/abi/wqe.h"

namespace rnic {

// An error completion status: the request failed itself, it was not cancelled.
inline bool is_error_status(CqeStatus status) {
  return status != CqeStatus::Success && status != CqeStatus::Flush;
}

template <typename Entry, typename Allocator = std::allocator<Entry>>
class SendQueue {
 public:
  // What ending one request did to the others.
  struct Outcome {
    uint32_t cancelled = 0;       // later requests that now complete CANCELLED
    uint32_t errors_revoked = 0;  // of those, requests that had ended with an error themselves
    bool entered_error = false;   // this was the QP's first error
  };

  // Appends a request in posting order and numbers it; the reference stays valid until the
  // request is retired (a deque keeps references on push_back and pop_front).
  Entry& post(Entry entry) {
    entry.sequence = next_sequence_++;
    entry.done = false;
    entries_.push_back(std::move(entry));
    return entries_.back();
  }
  // The same for a default request the caller then fills in: built in place, not copied (a
  // requester's entry holds its sink list and a packet to resend).
  Entry& post_new() {
    Entry& entry = entries_.emplace_back();
    entry.sequence = next_sequence_++;
    entry.done = false;
    return entry;
  }

  // The request numbered `sequence`, or null once it was retired.
  Entry* find(uint64_t sequence) {
    if (entries_.empty()) return nullptr;
    const uint64_t first = entries_.front().sequence;
    if (sequence < first || sequence - first >= entries_.size()) return nullptr;
    return &entries_[size_t(sequence - first)];
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
    for (Entry& later : entries_) {
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
    for (Entry& entry : entries_) {
      if (!entry.done || entry.status == CqeStatus::Success) ++cancelled;
      on_cancel(entry);
      if (entry.status != CqeStatus::Flush || !entry.done) entry.rule = rule;
      entry.done = true;
      entry.status = CqeStatus::Flush;
    }
    return cancelled;
  }

  // Hands `deliver` every request whose completion may leave now: the ended ones at the
  // front, in posting order.
  template <typename Deliver>
  void retire(Deliver&& deliver) {
    while (!entries_.empty() && entries_.front().done) {
      const Entry entry = std::move(entries_.front());
      entries_.pop_front();
      deliver(entry);
    }
  }

  // Is an error completion still queued? (the QP's error is reported to its receive side once
  // that completion has left)
  bool error_pending() const {
    for (const Entry& entry : entries_)
      if (entry.done && is_error_status(entry.status)) return true;
    return false;
  }

  // Is a request posted before `sequence` still running? (fences, and verbs that wait for
  // the work before them)
  bool running_before(uint64_t sequence) const {
    for (const Entry& entry : entries_) {
      if (entry.sequence >= sequence) break;
      if (!entry.done) return true;
    }
    return false;
  }

  // Is any request posted so far still running? (a verb that waits for all work before it)
  bool any_running() const { return running_before(next_sequence_); }

  bool in_error() const { return error_; }
  // A QP being (re)created starts clean, if nothing of its former life is queued.
  bool reset_if_idle() {
    if (!entries_.empty()) return false;
    error_ = false;
    return true;
  }

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  auto begin() { return entries_.begin(); }
  auto end() { return entries_.end(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

 private:
  std::deque<Entry, Allocator> entries_;
  uint64_t next_sequence_ = 0;
  bool error_ = false;
};

}  // namespace rnic
