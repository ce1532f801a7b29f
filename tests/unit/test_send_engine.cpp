// SPDX-License-Identifier: Apache-2.0
// The send engine (model/rnic/engines/send_engine.h), plain C++, no kernel: the start gate (ORD,
// READ_FENCE, the Invalidate fence) and its ready notice, retirement in posting order, the
// error flush, the ORD slots of fast mode, RNR retries and close. The bench plays the
// Requester: every check passes unless a test says otherwise, and it records the engine's
// commands in order.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model/rnic/engines/send_engine.h"

using namespace rnic;

namespace {

constexpr uint32_t kQpn = 3;
constexpr uint32_t kToken = 0x201;

// The engine's commands, in the order it gave them.
struct Recorder final : SendEngine::Actions {
  struct Command {
    std::string what;  // complete, ready, qp_error, closed
    uint32_t qpn = 0;
    uint64_t wr_id = 0;
    CqeStatus status = CqeStatus::Success;
    RuleId rule = RuleId::None;
    bool took_effect = false;
  };
  std::vector<Command> commands;

  void complete(uint32_t qpn, const SendRequest& r) override {
    commands.push_back({"complete", qpn, r.wr_id, r.status, r.rule, r.took_effect});
  }
  void ready(uint32_t qpn) override { commands.push_back({"ready", qpn}); }
  void qp_error(uint32_t qpn, CqeStatus cause) override {
    commands.push_back({"qp_error", qpn, 0, cause});
  }
  void closed(uint32_t qpn) override { commands.push_back({"closed", qpn}); }

  size_t count(const std::string& what) const {
    size_t n = 0;
    for (const Command& c : commands) n += c.what == what;
    return n;
  }
  // The wr_ids of the completions, in order.
  std::vector<uint64_t> completed() const {
    std::vector<uint64_t> ids;
    for (const Command& c : commands)
      if (c.what == "complete") ids.push_back(c.wr_id);
    return ids;
  }
  const Command& completion_of(uint64_t wr_id) const {
    for (const Command& c : commands)
      if (c.what == "complete" && c.wr_id == wr_id) return c;
    FAIL("no completion of wr_id " << wr_id);
    return commands.front();
  }
};

struct Bench {
  StatGroup group{"requester"};
  SendEngine::Stats stats{group.add("wqes", "", ""),
                          group.add("completions", "", ""),
                          group.add("errors", "", ""),
                          group.add("flushed", "", ""),
                          group.add("ord_stalls", "", ""),
                          group.add("ord_wait_ps", "ps", ""),
                          group.add("stray_responses", "", ""),
                          group.add_histogram("read_latency_ns", ""),
                          group.add_histogram("write_latency_ns", ""),
                          group.add_histogram("send_latency_ns", ""),
                          group.add_occupancy("reads_outstanding", "reads", "")};
  SendEngine engine;
  Recorder out;
  QpcEntry context;
  uint64_t now = 0;  // ps; the bench annotates no delay: every step happens at `now`
  uint32_t next_index = 0;

  static SendEngine::Config config_of(bool fast, uint32_t rnr_retry_count) {
    SendEngine::Config c;
    c.max_ord = 16;
    c.rnr_retry_count = rnr_retry_count;
    c.rnr_timer_ps = 5000;
    c.adapter_flags = 0x11;  // IN_ORDER_DMA, RDMA_READ_LOCAL_INVALIDATE_SUPPORTED
    c.slot_pool_ord = fast;
    return c;
  }
  explicit Bench(uint32_t ord = 2, bool fast = false, uint32_t rnr_retry_count = 2)
      : engine(config_of(fast, rnr_retry_count), stats) {
    context.valid = 1;
    context.connected = 1;
    context.pd = 5;
    context.cqn = 2;
    context.ord = ord;
    context.peer_node = 1;
    context.peer_qpn = 7;
  }

  static Wqe read(uint64_t wr_id, uint16_t flags = 0) {
    Wqe w;
    w.opcode = WqeOpcode::Read;
    w.wr_id = wr_id;
    w.flags = flags;
    w.nsge = 1;
    w.sge[0] = {0x60000, 64, kToken};
    return w;
  }
  static Wqe of(WqeOpcode opcode, uint64_t wr_id, uint16_t flags = 0) {
    Wqe w;
    w.opcode = opcode;
    w.wr_id = wr_id;
    w.flags = flags;
    if (opcode == WqeOpcode::Write || opcode == WqeOpcode::Send) {
      w.nsge = 1;
      w.sge[0] = {0x50000, 16, kToken};
    }
    return w;
  }

