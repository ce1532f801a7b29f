// SPDX-License-Identifier: Apache-2.0
// The driver's data path: posting WQEs to send-queue rings and ringing doorbells. Reading the
// CQ rings is in completions.cpp.
#include <algorithm>

#include "host_api/adapter.h"
#include "host_api/adapter_impl.h"
#include "model/rnic/abi/bar.h"

namespace rnic::host {

using namespace ndk;

void Adapter::Impl::ring_sq(QpHandle qpn, QpInfo& qp) {
  if (qp.sq_doorbell == qp.sq_producer) return;
  const bool one_wqe = qp.sq_producer - qp.sq_doorbell == 1;
  qp.sq_doorbell = qp.sq_producer;
  sc_core::sc_time flight;
  if (config.driver.blueflame && one_wqe) {
    // BlueFlame: the doorbell and the WQE just written, in one write-combined MMIO write.
    uint8_t bf[8 + kWqeBytes];
    for (int i = 0; i < 8; ++i) bf[i] = uint8_t(uint64_t(qp.sq_producer) >> (8 * i));  // LE
    cpu.mem_read(qp.qpc.sq_base + uint64_t((qp.sq_producer - 1) % qp.qpc.sq_depth) * kWqeBytes,
                 bf + 8, kWqeBytes);
    flight = cpu.mmio_write(bar::kSqBlueFlame + uint64_t(qpn) * bar::kBlueFlameStride, bf,
                            sizeof bf);
  } else {
    flight =
        cpu.mmio_write64(bar::kSqDoorbell + uint64_t(qpn) * bar::kRegisterStride, qp.sq_producer);
  }
  if (trace) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    trace->host_doorbell(node, qpn, HostTraceSink::Queue::Send, qp.sq_producer, now, now + flight);
  }
}

// Checks every send-queue verb makes inline (R4.inline.*). Returns the QP, or null with
// `status` set; on failure earlier deferred requests are submitted first (DEFER) and the
// call gets no completion.
QpInfo* Adapter::begin_post(QpHandle qpn, NTSTATUS* status) {
  Impl& s = *impl_;
  auto it = s.qps.find(qpn);
  if (it == s.qps.end()) {
    set_error("unknown QP");
    *status = STATUS_INVALID_PARAMETER;
    return nullptr;
  }
  QpInfo& qp = it->second;
  if (!qp.qpc.connected) {
    *status = fail_post(qpn, STATUS_CONNECTION_INVALID, RuleId::R4_inline_not_connected,
                        "QP not connected");
    return nullptr;
  }
  if (qp.sq_producer - qp.sq_consumer >= qp.qpc.sq_depth) {
    *status =
        fail_post(qpn, STATUS_INSUFFICIENT_RESOURCES, RuleId::R4_inline_sq_full, "send queue full");
    return nullptr;
  }
  *status = STATUS_SUCCESS;
  return &qp;
}

NTSTATUS Adapter::fail_post(QpHandle qpn, NTSTATUS status, RuleId rule, const std::string& why) {
  set_error(why, rule);
  auto it = impl_->qps.find(qpn);
  if (it != impl_->qps.end()) impl_->ring_sq(qpn, it->second);
  return status;
}

