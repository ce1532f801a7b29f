// SPDX-License-Identifier: Apache-2.0
// SendScheduler without a kernel, the property test: the scheduler against a reference that
// keeps the turn list as a list and scans it for the first eligible QP, as the WqeFetcher did
// before the scheduler existed, over random event sequences (test_send_scheduler.cpp has the
// example-based cases).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "model/rnic/front/send_scheduler.h"

using namespace rnic;

namespace {

using Queue = SendScheduler::Queue;
using Kind = SendScheduler::Read::Kind;

struct RefWqe {
  uint32_t index;
  uint64_t ready;
  bool last;
};

struct RefQueue {
  uint32_t producer = 0, fetched = 0, handed = 0, batches = 0, epoch = 0, bf_index = 0;
  bool active = false, waiting_fetch = false, stalled = false, blueflame = false;
  std::deque<RefWqe> buffered;
};

// The random outcome of one top-up, drawn before either model uses it (both read the same).
struct TopUpDraw {
  bool context_ok = true;
  uint32_t sq_depth = 16;
  uint64_t context_ps = 0;
  std::array<bool, 8> dma_ok{};
  std::array<uint64_t, 8> dma_ps{};
};

class Reference {
 public:
  explicit Reference(const SendScheduler::Config& c)
      : batch_(std::max<uint32_t>(1, c.fetch_batch)),
        depth_(std::max<uint32_t>(1, c.prefetch_depth)),
        cache_(c.cache_entries) {}

  std::map<uint32_t, RefQueue> queues;
  std::deque<uint32_t> turns;        // the round-robin list
  std::deque<uint32_t> fetch_ahead;  // doorbell order
  uint32_t buffered = 0;

  void ring(uint32_t qpn, uint32_t producer, bool with_wqe) {
    RefQueue& q = queues[qpn];
    q.producer = producer;
    if (with_wqe) {
      q.blueflame = true;
      q.bf_index = producer - 1;
    }
    note_posted(qpn);
  }
  void note_posted(uint32_t qpn) {
    RefQueue& q = queues[qpn];
    if (!q.waiting_fetch && q.producer != q.fetched) {
      q.waiting_fetch = true;
      fetch_ahead.push_back(qpn);
    }
  }
  void discard(uint32_t qpn) {
    RefQueue& q = queues[qpn];
    buffered -= uint32_t(q.buffered.size());
    q.buffered.clear();
    q.batches = 0;
    ++q.epoch;
    q.fetched = q.handed = q.producer;
    q.blueflame = false;
    q.stalled = false;
  }
  void recreate(uint32_t qpn) {
    discard(qpn);
    RefQueue& q = queues[qpn];
    q.producer = q.fetched = q.handed = 0;
  }
  // Issues reads while there are WQEs, depth and room; the draw decides the I/O's outcomes.
  bool top_up(uint32_t qpn, uint64_t now, const TopUpDraw& d) {
    RefQueue& q = queues[qpn];
    if (q.producer == q.fetched || q.batches >= depth_) return true;
    if (!d.context_ok || q.producer - q.handed > d.sq_depth) {
      discard(qpn);
      return true;
    }
    size_t reads = 0;
    while (q.producer != q.fetched && q.batches < depth_) {
      if (q.blueflame && int32_t(q.fetched - q.bf_index) > 0) q.blueflame = false;
      if (q.blueflame && q.fetched == q.bf_index) {
        if (buffered + 1 > cache_) return false;
        q.blueflame = false;
        q.buffered.push_back({q.fetched++, now + d.context_ps, true});
        ++buffered;
        ++q.batches;
        continue;
      }
      const uint32_t slot = q.fetched % d.sq_depth;
      const uint32_t n = std::min({q.producer - q.fetched, batch_, d.sq_depth - slot});
      if (buffered + n > cache_) return false;
      const size_t k = reads++ % d.dma_ok.size();
      if (!d.dma_ok[k]) {
        discard(qpn);
        return true;
      }
      for (uint32_t i = 0; i < n; ++i)
        q.buffered.push_back({q.fetched++, now + d.context_ps + d.dma_ps[k], i + 1 == n});
      buffered += n;
      ++q.batches;
    }
    return true;
  }
  // The head of the fetch-ahead list: true when all its reads went out.
  bool fetch_ahead_step(uint64_t now, const TopUpDraw& d) {
    const uint32_t qpn = fetch_ahead.front();
    RefQueue& q = queues[qpn];
    const uint32_t next = std::min(q.producer - q.fetched, batch_);
    const bool all = buffered + next <= cache_ && top_up(qpn, now, d);
    if (!q.active && !q.stalled && !q.buffered.empty()) {
      q.active = true;
      turns.push_back(qpn);
    }
    if (!all) return false;
    fetch_ahead.pop_front();
    q.waiting_fetch = false;
    return true;
  }
  // The linear scan: the first QP on the list with nothing buffered or its front WQE in.
  int64_t take_turn(uint64_t now, uint64_t& earliest) {
    earliest = ~uint64_t(0);
    for (size_t i = 0; i < turns.size(); ++i) {
      const RefQueue& q = queues[turns[i]];
      if (q.buffered.empty() || q.buffered.front().ready <= now) {
        const uint32_t qpn = turns[i];
        turns.erase(turns.begin() + ptrdiff_t(i));
        return qpn;
      }
      earliest = std::min(earliest, q.buffered.front().ready);
    }
    return -1;
  }
  void handed(uint32_t qpn) {
    RefQueue& q = queues[qpn];
    if (q.buffered.front().last) --q.batches;
    q.buffered.pop_front();
    --buffered;
    ++q.handed;
  }
  void end_turn(uint32_t qpn) {
    note_posted(qpn);
    RefQueue& q = queues[qpn];
    if (!q.buffered.empty() && !q.stalled) {
      turns.push_back(qpn);
    } else {
      q.active = false;
    }
  }
  bool resume(uint32_t qpn) {
    auto it = queues.find(qpn);
    if (it == queues.end() || !it->second.stalled) return false;
    RefQueue& q = it->second;
    q.stalled = false;
    if (!q.active && !q.buffered.empty()) {
      q.active = true;
      turns.push_back(qpn);
    }
    return true;
  }

