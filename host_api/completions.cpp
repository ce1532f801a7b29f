// SPDX-License-Identifier: Apache-2.0
// The driver's completion path: reading CQ rings (GetCqResults, WaitCq), arming them
// (NotifyCq), and looking at completions not yet consumed (a QP's queued error, a request's
// completion). Posting is in verbs.cpp.
#include <algorithm>

#include "host_api/adapter.h"
#include "host_api/adapter_impl.h"
#include "model/rnic/abi/bar.h"

namespace rnic::host {

using namespace ndk;

namespace {

NTSTATUS status_of(CqeStatus s) {
  // R3.map.*: InfiniBand completion errors -> NTSTATUS.
  switch (s) {
    case CqeStatus::Success: return STATUS_SUCCESS;
    case CqeStatus::LocalProtection:
    case CqeStatus::MwBind:
    case CqeStatus::RemoteAccess: return STATUS_ACCESS_VIOLATION;
    case CqeStatus::Flush: return STATUS_CANCELLED;
    case CqeStatus::LocalLength: return STATUS_DATA_OVERRUN;
    case CqeStatus::RemoteOperation:
    case CqeStatus::RemoteInvalidRequest: return STATUS_DATA_ERROR;
    case CqeStatus::RetryExceeded:
    case CqeStatus::RnrRetryExceeded: return STATUS_IO_TIMEOUT;
    case CqeStatus::LocalQpOperation: return STATUS_INTERNAL_ERROR;
  }
  return STATUS_INTERNAL_ERROR;
}

uint32_t type_of(CqeOpcode op) {
  switch (op) {
    case CqeOpcode::Send: return NdkOperationTypeSend;
    case CqeOpcode::Write: return NdkOperationTypeWrite;
    case CqeOpcode::Read: return NdkOperationTypeRead;
    case CqeOpcode::Bind: return NdkOperationTypeBind;
    case CqeOpcode::FastRegister: return NdkOperationTypeFastRegister;
    case CqeOpcode::Invalidate: return NdkOperationTypeInvalidate;
    case CqeOpcode::Receive: return NdkOperationTypeReceive;
    case CqeOpcode::ReceiveInvalidate: return NdkOperationTypeReceiveAndInvalidate;
  }
  return 0;
}

bool is_send_queue(CqeOpcode op) {
  return op != CqeOpcode::Receive && op != CqeOpcode::ReceiveInvalidate;
}

}  // namespace

bool Adapter::QpErrorKnown(QpHandle qpn) {
  auto it = impl_->qps.find(qpn);
  if (it == impl_->qps.end()) return false;
  NDK_RESULT_EX ignored;
  return it->second.error_seen || QueuedError(qpn, &ignored);
}

bool Adapter::QueuedError(QpHandle qpn, NDK_RESULT_EX* out) {
  auto q = impl_->qps.find(qpn);
  if (q == impl_->qps.end()) return false;
  Cqe cqe;
  if (!find_queued(q->second.cq, [qpn](const Cqe& c) {
        return c.qpn == qpn && c.status != CqeStatus::Success;
      }, &cqe))
    return false;
  out->Status = status_of(cqe.status);
  out->BytesTransferred = cqe.byte_count;
  out->RequestContext = cqe.wr_id;
  out->Type = type_of(cqe.opcode);
  out->TypeSpecific = cqe.invalidated_token;
  out->QPContext = q->second.qp_context;
  return true;
}

// True when the CQ ring holds a not-yet-consumed send-queue completion of `wqe_index` of QP
// `qpn` (looked at, not consumed: the consumer still polls it).
bool Adapter::completion_queued(CqHandle cq, QpHandle qpn, uint32_t wqe_index) {
  Cqe ignored;
  return find_queued(cq, [&](const Cqe& c) {
    return c.qpn == qpn && is_send_queue(c.opcode) && c.wqe_index == wqe_index;
  }, &ignored);
}

bool Adapter::find_queued(CqHandle cq, const std::function<bool(const Cqe&)>& match, Cqe* out) {
  Impl& s = *impl_;
  auto it = s.cqs.find(cq);
  if (it == s.cqs.end()) return false;
  const CqInfo& info = it->second;
  for (uint32_t i = 0; i < info.depth; ++i) {
    const uint32_t at = info.consumer + i;
    uint8_t raw[kCqeBytes];
    s.cpu.mem_read(info.ring + uint64_t(at % info.depth) * kCqeBytes, raw, kCqeBytes);
    *out = Cqe::decode(raw);
    if (out->owner != uint8_t(1 + ((at / info.depth) & 1))) return false;  // not written yet
    if (match(*out)) return true;
  }
  return false;
}

size_t Adapter::GetCqResults(CqHandle cq, NDK_RESULT_EX* results, size_t max,
                             bool* took_effect, RuleId* rules) {
  Impl& s = *impl_;
  auto it = s.cqs.find(cq);
  if (it == s.cqs.end() || !results) return 0;
  CqInfo& info = it->second;
  size_t n = 0;
  while (n < max) {
    uint8_t raw[kCqeBytes];
    s.cpu.mem_read(info.ring + uint64_t(info.consumer % info.depth) * kCqeBytes, raw, kCqeBytes);
    const Cqe cqe = Cqe::decode(raw);
    if (cqe.owner != uint8_t(1 + ((info.consumer / info.depth) & 1))) break;  // not written yet
    if (took_effect) took_effect[n] = cqe.took_effect != 0;
    if (rules) rules[n] = RuleId(cqe.rule);
    if (s.trace) {
      s.trace->host_poll(s.node, cqe.qpn,
                         is_send_queue(cqe.opcode) ? HostTraceSink::Queue::Send
                                                   : HostTraceSink::Queue::Receive,
                         cqe.wqe_index, sc_core::sc_time_stamp());
    }
    NDK_RESULT_EX& r = results[n++];
    r.Status = status_of(cqe.status);
    r.BytesTransferred = cqe.byte_count;
    r.RequestContext = cqe.wr_id;
    r.Type = type_of(cqe.opcode);
    r.TypeSpecific = cqe.invalidated_token;
    auto orphan = info.orphans.find(info.consumer);
    auto qit = orphan == info.orphans.end() ? s.qps.find(cqe.qpn) : s.qps.end();
    r.QPContext = qit != s.qps.end() ? qit->second.qp_context : 0;
    if (orphan != info.orphans.end()) {
      r.QPContext = orphan->second;  // of a QP closed since
      info.orphans.erase(orphan);
    } else if (qit != s.qps.end()) {
      // In-order completion: everything up to this WQE has left its ring.
      QpInfo& qp = qit->second;
      if (cqe.status != CqeStatus::Success) qp.error_seen = true;
      uint32_t& consumer = is_send_queue(cqe.opcode) ? qp.sq_consumer : qp.rq_consumer;
      const uint32_t done = cqe.wqe_index + 1;
      if (int32_t(done - consumer) > 0) consumer = done;
    }
    ++info.consumer;
  }
  if (n) {
    info.armed = false;
    // The consumer index goes to the CQ context in host memory (a CPU store, no MMIO): the
    // device reads it only when the ring looks full.
    uint8_t index[4];
    CqcEntry::encode_consumer(info.consumer, index);
    s.cpu.mem_write(s.icm.cqc_addr(cq) + CqcEntry::kConsumerOffset, index, 4);
  }
  return n;
}

NTSTATUS Adapter::NotifyCq(CqHandle cq) {
  auto it = impl_->cqs.find(cq);
  if (it == impl_->cqs.end()) {
    set_error("no CQ " + std::to_string(cq));
    return STATUS_INVALID_PARAMETER;
  }
  CqInfo& info = it->second;
  if (info.armed) return STATUS_SUCCESS;
  info.armed = true;
  impl_->cpu.mmio_write64(bar::kCqDoorbell + uint64_t(cq) * bar::kRegisterStride,
                          bar::kCqArm | info.consumer);
  return STATUS_SUCCESS;
}

std::vector<NDK_RESULT_EX> Adapter::WaitCq(CqHandle cq, size_t count,
                                           const sc_core::sc_time& timeout,
                                           std::vector<bool>* took_effect,
                                           std::vector<RuleId>* rules) {
  // count == 0: wait the whole timeout and return whatever arrived (expected: nothing).
  const bool drain = count == 0;
  std::vector<NDK_RESULT_EX> results;
  const sc_core::sc_time deadline = sc_core::sc_time_stamp() + timeout;
  NDK_RESULT_EX batch[16];
  bool effect[16] = {};
  RuleId decided[16] = {};
  if (took_effect) took_effect->clear();
  if (rules) rules->clear();
  for (;;) {
    while (drain || results.size() < count) {
      const size_t want = drain ? 16 : std::min<size_t>(16, count - results.size());
      const size_t got = GetCqResults(cq, batch, want, effect, decided);
      if (!got) break;
      results.insert(results.end(), batch, batch + got);
      if (took_effect) took_effect->insert(took_effect->end(), effect, effect + got);
      if (rules) rules->insert(rules->end(), decided, decided + got);
    }
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if ((!drain && results.size() >= count) || now >= deadline || !impl_->cqs.count(cq)) break;
    NotifyCq(cq);
    impl_->cpu.wait_for_interrupt(deadline - now);
  }
  return results;
}

}  // namespace rnic::host
