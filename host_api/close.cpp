// SPDX-License-Identifier: Apache-2.0
// Closing objects (NdkCloseObject, the NDK_FN_CLOSE_OBJECT of each object's dispatch table).
// A close here returns when it is done (NDK's STATUS_SUCCESS form). As NDK requires, a QP's
// close completes every request of the QP first. Objects other objects still depend on are
// refused with STATUS_DEVICE_BUSY (NDK leaves that misuse undefined; the model answers).
// Closed numbers (QP, CQ, MPT index) and memory are used again by later objects.
#include <algorithm>

#include "host_api/adapter.h"
#include "host_api/adapter_impl.h"

namespace rnic::host {

using namespace ndk;

void Adapter::Impl::release_window(uint32_t mw) {
  MptEntry e = read_mpt(mw);
  if (e.kind != MptKind::Mw || e.state != MptState::Valid) return;
  // The device keeps bound_windows in host memory and drops its cached copy on the notice.
  if (e.parent_index != 0 && e.parent_index < icm.mpt_entries) {
    MptEntry parent = read_mpt(e.parent_index);
    if (parent.bound_windows > 0) --parent.bound_windows;
    write_mpt(e.parent_index, parent);
    context_changed(ContextKind::Mpt, e.parent_index);
  }
  e.state = MptState::Free;
  write_mpt(mw, e);
  context_changed(ContextKind::Mpt, mw);
}

void Adapter::Impl::retire_mpt(uint32_t index, uint8_t tag) {
  // Unused, but the kind stays (the protection monitor's scan ends at the first entry that
  // was never used) and so does the tag (the next object here moves past it).
  MptEntry e = read_mpt(index);
  const MptKind kind = e.kind;
  e = MptEntry{};
  e.state = MptState::Unused;
  e.kind = kind;
  e.tag = tag;
  write_mpt(index, e);
  context_changed(ContextKind::Mpt, index);
  mpt_indices.give_back(index);
}

// The device sets the QP context's `closed` byte once every request of the QP has completed
// (ContextKind::QpClose). False when it did not within the limit.
bool Adapter::wait_qp_closed(QpHandle qpn) {
  Impl& s = *impl_;
  const sc_core::sc_time deadline = sc_core::sc_time_stamp() + sc_core::sc_time(10, sc_core::SC_MS);
  const bool thread =
      sc_core::sc_get_current_process_handle().proc_kind() == sc_core::SC_THREAD_PROC_;
  for (;;) {
    uint8_t closed = 0;
    s.cpu.mem_read(s.icm.qpc_addr(qpn) + QpcEntry::kClosedOffset, &closed, 1);
    if (closed) return true;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (!thread || now >= deadline) return false;
    s.cpu.wait_for_interrupt(deadline - now);
  }
}

NTSTATUS Adapter::CloseQp(QpHandle qpn) {
  Impl& s = *impl_;
  auto it = s.qps.find(qpn);
  if (it == s.qps.end()) {
    set_error("unknown QP");
    return STATUS_INVALID_PARAMETER;
  }
  // Every request not completed yet completes CANCELLED (deferred ones are rung first), then
  // the device reports when the last of them is in the CQ.
  s.ring_sq(qpn, it->second);
  s.context_changed(ContextKind::QpFlush, qpn);
  const uint8_t zero = 0;
  s.cpu.mem_write(s.icm.qpc_addr(qpn) + QpcEntry::kClosedOffset, &zero, 1);
  s.context_changed(ContextKind::QpClose, qpn);
  if (!wait_qp_closed(qpn)) {
    set_error("the device did not finish the QP's requests in time");
    return STATUS_IO_TIMEOUT;
  }
  QpInfo& qp = it->second;
  // Its completions not consumed yet keep their QP context, even once the number is reused.
  auto cq = s.cqs.find(qp.cq);
  if (cq != s.cqs.end()) {
    CqInfo& info = cq->second;
    for (uint32_t i = 0; i < info.depth; ++i) {
      const uint32_t at = info.consumer + i;
      uint8_t raw[kCqeBytes];
      s.cpu.mem_read(info.ring + uint64_t(at % info.depth) * kCqeBytes, raw, kCqeBytes);
      const Cqe cqe = Cqe::decode(raw);
      if (cqe.owner != uint8_t(1 + ((at / info.depth) & 1))) break;  // not written
      if (cqe.qpn == qpn && !info.orphans.count(at)) info.orphans[at] = qp.qp_context;
    }
  }
  // Every FastRegister and Bind it carried has run or been flushed: the objects' tags are
  // the device's now (R1.token.refused), before the QP number can come back.
  for (auto& [mr, info] : s.mrs) {
    if (info.move.active && info.move.qpn == qpn) {
      info.tag = s.read_mpt(mr).tag;
      info.move.active = false;
    }
  }
  for (auto& [mw, window] : s.mws) {
    if (window.move.active && window.move.qpn == qpn) {
      window.tag = s.read_mpt(mw).tag;
      window.move.active = false;
    }
  }
  // Windows bound to the QP could never be invalidated again (an invalidate must come from
  // the QP they are bound to): closing the QP frees them.
  for (const auto& [mw, window] : s.mws) {
    const MptEntry e = s.read_mpt(mw);
    if (e.state == MptState::Valid && e.bound_qpn == qpn) s.release_window(mw);
  }
  s.free_phys(qp.qpc.sq_base, uint64_t(qp.qpc.sq_depth) * kWqeBytes);
  if (qp.qpc.rq_base) s.free_phys(qp.qpc.rq_base, uint64_t(qp.qpc.rq_depth) * kWqeBytes);
  if (qp.page_lists) s.free_phys(qp.page_lists, qp.page_lists_bytes);
  QpcEntry retired;
  retired.retired = 1;
  uint8_t raw[kQpcEntryBytes];
  retired.encode(raw);
  s.cpu.mem_write(s.icm.qpc_addr(qpn), raw, kQpcEntryBytes);
  s.context_changed(ContextKind::Qpc, qpn);
  s.qps.erase(it);
  s.qp_numbers.give_back(qpn);
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::CloseCq(CqHandle cqn) {
  Impl& s = *impl_;
  auto it = s.cqs.find(cqn);
  if (it == s.cqs.end()) {
    set_error("unknown CQ");
    return STATUS_INVALID_PARAMETER;
  }
  for (const auto& [qpn, qp] : s.qps) {
    if (qp.cq == cqn) {
      set_error("QP " + std::to_string(qpn) + " still completes on the CQ");
      return STATUS_DEVICE_BUSY;
    }
  }
  CqcEntry retired;
  retired.retired = 1;
  uint8_t raw[kCqcEntryBytes];
  retired.encode(raw);
  s.cpu.mem_write(s.icm.cqc_addr(cqn), raw, kCqcEntryBytes);
  s.context_changed(ContextKind::Cqc, cqn);
  s.free_phys(it->second.ring, uint64_t(it->second.depth) * kCqeBytes);
  s.cqs.erase(it);
  s.cq_numbers.give_back(cqn);
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::CloseMr(MrHandle mr) {
  Impl& s = *impl_;
  auto it = s.mrs.find(mr);
  if (it == s.mrs.end()) {
    set_error("unknown MR");
    return STATUS_INVALID_PARAMETER;
  }
  if (it->second.pending) {
    set_error("the MR's asynchronous registration has not completed");
    return STATUS_DEVICE_BUSY;
  }
  const MptEntry e = s.read_mpt(mr);
  if (e.state == MptState::Valid && e.bound_windows > 0) {
    set_error("MR has bound windows");
    return STATUS_DEVICE_BUSY;
  }
  if (it->second.registered) {
    const NTSTATUS status = DeregisterMr(mr);
    if (status != STATUS_SUCCESS) return status;
  }
  const MrInfo info = it->second;
  s.retire_mpt(mr, info.fast_register ? info.tag : e.tag);
  if (info.fast_register && info.fr_initialized) {
    s.context_changed(ContextKind::Mtt, info.mtt_index, info.mtt_count);
    s.mtt.release(info.mtt_index, info.mtt_count);
  }
  s.mrs.erase(it);
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::CloseMw(MwHandle mw) {
  Impl& s = *impl_;
  auto it = s.mws.find(mw);
  if (it == s.mws.end()) {
    set_error("unknown MW");
    return STATUS_INVALID_PARAMETER;
  }
  s.release_window(mw);  // a bound window is invalidated first
  s.retire_mpt(mw, it->second.tag);
  s.mws.erase(it);
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::ClosePd(PdHandle pd) {
  Impl& s = *impl_;
  auto it = s.pds.find(pd);
  if (it == s.pds.end()) {
    set_error("unknown PD");
    return STATUS_INVALID_PARAMETER;
  }
  const bool used =
      std::any_of(s.qps.begin(), s.qps.end(), [pd](auto& q) { return q.second.pd == pd; }) ||
      std::any_of(s.mrs.begin(), s.mrs.end(), [pd](auto& m) { return m.second.pd == pd; }) ||
      std::any_of(s.mws.begin(), s.mws.end(), [pd](auto& w) { return w.second.pd == pd; });
  if (used) {
    set_error("QPs, MRs or MWs of the PD are open");
    return STATUS_DEVICE_BUSY;
  }
  s.pds.erase(it);
  return STATUS_SUCCESS;
}

AdapterUsage Adapter::Usage() const {
  const Impl& s = *impl_;
  AdapterUsage u;
  u.pds = s.pds.size();
  u.cqs = s.cqs.size();
  u.qps = s.qps.size();
  for (const auto& [qpn, qp] : s.qps) {
    u.ord_total += qp.qpc.ord;
    u.ird_total += qp.qpc.ird;
  }
  u.mrs = s.mrs.size();
  u.mws = s.mws.size();
  u.buffers = s.buffers.size();
  u.free_memory_bytes = s.phys.free_total();
  u.free_mtt_entries = s.mtt.free_total();
  return u;
}

}  // namespace rnic::host