  // Hands a WQE over as the fetcher does and, if the engine takes it, runs its steps as the
  // Requester would with every check passing: a read or write goes out and awaits its
  // response, a Bind, FastRegister or Invalidate is executed. Returns the request's number,
  // or -1 when refused.
  int64_t post(const Wqe& wqe) {
    const SendEngine::Admission a =
        engine.admit(kQpn, context, wqe, next_index++, /*trace_id=*/0, now, now, out);
    if (a.step == SendEngine::Step::Refused) {
      --next_index;  // the fetcher hands the same WQE again
      return -1;
    }
    SendEngine::Qp& qp = *a.qp;
    const uint64_t sequence = a.request->sequence;
    const auto pass = [](const Sge&, CheckedSge* checked, uint64_t* generation) {
      checked->mtt_index = 40;
      *generation = 1;
      return Decision::ok();
    };
    uint64_t total = 0;
    switch (a.step) {
      case SendEngine::Step::Read:
        REQUIRE_FALSE(engine
                          .check_sgl(*a.request, wqe, context.pd, engine.sink_access(),
                                     CheckList::ReadSink, &total, pass)
                          .failed());
        sent_at.push_back(engine.issue_read(qp, *a.request, context, total, now, now));
        break;
      case SendEngine::Step::Outbound:
        REQUIRE_FALSE(engine
                          .check_sgl(*a.request, wqe, context.pd, 0, CheckList::Source, &total,
                                     pass)
                          .failed());
        SendEngine::issue_outbound(*a.request, total);
        a.request->retry.sequence = sequence;
        break;
      case SendEngine::Step::Bind:
      case SendEngine::Step::FastRegister:
      case SendEngine::Step::Invalidate:
        engine.executed(qp, sequence, Decision::ok(), now, out);
        break;
      default:
        break;
    }
    engine.retire(qp, now, out);
    return int64_t(sequence);
  }

  // A response to request `sequence` arrives at `now`, annotated to `at_ps` (fast mode:
  // later than now). Read data lands without trouble. False for a stray.
  bool respond(int64_t sequence, PacketKind kind, uint64_t at_ps, Decision nak = {}) {
    Packet p;
    p.kind = kind;
    p.dst_qpn = kQpn;
    p.sequence = uint64_t(sequence);
    p.syndrome = nak.status;
    p.rule = nak.rule;
    SendEngine::Qp* qp = nullptr;
    SendRequest* r = engine.awaiting(&p, &qp);
    if (!r) return false;
    if (kind == PacketKind::ReadResponse) p.payload.resize(r->bytes);
    Decision decision;
    const SendEngine::Reply reply = engine.reply(*qp, *r, p, now, at_ps, &decision);
    if (reply == SendEngine::Reply::Retry) return true;
    if (reply == SendEngine::Reply::Land) decision = Decision::ok();
    engine.finish(*qp, *r, decision, now, out);
    engine.retire(*qp, at_ps, out);
    return true;
  }
  bool respond(int64_t sequence, PacketKind kind = PacketKind::ReadResponse) {
    return respond(sequence, kind, now);
  }

  std::vector<uint64_t> sent_at;  // each read's send time, in posting order
};

}  // namespace

