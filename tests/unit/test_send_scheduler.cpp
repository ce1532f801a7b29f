// SPDX-License-Identifier: Apache-2.0
// SendScheduler without a kernel: turn order with several QPs, batches in flight and ready;
// stall and resume; epochs (re-creation, bad doorbells); WQE-buffer accounting and prefetch
// depth; fetch-ahead order; close markers; and its choices against a linear-scan reference of
// the turn rule over random event sequences.
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

SendScheduler::Config config(uint32_t batch = 4, uint32_t depth = 4, uint32_t cache = 64,
                             bool evict = false) {
  SendScheduler::Config c;
  c.fetch_batch = batch;
  c.prefetch_depth = depth;
  c.cache_entries = cache;
  c.evict = evict;
  return c;
}

// What the module's top-up does with the scheduler's answers: every read decided goes out now,
// its WQEs on chip `latency_ps` later. Returns false when it stopped for lack of room.
bool top_up(SendScheduler& s, Queue& q, uint64_t now, uint64_t latency_ps,
            uint32_t sq_depth = 64) {
  if (!s.wants_read(q)) return true;
  for (;;) {
    const SendScheduler::Read read = s.next_read(q, sq_depth, now);
    if (read.kind == Kind::None) return true;
    if (read.kind == Kind::NoRoom) return false;
    for (uint32_t i = 0; i < read.count; ++i) s.add(q, now + latency_ps, i + 1 == read.count, now);
  }
}

// The module's fetch-ahead pass, every read taking `latency_ps`.
void fetch_ahead(SendScheduler& s, uint64_t now, uint64_t latency_ps) {
  while (Queue* q = s.fetch_ahead_head()) {
    const bool all = s.room_for_next_batch(*q) && top_up(s, *q, now, latency_ps);
    s.end_fetch_ahead(all, now);
    if (!all) return;
  }
}

// One turn at `now`: the QP's batch handed on whole. Returns its QP number, or -1 for none.
int64_t turn(SendScheduler& s, uint64_t now) {
  if (s.idle()) return -1;
  Queue* q = s.take_turn(now);
  if (!q) return -1;
  bool last = false;
  while (!last && q->has_buffered()) {
    last = q->front().last_of_batch;
    s.handed(*q);
  }
  s.end_turn(*q, now);
  return q->qpn();
}

// A turn as the module takes it with eviction: a QP whose front WQE was evicted reads it
// again (on chip `latency_ps` later) instead of handing anything on. Handed WQE indices are
// appended to `handed[qpn]`. Returns the QP number, or -1 for none.
int64_t evict_turn(SendScheduler& s, uint64_t now, uint64_t latency_ps,
                   std::map<uint32_t, std::vector<uint32_t>>& handed, uint32_t* refetched,
                   uint32_t sq_depth = 64) {
  if (s.idle()) return -1;
  Queue* q = s.take_turn(now);
  if (!q) return -1;
  bool last = false;
  while (!last && q->has_buffered()) {
    if (q->front().evicted) {
      const SendScheduler::Read r = s.refetch(*q, sq_depth, now);
      if (r.kind == Kind::Ring) {
        for (uint32_t i = 0; i < r.count; ++i) s.refill(*q, i, now + latency_ps);
        *refetched += r.count;
      }
      break;
    }
    last = q->front().last_of_batch;
    handed[q->qpn()].push_back(q->front().index);
    s.handed(*q);
  }
  s.end_turn(*q, now);
  return q->qpn();
}

}  // namespace

