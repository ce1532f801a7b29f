// SPDX-License-Identifier: Apache-2.0
// The send queue's completion rules (model/rnic/engines/send_queue.h) and the receive queue's
// (receive_queue.h): plain C++, no kernel.
#include <catch2/catch.hpp>

#include <vector>

#include "model/rnic/engines/receive_queue.h"
#include "model/rnic/engines/send_queue.h"

using rnic::CqeStatus;
using rnic::Decision;
using rnic::ReceiveQueue;
using rnic::RuleId;

namespace {

struct Request {
  uint64_t sequence = 0;
  bool done = false;
  CqeStatus status = CqeStatus::Success;
  RuleId rule = RuleId::None;
  int id = 0;  // the test's name for it
};

using Queue = rnic::SendQueue<Request>;

// Posts `n` requests with ids 0..n-1.
void post(Queue& queue, int n) {
  for (int i = 0; i < n; ++i) {
    Request r;
    r.id = i;
    r.done = true;  // post() must reset it
    queue.post(r);
  }
}

// (id, status) of every completion that may leave now.
std::vector<std::pair<int, CqeStatus>> retire(Queue& queue) {
  std::vector<std::pair<int, CqeStatus>> out;
  queue.retire([&](const Request& r) { out.emplace_back(r.id, r.status); });
  return out;
}

auto no_cancel = [](Request&) {};

}  // namespace

TEST_CASE("send queue: completions leave in posting order", "[unit][queues]") {
  Queue queue;
  post(queue, 3);
  CHECK(queue.size() == 3);
  CHECK_FALSE(queue.find(1)->done);
  queue.finish(*queue.find(1), Decision::ok(), no_cancel);
  CHECK(retire(queue).empty());  // #1 ended, but #0 still runs
  CHECK(queue.running_before(1));
  CHECK_FALSE(queue.running_before(0));
  queue.finish(*queue.find(0), Decision::ok(), no_cancel);
  const auto out = retire(queue);
  REQUIRE(out.size() == 2);
  CHECK(out[0].first == 0);
  CHECK(out[1].first == 1);
  CHECK(queue.find(0) == nullptr);  // retired
  REQUIRE(queue.find(2) != nullptr);
  CHECK(queue.find(2)->id == 2);
  Request next;
  next.id = 3;
  CHECK(queue.post(next).sequence == 3);  // numbering goes on across retires
  CHECK_FALSE(queue.in_error());
}

TEST_CASE("send queue: the earliest error completes, everything after it is cancelled",
          "[unit][queues]") {
  Queue queue;
  post(queue, 4);
  std::vector<int> cancelled;
  auto on_cancel = [&](Request& r) { cancelled.push_back(r.id); };
  // #2 fails first (a local check, or an overtaking NAK) while #0 and #1 still run.
  auto later =
      queue.finish(*queue.find(2),
                   Decision::fail(CqeStatus::LocalProtection, RuleId::R5_read_sink_pd), on_cancel);
  CHECK(later.cancelled == 1);  // #3
  CHECK(later.errors_revoked == 0);
  CHECK(later.entered_error);
  CHECK(queue.in_error());
  CHECK(cancelled == std::vector<int>{3});
  CHECK(queue.error_pending());
  // Then #0 fails: #1 (running) and #2 (its error) complete CANCELLED; #3 already is.
  auto earliest = queue.finish(
      *queue.find(0), Decision::fail(CqeStatus::RemoteAccess, RuleId::R5_read_resp_tag), on_cancel);
  CHECK(earliest.cancelled == 2);
  CHECK(earliest.errors_revoked == 1);
  CHECK_FALSE(earliest.entered_error);
  CHECK(queue.find(0)->rule == RuleId::R5_read_resp_tag);
  CHECK(queue.find(1)->rule == RuleId::R4_error_flush_later);  // cancelled behind the error
  CHECK(queue.find(2)->rule == RuleId::R4_error_flush_later);  // its own error revoked
  const auto out = retire(queue);
  REQUIRE(out.size() == 4);
  CHECK(out[0].second == CqeStatus::RemoteAccess);
  CHECK(out[1].second == CqeStatus::Flush);
  CHECK(out[2].second == CqeStatus::Flush);
  CHECK(out[3].second == CqeStatus::Flush);
  CHECK_FALSE(queue.error_pending());
  CHECK(queue.in_error());  // until the QP is made again
}

