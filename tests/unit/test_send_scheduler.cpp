// SPDX-License-Identifier: Apache-2.0
// SendScheduler without a kernel: turn order with several QPs, batches in flight and ready;
// stall and resume; epochs (re-creation, bad doorbells); WQE-buffer accounting and prefetch
// depth; fetch-ahead order; close markers. test_send_scheduler_reference.cpp holds its choices
// against a linear-scan reference of the turn rule over random event sequences.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
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
