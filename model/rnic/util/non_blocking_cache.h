// SPDX-License-Identifier: Apache-2.0
// A non-blocking cache (plain C++, times in picoseconds): a set-associative LRU array in front
// of a table in host memory, with a finite set of miss-status holding registers (MSHRs).
//
// - A miss takes the register that frees first and holds it until its fill is in; with every
//   register busy it waits: `max_outstanding_misses` = 1 is a blocking cache.
// - Hits under misses: a lookup of a present line is answered at once, whatever is in flight.
// - A line whose fill is still in flight when another request asks for it is a merged miss:
//   no second table read, the request's data is ready when the fill lands.
//
// Units annotate delays (loosely timed), so a fill is known, with its landing time, as soon as
// the miss is issued; the line is entered then, stamped with that time, and a lookup at an
// earlier simulated time sees it as in flight (merged) rather than present.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "model/rnic/util/set_assoc_cache.h"

namespace rnic {

template <typename Value>
class NonBlockingCache {
 public:
  enum class Outcome { Hit, Merged, Miss };
  struct Result {
    Outcome outcome = Outcome::Miss;
    Value* value = nullptr;  // Hit and Merged: the entry
    uint64_t ready_ps = 0;   // Merged: when its fill lands
  };

  NonBlockingCache(uint32_t entries, uint32_t ways, uint32_t max_outstanding_misses)
      : lines_(entries, ways) {
    set_registers(max_outstanding_misses);
  }

  // The entry for `key` as seen by a request at `at_ps`.
  Result lookup(uint64_t key, uint64_t at_ps) {
    Result r;
    Line* line = lines_.lookup(key);
    if (!line) return r;
    r.value = &line->value;
    if (line->ready_ps > at_ps) {
      r.outcome = Outcome::Merged;
      r.ready_ps = line->ready_ps;
    } else {
      r.outcome = Outcome::Hit;
    }
    return r;
  }

  // A miss at `at_ps` takes a register: returns when one is free (>= at_ps). Every call must
  // be followed by end_miss() with the time the fill is in (or the read failed).
  uint64_t begin_miss(uint64_t at_ps) {
    const uint64_t free_at = free_at_.top();
    free_at_.pop();
    return std::max(free_at, at_ps);
  }
  void end_miss(uint64_t done_ps) { free_at_.push(done_ps); }

  // What an insert pushed out: the key and the value of the line it evicted.
  struct Eviction {
    bool happened = false;
    uint64_t key = 0;
    Value value{};
  };
  // Enters `key`, usable from `ready_ps` on (0: at once, e.g. a write-through update); the
  // line it evicts, if any, goes to `eviction`.
  Value& insert(uint64_t key, const Value& value, uint64_t ready_ps = 0,
                Eviction* eviction = nullptr) {
    if (!eviction) return lines_.insert(key, Line{value, ready_ps}).value;
    typename SetAssocCache<Line>::Eviction lost;
    Value& entered = lines_.insert(key, Line{value, ready_ps}, &lost).value;
    *eviction = Eviction{lost.happened, lost.key, lost.value.value};
    return entered;
  }
  // Enters `key` only if absent (neighbours brought in by a line fill keep newer copies).
  void insert_if_absent(uint64_t key, const Value& value, uint64_t ready_ps) {
    if (!lines_.lookup(key)) lines_.insert(key, Line{value, ready_ps});
  }
  void invalidate(uint64_t key) { lines_.invalidate(key); }

  uint32_t registers() const { return registers_; }
  uint32_t sets() const { return lines_.sets(); }
  uint32_t ways() const { return lines_.ways(); }
  uint64_t evictions() const { return lines_.evictions(); }

 private:
  struct Line {
    Value value{};
    uint64_t ready_ps = 0;
  };
  void set_registers(uint32_t n) {
    registers_ = n ? n : 1;
    for (uint32_t i = 0; i < registers_; ++i) free_at_.push(0);
  }

  SetAssocCache<Line> lines_;
  uint32_t registers_ = 1;
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> free_at_;
};

}  // namespace rnic
