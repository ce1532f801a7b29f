// SPDX-License-Identifier: Apache-2.0
// The reference model's race rules: when a step's outcome could depend on timing, which the
// untimed model cannot predict (ReferenceModel::race, reference_model.h).
#include "app/reference/model.h"
#include "host_api/ndk.h"

namespace rnic::app {

using namespace refm;
using namespace ndk;

bool ReferenceModel::settled() const {
  if (state_.batch.quiet) return false;
  for (const auto& [name, cq] : state_.cqs) {
    if (!cq.pending.empty()) return false;
  }
  for (const auto& [name, qp] : state_.qps) {
    if (!qp.held.empty()) return false;
  }
  return true;
}

namespace {

constexpr uint64_t kDefaultPollTimeoutNs = 1000 * 1000;  // docs/scenario-format.md, poll

// Every object name a step mentions, directly or through a $reference.
std::vector<std::string> names_in(const Step& s) {
  std::vector<std::string> out = {s.mr, s.mw, s.target, s.remote.target, s.buffer};
  for (const SgeSpec& sge : s.sgl) out.push_back(sge.mr);
  visit_values(s, [&out](const Value& v) {
    if (v.is_ref) out.push_back(v.name);
  });
  return out;
}

bool is_post(Op op) {
  return op == Op::Read || op == Op::Write || op == Op::Send || op == Op::Bind ||
         op == Op::FastRegister || op == Op::Invalidate;
}

}  // namespace

std::string ReferenceModel::race(const Step& s) const {
  // An asynchronous registration completes in the background: nothing may use the MR (or
  // register it again) before wait_async says it is done.
  if (s.op != Op::WaitAsync) {
    for (const std::string& name : names_in(s)) {
      auto it = state_.mpts.find(name);
      if (it != state_.mpts.end() && it->second.async_pending)
        return "MR \"" + name + "\" is still being registered asynchronously (wait_async first)";
    }
  }
  // R4.cancelled.undefined: after a CANCELLED Bind, FastRegister or Invalidate the object's state
  // and token are undefined; a scenario must not depend on them.
  for (const std::string& name : names_in(s)) {
    auto it = state_.mpts.find(name);
    if (it != state_.mpts.end() && it->second.undefined)
      return "the state of \"" + name +
             "\" is undefined: a Bind, FastRegister or Invalidate of it completed CANCELLED";
  }
  if (s.op == Op::Poll) {
    // The model is untimed: it cannot tell whether completions arrive within a timeout
    // shorter than the default (an RNR retry series takes tens of microseconds).
    if (!state_.cqs.at(s.cq).pending.empty() && s.timeout_ns < kDefaultPollTimeoutNs)
      return "a poll with a timeout below the default 1 ms may end before its completions "
             "arrive";
    return {};
  }
  if (s.op == Op::Wait) return {};
  if (settled()) return {};
  const Batch& batch = state_.batch;
  if (is_post(s.op) && s.qp == batch.qp && !batch.closed) {
    // A bind or fast-register runs on the device at once, while earlier requests may still
    // wait for their response: behind one that fails it may take effect and still complete
    // CANCELLED (only Invalidate is fenced, R5.inv.fence).
    if ((s.op == Op::Bind || s.op == Op::FastRegister) && batch.failed)
      return std::string("a ") + op_name(s.op) +
             " behind a failed request of its batch may take effect before the failure is "
             "known (poll first)";
    const Qp& qp = state_.qps.at(s.qp);
    // A read that invalidates its sink can fail only when its response lands, after later
    // requests have reached the responder: it must be the batch's last request.
    for (const Request& h : qp.held) {
      if (h.op == Op::Read && (h.flags & NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE))
        return "a deferred read with RDMA_READ_LOCAL_INVALIDATE must be the last of its batch";
    }
    // A deferred request this post submits may fail; the flush of the posted receives would then
    // interleave with this post's CANCELLED completion (R4.order and R4.error.flush_receives order
    // neither against the other).
    if (!qp.held.empty() && !qp.receives.empty())
      return "deferred requests it submits may fail while receives are posted on QP \"" + s.qp +
             "\"";
    return race_of_post(s);
  }
  for (const auto& [name, cq] : state_.cqs) {
    if (!cq.pending.empty())
      return "completions on CQ \"" + name + "\" are not polled yet (poll them first)";
  }
  for (const auto& [name, qp] : state_.qps) {
    if (!qp.held.empty())
      return "deferred requests on QP \"" + name + "\" have not been submitted yet";
  }
  if (batch.quiet)
    return "a request on QP \"" + batch.qp +
           "\" that completes silently may still be running (poll count 0 first)";
  return "QP \"" + batch.qp + "\" must settle first";
}

// A post that touches bytes an earlier read of its batch touches (one of them writing) has
// no defined order without READ_FENCE (R2.read_fence: a later request may start before earlier
// reads complete).
std::string ReferenceModel::race_of_post(const Step& s) const {
  Request r;
  if (build_request(s, &r) != STATUS_SUCCESS) return {};
  const bool fenced = (s.flags & NDK_OP_FLAG_READ_FENCE) != 0;
  const std::vector<Footprint> mine = footprint(s.qp, r);
  for (const std::vector<Footprint>& read : state_.batch.reads) {
    for (const Footprint& a : mine) {
      for (const Footprint& b : read) {
        if (a.buffer != b.buffer || !(a.write || b.write) || a.offset >= b.offset + b.length ||
            b.offset >= a.offset + a.length)
          continue;
        // An INLINE payload is copied while the read may still be landing: only a poll helps.
        if (a.at_post)
          return "its INLINE payload is copied now from bytes of buffer \"" + a.buffer +
                 "\" that an earlier read of the batch writes (poll first)";
        if (!fenced)
          return "it touches bytes of buffer \"" + a.buffer +
                 "\" that an earlier read of the batch touches (READ_FENCE or poll first)";
      }
    }
  }
  return {};
}

}  // namespace rnic::app
