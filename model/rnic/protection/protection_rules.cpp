// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/protection/protection_rules.h"

#include "model/rnic/protection/seeded_bug.h"

namespace rnic {

Region region_of(const MptEntry& mr) {
  Region r;
  r.mtt_index = mr.mtt_index;
  r.page_shift = mr.page_shift;
  r.page_base_va = mr.base_va & ~((uint64_t(1) << mr.page_shift) - 1);
  return r;
}

bool range_inside(uint64_t va, uint64_t length, uint64_t base, uint64_t size) {
  if (va < base) return false;
  uint64_t off = va - base;
  return off <= size && length <= size - off;
}

namespace {

bool is_region(const MptEntry& e) { return e.kind == MptKind::Mr || e.kind == MptKind::FastMr; }

// The k-th check of `list` failed with `status`.
Decision failed(CheckList list, size_t k, CqeStatus status) {
  const std::vector<RuleId>& rules = checks_of(list);
  return Decision::fail(status, rules[k < rules.size() ? k : rules.size() - 1]);
}

}  // namespace

Decision check_local_access(const MptEntry& entry, ProtectionRequest& req) {
  // docs/behaviour.md, Read (requester): a VALID MR (a window is never a local key; a stale tag
  // names no valid registration), of the PD, with local write where asked, holding the range,
  // with RDMA_READ_SINK where asked. A source or receive SGE has one rule for all of them
  // (R5.write.source, R5.recv.key): its list has one entry.
  const CheckList list = req.checks;
  const CqeStatus fail = CqeStatus::LocalProtection;
  if (!is_region(entry) || entry.tag != token_tag(req.token) || entry.state != MptState::Valid)
    return failed(list, 0, fail);
  if (entry.pd != req.pd) return failed(list, 1, fail);
  const uint16_t write = req.access & kAccessLocalWrite;
  if ((entry.access & write) != write) return failed(list, 2, fail);
  if (!range_inside(req.va, req.length, entry.base_va, entry.length)) return failed(list, 3, fail);
  const uint16_t sink = req.access & kAccessReadSink;
  if ((entry.access & sink) != sink) return failed(list, 4, fail);
  req.region = region_of(entry);
  req.target_va = req.va;
  return Decision::ok();
}

Decision check_remote_access(const MptEntry& entry, const MptEntry* parent,
                             ProtectionRequest& req) {
  // R5.read.resp.* (R5.write.* for a write), in order: the object exists, its tag, VALID, the
  // PD, a window bound to this QP, the rights, the bounds. Every failure is a remote access
  // error.
  const CheckList list =
      (req.access & kAccessRemoteWrite) ? CheckList::RemoteWrite : CheckList::RemoteRead;
  const CqeStatus fail = CqeStatus::RemoteAccess;
  if (entry.state == MptState::Unused || entry.kind == MptKind::None) return failed(list, 0, fail);
  // RNICSIM_SEEDED_BUG: a check skipped or off by one in the test build rnicsim_seeded_bugs.
  if (!RNICSIM_SEEDED_BUG(StaleTag) && entry.tag != token_tag(req.token))
    return failed(list, 1, fail);
  if (entry.state != MptState::Valid) return failed(list, 2, fail);
  if (!RNICSIM_SEEDED_BUG(Pd) && entry.pd != req.pd) return failed(list, 3, fail);
  const bool window = entry.kind == MptKind::Mw;
  if (window && entry.bound_qpn != req.qpn) return failed(list, 4, fail);
  if (!RNICSIM_SEEDED_BUG(Direction) && (entry.access & req.access) != req.access)
    return failed(list, 5, fail);
  uint64_t va = req.va;
  if (window && entry.zero_based) {
    if (va > UINT64_MAX - entry.base_va) return failed(list, 6, fail);
    va += entry.base_va;
  }
  const uint64_t checked =
      RNICSIM_SEEDED_BUG(Bounds) && req.length > 0 ? req.length - 1 : req.length;
  if (!range_inside(va, checked, entry.base_va, entry.length)) return failed(list, 6, fail);
  if (window) {
    // The parent MR is VALID while windows are bound to it (it cannot be invalidated or
    // deregistered then); a missing parent is a model error, reported as the window invalid.
    if (!parent || parent->state != MptState::Valid) return failed(list, 2, fail);
    req.region = region_of(*parent);
  } else {
    req.region = region_of(entry);
  }
  req.target_va = va;
  return Decision::ok();
}

Decision apply_bind(uint32_t mw_index, MptEntry& mw, uint32_t mr_index, MptEntry& mr,
                    ProtectionRequest& req) {
  // R5.bind.*, in order. The first is the driver's inline check (R4.inline.bind_remote_write),
  // repeated for an MR whose rights changed after the post. A rebind of a VALID window fails
  // (IB o10-37.2.30: invalidate first).
  const CheckList list = CheckList::Bind;
  const CqeStatus fail = CqeStatus::MwBind;
  if ((req.rights & kAccessRemoteWrite) && !(mr.access & kAccessLocalWrite))
    return failed(list, 0, fail);
  if (mw.kind != MptKind::Mw || mw.state != MptState::Free) return failed(list, 1, fail);
  if (!is_region(mr) || mr.tag != token_tag(req.mr_token) || mr.state != MptState::Valid)
    return failed(list, 2, fail);
  if (mw.pd != req.pd || mr.pd != req.pd) return failed(list, 3, fail);
  if (req.va == 0) return failed(list, 4, fail);
  if (!range_inside(req.va, req.length, mr.base_va, mr.length)) return failed(list, 5, fail);
  if (!(req.rights & (kAccessRemoteRead | kAccessRemoteWrite))) return failed(list, 6, fail);
  mw.state = MptState::Valid;
  // The consumer chose the new tag (IB: the bind WR carries the new rkey), so the driver
  // knows the token as soon as the posted Bind returns (R5.bind.token_on_return).
  mw.tag = token_tag(req.token);
  mw.base_va = req.va;
  mw.length = req.length;
  mw.access = req.rights;
  mw.bound_qpn = req.qpn;
  mw.parent_index = mr_index;
  mw.zero_based = req.zero_based;
  mr.bound_windows += 1;
  req.new_token = make_token(mw_index, mw.tag);
  return Decision::ok(RuleId::R5_bind_token_on_return);
}

Decision check_fast_register(const MptEntry& mr, const ProtectionRequest& req,
                             uint32_t page_bytes) {
  // R5.fr.*, in order; the page list's alignment (the last check) is the MTT's, as it reads
  // the list. The first is the driver's inline check (R4.inline.fr_remote_access), repeated.
  const CheckList list = CheckList::FastRegister;
  const CqeStatus fail = CqeStatus::LocalProtection;
  // (An MR initialised for fast registration has a page capacity; remote rights on one
  // initialised without remote access.)
  if (mr.kind == MptKind::FastMr && mr.page_capacity > 0 &&
      (req.rights & (kAccessRemoteRead | kAccessRemoteWrite)) &&
      !(mr.access & kAccessRemoteAllowed))
    return failed(list, 0, fail);
  if (mr.kind != MptKind::FastMr) return failed(list, 1, fail);
  if (mr.state != MptState::Free) return failed(list, 2, fail);
  if (mr.pd != req.pd) return failed(list, 3, fail);
  if (req.page_count == 0 || req.page_count > mr.page_capacity) return failed(list, 4, fail);
  // BaseVA % PAGE_SIZE == FBO: BaseVA 0 is valid when FBO is 0 (R5.fr.va_zero).
  if (req.fbo >= page_bytes || req.va % page_bytes != req.fbo) return failed(list, 5, fail);
  if (req.length > uint64_t(req.page_count) * page_bytes - req.fbo) return failed(list, 6, fail);
  if ((req.rights & kAccessRemoteWrite) && !(req.rights & kAccessLocalWrite))
    return failed(list, 7, fail);
  return Decision::ok(RuleId::R5_fr_success);
}

void apply_fast_register(MptEntry& mr, const ProtectionRequest& req) {
  mr.state = MptState::Valid;
  mr.tag = token_tag(req.token);  // the consumer picked the new tag, as for Bind
  mr.base_va = req.va;
  mr.length = req.length;
  mr.page_shift = 12;
  // Keep the "initialised with remote access" bit: it belongs to the MR, not this mapping.
  mr.access = uint16_t((mr.access & kAccessRemoteAllowed) | req.rights);
  mr.bound_windows = 0;
}

Decision apply_invalidate(MptEntry& object, const ProtectionRequest& req) {
  // R5.inv.*, in order: only fast-register MRs and windows, VALID, the current token where the
  // request carries one (SendAndInvalidate, RDMA_READ_LOCAL_INVALIDATE; the Invalidate verb
  // names the object), no windows bound to an MR, the object in the QP's PD and a window on the
  // QP it is bound to.
  const CheckList list = CheckList::Invalidate;
  const CqeStatus fail = CqeStatus::LocalProtection;
  if (object.kind != MptKind::FastMr && object.kind != MptKind::Mw) return failed(list, 0, fail);
  if (object.state != MptState::Valid) return failed(list, 1, fail);
  if (!req.by_object && object.tag != token_tag(req.token)) return failed(list, 2, fail);
  if (object.kind == MptKind::FastMr && object.bound_windows > 0) return failed(list, 3, fail);
  if (object.pd != req.pd || (object.kind == MptKind::Mw && object.bound_qpn != req.qpn))
    return failed(list, 4, fail);
  object.state = MptState::Free;
  return Decision::ok(RuleId::R5_inv_success);
}

}  // namespace rnic

namespace rnic {
uint16_t access_from_op_flags(uint32_t op_flags) {
  uint16_t access = 0;
  if (op_flags & 0x008) access |= kAccessRemoteRead;   // ALLOW_REMOTE_READ
  if (op_flags & 0x010) access |= kAccessLocalWrite;   // ALLOW_LOCAL_WRITE
  if (op_flags & 0x020) access |= kAccessRemoteWrite;  // the remote bit of ALLOW_REMOTE_WRITE
  if (op_flags & 0x080) access |= kAccessReadSink;     // RDMA_READ_SINK
  return access;
}
}  // namespace rnic