TEST_CASE("send scheduler: evict takes the oldest on-chip WQEs of other QPs and an evicted "
          "front is read again at its QP's turn or waits for a slot while all are being read",
          "[unit][scheduler][evict]") {
  for (const bool evict : {false, true}) {
    INFO("evict " << evict);
    SendScheduler s(config(4, 2, 8, evict));
    s.ring(1, 8);
    fetch_ahead(s, 0, 100);
    CHECK(s.buffered() == 8);
    s.ring(2, 4);
    fetch_ahead(s, 200, 100);  // QP 1's WQEs are on chip by now
    if (!evict) {
      // Block: QP 2 waits for room; nothing is evicted.
      CHECK(s.take_evicted() == 0);
      CHECK(s.fetch_ahead_head() != nullptr);
      CHECK(s.buffered() == 8);
      continue;
    }
    CHECK(s.take_evicted() == 4);
    CHECK(s.fetch_ahead_head() == nullptr);
    CHECK(s.buffered() == 8);  // QP 1's second batch and QP 2's batch
    Queue* q1 = s.find(1);
    REQUIRE(q1->evicted() == 4);
    // The oldest went: QP 1's first batch, the one it needs next.
    CHECK(q1->front().evicted);
    CHECK(q1->front().index == 0);
    CHECK_FALSE(q1->buffered()[4].evicted);
    // QP 1's turn: its front must be read again, but the only other entries (QP 2's) are
    // still being read, and its own are behind the front: it waits until 300.
    Queue* q = s.take_turn(200);
    REQUIRE(q == q1);
    SendScheduler::Read r = s.refetch(*q, 64, 200);
    CHECK(r.kind == Kind::NoRoom);
    CHECK(q->front().ready_ps == 300);
    s.end_turn(*q, 200);
    CHECK(s.take_turn(250) == nullptr);
    CHECK(s.next_ready_ps() == 300);
    // At 300 QP 2 goes first (it joined the turns earlier) and frees its slots.
    std::map<uint32_t, std::vector<uint32_t>> handed;
    uint32_t refetched = 0;
    CHECK(evict_turn(s, 300, 100, handed, &refetched) == 2);
    CHECK(evict_turn(s, 300, 100, handed, &refetched) == 1);
    CHECK(refetched == 4);  // read again into QP 2's freed slots
    CHECK(s.take_evicted() == 0);
    CHECK(s.buffered() == 8);
    CHECK(q1->evicted() == 0);
    CHECK(s.take_turn(350) == nullptr);  // QP 1 waits for its refetch
    for (uint64_t t = 400; evict_turn(s, t, 100, handed, &refetched) >= 0;) {
    }
    CHECK(handed[1] == std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7});
    CHECK(handed[2] == std::vector<uint32_t>{0, 1, 2, 3});
    CHECK(s.buffered() == 0);
  }
}

TEST_CASE("send scheduler: evict never evicts the requesting QP's own WQEs for its prefetch",
          "[unit][scheduler][evict]") {
  SendScheduler s(config(4, 4, 8, true));
  s.ring(1, 16);
  fetch_ahead(s, 0, 100);
  CHECK(s.buffered() == 8);  // two batches; the rest waits for room
  REQUIRE(s.fetch_ahead_head() == s.find(1));
  fetch_ahead(s, 500, 100);  // on chip, but its own: nothing to evict
  CHECK(s.take_evicted() == 0);
  CHECK(s.buffered() == 8);
}