 private:
  uint32_t batch_, depth_, cache_;
};

// The scheduler driven as the module drives it, with the same draws.
bool scheduler_top_up(SendScheduler& s, Queue& q, uint64_t now, const TopUpDraw& d) {
  if (!s.wants_read(q)) return true;
  if (!d.context_ok || q.posted() > d.sq_depth) {
    s.discard(q);
    return true;
  }
  size_t reads = 0;
  for (;;) {
    const SendScheduler::Read read = s.next_read(q, d.sq_depth);
    if (read.kind == Kind::None) return true;
    if (read.kind == Kind::NoRoom) return false;
    if (read.kind == Kind::BlueFlame) {
      s.add(q, now + d.context_ps, true, now);
      continue;
    }
    const size_t k = reads++ % d.dma_ok.size();
    if (!d.dma_ok[k]) {
      s.discard(q);
      return true;
    }
    for (uint32_t i = 0; i < read.count; ++i)
      s.add(q, now + d.context_ps + d.dma_ps[k], i + 1 == read.count, now);
  }
}

// A hand-over's random course: the requester refuses the WQE at `refuse_at` (if any); at
// `nested_at` a nested call re-creates QP `nested_qpn` or resumes it.
struct HandDraw {
  int refuse_at = -1;
  int nested_at = -1;
  bool nested_resume = false;
  uint32_t nested_qpn = 0;
};

class Property {
 public:
  Property(uint32_t seed, const SendScheduler::Config& c, uint32_t qps)
      : rng_(seed), scheduler_(c), reference_(c), qps_(qps) {
    for (uint32_t qpn = 0; qpn < qps; ++qpn) sq_depth_.push_back(4u << pick(0, 2));
  }

