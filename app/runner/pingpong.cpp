// SPDX-License-Identifier: Apache-2.0
// The pingpong workload: perftest ib_write_lat / ib_send_lat between two connected QPs. Each
// side sends only once the peer's message has arrived: for a write, the CPU spins on the last
// byte of its receive buffer until the iteration's tag lands there; for a send, on the CQ
// until the receive completes. Either way the CPU sees the write host.poll_ns after it lands.
// Latency is half of each round trip, as perftest reports it.
#include <algorithm>
#include <string>

#include "app/runner/context.h"
#include "app/runner/window_stats.h"
#include "tlm/histogram.h"

namespace rnic::app {

namespace {

constexpr uint64_t kChunkBytes = 1 << 20;  // buffers are written and compared in pieces

// One side of the ping-pong: its QP, CQ and node, the buffer it sends from and the one the
// peer's messages land in.
struct Side {
  host::Adapter* adapter = nullptr;
  host::QpHandle qp = 0;
  host::CqHandle cq = 0;
  uint32_t node = 0;
  host::Buffer out, in;
  uint32_t out_token = 0, in_local_token = 0, in_remote_token = 0;
};

class PingPong {
 public:
  PingPong(RunContext& ctx, const Step& step, StepResult& result)
      : ctx_(ctx), step_(step), result_(result), watch_(ctx, step.size) {}
  void run();

 private:
  bool build(Side& side, const std::string& qp_name);
  bool post_receive(Side& side);
  // Sends the iteration's message from `from` to `to`.
  bool send(Side& from, const Side& to);
  // Waits until `side` has the peer's message of tag `tag`, then the CPU's poll.
  bool wait_for(Side& side, uint8_t tag);
  // Takes the completions waiting on `side`'s CQ; `receive` set when one was a receive.
  bool drain(Side& side, bool* receive);
  bool fail(const std::string& message) {
    fail_step(result_, "STATUS_SUCCESS", "a failure", message);
    return false;
  }