TEST_CASE("send scheduler: with eviction under pressure every WQE is handed on once and in "
          "order with evicted WQEs read again and the buffer never over its entries",
          "[unit][scheduler][evict]") {
  for (const bool evict : {false, true}) {
    INFO("evict " << evict);
    std::mt19937 rng(evict ? 7 : 3);
    const uint32_t cache = 16;
    SendScheduler s(config(4, 4, cache, evict));
    std::map<uint32_t, std::vector<uint32_t>> handed;
    std::map<uint32_t, uint32_t> producer;
    uint32_t refetched = 0;
    uint64_t evicted = 0;
    uint64_t now = 0;
    const uint32_t qps = 12;
    const uint32_t target = 200;  // WQEs per QP
    for (int round = 0; round < 100000; ++round) {
      // Post up to 16 outstanding per QP (the ring holds 64).
      for (uint32_t qpn = 1; qpn <= qps; ++qpn) {
        const uint32_t done = uint32_t(handed[qpn].size());
        if (producer[qpn] < target && producer[qpn] < done + 16 && rng() % 3 == 0) {
          producer[qpn] = std::min(target, producer[qpn] + 1 + uint32_t(rng() % 4));
          s.ring(qpn, producer[qpn]);
        }
      }
      fetch_ahead(s, now, 100 + rng() % 50);
      evicted += s.take_evicted();
      REQUIRE(s.buffered() <= cache);
      evict_turn(s, now, 100 + rng() % 50, handed, &refetched);
      REQUIRE(s.buffered() <= cache);
      bool all = true;
      for (uint32_t qpn = 1; qpn <= qps; ++qpn) all = all && handed[qpn].size() == target;
      if (all) break;
      now += 10;
    }
    for (uint32_t qpn = 1; qpn <= qps; ++qpn) {
      INFO("QP " << qpn);
      REQUIRE(handed[qpn].size() == target);
      for (uint32_t i = 0; i < target; ++i) CHECK(handed[qpn][i] == i);
    }
    if (evict) {
      CHECK(evicted > 0);
      CHECK(refetched == evicted);  // every evicted WQE was read again before it went on
    } else {
      CHECK(evicted == 0);
      CHECK(refetched == 0);
    }
    CHECK(s.buffered() == 0);
  }
}

TEST_CASE("send scheduler: QPs with WQEs on chip take turns round-robin, a batch each",
          "[unit][scheduler]") {
  SendScheduler s(config(2, 4));
  for (uint32_t qpn = 1; qpn <= 3; ++qpn) s.ring(qpn, 4);  // two batches of two each
  fetch_ahead(s, 0, 100);
  CHECK(s.buffered() == 12);
  CHECK(s.take_turn(50) == nullptr);  // every read still out
  CHECK(s.next_ready_ps() == 100);
  std::vector<int64_t> order;
  for (int64_t qpn; (qpn = turn(s, 100)) >= 0;) order.push_back(qpn);
  CHECK(order == std::vector<int64_t>{1, 2, 3, 1, 2, 3});
  CHECK(s.idle());
  CHECK(s.buffered() == 0);
  CHECK(s.find(2)->handed() == 4);
}

TEST_CASE("send scheduler: a QP whose batch is still being read keeps its place and lets the "
          "next QP with a WQE on chip go first", "[unit][scheduler]") {
  SendScheduler s(config(1, 2));
  s.ring(1, 2);
  fetch_ahead(s, 0, 500);  // QP 1: both batches in at 500
  s.ring(2, 2);
  s.ring(3, 2);
  fetch_ahead(s, 10, 90);  // QPs 2 and 3: in at 100
  std::vector<int64_t> order;
  for (int64_t qpn; (qpn = turn(s, 100)) >= 0;) order.push_back(qpn);
  CHECK(order == std::vector<int64_t>{2, 3, 2, 3});
  CHECK(s.next_ready_ps() == 500);
  // QP 1 kept the head of the list: ahead of QP 2, which joined again behind it.
  s.ring(2, 3);
  fetch_ahead(s, 200, 300);  // QP 2's third WQE: in at 500 too
  order.clear();
  for (int64_t qpn; (qpn = turn(s, 500)) >= 0;) order.push_back(qpn);
  CHECK(order == std::vector<int64_t>{1, 2, 1});
}

TEST_CASE("send scheduler: reads that complete at once are served in list order",
          "[unit][scheduler]") {
  SendScheduler s(config(1, 1));
  // Joined in the order 1, 2, 3, 4; their reads complete out of that order, 3 and 1 together.
  const uint64_t latency[] = {300, 400, 200, 300};
  for (uint32_t qpn = 1; qpn <= 4; ++qpn) {
    s.ring(qpn, 1);
    fetch_ahead(s, 0, latency[qpn - 1]);
  }
  std::vector<int64_t> order;
  for (uint64_t now : {200, 300, 400})
    for (int64_t qpn; (qpn = turn(s, now)) >= 0;) order.push_back(qpn);
  CHECK(order == std::vector<int64_t>{3, 1, 4, 2});
  // Late: everything is in, so the list order decides alone.
  SendScheduler late(config(1, 1));
  for (uint32_t qpn = 1; qpn <= 4; ++qpn) {
    late.ring(qpn, 1);
    fetch_ahead(late, 0, latency[qpn - 1]);
  }
  order.clear();
  for (int64_t qpn; (qpn = turn(late, 1000)) >= 0;) order.push_back(qpn);
  CHECK(order == std::vector<int64_t>{1, 2, 3, 4});
}