TEST_CASE("send engine: ORD refuses a read while ORD reads are out, other verbs go on",
          "[unit][send_engine]") {
  Bench b(/*ord=*/2);
  const int64_t r0 = b.post(Bench::read(10));
  const int64_t r1 = b.post(Bench::read(11));
  REQUIRE(r0 >= 0);
  REQUIRE(r1 >= 0);
  CHECK(b.engine.reads_outstanding() == 2);
  // A write does not count against ORD.
  CHECK(b.post(Bench::of(WqeOpcode::Write, 20)) >= 0);
  CHECK(b.post(Bench::read(12)) == -1);  // R4.ord: waits in the device, does not fail
  CHECK(b.stats.ord_stalls.value == 1);
  b.now = 400;
  CHECK(b.post(Bench::read(12)) == -1);  // handed again too early: refused again
  CHECK(b.stats.ord_stalls.value == 2);
  CHECK(b.stats.ord_wait_ps.value == 0);  // still waiting: counted when it starts
  CHECK(b.stats.wqes.value == 3);  // a refused WQE is not executed
  CHECK(b.out.count("ready") == 0);
  // The first response frees a slot: the fetcher hears once that the QP can go on.
  b.now = 1000;
  REQUIRE(b.respond(r0));
  REQUIRE(b.out.count("ready") == 1);
  CHECK(b.out.commands.back().qpn == kQpn);
  CHECK(b.post(Bench::read(12)) >= 0);
  // It waited from its first refusal (time 0) to its start: every refusal counted once.
  CHECK(b.stats.ord_wait_ps.value == 1000);
  CHECK(b.engine.reads_outstanding() == 2);
  CHECK(b.engine.wqes_in_flight() == 3);  // r1, the write, the third read
  CHECK(b.out.completed() == std::vector<uint64_t>{10});
}

TEST_CASE("send engine: the ORD the context asks for is capped at the adapter's, at least 1",
          "[unit][send_engine]") {
  Bench none(/*ord=*/0);
  CHECK(none.post(Bench::read(1)) >= 0);
  CHECK(none.post(Bench::read(2)) == -1);  // ORD 0 means 1
  Bench big(/*ord=*/100);
  for (uint64_t i = 0; i < 16; ++i) REQUIRE(big.post(Bench::read(i)) >= 0);
  CHECK(big.post(Bench::read(16)) == -1);  // qp.max_ord 16
}

TEST_CASE("send engine: READ_FENCE waits for every earlier read, whatever its verb",
          "[unit][send_engine]") {
  Bench b(/*ord=*/4);
  // With no read out, a fenced request starts at once.
  const int64_t w0 = b.post(Bench::of(WqeOpcode::Write, 1, kWqeFlagReadFence));
  CHECK(w0 >= 0);
  const int64_t r = b.post(Bench::read(2));
  const Wqe fenced = Bench::of(WqeOpcode::Write, 3, kWqeFlagReadFence);
  CHECK(b.post(fenced) == -1);  // R2.read_fence: a read is out
  CHECK(b.post(fenced) == -1);
  CHECK(b.post(Bench::of(WqeOpcode::Write, 3, kWqeFlagReadFence)) == -1);
  // The write before the read ending does not open the fence; the read does.
  b.now = 500;
  b.respond(w0, PacketKind::Ack);
  CHECK(b.out.count("ready") == 0);
  b.respond(r);
  CHECK(b.out.count("ready") == 1);
  CHECK(b.post(fenced) >= 0);
  CHECK(b.out.completed() == std::vector<uint64_t>{1, 2});
  CHECK(b.stats.ord_wait_ps.value == 0);  // a fence's wait is not ORD's
}

TEST_CASE("send engine: an Invalidate waits for every earlier request to finish",
          "[unit][send_engine]") {
  Bench b;
  const int64_t w = b.post(Bench::of(WqeOpcode::Write, 1));
  const int64_t r = b.post(Bench::read(2));
  const Wqe invalidate = Bench::of(WqeOpcode::Invalidate, 3);
  CHECK(b.post(invalidate) == -1);  // R5.inv.fence
  b.respond(r);                     // the read ended, the write still runs
  CHECK(b.out.count("ready") == 0);
  CHECK(b.post(invalidate) == -1);
  b.respond(w, PacketKind::Ack);
  CHECK(b.out.count("ready") == 1);
  CHECK(b.post(invalidate) >= 0);
  REQUIRE(b.out.completed() == std::vector<uint64_t>{1, 2, 3});
  CHECK(b.out.completion_of(3).took_effect);
  CHECK(b.out.completion_of(3).status == CqeStatus::Success);
  // A malformed Invalidate never runs, so it waits for nothing: it fails at once.
  const int64_t w2 = b.post(Bench::of(WqeOpcode::Write, 4));
  CHECK(w2 >= 0);
  CHECK(b.post(Bench::of(WqeOpcode::Invalidate, 5, kWqeFlagInline)) >= 0);
}