  RunContext& ctx_;
  const Step& step_;
  StepResult& result_;
  Side a_, b_;
  uint64_t posted_ = 0;  // request contexts
  uint8_t tag_ = 0;      // the last byte of the iteration's message
  StallWatch watch_;     // a wait without news fails only when the devices are idle too
};

// Buffers and MRs the adapter refuses (memory, MPT entries) are the scenario's doing: exit 2.
bool PingPong::build(Side& side, const std::string& qp_name) {
  host::Adapter& adapter = ctx_.adapter_of(qp_name);
  side.adapter = &adapter;
  side.qp = ctx_.handle(qp_name);
  side.cq = adapter.QpCq(side.qp);
  side.node = ctx_.object(qp_name).node;
  const host::PdHandle pd = adapter.QpPd(side.qp);
  const bool write = step_.verb == Verb::Write;
  host::MrHandle out_mr = 0, in_mr = 0;
  const uint32_t in_flags = write ? ndk::NDK_MR_FLAG_ALLOW_REMOTE_WRITE
                                  : ndk::NDK_MR_FLAG_ALLOW_LOCAL_WRITE;
  if (adapter.AllocBuffer(step_.size, 4096, false, host::BufferFill::Zero, 0, &side.out) !=
          ndk::STATUS_SUCCESS ||
      adapter.AllocBuffer(step_.size, 4096, false, host::BufferFill::Zero, 0, &side.in) !=
          ndk::STATUS_SUCCESS ||
      adapter.CreateMr(pd, false, &out_mr) != ndk::STATUS_SUCCESS ||
      adapter.RegisterMr(out_mr, side.out, 0, step_.size, ndk::NDK_MR_FLAG_ALLOW_LOCAL_WRITE) !=
          ndk::STATUS_SUCCESS ||
      adapter.CreateMr(pd, false, &in_mr) != ndk::STATUS_SUCCESS ||
      adapter.RegisterMr(in_mr, side.in, 0, step_.size, in_flags) != ndk::STATUS_SUCCESS) {
    throw StepInvalid(JsonPath().key("steps").index(step_.index).key("size"),
                      "cannot build the buffers of " + qp_name + ": " + adapter.last_error());
  }
  side.out_token = adapter.GetLocalTokenFromMr(out_mr);
  side.in_local_token = adapter.GetLocalTokenFromMr(in_mr);
  side.in_remote_token = adapter.GetRemoteTokenFromMr(in_mr);
  // Every byte but the last is the same in every message; the last carries the tag. Written
  // a chunk at a time: a message may be half a gigabyte.
  std::vector<uint8_t> pattern;
  for (uint64_t at = 0; at < step_.size; at += kChunkBytes) {
    pattern.resize(std::min(kChunkBytes, step_.size - at));
    for (uint64_t i = 0; i < pattern.size(); ++i) pattern[i] = uint8_t((at + i) * 7 + 1);
    adapter.WriteBuffer(side.out, at, pattern.data(), pattern.size());
  }
  return true;
}

bool PingPong::post_receive(Side& side) {
  ndk::NDK_SGE sge{side.in.va, uint32_t(step_.size), side.in_local_token};
  const uint32_t status = side.adapter->NdkReceive(side.qp, posted_++, &sge, 1);
  if (status != ndk::STATUS_SUCCESS)
    return fail("posting a receive returned " + ndk::status_name(status) + ": " +
                side.adapter->last_error());
  return true;
}

bool PingPong::send(Side& from, const Side& to) {
  from.adapter->WriteBuffer(from.out, step_.size - 1, &tag_, 1);  // the CPU's store
  ndk::NDK_SGE sge{from.out.va, uint32_t(step_.size), from.out_token};
  for (;;) {
    const uint32_t status =
        step_.verb == Verb::Write
            ? from.adapter->NdkWrite(from.qp, posted_, &sge, 1, to.in.va, to.in_remote_token,
                                     step_.flags)
            : from.adapter->NdkSend(from.qp, posted_, &sge, 1, step_.flags);
    if (status == ndk::STATUS_SUCCESS) break;
    if (status != ndk::STATUS_INSUFFICIENT_RESOURCES)
      return fail("posting returned " + ndk::status_name(status) + ": " +
                  from.adapter->last_error());
    // The send queue is full of requests not known complete: wait for a completion.
    const std::vector<ndk::NDK_RESULT_EX> got = from.adapter->WaitCq(from.cq, 1, watch_.limit());
    if (got.empty()) {
      if (watch_.moved()) continue;  // a long message still on its way
      return fail("no completion and no device activity for " + watch_.limit_text() +
                  " on a full queue");
    }
    if (got[0].Status != ndk::STATUS_SUCCESS)
      return fail("a request completed with " + ndk::status_name(got[0].Status));
  }
  ++posted_;
  return true;
}

bool PingPong::drain(Side& side, bool* receive) {
  ndk::NDK_RESULT_EX results[16];
  size_t got;
  while ((got = side.adapter->GetCqResults(side.cq, results, 16)) > 0) {
    for (size_t i = 0; i < got; ++i) {
      if (results[i].Status != ndk::STATUS_SUCCESS)
        return fail("a request completed with " + ndk::status_name(results[i].Status));
      if (results[i].Type == ndk::NdkOperationTypeReceive) *receive = true;
    }
  }
  return true;
}

bool PingPong::wait_for(Side& side, uint8_t tag) {
  if (step_.verb == Verb::Send) {
    // The CPU spins on the CQ until the receive's completion is there.
    bool receive = false;
    if (!drain(side, &receive)) return false;
    while (!receive) {
      const std::vector<ndk::NDK_RESULT_EX> got = side.adapter->WaitCq(side.cq, 1, watch_.limit());
      if (got.empty()) {
        if (watch_.moved()) continue;  // a long message still on its way
        return fail("no receive completion and no device activity for " +
                    watch_.limit_text());
      }
      if (got[0].Status != ndk::STATUS_SUCCESS)
        return fail("a request completed with " + ndk::status_name(got[0].Status));
      receive = got[0].Type == ndk::NdkOperationTypeReceive;
      if (!drain(side, &receive)) return false;
    }
    // WaitCq's wake-up already took host.poll_ns (HostCpu); an entry found without waiting
    // was there before the CPU looked.
    return post_receive(side);  // for the next message, before this side answers
  }
  // The CPU spins on the last byte of its receive buffer until the tag lands.
  HostMemory& memory = ctx_.system.node(side.node).memory;
  memory.watch(side.in.phys(step_.size - 1));
  uint8_t seen = 0;
  sc_core::sc_time deadline = sc_core::sc_time_stamp() + watch_.limit();
  while (side.adapter->ReadBuffer(side.in, step_.size - 1, &seen, 1) && seen != tag) {
    if (sc_core::sc_time_stamp() >= deadline) {
      if (!watch_.moved()) {
        memory.unwatch();
        return fail("the peer's data did not land, and the devices did nothing, for " +
                    watch_.limit_text());
      }
      deadline = sc_core::sc_time_stamp() + watch_.limit();  // a long message on its way
    }
    sc_core::wait(deadline - sc_core::sc_time_stamp(), memory.written_event());
  }
  memory.unwatch();
  sc_core::wait(sc_core::sc_time(double(ctx_.scenario.config.host_memory.poll_ns), sc_core::SC_NS));
  bool receive = false;  // the side's own write completions: free their queue slots
  return drain(side, &receive);
}

void PingPong::run() {
  uint32_t node = 0, qpn = 0;
  if (!build(a_, step_.qp) || !build(b_, step_.peer)) return;
  if (!a_.adapter->QpPeer(a_.qp, &node, &qpn) || node != b_.node || qpn != b_.qp) {
    throw StepInvalid(JsonPath().key("steps").index(step_.index).key("peer"),
                      step_.peer + " is not the QP " + step_.qp + " is connected to");
  }
  if (step_.verb == Verb::Send && (!post_receive(a_) || !post_receive(b_))) return;

  const CounterWindow::Snapshot before = ctx_.counter_window().take();
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  const uint64_t deltas_before = workload_deltas();
  std::optional<CounterWindow::Snapshot> mid;
  LatencyHistogram half_round_trip;
  for (uint64_t i = 0; i < step_.count; ++i) {
    tag_ = uint8_t(i % 255 + 1);  // never the previous iteration's, never the zero fill
    const sc_core::sc_time sent = sc_core::sc_time_stamp();
    if (!send(a_, b_) || !wait_for(b_, tag_) || !send(b_, a_) || !wait_for(a_, tag_)) return;
    half_round_trip.add((sc_core::sc_time_stamp() - sent).value() / 2);
    if (!mid && i + 1 >= step_.count / 2) mid = ctx_.counter_window().take();
  }
  // Both landed buffers must hold what was sent (compared a chunk at a time).
  std::vector<uint8_t> got, want;
  for (const auto& [to, from] : {std::pair<Side*, Side*>{&a_, &b_}, {&b_, &a_}}) {
    for (uint64_t at = 0; at < step_.size; at += kChunkBytes) {
      const uint64_t n = std::min(kChunkBytes, step_.size - at);
      got.resize(n);
      want.resize(n);
      to->adapter->ReadBuffer(to->in, at, got.data(), n);
      from->adapter->ReadBuffer(from->out, at, want.data(), n);
      if (got != want) {
        fail_step(result_, "the sent bytes", "other bytes",
                  "pingpong: the bytes that landed differ from those sent");
        return;
      }
    }
  }
  const double sim_ns = double((sc_core::sc_time_stamp() - start).value()) / 1000.0;
  report_workload(ctx_, step_, result_, step_.count, 2 * step_.count * step_.size, sim_ns,
                  half_round_trip, before, mid ? &*mid : nullptr, deltas_before);
}

}  // namespace

void exec_pingpong(RunContext& ctx, const Step& step, StepResult& result) {
  PingPong(ctx, step, result).run();
}

}  // namespace rnic::app
