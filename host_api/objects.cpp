// SPDX-License-Identifier: Apache-2.0
// The driver's object calls: QPs, connections, memory regions and windows, tokens.
#include <algorithm>

#include "host_api/adapter.h"
#include "host_api/adapter_impl.h"
#include "host_api/limits.h"

namespace rnic::host {

using namespace ndk;

namespace {
void write_qpc(Adapter::Impl& s, QpHandle qpn, const QpcEntry& qpc) {
  uint8_t raw[kQpcEntryBytes];
  qpc.encode(raw);
  s.cpu.mem_write(s.icm.qpc_addr(qpn), raw, kQpcEntryBytes);
  s.context_changed(ContextKind::Qpc, qpn);
}

uint16_t access_from_mr_flags(uint32_t flags) {
  uint16_t access = 0;
  if (flags & NDK_MR_FLAG_ALLOW_LOCAL_WRITE) access |= kAccessLocalWrite;
  if (flags & NDK_MR_FLAG_ALLOW_REMOTE_READ) access |= kAccessRemoteRead;
  if (flags & 4) access |= kAccessRemoteWrite;  // the remote bit of ALLOW_REMOTE_WRITE
  if (flags & NDK_MR_FLAG_RDMA_READ_SINK) access |= kAccessReadSink;
  return access;
}
}  // namespace

NTSTATUS Adapter::CreateQp(PdHandle pd, CqHandle cq, uint32_t send_depth, uint32_t recv_depth,
                           uint32_t ord, uint32_t ird, uint64_t qp_context, QpHandle* out) {
  Impl& s = *impl_;
  if (!out || !s.pds.count(pd) || !s.cqs.count(cq)) {
    set_error("unknown PD or CQ");
    return STATUS_INVALID_PARAMETER;
  }
  if (send_depth == 0 || send_depth > kMaxQueueDepth || recv_depth > kMaxQueueDepth) {
    set_error("queue depth must be 1.." + std::to_string(kMaxQueueDepth));
    return STATUS_INVALID_PARAMETER;
  }
  if (ord > s.config.qp.max_ord || ird > s.config.qp.max_ird) {
    set_error("ORD/IRD above the adapter limits (" + std::to_string(s.config.qp.max_ord) + "/" +
              std::to_string(s.config.qp.max_ird) + ")");
    return STATUS_INVALID_PARAMETER;
  }
  const QpHandle qpn = s.qp_numbers.take();
  if (!qpn) {
    set_error("QP table full", RuleId::R3_insufficient_resources);
    return STATUS_INSUFFICIENT_RESOURCES;
  }
  const uint64_t sq = s.alloc_phys(uint64_t(send_depth) * kWqeBytes, 4096);
  const uint64_t rq = recv_depth ? s.alloc_phys(uint64_t(recv_depth) * kWqeBytes, 4096) : 0;
  if (!sq || (recv_depth && !rq)) {
    if (sq) s.free_phys(sq, uint64_t(send_depth) * kWqeBytes);
    if (rq) s.free_phys(rq, uint64_t(recv_depth) * kWqeBytes);
    s.qp_numbers.give_back(qpn);
    set_error("host memory exhausted");
    return STATUS_INSUFFICIENT_RESOURCES;
  }
  QpInfo& qp = s.qps[qpn];
  qp.pd = pd;
  qp.cq = cq;
  qp.qp_context = qp_context;
  qp.qpc.valid = 1;
  qp.qpc.pd = pd;
  qp.qpc.cqn = cq;
  qp.qpc.sq_base = sq;
  qp.qpc.sq_depth = send_depth;
  qp.qpc.rq_base = rq;
  qp.qpc.rq_depth = recv_depth;
  qp.qpc.ord = ord;
  qp.qpc.ird = ird;
  write_qpc(s, qpn, qp.qpc);
  *out = qpn;
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::Connect(Adapter& a, QpHandle qp_a, Adapter& b, QpHandle qp_b) {
  auto ita = a.impl_->qps.find(qp_a);
  auto itb = b.impl_->qps.find(qp_b);
  if (ita == a.impl_->qps.end() || itb == b.impl_->qps.end() || (&a == &b && qp_a == qp_b)) {
    a.set_error("unknown QP");
    return STATUS_INVALID_PARAMETER;
  }
  if (ita->second.qpc.connected || itb->second.qpc.connected) {
    a.set_error("QP already connected");
    return STATUS_CONNECTION_INVALID;
  }
  ita->second.qpc.connected = 1;
  ita->second.qpc.peer_node = b.node_id_;
  ita->second.qpc.peer_qpn = qp_b;
  itb->second.qpc.connected = 1;
  itb->second.qpc.peer_node = a.node_id_;
  itb->second.qpc.peer_qpn = qp_a;
  write_qpc(*a.impl_, qp_a, ita->second.qpc);
  write_qpc(*b.impl_, qp_b, itb->second.qpc);
  return STATUS_SUCCESS;
}

// A new MPT entry of `kind`, FREE, in `pd`; tells the device. 0 (with last_error_) on failure.
uint32_t Adapter::create_mpt_entry(PdHandle pd, MptKind kind, NTSTATUS* status) {
  Impl& s = *impl_;
  if (!s.pds.count(pd)) {
    set_error("unknown PD");
    *status = STATUS_INVALID_PARAMETER;
    return 0;
  }
  const uint32_t index = s.mpt_indices.take();
  if (!index) {
    set_error("MPT table full", RuleId::R3_insufficient_resources);
    *status = STATUS_INSUFFICIENT_RESOURCES;
    return 0;
  }
  MptEntry e;
  e.state = MptState::Free;
  e.kind = kind;
  e.pd = pd;
  // A closed object's number comes back with its last tag: the next tag moves past it, so
  // tokens of the closed object stay stale (R1.token.reregister, R6.stale).
  e.tag = s.read_mpt(index).tag;
  s.write_mpt(index, e);
  s.context_changed(ContextKind::Mpt, index);
  *status = STATUS_SUCCESS;
  return index;
}

NTSTATUS Adapter::CreateMr(PdHandle pd, bool fast_register, MrHandle* out) {
  if (!out) return STATUS_INVALID_PARAMETER;
  NTSTATUS status;
  const MrHandle index =
      create_mpt_entry(pd, fast_register ? MptKind::FastMr : MptKind::Mr, &status);
  if (status != STATUS_SUCCESS) return status;
  MrInfo info;
  info.pd = pd;
  info.fast_register = fast_register;
  info.tag = impl_->read_mpt(index).tag;
  impl_->mrs[index] = info;
  *out = index;
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::RegisterMr(MrHandle mr, const Buffer& buffer, uint64_t offset, uint64_t length,
                             uint32_t mr_flags, bool zero_based, AsyncRequest* async) {
  Impl& s = *impl_;
  auto it = s.mrs.find(mr);
  if (it == s.mrs.end() || it->second.fast_register || it->second.registered) {
    set_error(it == s.mrs.end()          ? "unknown MR"
              : it->second.fast_register ? "MR was created for fast registration"
                                         : "MR already registered");
    return STATUS_INVALID_PARAMETER;
  }
  if (zero_based) {
    // Zero-based virtual addresses are not supported for RegisterMr (R5.reg.zero_based): the MR is
    // always addressed by the buffer's own virtual addresses.
    set_error("zero-based virtual addresses are not supported by RegisterMr",
              RuleId::R5_reg_zero_based);
    return STATUS_INVALID_PARAMETER;
  }
  if (length == 0 || buffer.va == 0 || offset > buffer.size || length > buffer.size - offset) {
    set_error("registration range empty or outside the buffer", RuleId::R5_reg_invalid);
    return STATUS_INVALID_PARAMETER;
  }
  // The buffer must be one of this process's allocations, as described when allocated (its
  // pages are what the MTT entries will name).
  auto buf = s.buffers.find(buffer.va);
  if (buf == s.buffers.end() || buf->second.buffer.size != buffer.size ||
      buf->second.buffer.page_size != buffer.page_size ||
      buf->second.buffer.pages != buffer.pages) {
    set_error("not a buffer allocated by this adapter");
    return STATUS_INVALID_PARAMETER;
  }
  if ((mr_flags & ~0xfu) || ((mr_flags & 4) && !(mr_flags & NDK_MR_FLAG_ALLOW_LOCAL_WRITE))) {
    set_error("bad MR flags");
    return STATUS_INVALID_PARAMETER;
  }
  const uint64_t first_page = offset / buffer.page_size;
  const uint64_t last_page = (offset + length - 1) / buffer.page_size;
  const uint64_t count = last_page - first_page + 1;
  uint32_t mtt_index = 0;
  if (count > 0xffffffffu || !s.mtt.allocate(uint32_t(count), &mtt_index)) {
    set_error("MTT table full", RuleId::R3_insufficient_resources);
    return STATUS_INSUFFICIENT_RESOURCES;
  }
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t raw[kMttEntryBytes];
    const uint64_t phys = buffer.pages[first_page + i];
    for (unsigned b = 0; b < 8; ++b) raw[b] = uint8_t(phys >> (8 * b));
    s.cpu.mem_write(s.icm.mtt_addr(mtt_index + uint32_t(i)), raw, kMttEntryBytes);
  }
  MptEntry e = s.read_mpt(mr);
  e.state = MptState::Valid;
  e.tag = uint8_t(e.tag + 1);
  e.access = access_from_mr_flags(mr_flags);
  e.page_shift = buffer.page_size == 4096 ? 12 : 21;
  e.base_va = buffer.va + offset;
  e.length = length;
  e.mtt_index = mtt_index;
  e.page_capacity = uint32_t(count);
  e.bound_windows = 0;
  it->second.registered = true;
  it->second.buffer_va = buffer.va;
  ++buf->second.registrations;
  it->second.mr_flags = mr_flags;
  it->second.mtt_index = mtt_index;
  it->second.mtt_count = uint32_t(count);
  // The device commands: translation entries first, then the VALID MPT entry, so the device
  // never sees the region before its translations (done now, or by an asynchronous call).
  Impl* impl = impl_.get();
  auto commit = [impl, mr, e, mtt_index, count] {
    impl->context_changed(ContextKind::Mtt, mtt_index, uint32_t(count));
    impl->write_mpt(mr, e);
    impl->context_changed(ContextKind::Mpt, mr);
  };
  if (async) return start_async(mr, commit, async);
  commit();
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::DeregisterMr(MrHandle mr) {
  Impl& s = *impl_;
  auto it = s.mrs.find(mr);
  if (it == s.mrs.end() || !it->second.registered) {
    set_error("MR not registered");
    return STATUS_INVALID_PARAMETER;
  }
  if (it->second.pending) {
    set_error("the MR's asynchronous registration has not completed");
    return STATUS_INVALID_PARAMETER;
  }
  MptEntry e = s.read_mpt(mr);  // the device keeps bound_windows current in host memory
  if (e.bound_windows > 0) {
    set_error("MR has bound windows", RuleId::R5_dereg_busy);
    return STATUS_DEVICE_BUSY;
  }
  e.state = MptState::Free;
  s.write_mpt(mr, e);
  s.context_changed(ContextKind::Mpt, mr);
  s.context_changed(ContextKind::Mtt, it->second.mtt_index, it->second.mtt_count);
  s.mtt.release(it->second.mtt_index, it->second.mtt_count);
  it->second.registered = false;
  auto buf = s.buffers.find(it->second.buffer_va);
  if (buf != s.buffers.end() && buf->second.registrations > 0) --buf->second.registrations;
  it->second.buffer_va = 0;
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::CreateMw(PdHandle pd, MwHandle* out) {
  if (!out) return STATUS_INVALID_PARAMETER;
  NTSTATUS status;
  const MwHandle index = create_mpt_entry(pd, MptKind::Mw, &status);
  if (status != STATUS_SUCCESS) return status;
  impl_->mws[index] = MwInfo{pd, impl_->read_mpt(index).tag, false, TagMove{}};
  *out = index;
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::InitializeFastRegisterMr(MrHandle mr, uint32_t page_count, bool remote_access) {
  Impl& s = *impl_;
  auto it = s.mrs.find(mr);
  if (it == s.mrs.end() || !it->second.fast_register || it->second.fr_initialized) {
    set_error("not an uninitialised fast-register MR");
    return STATUS_INVALID_PARAMETER;
  }
  if (page_count == 0) {
    set_error("page count must be positive");
    return STATUS_INVALID_PARAMETER;
  }
  if (page_count > s.config.qp.max_fr_pages) {
    set_error("page count above FRMRPageCount (" + std::to_string(s.config.qp.max_fr_pages) + ")",
              RuleId::R5_frinit_limit);
    return STATUS_IMPLEMENTATION_LIMIT;
  }
  uint32_t mtt_index = 0;
  if (!s.mtt.allocate(page_count, &mtt_index)) {
    set_error("MTT table full", RuleId::R3_insufficient_resources);
    return STATUS_INSUFFICIENT_RESOURCES;
  }
  MptEntry e = s.read_mpt(mr);
  e.mtt_index = mtt_index;
  e.page_capacity = page_count;
  e.access = remote_access ? kAccessRemoteAllowed : 0;
  s.write_mpt(mr, e);
  s.context_changed(ContextKind::Mpt, mr);
  it->second.fr_initialized = true;
  it->second.fr_remote_access = remote_access;
  it->second.mtt_index = mtt_index;
  it->second.mtt_count = page_count;
  return STATUS_SUCCESS;
}

uint32_t Adapter::GetRemoteTokenFromMr(MrHandle mr) {
  auto it = impl_->mrs.find(mr);
  if (it == impl_->mrs.end()) return 0;
  // A fast-register MR's tag is chosen by the driver when it posts (like a window's); it
  // stays the old one if the device refuses the FastRegister (R1.token.refused).
  if (it->second.fast_register) {
    settle_tag(mr, &it->second.tag, &it->second.move);
    return make_token(mr, it->second.tag);
  }
  return make_token(mr, impl_->read_mpt(mr).tag);
}

uint32_t Adapter::GetLocalTokenFromMr(MrHandle mr) { return GetRemoteTokenFromMr(mr); }

uint32_t Adapter::GetRemoteTokenFromMw(MwHandle mw) {
  auto it = impl_->mws.find(mw);
  if (it == impl_->mws.end()) return 0;
  settle_tag(mw, &it->second.tag, &it->second.move);
  return make_token(mw, it->second.tag);
}

CqHandle Adapter::QpCq(QpHandle qp) const {
  auto it = impl_->qps.find(qp);
  return it == impl_->qps.end() ? 0 : it->second.cq;
}

PdHandle Adapter::QpPd(QpHandle qp) const {
  auto it = impl_->qps.find(qp);
  return it == impl_->qps.end() ? 0 : it->second.pd;
}

bool Adapter::QpPeer(QpHandle qp, uint32_t* node, uint32_t* qpn) const {
  auto it = impl_->qps.find(qp);
  if (it == impl_->qps.end() || !it->second.qpc.connected) return false;
  *node = it->second.qpc.peer_node;
  *qpn = it->second.qpc.peer_qpn;
  return true;
}

NTSTATUS Adapter::RunDmaBench(const Buffer& window, uint32_t size, uint64_t count,
                              uint32_t outstanding, bool random, uint64_t seed,
                              LatencyHistogram* latency_ps, bool translate) {
  if (window.pages.empty() || size == 0 || size > window.size || outstanding == 0) {
    set_error("benchmark size must be 1..window bytes");
    return STATUS_INVALID_PARAMETER;
  }
  for (size_t i = 1; i < window.pages.size(); ++i) {
    if (window.pages[i] != window.pages[0] + i * window.page_size) {
      set_error("benchmark window must be physically contiguous");
      return STATUS_INVALID_PARAMETER;
    }
  }
  DmaBenchRequest request;
  request.base = window.pages[0];
  request.window = window.size;
  request.size = size;
  request.count = count;
  request.outstanding = outstanding;
  request.random = random;
  request.seed = seed;
  request.latency_ps = latency_ps;
  uint32_t mtt_index = 0;
  const uint32_t mtt_count = uint32_t(window.pages.size());
  if (translate) {
    Impl& s = *impl_;
    if (!s.mtt.allocate(mtt_count, &mtt_index)) {
      set_error("MTT table full", RuleId::R3_insufficient_resources);
      return STATUS_INSUFFICIENT_RESOURCES;
    }
    for (uint32_t i = 0; i < mtt_count; ++i) {
      uint8_t raw[kMttEntryBytes];
      for (unsigned b = 0; b < 8; ++b) raw[b] = uint8_t(window.pages[i] >> (8 * b));
      s.cpu.mem_write(s.icm.mtt_addr(mtt_index + i), raw, kMttEntryBytes);
    }
    request.translate = true;
    request.region.mtt_index = mtt_index;
    request.region.page_shift = window.page_size == 4096 ? 12 : 21;
    request.region.page_base_va = window.va;
    request.va = window.va;
  }
  impl_->cpu.run_dma_bench(request);
  if (translate) impl_->mtt.release(mtt_index, mtt_count);
  if (!request.ok) {
    set_error("a benchmark read failed");
    return STATUS_DATA_ERROR;
  }
  return STATUS_SUCCESS;
}

uint64_t Adapter::ObjectBaseVa(uint32_t mpt_index) {
  if (!impl_->mrs.count(mpt_index) && !impl_->mws.count(mpt_index)) return 0;
  const MptEntry e = impl_->read_mpt(mpt_index);
  if (e.state != MptState::Valid) return 0;
  // A zero-based window is addressed from 0: its descriptor's Base (R5.bind.zero_based).
  if (e.kind == MptKind::Mw && e.zero_based) return 0;
  return e.base_va;
}

uint64_t Adapter::ObjectLength(uint32_t mpt_index) {
  if (!impl_->mrs.count(mpt_index) && !impl_->mws.count(mpt_index)) return 0;
  const MptEntry e = impl_->read_mpt(mpt_index);
  return e.state == MptState::Valid ? e.length : 0;
}

}  // namespace rnic::host