TEST_CASE("send scheduler: a refused QP sits out the turns until it is resumed, then joins at "
          "the back", "[unit][scheduler]") {
  SendScheduler s(config(1, 2));
  for (uint32_t qpn = 1; qpn <= 3; ++qpn) s.ring(qpn, 2);
  fetch_ahead(s, 0, 0);
  Queue* q = s.take_turn(0);
  REQUIRE(q);
  CHECK(q->qpn() == 1);
  s.refused(*q);  // the requester could not start its WQE: it stays buffered
  s.end_turn(*q, 0);
  CHECK(q->stalled());
  CHECK(q->front().index == 0);
  CHECK(turn(s, 0) == 2);
  CHECK(turn(s, 0) == 3);
  CHECK(turn(s, 0) == 2);
  CHECK_FALSE(s.resume(2, 0));  // not stalled: nothing to do
  CHECK(s.resume(1, 0));
  CHECK_FALSE(q->stalled());
  CHECK(turn(s, 0) == 3);  // 3 was on the list before 1 came back
  CHECK(turn(s, 0) == 1);
  CHECK(q->handed() == 1);  // the refused WQE, handed on now
  CHECK(turn(s, 0) == 1);
  CHECK(s.idle());
  // Resumed with nothing buffered: it stays off the list.
  s.ring(4, 1);
  fetch_ahead(s, 0, 0);
  Queue* four = s.take_turn(0);
  s.refused(*four);
  s.end_turn(*four, 0);
  s.discard(*four);
  CHECK_FALSE(four->stalled());  // a discard ends the stall
  CHECK_FALSE(s.resume(4, 0));
  CHECK(s.idle());
}

TEST_CASE("send scheduler: a discarded or re-created QP drops its WQEs, bumps its epoch and "
          "keeps its place with nothing to hand on", "[unit][scheduler]") {
  SendScheduler s(config(2, 2, 8));
  s.ring(1, 4);
  s.ring(2, 2);
  fetch_ahead(s, 0, 1000);
  CHECK(s.buffered() == 6);
  Queue& one = *s.find(1);
  const uint32_t epoch = one.epoch();
  s.recreate(one);
  CHECK(one.epoch() == epoch + 1);
  CHECK_FALSE(one.has_buffered());
  CHECK(one.posted() == 0);
  CHECK(s.buffered() == 2);
  // Its read was out: its turn comes at once, and only takes it off the list.
  Queue* q = s.take_turn(10);
  REQUIRE(q == &one);
  s.end_turn(one, 10);
  CHECK(s.take_turn(10) == nullptr);
  CHECK(s.next_ready_ps() == 1000);  // QP 2's read; QP 1's old one no longer counts
  // The re-created ring starts from index 0.
  s.ring(1, 1);
  fetch_ahead(s, 20, 0);
  CHECK(one.buffered().front().index == 0);
  CHECK(turn(s, 20) == 1);
  CHECK(turn(s, 1000) == 2);
}

TEST_CASE("send scheduler: a QP discarded while on the list, then rung again, waits for its "
          "new read at its old place", "[unit][scheduler]") {
  SendScheduler s(config(1, 1));
  s.ring(1, 1);
  s.ring(2, 1);
  fetch_ahead(s, 0, 100);
  s.discard(*s.find(1));
  s.ring(1, 2);  // one more WQE: read at 50, in at 150
  fetch_ahead(s, 50, 100);
  CHECK(turn(s, 100) == 2);  // QP 1 is ahead, but its new front is still being read
  CHECK(s.take_turn(120) == nullptr);
  CHECK(s.next_ready_ps() == 150);
  CHECK(turn(s, 150) == 1);
  CHECK(s.idle());
}