TEST_CASE("send engine: requests retire in posting order whatever order responses come in",
          "[unit][send_engine]") {
  Bench b(/*ord=*/4);
  const int64_t r0 = b.post(Bench::read(0));
  const int64_t r1 = b.post(Bench::read(1));
  const int64_t w2 = b.post(Bench::of(WqeOpcode::Write, 2));
  b.now = 100;
  b.respond(w2, PacketKind::Ack);
  b.respond(r1);
  CHECK(b.out.completed().empty());  // R4.order: #0 still runs
  CHECK(b.engine.wqes_in_flight() == 3);
  b.now = 300;
  b.respond(r0);
  CHECK(b.out.completed() == std::vector<uint64_t>{0, 1, 2});
  for (const auto& c : b.out.commands) {
    CHECK(c.status == CqeStatus::Success);
  }
  CHECK(b.out.completion_of(2).rule == RuleId::R5_write_success);
  CHECK(b.engine.wqes_in_flight() == 0);
  // Latency: execution start (0) to retirement.
  CHECK(b.stats.read_latency.count() == 2);
  CHECK(b.stats.read_latency.sum_ps == 600);
  CHECK(b.stats.write_latency.sum_ps == 300);
  // SILENT_SUCCESS: no completion for a success.
  b.post(Bench::of(WqeOpcode::Bind, 9, kWqeFlagSilentSuccess));
  CHECK(b.out.completed().size() == 3);
  CHECK(b.stats.completions.value == 3);
}

TEST_CASE("send engine: the first error completes, every later request flushes",
          "[unit][send_engine]") {
  Bench b(/*ord=*/4);
  const int64_t r0 = b.post(Bench::read(0));
  const int64_t r1 = b.post(Bench::read(1));
  const int64_t r2 = b.post(Bench::read(2));
  // #1 fails at the responder (its NAK overtakes #0's data): #2 is cancelled, #0 still runs.
  const Decision nak = Decision::fail(CqeStatus::RemoteAccess, RuleId::R5_read_resp_tag);
  REQUIRE(b.respond(r1, PacketKind::Nak, b.now, nak));
  CHECK(b.out.completed().empty());
  CHECK(b.engine.reads_outstanding() == 1);  // #2's read no longer counts
  CHECK_FALSE(b.respond(r2));                // its data is a stray now
  CHECK(b.stats.stray_responses.value == 1);
  b.respond(r0);
  REQUIRE(b.out.completed() == std::vector<uint64_t>{0, 1, 2});
  CHECK(b.out.completion_of(0).status == CqeStatus::Success);
  CHECK(b.out.completion_of(1).status == CqeStatus::RemoteAccess);
  CHECK(b.out.completion_of(1).rule == RuleId::R5_read_resp_tag);
  CHECK(b.out.completion_of(2).status == CqeStatus::Flush);
  CHECK(b.out.completion_of(2).rule == RuleId::R4_error_flush_later);
  // The responder side hears once, after the error completion (R4.error.flush_receives).
  REQUIRE(b.out.count("qp_error") == 1);
  CHECK(b.out.commands.back().what == "qp_error");
  CHECK(b.out.commands.back().status == CqeStatus::RemoteAccess);
  CHECK(b.stats.errors.value == 1);
  CHECK(b.stats.flushed.value == 1);
  // Posted later: completes CANCELLED at once, nothing runs (R4.error.posted_later).
  CHECK(b.post(Bench::read(3)) >= 0);
  CHECK(b.out.completion_of(3).status == CqeStatus::Flush);
  CHECK(b.out.completion_of(3).rule == RuleId::R4_error_flush_later);
  CHECK(b.engine.reads_outstanding() == 0);
  CHECK(b.out.count("qp_error") == 1);
}

TEST_CASE("send engine: an earlier request failing later revokes a later error",
          "[unit][send_engine]") {
  Bench b(/*ord=*/4);
  const int64_t r0 = b.post(Bench::read(0));
  const int64_t r1 = b.post(Bench::read(1));
  b.respond(r1, PacketKind::Nak, b.now,
            Decision::fail(CqeStatus::RemoteAccess, RuleId::R5_read_resp_tag));
  b.respond(r0, PacketKind::Nak, b.now,
            Decision::fail(CqeStatus::RemoteAccess, RuleId::R5_read_resp_bounds));
  REQUIRE(b.out.completed() == std::vector<uint64_t>{0, 1});
  CHECK(b.out.completion_of(0).rule == RuleId::R5_read_resp_bounds);
  CHECK(b.out.completion_of(1).status == CqeStatus::Flush);
  CHECK(b.stats.errors.value == 1);
  CHECK(b.out.count("qp_error") == 1);
}