NTSTATUS Adapter::post(QpHandle qpn, QpInfo& qp, const Wqe& wqe) {
  Impl& s = *impl_;
  uint8_t raw[kWqeBytes];
  wqe.encode(raw);
  const uint64_t slot = qp.qpc.sq_base + uint64_t(qp.sq_producer % qp.qpc.sq_depth) * kWqeBytes;
  s.cpu.mem_write(slot, raw, kWqeBytes);
  if (s.trace) {
    s.trace->host_post(s.node, qpn, HostTraceSink::Queue::Send, qp.sq_producer,
                       sc_core::sc_time_stamp());
  }
  ++qp.sq_producer;
  if (wqe.opcode == WqeOpcode::Send || wqe.opcode == WqeOpcode::SendInvalidate) ++qp.sends_posted;
  if (!(wqe.flags & NDK_OP_FLAG_DEFER)) s.ring_sq(qpn, qp);
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::post_rdma(WqeOpcode opcode, QpHandle qpn, uint64_t request_context,
                            const NDK_SGE* sgl, uint32_t nsge, uint64_t remote_address,
                            uint32_t remote_token, uint32_t flags) {
  NTSTATUS status;
  QpInfo* qp = begin_post(qpn, &status);
  if (!qp) return status;
  const uint32_t max_sge = std::min<uint32_t>(impl_->config.qp.max_sge, kMaxSge);
  if (nsge > max_sge || (nsge && !sgl))
    return fail_post(qpn, STATUS_INVALID_PARAMETER, RuleId::R4_inline_sge_count,
                     "SGE count above the adapter limit of " + std::to_string(max_sge));
  uint64_t total = 0;
  for (uint32_t i = 0; i < nsge; ++i) total += sgl[i].BufferLength;
  if (total > impl_->config.qp.max_transfer_bytes)
    return fail_post(qpn, STATUS_INVALID_PARAMETER, RuleId::R4_inline_total_length,
                     "transfer longer than the adapter limit");
  Wqe wqe;
  wqe.opcode = opcode;
  wqe.flags = uint16_t(flags);
  wqe.wr_id = request_context;
  wqe.remote_addr = remote_address;
  wqe.remote_token = remote_token;
  if (wqe.is_inline()) {
    // INLINE (R2.inline): the CPU copies the payload into the WQE now, so the source may
    // change as soon as the call returns; SGE tokens are ignored. Longer than the adapter's
    // MaxInlineDataSize: a total length above the adapter limit (R2.inline).
    if (total > kMaxInlineBytes)
      return fail_post(qpn, STATUS_INVALID_PARAMETER, RuleId::R2_inline,
                       "inline data longer than MaxInlineDataSize (" +
                           std::to_string(kMaxInlineBytes) + " bytes)");
    uint64_t at = 0;
    for (uint32_t i = 0; i < nsge; ++i) {
      if (sgl[i].BufferLength == 0) continue;
      if (!impl_->read_process(sgl[i].Buffer, wqe.inline_data.data() + at, sgl[i].BufferLength))
        return fail_post(qpn, STATUS_INVALID_PARAMETER, RuleId::R3_invalid_parameter,
                         "inline SGE " + std::to_string(i) + " is not in process memory");
      at += sgl[i].BufferLength;
    }
    wqe.length = total;
    return post(qpn, *qp, wqe);
  }
  // INLINE on a verb that has no payload to copy (Read) is passed on as given: the device
  // refuses the malformed WQE (local QP operation error).
  wqe.nsge = uint8_t(nsge);
  for (uint32_t i = 0; i < nsge; ++i) {
    wqe.sge[i] = Sge{sgl[i].Buffer, sgl[i].BufferLength, sgl[i].MemoryRegionToken};
  }
  return post(qpn, *qp, wqe);
}

NTSTATUS Adapter::NdRead(QpHandle qp, uint64_t request_context, const NDK_SGE* sgl,
                         uint32_t nsge, const ND_MW_DESCRIPTOR& remote, uint64_t offset,
                         uint32_t flags) {
  uint64_t total = 0;
  for (uint32_t i = 0; sgl && i < nsge; ++i) total += sgl[i].BufferLength;
  // The descriptor tells the requester the window's size: a read past it is known to fail
  // (R3.remote_resources). Other inline checks come first.
  NTSTATUS status;
  if (!begin_post(qp, &status)) return status;
  if (offset > remote.Length || total > remote.Length - offset)
    return fail_post(qp, STATUS_REMOTE_RESOURCES, RuleId::R3_remote_resources,
                     "the read exceeds the remote window");
  return NdkRead(qp, request_context, sgl, nsge, remote.Base + offset, remote.Token, flags);
}

NTSTATUS Adapter::NdWrite(QpHandle qp, uint64_t request_context, const NDK_SGE* sgl,
                          uint32_t nsge, const ND_MW_DESCRIPTOR& remote, uint64_t offset,
                          uint32_t flags) {
  uint64_t total = 0;
  for (uint32_t i = 0; sgl && i < nsge; ++i) total += sgl[i].BufferLength;
  NTSTATUS status;
  if (!begin_post(qp, &status)) return status;
  if (offset > remote.Length || total > remote.Length - offset)
    return fail_post(qp, STATUS_REMOTE_RESOURCES, RuleId::R3_remote_resources,
                     "the write exceeds the remote window");
  return NdkWrite(qp, request_context, sgl, nsge, remote.Base + offset, remote.Token, flags);
}

NTSTATUS Adapter::NdkRead(QpHandle qp, uint64_t request_context, const NDK_SGE* sgl,
                          uint32_t nsge, uint64_t remote_address, uint32_t remote_token,
                          uint32_t flags) {
  return post_rdma(WqeOpcode::Read, qp, request_context, sgl, nsge, remote_address,
                   remote_token, flags);
}

NTSTATUS Adapter::NdkWrite(QpHandle qp, uint64_t request_context, const NDK_SGE* sgl,
                           uint32_t nsge, uint64_t remote_address, uint32_t remote_token,
                           uint32_t flags) {
  return post_rdma(WqeOpcode::Write, qp, request_context, sgl, nsge, remote_address,
                   remote_token, flags);
}

NTSTATUS Adapter::NdkSend(QpHandle qp, uint64_t request_context, const NDK_SGE* sgl,
                          uint32_t nsge, uint32_t flags) {
  return post_rdma(WqeOpcode::Send, qp, request_context, sgl, nsge, 0, 0, flags);
}

NTSTATUS Adapter::NdkSendAndInvalidate(QpHandle qp, uint64_t request_context, const NDK_SGE* sgl,
                                       uint32_t nsge, uint32_t remote_token, uint32_t flags) {
  return post_rdma(WqeOpcode::SendInvalidate, qp, request_context, sgl, nsge, 0, remote_token,
                   flags);
}

NTSTATUS Adapter::NdkReceive(QpHandle qpn, uint64_t request_context, const NDK_SGE* sgl,
                             uint32_t nsge) {
  Impl& s = *impl_;
  auto it = s.qps.find(qpn);
  if (it == s.qps.end()) {
    set_error("unknown QP");
    return STATUS_INVALID_PARAMETER;
  }
  QpInfo& qp = it->second;
  const uint32_t max_sge = std::min<uint32_t>(s.config.qp.max_sge, kMaxSge);
  if (nsge > max_sge || (nsge && !sgl)) {
    set_error("SGE count above the adapter limit of " + std::to_string(max_sge),
              RuleId::R4_inline_sge_count);
    return STATUS_INVALID_PARAMETER;
  }
  if (qp.qpc.rq_depth == 0 || qp.rq_producer - qp.rq_consumer >= qp.qpc.rq_depth) {
    set_error("receive queue full", RuleId::R4_inline_rq_full);
    return STATUS_INSUFFICIENT_RESOURCES;
  }
  Wqe wqe;
  wqe.opcode = WqeOpcode::Receive;
  wqe.wr_id = request_context;
  wqe.nsge = uint8_t(nsge);
  for (uint32_t i = 0; i < nsge; ++i) {
    wqe.sge[i] = Sge{sgl[i].Buffer, sgl[i].BufferLength, sgl[i].MemoryRegionToken};
  }
  uint8_t raw[kWqeBytes];
  wqe.encode(raw);
  s.cpu.mem_write(qp.qpc.rq_base + uint64_t(qp.rq_producer % qp.qpc.rq_depth) * kWqeBytes, raw,
                  kWqeBytes);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (s.trace) s.trace->host_post(s.node, qpn, HostTraceSink::Queue::Receive, qp.rq_producer, now);
  ++qp.rq_producer;
  ++qp.receives_posted;
  const sc_core::sc_time flight =
      s.cpu.mmio_write64(bar::kRqDoorbell + uint64_t(qpn) * bar::kRegisterStride, qp.rq_producer);
  if (s.trace) {
    s.trace->host_doorbell(s.node, qpn, HostTraceSink::Queue::Receive, qp.rq_producer, now,
                           now + flight);
  }
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::NdkBind(QpHandle qpn, uint64_t request_context, MrHandle mr, MwHandle mw,
                          uint64_t virtual_address, uint64_t length, uint32_t flags) {
  return post_bind(qpn, request_context, mr, mw, virtual_address, length, flags, false);
}

NTSTATUS Adapter::NdBind(QpHandle qpn, uint64_t request_context, MrHandle mr, MwHandle mw,
                         uint64_t virtual_address, uint64_t length, uint32_t flags,
                         ND_MW_DESCRIPTOR* out) {
  if (!out) {
    set_error("no descriptor to fill");
    return STATUS_INVALID_PARAMETER;
  }
  const NTSTATUS status =
      post_bind(qpn, request_context, mr, mw, virtual_address, length, flags, true);
  if (status == STATUS_SUCCESS) {
    out->Base = 0;  // zero-based: the peer gives offsets inside the window
    out->Length = length;
    out->Token = GetRemoteTokenFromMw(mw);
  }
  return status;
}

NTSTATUS Adapter::post_bind(QpHandle qpn, uint64_t request_context, MrHandle mr, MwHandle mw,
                            uint64_t virtual_address, uint64_t length, uint32_t flags,
                            bool zero_based) {
  Impl& s = *impl_;
  NTSTATUS status;
  QpInfo* qp = begin_post(qpn, &status);
  if (!qp) return status;
  auto mrit = s.mrs.find(mr);
  auto mwit = s.mws.find(mw);
  if (mrit == s.mrs.end() || mwit == s.mws.end())
    return fail_post(qpn, STATUS_INVALID_PARAMETER, RuleId::R3_invalid_parameter,
                     "unknown MR or MW");
  // Remote write through a window needs local write on the MR: rejected inline
  // (R4.inline.bind_remote_write).
  const bool mr_local_write = mrit->second.fast_register
                                  ? (s.read_mpt(mr).access & kAccessLocalWrite) != 0
                                  : (mrit->second.mr_flags & NDK_MR_FLAG_ALLOW_LOCAL_WRITE) != 0;
  if ((flags & 0x020) && !mr_local_write)
    return fail_post(qpn, STATUS_ACCESS_VIOLATION, RuleId::R4_inline_bind_remote_write,
                     "remote write on an MR without local write");
  MwInfo& window = mwit->second;
  settle_tag(mw, &window.tag, &window.move);
  const uint8_t tag = uint8_t(window.tag + 1);  // the consumer picks the window's next tag
  Wqe wqe;
  wqe.opcode = WqeOpcode::Bind;
  wqe.flags = uint16_t(flags);
  wqe.access = flags;
  wqe.wr_id = request_context;
  wqe.remote_addr = virtual_address;
  wqe.remote_token = make_token(mw, tag);
  wqe.aux_token = GetLocalTokenFromMr(mr);
  wqe.length = length;
  wqe.zero_based = zero_based ? 1 : 0;
  const uint32_t wqe_index = qp->sq_producer;
  const NTSTATUS posted = post(qpn, *qp, wqe);
  if (posted != STATUS_SUCCESS) return posted;
  // A posted request (R5.bind.token_on_return): the new token's value is known now; the
  // window grants access once the device has run the bind, and the token falls back to the
  // window's tag if the device refuses it (R1.token.refused, settle_tag).
  window.tag = tag;
  window.zero_based = zero_based;
  window.move = TagMove{true, qpn, wqe_index, tag};
  return STATUS_SUCCESS;
}

Adapter::BindProgress Adapter::BindState(MwHandle mw) {
  Impl& s = *impl_;
  auto it = s.mws.find(mw);
  if (it == s.mws.end() || !it->second.move.active) return BindProgress::None;
  const TagMove& move = it->second.move;
  const MptEntry e = s.read_mpt(mw);
  if (e.state == MptState::Valid && e.tag == move.tag) return BindProgress::Executed;
  auto q = s.qps.find(move.qpn);
  if (q == s.qps.end()) return BindProgress::Completed;  // its QP is closed: flushed
  const QpInfo& qp = q->second;
  if (int32_t(qp.sq_consumer - move.wqe_index) > 0 ||
      completion_queued(qp.cq, move.qpn, move.wqe_index))
    return BindProgress::Completed;
  if (CqOverflowed(qp.cq)) return BindProgress::Lost;
  if (int32_t(qp.sq_doorbell - move.wqe_index) <= 0) return BindProgress::Held;
  return BindProgress::Posted;
}

void Adapter::SubmitDeferred(QpHandle qpn) {
  auto it = impl_->qps.find(qpn);
  if (it != impl_->qps.end()) impl_->ring_sq(qpn, it->second);
}

std::vector<Adapter::MemoryRange> Adapter::BindSignals(MwHandle mw) {
  Impl& s = *impl_;
  std::vector<MemoryRange> out;
  auto it = s.mws.find(mw);
  if (it == s.mws.end() || !it->second.move.active) return out;
  out.push_back({s.icm.mpt_addr(mw), kMptEntryBytes});
  auto q = s.qps.find(it->second.move.qpn);
  if (q == s.qps.end()) return out;
  auto c = s.cqs.find(q->second.cq);
  if (c == s.cqs.end()) return out;
  out.push_back({c->second.ring, uint64_t(c->second.depth) * kCqeBytes});
  out.push_back({s.icm.cqc_addr(q->second.cq) + CqcEntry::kOverflowOffset, 1});
  return out;
}

uint64_t Adapter::SendsPosted(QpHandle qpn) const {
  auto it = impl_->qps.find(qpn);
  return it == impl_->qps.end() ? 0 : it->second.sends_posted;
}

uint64_t Adapter::ReceivesPosted(QpHandle qpn) const {
  auto it = impl_->qps.find(qpn);
  return it == impl_->qps.end() ? 0 : it->second.receives_posted;
}

NTSTATUS Adapter::NdkFastRegister(QpHandle qpn, uint64_t request_context, MrHandle mr,
                                  uint32_t page_count, const uint64_t* page_array, uint32_t fbo,
                                  uint64_t length, uint64_t base_va, uint32_t flags) {
  Impl& s = *impl_;
  NTSTATUS status;
  QpInfo* qp = begin_post(qpn, &status);
  if (!qp) return status;
  auto mrit = s.mrs.find(mr);
  if (mrit == s.mrs.end())
    return fail_post(qpn, STATUS_INVALID_PARAMETER, RuleId::R3_invalid_parameter, "unknown MR");
  // An MR that is not an initialised fast-register MR is the device's to refuse: an
  // ACCESS_VIOLATION completion and the QP in error (R5.fr.kind).
  const uint32_t max_pages = s.config.qp.max_fr_pages;
  if (page_count == 0 || page_count > max_pages || !page_array)
    return fail_post(qpn, STATUS_INVALID_PARAMETER, RuleId::R3_invalid_parameter,
                     "page count must be 1.." + std::to_string(max_pages));
  if ((flags & (NDK_OP_FLAG_ALLOW_REMOTE_READ | 0x020)) && mrit->second.fr_initialized &&
      !mrit->second.fr_remote_access)
    return fail_post(qpn, STATUS_ACCESS_VIOLATION, RuleId::R4_inline_fr_remote_access,
                     "remote access on an MR initialised without remote access");
  // The page array goes into this QP's staging area, one slot per send-queue entry.
  const uint64_t slot_bytes = uint64_t(max_pages) * 8;
  if (!qp->page_lists) {
    qp->page_lists = s.alloc_phys(slot_bytes * qp->qpc.sq_depth, 4096);
    if (!qp->page_lists)
      return fail_post(qpn, STATUS_INSUFFICIENT_RESOURCES, RuleId::R3_insufficient_resources,
                       "host memory exhausted");
    qp->page_lists_bytes = slot_bytes * qp->qpc.sq_depth;
  }
  const uint64_t list = qp->page_lists + slot_bytes * (qp->sq_producer % qp->qpc.sq_depth);
  std::vector<uint8_t> raw(size_t(page_count) * 8);
  for (uint32_t i = 0; i < page_count; ++i)
    for (unsigned b = 0; b < 8; ++b) raw[size_t(i) * 8 + b] = uint8_t(page_array[i] >> (8 * b));
  s.cpu.mem_write(list, raw.data(), raw.size());
  settle_tag(mr, &mrit->second.tag, &mrit->second.move);
  const uint8_t tag = uint8_t(mrit->second.tag + 1);  // the consumer picks the next tag
  Wqe wqe;
  wqe.opcode = WqeOpcode::FastRegister;
  wqe.flags = uint16_t(flags);
  wqe.access = flags;
  wqe.wr_id = request_context;
  wqe.remote_addr = base_va;
  wqe.remote_token = make_token(mr, tag);
  wqe.length = length;
  wqe.page_list = list;
  wqe.page_count = page_count;
  wqe.fbo = fbo;
  const uint32_t wqe_index = qp->sq_producer;
  const NTSTATUS posted = post(qpn, *qp, wqe);
  if (posted != STATUS_SUCCESS) return posted;
  // The token moves to the new tag only if the device accepts it (R1.token.refused).
  mrit->second.tag = tag;
  mrit->second.move = TagMove{true, qpn, wqe_index, tag};
  return STATUS_SUCCESS;
}

void Adapter::settle_tag(uint32_t index, uint8_t* tag, TagMove* move) {
  Impl& s = *impl_;
  if (!move->active) return;
  const MptEntry e = s.read_mpt(index);
  if (e.tag == move->tag) {  // executed and accepted
    move->active = false;
    return;
  }
  auto q = s.qps.find(move->qpn);
  const bool completed =
      q == s.qps.end() || int32_t(q->second.sq_consumer - move->wqe_index) > 0 ||
      completion_queued(q->second.cq, move->qpn, move->wqe_index);
  if (!completed) return;  // not executed yet: the consumer's new tag stands
  *tag = e.tag;
  move->active = false;
}

NTSTATUS Adapter::NdkInvalidate(QpHandle qpn, uint64_t request_context, uint32_t object,
                                uint32_t flags) {
  Impl& s = *impl_;
  NTSTATUS status;
  QpInfo* qp = begin_post(qpn, &status);
  if (!qp) return status;
  uint32_t token = 0;
  if (s.mrs.count(object)) {
    token = GetRemoteTokenFromMr(object);
  } else if (s.mws.count(object)) {
    token = GetRemoteTokenFromMw(object);
  } else {
    return fail_post(qpn, STATUS_INVALID_PARAMETER, RuleId::R3_invalid_parameter,
                     "unknown MR or MW");
  }
  Wqe wqe;
  wqe.opcode = WqeOpcode::Invalidate;
  wqe.flags = uint16_t(flags);
  wqe.wr_id = request_context;
  wqe.remote_token = token;
  return post(qpn, *qp, wqe);
}

NTSTATUS Adapter::NdkFlush(QpHandle qpn) {
  auto it = impl_->qps.find(qpn);
  if (it == impl_->qps.end()) {
    set_error("unknown QP");
    return STATUS_INVALID_PARAMETER;
  }
  impl_->ring_sq(qpn, it->second);  // deferred requests are submitted, then flushed
  it->second.error_seen = true;
  impl_->context_changed(ContextKind::QpFlush, qpn);
  return STATUS_SUCCESS;
}

}  // namespace rnic::host