TEST_CASE("send scheduler: WQE buffer, prefetch depth and ring end bound the reads",
          "[unit][scheduler]") {
  SendScheduler s(config(4, 2, 6));
  Queue& q = s.ring(1, 11);
  REQUIRE(s.room_for_next_batch(q));
  // First batch: 4 WQEs; the second would need 4 more slots of 6.
  SendScheduler::Read r = s.next_read(q, 16);
  CHECK(r.kind == Kind::Ring);
  CHECK(r.slot == 0);
  CHECK(r.count == 4);
  for (uint32_t i = 0; i < 4; ++i) s.add(q, 100, i == 3, 0);
  r = s.next_read(q, 16);
  CHECK(r.kind == Kind::NoRoom);
  CHECK(s.buffered() == 4);
  CHECK_FALSE(s.room_for_next_batch(q));
  // The fetch-ahead head keeps its place while there is no room; it joins the turns though.
  s.end_fetch_ahead(false, 0);
  CHECK(s.fetch_ahead_head() == &q);
  CHECK_FALSE(s.idle());
  // Handing on frees slots; the prefetch depth (2 batches) then allows one more read.
  Queue* t = s.take_turn(100);
  REQUIRE(t == &q);
  s.handed(q);
  s.handed(q);
  CHECK(s.buffered() == 2);
  r = s.next_read(q, 16);
  CHECK(r.kind == Kind::Ring);
  CHECK(r.slot == 4);
  CHECK(r.count == 4);
  for (uint32_t i = 0; i < 4; ++i) s.add(q, 200, i == 3, 100);
  CHECK(s.next_read(q, 16).kind == Kind::None);  // two batches held: the depth
  CHECK_FALSE(s.wants_read(q));
  s.handed(q);
  s.handed(q);  // the first batch is done: a third may go out
  CHECK(s.wants_read(q));
  // A ring of 10: the read stops at its end (slots 8 and 9), then wraps to slot 0.
  r = s.next_read(q, 10);
  CHECK(r.kind == Kind::Ring);
  CHECK(r.slot == 8);
  CHECK(r.count == 2);
  for (uint32_t i = 0; i < 2; ++i) s.add(q, 300, i == 1, 100);
  s.end_turn(q, 100);
  for (int i = 0; i < 6; ++i) {  // the six WQEs buffered, one turn each
    REQUIRE(s.take_turn(300) == &q);
    s.handed(q);
    s.end_turn(q, 300);
  }
  CHECK(s.idle());
  r = s.next_read(q, 10);
  CHECK(r.kind == Kind::Ring);
  CHECK(r.slot == 0);
  CHECK(r.count == 1);
}

TEST_CASE("send scheduler: a BlueFlame WQE is its own batch when it is next to fetch, and is "
          "forgotten once read or re-created", "[unit][scheduler]") {
  std::array<uint8_t, kWqeBytes> bytes{};
  bytes[0] = 0x5A;
  SendScheduler s(config(4, 4));
  Queue& q = s.ring(1, 3, bytes.data());  // WQE 2 came with the doorbell
  SendScheduler::Read r = s.next_read(q, 16);
  CHECK(r.kind == Kind::Ring);
  CHECK(r.count == 3);  // WQEs 0..2 from the ring: the doorbell's copy is not next
  for (uint32_t i = 0; i < 3; ++i) s.add(q, 100, i == 2, 0);
  CHECK(s.take_blueflame_discarded() == 0);
  s.ring(1, 4, bytes.data());  // WQE 3 with its doorbell: next to fetch
  CHECK(s.take_blueflame_discarded() == 1);  // WQE 2's copy came from the ring instead
  r = s.next_read(q, 16);
  CHECK(r.kind == Kind::BlueFlame);
  CHECK(r.count == 1);
  CHECK(q.blueflame_wqe()[0] == 0x5A);
  s.add(q, 10, true, 0);
  CHECK(s.next_read(q, 16).kind == Kind::None);
  CHECK(s.take_blueflame_discarded() == 0);  // WQE 3's copy was taken
  // Re-created before its BlueFlame WQE was fetched: the new WQE 2 comes from the ring.
  s.ring(1, 7, bytes.data());
  s.recreate(q);
  CHECK(s.take_blueflame_discarded() == 1);
  s.ring(1, 3);
  r = s.next_read(q, 16);
  CHECK(r.kind == Kind::Ring);
  CHECK(r.count == 3);
}