TEST_CASE("send engine: a QP error at the responder side flushes and lets the fetcher go on",
          "[unit][send_engine]") {
  Bench b(/*ord=*/1);
  const int64_t r0 = b.post(Bench::read(0));
  CHECK(b.post(Bench::read(1)) == -1);
  b.engine.responder_failed(kQpn, b.now, b.now, b.out);
  // The waiting WQE can go on (it will complete flushed), and the read is cancelled.
  REQUIRE(b.out.commands.size() == 2);
  CHECK(b.out.commands[0].what == "ready");
  CHECK(b.out.commands[1].what == "complete");
  CHECK(b.out.commands[1].status == CqeStatus::Flush);
  CHECK(b.out.commands[1].rule == RuleId::R4_error_flush_later);
  CHECK(b.out.count("qp_error") == 0);  // it came from there
  CHECK_FALSE(b.respond(r0));
  CHECK(b.post(Bench::read(1)) >= 0);
  CHECK(b.out.completion_of(1).status == CqeStatus::Flush);
  // Told again: nothing more to do.
  b.engine.responder_failed(kQpn, b.now, b.now, b.out);
  CHECK(b.out.commands.size() == 3);
}

TEST_CASE("send engine: fast mode spaces reads by ORD slots held to their response's time",
          "[unit][send_engine]") {
  Bench b(/*ord=*/2, /*fast=*/true);
  // Responses arrive nested, at once, annotated 1000 ps and 1500 ps ahead: the count never
  // reaches ORD, the slots do.
  const int64_t r0 = b.post(Bench::read(0));
  b.respond(r0, PacketKind::ReadResponse, 1000);
  const int64_t r1 = b.post(Bench::read(1));
  b.respond(r1, PacketKind::ReadResponse, 1500);
  CHECK(b.stats.ord_stalls.value == 0);
  const int64_t r2 = b.post(Bench::read(2));
  const int64_t r3 = b.post(Bench::read(3));  // the gate's count: 1 of ORD 2 out
  REQUIRE(r2 >= 0);
  REQUIRE(r3 >= 0);
  CHECK(b.sent_at == std::vector<uint64_t>{0, 0, 1000, 1500});
  CHECK(b.stats.ord_stalls.value == 2);
  CHECK(b.stats.ord_wait_ps.value == 1000 + 1500);  // ready at 0, sent when a slot freed
  // The count still refuses a read while ORD are out.
  CHECK(b.post(Bench::read(4)) == -1);
  // A read cancelled before it left frees its slot when cancelled, and ends no earlier than it
  // was sent.
  b.engine.flush(kQpn, b.now, b.now, b.out);
  CHECK(b.out.completed() == std::vector<uint64_t>{0, 1, 2, 3});
  CHECK(b.stats.reads_outstanding.max() == 2);
}

TEST_CASE("send engine: cycle mode sends a read when the gate lets it start",
          "[unit][send_engine]") {
  Bench b(/*ord=*/1);
  b.now = 700;
  const int64_t r0 = b.post(Bench::read(0));
  b.now = 900;
  b.respond(r0, PacketKind::ReadResponse, 5000);  // annotated later: the slot frees now
  b.post(Bench::read(1));
  CHECK(b.sent_at == std::vector<uint64_t>{700, 900});
  CHECK(b.stats.ord_stalls.value == 0);
  CHECK(b.stats.ord_wait_ps.value == 0);  // never refused: no wait
}