  void step() {
    const uint32_t op = pick(0, 99);
    if (op < 25) {
      ring();
    } else if (op < 45) {
      fetch_ahead_pass();
    } else if (op < 75) {
      take_turns();
    } else if (op < 82) {
      resume();
    } else if (op < 85) {
      recreate();
    } else {
      advance();
    }
    compare();
  }
  uint64_t turns_taken() const { return turns_; }

 private:
  uint32_t pick(uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_);
  }
  TopUpDraw draw_top_up(uint32_t qpn) {
    TopUpDraw d;
    d.context_ok = pick(0, 49) != 0;
    d.sq_depth = sq_depth_[qpn];
    d.context_ps = pick(0, 3) == 0 ? 0 : pick(1, 200);
    for (size_t i = 0; i < d.dma_ok.size(); ++i) {
      d.dma_ok[i] = pick(0, 59) != 0;
      // Few distinct latencies: reads of different QPs often complete at once.
      d.dma_ps[i] = pick(0, 9) == 0 ? 0 : 100 * pick(1, 8);
    }
    return d;
  }
  void ring() {
    const uint32_t qpn = pick(0, qps_ - 1);
    // Now and then more than the ring holds: a bad doorbell, discarded at its top-up.
    const uint32_t producer = reference_.queues[qpn].producer + pick(1, 6);
    const bool with_wqe = pick(0, 4) == 0;
    std::array<uint8_t, kWqeBytes> bytes{};
    scheduler_.ring(qpn, producer, with_wqe ? bytes.data() : nullptr);
    reference_.ring(qpn, producer, with_wqe);
  }
  void fetch_ahead_pass() {
    while (Queue* q = scheduler_.fetch_ahead_head()) {
      REQUIRE(!reference_.fetch_ahead.empty());
      REQUIRE(q->qpn() == reference_.fetch_ahead.front());
      const TopUpDraw d = draw_top_up(q->qpn());
      const bool all = scheduler_.room_for_next_batch(*q) && scheduler_top_up(scheduler_, *q, now_, d);
      scheduler_.end_fetch_ahead(all, now_);
      REQUIRE(reference_.fetch_ahead_step(now_, d) == all);
      if (!all) return;
    }
    REQUIRE(reference_.fetch_ahead.empty());
  }
  void take_turns() {
    const uint32_t n = pick(1, 4);
    for (uint32_t i = 0; i < n; ++i) {
      REQUIRE(scheduler_.idle() == reference_.turns.empty());
      if (scheduler_.idle()) return;
      uint64_t earliest = 0;
      const int64_t expected = reference_.take_turn(now_, earliest);
      Queue* q = scheduler_.take_turn(now_);
      if (expected < 0) {
        REQUIRE(q == nullptr);
        REQUIRE(scheduler_.next_ready_ps() == earliest);
        return;
      }
      REQUIRE(q != nullptr);
      REQUIRE(q->qpn() == uint32_t(expected));
      ++turns_;
      hand(*q);
    }
  }
  // The module's hand-over: WQEs of one batch until one is refused or the QP is discarded.
  void hand(Queue& q) {
    const uint32_t qpn = q.qpn();
    HandDraw d;
    if (pick(0, 5) == 0) d.refuse_at = int(pick(0, 3));
    if (pick(0, 7) == 0) {
      d.nested_at = int(pick(0, 3));
      d.nested_resume = pick(0, 1) == 0;
      d.nested_qpn = pick(0, qps_ - 1);
    }
    const uint32_t epoch = q.epoch();
    RefQueue& r = reference_.queues[qpn];
    bool last = false;
    for (int k = 0; !last && q.has_buffered() && q.epoch() == epoch; ++k) {
      REQUIRE(!r.buffered.empty());
      REQUIRE(q.front().index == r.buffered.front().index);
      REQUIRE(q.front().ready_ps == r.buffered.front().ready);
      last = q.front().last_of_batch;
      if (k == d.nested_at) {  // a call nested in the hand-over, as in fast mode
        if (d.nested_resume) {
          REQUIRE(scheduler_.resume(d.nested_qpn, now_) == reference_.resume(d.nested_qpn));
        } else if (Queue* other = scheduler_.find(d.nested_qpn)) {
          scheduler_.recreate(*other);
          reference_.recreate(d.nested_qpn);
        }
        if (q.epoch() != epoch) break;
      }
      if (k == d.refuse_at) {
        scheduler_.refused(q);
        r.stalled = true;
        break;
      }
      scheduler_.handed(q);
      reference_.handed(qpn);
    }
    scheduler_.end_turn(q, now_);
    reference_.end_turn(qpn);
  }
  void resume() {
    const uint32_t qpn = pick(0, qps_ - 1);
    REQUIRE(scheduler_.resume(qpn, now_) == reference_.resume(qpn));
  }
  void recreate() {
    const uint32_t qpn = pick(0, qps_ - 1);
    Queue* q = scheduler_.find(qpn);
    REQUIRE((q != nullptr) == (reference_.queues.count(qpn) != 0));
    if (!q) return;
    scheduler_.recreate(*q);
    reference_.recreate(qpn);
  }
  void advance() {
    // Mostly to the next read's completion, as the module's trigger does; sometimes past it.
    if (!scheduler_.idle() && pick(0, 1) == 0) {
      uint64_t earliest = 0;
      std::deque<uint32_t> saved = reference_.turns;
      if (reference_.take_turn(now_, earliest) >= 0) {
        reference_.turns = saved;  // a QP is eligible already: nothing to wait for
        return;
      }
      now_ = earliest;
      return;
    }
    now_ += pick(0, 3) == 0 ? 0 : pick(1, 700);
  }
  void compare() {
    REQUIRE(scheduler_.buffered() == reference_.buffered);
    REQUIRE(scheduler_.idle() == reference_.turns.empty());
    for (const auto& [qpn, r] : reference_.queues) {
      Queue* q = scheduler_.find(qpn);
      REQUIRE(q);
      REQUIRE(q->handed() == r.handed);
      REQUIRE(q->posted() == r.producer - r.handed);
      REQUIRE(q->epoch() == r.epoch);
      REQUIRE(q->stalled() == r.stalled);
      REQUIRE(q->buffered().size() == r.buffered.size());
    }
    Queue* head = scheduler_.fetch_ahead_head();
    REQUIRE((head == nullptr) == reference_.fetch_ahead.empty());
    if (head) REQUIRE(head->qpn() == reference_.fetch_ahead.front());
  }

