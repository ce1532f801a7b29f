// SPDX-License-Identifier: Apache-2.0
// The device's event queue (model/rnic/util/event_queue.h): plain C++, no kernel. Order by
// due time, stages due at one time in the order they were added; a stage is notified as an
// sc_event is (the earlier notification wins).
#include <catch2/catch.hpp>

#include <vector>

#include "model/rnic/util/event_queue.h"

using rnic::EventQueue;

namespace {

// Pops everything: (stage, due) in the order the clock would run them.
std::vector<std::pair<EventQueue::Stage, uint64_t>> drain(EventQueue& q) {
  std::vector<std::pair<EventQueue::Stage, uint64_t>> out;
  while (!q.empty()) {
    const uint64_t due = q.next_ps();
    out.emplace_back(q.pop(), due);
  }
  return out;
}

}  // namespace

TEST_CASE("event queue: by due time, ties in the order the stages were added") {
  EventQueue q;
  const auto a = q.add_stage(), b = q.add_stage(), c = q.add_stage();
  CHECK(q.stages() == 3);
  CHECK(q.empty());
  CHECK(q.next_ps() == EventQueue::kNever);
  q.notify(c, 200);
  q.notify(b, 100);
  q.notify(a, 200);
  CHECK(q.next_ps() == 100);
  const auto order = drain(q);
  REQUIRE(order.size() == 3);
  CHECK(order[0] == std::make_pair(b, uint64_t(100)));
  CHECK(order[1] == std::make_pair(a, uint64_t(200)));  // added before c, notified after it
  CHECK(order[2] == std::make_pair(c, uint64_t(200)));
}

TEST_CASE("event queue: a stage is due once, the earlier notification wins") {
  EventQueue q;
  const auto a = q.add_stage(), b = q.add_stage();
  q.notify(a, 300);
  q.notify(a, 500);  // later: ignored
  CHECK(q.due_ps(a) == 300);
  q.notify(b, 250);
  q.notify(a, 200);  // earlier: replaces 300, and now goes before b
  CHECK(q.due_ps(a) == 200);
  const auto order = drain(q);
  REQUIRE(order.size() == 2);  // the replaced entry is skipped
  CHECK(order[0] == std::make_pair(a, uint64_t(200)));
  CHECK(order[1] == std::make_pair(b, uint64_t(250)));
  CHECK(q.due_ps(a) == EventQueue::kNever);
}

TEST_CASE("event queue: an equal notification changes nothing") {
  EventQueue q;
  const auto a = q.add_stage(), b = q.add_stage();
  q.notify(b, 100);
  q.notify(a, 100);
  q.notify(a, 100);  // equal: ignored, one entry
  q.notify(b, 100);
  const auto order = drain(q);
  REQUIRE(order.size() == 2);
  CHECK(order[0].first == a);
  CHECK(order[1].first == b);
}

TEST_CASE("event queue: cancel, and notify again after running") {
  EventQueue q;
  const auto a = q.add_stage(), b = q.add_stage();
  q.notify(a, 100);
  q.notify(b, 150);
  q.cancel(a);
  CHECK(q.due_ps(a) == EventQueue::kNever);
  CHECK(q.next_ps() == 150);
  q.cancel(a);  // not pending: nothing
  q.notify(a, 400);
  CHECK(q.pop() == b);
  // Popped, a stage can be notified again at any time, even the one it just had.
  q.notify(b, 150);
  CHECK(q.next_ps() == 150);
  CHECK(q.pop() == b);
  CHECK(q.pop() == a);
  CHECK(q.empty());
}

TEST_CASE("event queue: many stages and replacements keep time order") {
  EventQueue q;
  std::vector<EventQueue::Stage> stages;
  for (int i = 0; i < 64; ++i) stages.push_back(q.add_stage());
  // Each stage notified at a late time, then replaced by an earlier one.
  for (int i = 0; i < 64; ++i) q.notify(stages[i], 10000 + uint64_t(i));
  for (int i = 0; i < 64; ++i) q.notify(stages[i], uint64_t((i * 37) % 64) * 10);
  uint64_t last = 0;
  size_t n = 0;
  while (!q.empty()) {
    const uint64_t due = q.next_ps();
    const auto s = q.pop();
    CHECK(due >= last);
    CHECK(due == uint64_t((s * 37) % 64) * 10);
    last = due;
    ++n;
  }
  CHECK(n == 64);
}