TEST_CASE("send engine: an RNR NAK retries a send rnr_retry_count times, then times out",
          "[unit][send_engine]") {
  Bench b(/*ord=*/2, /*fast=*/false, /*rnr_retry_count=*/2);
  const int64_t s = b.post(Bench::of(WqeOpcode::Send, 7));
  REQUIRE(s >= 0);
  for (uint64_t attempt = 0; attempt < 2; ++attempt) {
    b.now = 100 + attempt * 10000;
    REQUIRE(b.respond(s, PacketKind::RnrNak, b.now + 50));
    REQUIRE(b.engine.retry_waiting());
    CHECK(b.engine.next_retry_ps() == b.now + 50 + 5000);  // the RNR timer after the NAK
    Packet* again = b.engine.take_retry();
    REQUIRE(again != nullptr);
    CHECK(again->sequence == uint64_t(s));
    CHECK_FALSE(b.engine.retry_waiting());
  }
  CHECK(b.out.completed().empty());
  b.respond(s, PacketKind::RnrNak);  // retries used up (R5.send.no_receive)
  REQUIRE(b.out.completed() == std::vector<uint64_t>{7});
  CHECK(b.out.completion_of(7).status == CqeStatus::RnrRetryExceeded);
  CHECK(b.out.completion_of(7).rule == RuleId::R5_send_no_receive);
  CHECK_FALSE(b.engine.retry_waiting());
}

TEST_CASE("send engine: a retry whose send was flushed meanwhile is dropped",
          "[unit][send_engine]") {
  Bench b;
  const int64_t s = b.post(Bench::of(WqeOpcode::Send, 7));
  b.respond(s, PacketKind::RnrNak);
  b.engine.flush(kQpn, b.now, b.now, b.out);
  CHECK(b.out.completion_of(7).rule == RuleId::R5_flush);
  REQUIRE(b.engine.retry_waiting());
  CHECK(b.engine.take_retry() == nullptr);
}

TEST_CASE("send engine: close flushes everything ahead of the marker, which comes last",
          "[unit][send_engine]") {
  Bench b(/*ord=*/4);
  const int64_t r0 = b.post(Bench::read(0));
  const int64_t r1 = b.post(Bench::read(1));
  b.respond(r1);  // ended well, waits behind #0
  b.engine.close(kQpn, b.now, b.now, b.out);
  REQUIRE(b.out.commands.size() == 3);
  CHECK(b.out.completed() == std::vector<uint64_t>{0, 1});
  for (int i = 0; i < 2; ++i) {
    CHECK(b.out.commands[i].status == CqeStatus::Flush);
    CHECK(b.out.commands[i].rule == RuleId::R5_flush);
  }
  CHECK(b.out.commands[2].what == "closed");
  CHECK(b.out.commands[2].qpn == kQpn);
  CHECK(b.engine.reads_outstanding() == 0);
  CHECK(b.engine.wqes_in_flight() == 0);
  CHECK_FALSE(b.respond(r0));
  // A QP made again starts clean.
  b.engine.context_changed(kQpn);
  CHECK(b.post(Bench::read(5)) >= 0);
  CHECK(b.out.count("complete") == 2);
}

TEST_CASE("send engine: WQEs that cannot run complete at once with their rule",
          "[unit][send_engine]") {
  Bench b;
  b.context.connected = 0;
  CHECK(b.post(Bench::read(1)) >= 0);  // no usable context: not held by ORD either
  CHECK(b.post(Bench::read(2)) >= 0);
  CHECK(b.post(Bench::read(3)) >= 0);
  CHECK(b.out.completion_of(1).status == CqeStatus::LocalQpOperation);
  CHECK(b.out.completion_of(1).rule == RuleId::None);
  CHECK(b.out.completion_of(2).status == CqeStatus::Flush);  // behind the error
  Bench c;
  CHECK(c.post(Bench::read(1, kWqeFlagSolicit)) >= 0);  // only sends may solicit
  CHECK(c.out.completion_of(1).status == CqeStatus::LocalQpOperation);
  CHECK(c.out.completion_of(1).rule == RuleId::R2_solicit);
}