TEST_CASE("send queue: a flush cancels everything not retired, a waiting success included",
          "[unit][queues]") {
  Queue queue;
  post(queue, 4);
  queue.finish(*queue.find(1), Decision::ok(), no_cancel);  // waits behind #0
  queue.finish(*queue.find(3), Decision::fail(CqeStatus::Flush, RuleId::R4_error_flush_later),
               no_cancel);  // already cancelled
  int calls = 0;
  CHECK(queue.flush_all(RuleId::R5_flush, [&](Request&) { ++calls; }) == 3);  // not #3 again
  CHECK(calls == 4);  // every request gives back what it holds
  CHECK(queue.in_error());
  std::vector<RuleId> rules;
  queue.retire([&](const Request& r) {
    CHECK(r.status == CqeStatus::Flush);
    rules.push_back(r.rule);
  });
  // The flush names itself; #3 keeps the rule it was cancelled under.
  CHECK(rules == std::vector<RuleId>{RuleId::R5_flush, RuleId::R5_flush, RuleId::R5_flush,
                                     RuleId::R4_error_flush_later});
  CHECK(queue.empty());
}

TEST_CASE("send queue: a QP made again starts clean only when nothing is queued",
          "[unit][queues]") {
  Queue queue;
  post(queue, 1);
  queue.finish(*queue.find(0), Decision::fail(CqeStatus::LocalLength, RuleId::None), no_cancel);
  CHECK(queue.in_error());
  CHECK_FALSE(queue.reset_if_idle());  // the error completion has not left
  CHECK(queue.in_error());
  CHECK(retire(queue).size() == 1);
  CHECK(queue.reset_if_idle());
  CHECK_FALSE(queue.in_error());
}

TEST_CASE("receive queue: sends take posted receives in order, none posted is RNR",
          "[unit][queues]") {
  ReceiveQueue rq;
  uint32_t index = 99;
  CHECK_FALSE(rq.take(16, &index));  // nothing posted
  rq.post(2);
  CHECK(rq.posted() == 2);
  CHECK_FALSE(rq.take(0, &index));  // a QP without a receive ring
  REQUIRE(rq.take(16, &index));
  CHECK(index == 0);
  REQUIRE(rq.take(16, &index));
  CHECK(index == 1);
  CHECK_FALSE(rq.take(16, &index));
  CHECK(rq.posted() == 0);
}

TEST_CASE("receive queue: flushing takes at most one ring, across the index wrap",
          "[unit][queues]") {
  ReceiveQueue rq;
  rq.post(0xFFFFFFFEu);  // the driver's indices near the wrap
  ReceiveQueue::Range skipped = rq.take_all(8);  // a producer far ahead: the last ring only
  CHECK(skipped.first == 0xFFFFFFF6u);
  CHECK(skipped.size() == 8);
  rq.post(3);  // 0xFFFFFFFE, 0xFFFFFFFF, 0, 1, 2
  const ReceiveQueue::Range range = rq.take_all(8);
  CHECK(range.first == 0xFFFFFFFEu);
  CHECK(range.end == 3);
  CHECK(range.size() == 5);
  CHECK(rq.posted() == 0);
  CHECK(rq.take_all(8).size() == 0);
  rq.post(5);
  CHECK(rq.take_all(0).size() == 0);  // no ring: nothing to complete, nothing left posted
  CHECK(rq.posted() == 0);
}

TEST_CASE("receive queue: the error state is entered once, a closed QP starts empty",
          "[unit][queues]") {
  ReceiveQueue rq;
  CHECK(rq.enter_error());
  CHECK_FALSE(rq.enter_error());
  CHECK(rq.in_error());
  rq.leave_error();
  CHECK_FALSE(rq.in_error());
  rq.post(4);
  rq.clear();
  CHECK(rq.posted() == 0);
  uint32_t index = 0;
  rq.post(1);
  REQUIRE(rq.take(4, &index));
  CHECK(index == 0);
}