TEST_CASE("send scheduler: reads go out in doorbell order and a QP without room holds those "
          "behind it", "[unit][scheduler]") {
  SendScheduler s(config(2, 1, 4));
  s.ring(3, 2);
  s.ring(1, 2);
  s.ring(2, 2);
  s.ring(3, 4);  // already in the list: keeps its place
  std::vector<uint32_t> read_order;  // the QPs whose reads went out, in order
  auto pass = [&](uint64_t now) {
    while (Queue* q = s.fetch_ahead_head()) {
      const uint32_t before = s.buffered();
      const bool all = s.room_for_next_batch(*q) && top_up(s, *q, now, 10);
      if (s.buffered() != before) read_order.push_back(q->qpn());
      s.end_fetch_ahead(all, now);
      if (!all) return;
    }
  };
  pass(0);
  // QP 3 read one batch (its depth), QP 1 its batch; QP 2 finds no room and stays the head.
  CHECK(read_order == std::vector<uint32_t>{3, 1});
  CHECK(s.fetch_ahead_head() == s.find(2));
  CHECK(s.buffered() == 4);
  // QP 3's turn frees room: QP 2 reads first, and QP 3's next batch queues behind it (no room).
  CHECK(turn(s, 10) == 3);
  read_order.clear();
  pass(10);
  CHECK(read_order == std::vector<uint32_t>{2});
  CHECK(s.fetch_ahead_head() == s.find(3));
  CHECK(turn(s, 20) == 1);
  pass(20);
  CHECK(read_order == std::vector<uint32_t>{2, 3});
  CHECK(s.fetch_ahead_head() == nullptr);
}

TEST_CASE("send scheduler: a closing QP's marker is due once everything rung is handed on",
          "[unit][scheduler]") {
  SendScheduler s(config(1, 1));
  s.ring(1, 1);
  s.ring(2, 1);
  s.close(2);
  s.close(1);
  s.close(2);  // once only
  size_t cursor = 0;
  CHECK(s.take_drained(cursor) == nullptr);
  fetch_ahead(s, 0, 0);
  CHECK(turn(s, 0) == 1);
  cursor = 0;
  Queue* drained = s.take_drained(cursor);
  REQUIRE(drained);
  CHECK(drained->qpn() == 1);
  CHECK(drained->handed() == 1);
  CHECK(s.take_drained(cursor) == nullptr);
  CHECK(turn(s, 0) == 2);
  cursor = 0;
  CHECK(s.take_drained(cursor) == s.find(2));
  cursor = 0;
  CHECK(s.take_drained(cursor) == nullptr);
}

// ---------------------------------------------------------------------------------------------
// The property test: the scheduler against a reference that keeps the turn list as a list and
// scans it for the first eligible QP, as the WqeFetcher did before the scheduler existed.

namespace {

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
    const SendScheduler::Config c = config(batch[pick(0, 2)], depth[pick(0, 2)], cache[pick(0, 3)]);
    const uint32_t qps = pick(1, 12);
    INFO("seed " << seed << ", batch " << c.fetch_batch << ", depth " << c.prefetch_depth
                 << ", cache " << c.cache_entries << ", QPs " << qps);
    Property p(seed, c, qps);
    for (int i = 0; i < 2000; ++i) p.step();
    turns += p.turns_taken();
  }
  CHECK(turns > 50000);  // the sequences did reach the turns
}