TEST_CASE("send engine: the local SGE checks skip empty SGEs and keep the driver's limits",
          "[unit][send_engine]") {
  Bench b;
  Wqe w = Bench::read(1);
  w.nsge = 3;
  w.sge[0] = {0x1000, 0, 0xBAD};  // length 0: skipped, its key never checked
  w.sge[1] = {0x2000, 8, kToken};
  w.sge[2] = {0x3000, 24, kToken + 1};
  const SendEngine::Admission a = b.engine.admit(kQpn, b.context, w, 0, 0, 0, 0, b.out);
  REQUIRE(a.step == SendEngine::Step::Read);
  std::vector<uint32_t> asked;
  uint64_t generation = 41;
  const auto check = [&](const Sge& sge, CheckedSge* checked, uint64_t* gen) {
    asked.push_back(sge.token);
    checked->mtt_index = uint32_t(sge.addr >> 12);
    *gen = generation++;
    return Decision::ok();
  };
  uint64_t total = 0;
  CHECK_FALSE(b.engine
                  .check_sgl(*a.request, w, b.context.pd, b.engine.sink_access(),
                             CheckList::ReadSink, &total, check)
                  .failed());
  CHECK(asked == std::vector<uint32_t>{kToken, kToken + 1});
  CHECK(total == 32);
  REQUIRE(a.request->sges == 2);
  CHECK(a.request->sge[1].va == 0x3000);
  CHECK(a.request->sge[1].mtt_index == 3);
  CHECK(a.request->first_sink_token == kToken);
  CHECK(a.request->mpt_generation == 41);  // the first check's: a later change is then seen
  CHECK(a.request->sge_access == (kAccessLocalWrite | kAccessReadSink));
  // The first refusal decides, as LocalProtection with the checker's rule.
  asked.clear();
  const auto refuse_second = [&](const Sge& sge, CheckedSge*, uint64_t*) {
    asked.push_back(sge.token);
    return sge.token == kToken ? Decision::ok()
                               : Decision::fail(CqeStatus::MwBind, RuleId::R5_read_sink_pd);
  };
  CHECK(b.engine
            .check_sgl(*a.request, w, b.context.pd, 0, CheckList::ReadSink, &total,
                       refuse_second) ==
        Decision::fail(CqeStatus::LocalProtection, RuleId::R5_read_sink_pd));
  // More SGEs than qp.max_sge, or more bytes than qp.max_transfer_bytes: refused unchecked.
  w.nsge = 5;
  asked.clear();
  CHECK(b.engine.check_sgl(*a.request, w, 0, 0, CheckList::ReadSink, &total, refuse_second) ==
        Decision::fail(CqeStatus::LocalQpOperation, RuleId::R4_inline_sge_count));
  CHECK(asked.empty());
}

TEST_CASE("send engine: what a response means for its request", "[unit][send_engine]") {
  Bench b(/*ord=*/4);
  const int64_t r = b.post(Bench::read(0));
  const int64_t w = b.post(Bench::of(WqeOpcode::Write, 1));
  SendEngine::Qp* qp = nullptr;
  Decision d;
  Packet p;
  p.dst_qpn = kQpn;
  // An ACK to a read, read data to a write, data of the wrong length: protocol errors.
  p.kind = PacketKind::Ack;
  p.sequence = uint64_t(r);
  SendRequest* read = b.engine.awaiting(&p, &qp);
  REQUIRE(read != nullptr);
  CHECK(b.engine.reply(*qp, *read, p, 0, 0, &d) == SendEngine::Reply::Decided);
  CHECK(d == Decision::fail(CqeStatus::RemoteOperation, RuleId::None));
  CHECK_FALSE(read->awaiting_response);
  CHECK(b.engine.reads_outstanding() == 0);
  p.kind = PacketKind::ReadResponse;
  p.sequence = uint64_t(w);
  SendRequest* write = b.engine.awaiting(&p, &qp);
  REQUIRE(write != nullptr);
  CHECK(b.engine.reply(*qp, *write, p, 0, 0, &d) == SendEngine::Reply::Decided);
  CHECK(d.status == CqeStatus::RemoteOperation);
  CHECK(b.engine.awaiting(nullptr, &qp) == nullptr);  // no packet at all: a stray
  CHECK(b.stats.stray_responses.value == 1);
  // RDMA_READ_LOCAL_INVALIDATE on a read that succeeded, with the capability.
  SendRequest rli;
  rli.opcode = WqeOpcode::Read;
  rli.flags = kWqeFlagReadLocalInvalidate;
  rli.sges = 1;
  CHECK(b.engine.invalidates_first_sink(rli, Decision::ok()));
  CHECK_FALSE(b.engine.invalidates_first_sink(rli, d));
  rli.sges = 0;
  CHECK_FALSE(b.engine.invalidates_first_sink(rli, Decision::ok()));
}
