// SPDX-License-Identifier: Apache-2.0
// The driver's data path: posting WQEs to send-queue rings, doorbells, and reading CQ rings.
#include <algorithm>

#include "host_api/adapter.h"
#include "host_api/adapter_impl.h"
#include "model/rnic/bar.h"

namespace rnic::host {

using namespace ndk;

namespace {

NTSTATUS status_of(CqeStatus s) {
  // SPEC.md section 3: InfiniBand completion errors -> NTSTATUS.
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

void Adapter::Impl::ring_sq(QpHandle qpn, QpInfo& qp) {
  if (qp.sq_doorbell == qp.sq_producer) return;
  qp.sq_doorbell = qp.sq_producer;
  cpu.mmio_write64(bar::kSqDoorbell + uint64_t(qpn) * bar::kRegisterStride, qp.sq_producer);
}

// Inline checks common to every send-queue verb. On failure, earlier deferred requests are
// submitted first (SPEC.md 4, DEFER) and the call returns its status with no completion.
#define RNIC_FAIL_INLINE(status, message) \
  do {                                    \
    last_error_ = (message);              \
    s.ring_sq(qpn, qp);                   \
    return (status);                      \
  } while (0)

namespace {
NTSTATUS post(Adapter::Impl& s, QpHandle qpn, QpInfo& qp, const Wqe& wqe) {
  uint8_t raw[kWqeBytes];
  wqe.encode(raw);
  const uint64_t slot = qp.qpc.sq_base + uint64_t(qp.sq_producer % qp.qpc.sq_depth) * kWqeBytes;
  s.cpu.mem_write(slot, raw, kWqeBytes);
  ++qp.sq_producer;
  if (!(wqe.flags & NDK_OP_FLAG_DEFER)) s.ring_sq(qpn, qp);
  return STATUS_SUCCESS;
}
}  // namespace

NTSTATUS Adapter::NdkBind(QpHandle qpn, uint64_t request_context, MrHandle mr, MwHandle mw,
                          uint64_t virtual_address, uint64_t length, uint32_t flags) {
  Impl& s = *impl_;
  auto qit = s.qps.find(qpn);
  if (qit == s.qps.end()) {
    last_error_ = "unknown QP";
    return STATUS_INVALID_PARAMETER;
  }
  QpInfo& qp = qit->second;
  if (!qp.qpc.connected) RNIC_FAIL_INLINE(STATUS_CONNECTION_INVALID, "QP not connected");
  auto mrit = s.mrs.find(mr);
  auto mwit = s.mws.find(mw);
  if (mrit == s.mrs.end() || mwit == s.mws.end())
    RNIC_FAIL_INLINE(STATUS_INVALID_PARAMETER, "unknown MR or MW");
  if (qp.sq_producer - qp.sq_consumer >= qp.qpc.sq_depth)
    RNIC_FAIL_INLINE(STATUS_INSUFFICIENT_RESOURCES, "send queue full");
  // Remote write through a window needs local write on the MR: rejected inline (SPEC.md 5).
  if ((flags & 0x020) && !(mrit->second.mr_flags & NDK_MR_FLAG_ALLOW_LOCAL_WRITE))
    RNIC_FAIL_INLINE(STATUS_ACCESS_VIOLATION, "remote write on an MR without local write");
  MwInfo& window = mwit->second;
  window.tag = uint8_t(window.tag + 1);  // the consumer picks the window's next tag
  Wqe wqe;
  wqe.opcode = WqeOpcode::Bind;
  wqe.flags = uint16_t(flags);
  wqe.access = flags;
  wqe.wr_id = request_context;
  wqe.remote_addr = virtual_address;
  wqe.remote_token = make_token(mw, window.tag);
  wqe.aux_token = make_token(mr, s.read_mpt(mr).tag);
  wqe.length = length;
  return post(s, qpn, qp, wqe);
}

NTSTATUS Adapter::NdkRead(QpHandle qpn, uint64_t request_context, const NDK_SGE* sgl,
                          uint32_t nsge, uint64_t remote_address, uint32_t remote_token,
                          uint32_t flags) {
  Impl& s = *impl_;
  auto qit = s.qps.find(qpn);
  if (qit == s.qps.end()) {
    last_error_ = "unknown QP";
    return STATUS_INVALID_PARAMETER;
  }
  QpInfo& qp = qit->second;
  if (!qp.qpc.connected) RNIC_FAIL_INLINE(STATUS_CONNECTION_INVALID, "QP not connected");
  const uint32_t max_sge = std::min<uint32_t>(s.config.qp.max_sge, kMaxSge);
  if (nsge > max_sge || (nsge && !sgl))
    RNIC_FAIL_INLINE(STATUS_INVALID_PARAMETER,
                     "SGE count above the adapter limit of " + std::to_string(max_sge));
  uint64_t total = 0;
  for (uint32_t i = 0; i < nsge; ++i) total += sgl[i].BufferLength;
  if (total > s.config.qp.max_transfer_bytes)
    RNIC_FAIL_INLINE(STATUS_INVALID_PARAMETER, "transfer longer than the adapter limit");
  if (qp.sq_producer - qp.sq_consumer >= qp.qpc.sq_depth)
    RNIC_FAIL_INLINE(STATUS_INSUFFICIENT_RESOURCES, "send queue full");
  Wqe wqe;
  wqe.opcode = WqeOpcode::Read;
  wqe.flags = uint16_t(flags);
  wqe.wr_id = request_context;
  wqe.remote_addr = remote_address;
  wqe.remote_token = remote_token;
  wqe.nsge = uint8_t(nsge);
  for (uint32_t i = 0; i < nsge; ++i) {
    wqe.sge[i] = Sge{sgl[i].Buffer, sgl[i].BufferLength, sgl[i].MemoryRegionToken};
  }
  return post(s, qpn, qp, wqe);
}

size_t Adapter::GetCqResults(CqHandle cq, NDK_RESULT_EX* results, size_t max) {
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
    NDK_RESULT_EX& r = results[n++];
    r.Status = status_of(cqe.status);
    r.BytesTransferred = cqe.byte_count;
    r.RequestContext = cqe.wr_id;
    r.Type = type_of(cqe.opcode);
    r.TypeSpecific = cqe.invalidated_token;
    auto qit = s.qps.find(cqe.qpn);
    r.QPContext = qit != s.qps.end() ? qit->second.qp_context : 0;
    if (qit != s.qps.end() && is_send_queue(cqe.opcode)) {
      // In-order completion: everything up to this WQE has left the ring.
      QpInfo& qp = qit->second;
      const uint32_t done = cqe.wqe_index + 1;
      if (int32_t(done - qp.sq_consumer) > 0) qp.sq_consumer = done;
    }
    ++info.consumer;
  }
  if (n) s.cpu.mmio_write64(bar::kCqDoorbell + uint64_t(cq) * bar::kRegisterStride, info.consumer);
  return n;
}

std::vector<NDK_RESULT_EX> Adapter::WaitCq(CqHandle cq, size_t count,
                                           const sc_core::sc_time& timeout) {
  // count == 0: wait the whole timeout and return whatever arrived (expected: nothing).
  const bool drain = count == 0;
  std::vector<NDK_RESULT_EX> results;
  const sc_core::sc_time deadline = sc_core::sc_time_stamp() + timeout;
  NDK_RESULT_EX batch[16];
  for (;;) {
    while (drain || results.size() < count) {
      const size_t want = drain ? 16 : std::min<size_t>(16, count - results.size());
      const size_t got = GetCqResults(cq, batch, want);
      if (!got) break;
      results.insert(results.end(), batch, batch + got);
    }
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if ((!drain && results.size() >= count) || now >= deadline || !impl_->cqs.count(cq)) break;
    impl_->cpu.wait_for_device_write(deadline - now);
  }
  return results;
}

}  // namespace rnic::host