  std::mt19937 rng_;
  SendScheduler scheduler_;
  Reference reference_;
  uint32_t qps_;
  std::vector<uint32_t> sq_depth_;
  uint64_t now_ = 0;
  uint64_t turns_ = 0;
};

}  // namespace

TEST_CASE("send scheduler: its turns match a linear scan of the turn list over random events",
          "[unit][scheduler]") {
  uint64_t turns = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    std::mt19937 shape(seed);
    auto pick = [&](uint32_t lo, uint32_t hi) {
      return std::uniform_int_distribution<uint32_t>(lo, hi)(shape);
    };
    const uint32_t batch[] = {1, 2, 4};
    const uint32_t depth[] = {1, 2, 4};
    const uint32_t cache[] = {2, 4, 8, 64};
    SendScheduler::Config c;
    c.fetch_batch = batch[pick(0, 2)];
    c.prefetch_depth = depth[pick(0, 2)];
    c.cache_entries = cache[pick(0, 3)];
    const uint32_t qps = pick(1, 12);
    INFO("seed " << seed << ", batch " << c.fetch_batch << ", depth " << c.prefetch_depth
                 << ", cache " << c.cache_entries << ", QPs " << qps);
    Property p(seed, c, qps);
    for (int i = 0; i < 2000; ++i) p.step();
    turns += p.turns_taken();
  }
  CHECK(turns > 50000);  // the sequences did reach the turns
}
