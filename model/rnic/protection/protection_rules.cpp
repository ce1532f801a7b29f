// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/protection/protection_rules.h"

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
}  // namespace

CqeStatus check_local_access(const MptEntry& entry, ProtectionRequest& req) {
  if (!is_region(entry)) return CqeStatus::LocalProtection;  // a window is never a local key
  if (entry.tag != token_tag(req.token)) return CqeStatus::LocalProtection;  // stale token
  if (entry.state != MptState::Valid) return CqeStatus::LocalProtection;
  if (entry.pd != req.pd) return CqeStatus::LocalProtection;
  if ((entry.access & req.access) != req.access) return CqeStatus::LocalProtection;
  if (!range_inside(req.va, req.length, entry.base_va, entry.length))
    return CqeStatus::LocalProtection;
  req.region = region_of(entry);
  req.target_va = req.va;
  return CqeStatus::Success;
}

CqeStatus check_remote_access(const MptEntry& entry, const MptEntry* parent,
                              ProtectionRequest& req) {
  // R5.read.resp.*, in order: object exists, tag, VALID, PD, window bound to this QP,
  // rights, bounds. Every failure is a remote access error.
  if (entry.state == MptState::Unused || entry.kind == MptKind::None)
    return CqeStatus::RemoteAccess;
  if (entry.tag != token_tag(req.token)) return CqeStatus::RemoteAccess;
  if (entry.state != MptState::Valid) return CqeStatus::RemoteAccess;
  if (entry.pd != req.pd) return CqeStatus::RemoteAccess;
  const bool window = entry.kind == MptKind::Mw;
  if (window && entry.bound_qpn != req.qpn) return CqeStatus::RemoteAccess;
  if ((entry.access & req.access) != req.access) return CqeStatus::RemoteAccess;
  uint64_t va = req.va;
  if (window && entry.zero_based) {
    if (va > UINT64_MAX - entry.base_va) return CqeStatus::RemoteAccess;
    va += entry.base_va;
  }
  if (!range_inside(va, req.length, entry.base_va, entry.length)) return CqeStatus::RemoteAccess;
  if (window) {
    // The parent MR is VALID while windows are bound to it (it cannot be invalidated or
    // deregistered then); a missing parent is a model error, reported as an access error.
    if (!parent || parent->state != MptState::Valid) return CqeStatus::RemoteAccess;
    req.region = region_of(*parent);
  } else {
    req.region = region_of(entry);
  }
  req.target_va = va;
  return CqeStatus::Success;
}

CqeStatus apply_bind(uint32_t mw_index, MptEntry& mw, uint32_t mr_index, MptEntry& mr,
                     ProtectionRequest& req) {
  // R5.bind.*. A rebind of a VALID window fails (IB o10-37.2.30: invalidate first).
  if (mw.kind != MptKind::Mw || mw.state != MptState::Free) return CqeStatus::MwBind;
  if (!is_region(mr) || mr.tag != token_tag(req.mr_token)) return CqeStatus::MwBind;
  if (mr.state != MptState::Valid) return CqeStatus::MwBind;
  if (mw.pd != req.pd || mr.pd != req.pd) return CqeStatus::MwBind;
  if (req.va == 0) return CqeStatus::MwBind;
  if (!range_inside(req.va, req.length, mr.base_va, mr.length)) return CqeStatus::MwBind;
  if (!(req.rights & (kAccessRemoteRead | kAccessRemoteWrite))) return CqeStatus::MwBind;
  if ((req.rights & kAccessRemoteWrite) && !(mr.access & kAccessLocalWrite))
    return CqeStatus::MwBind;
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
  return CqeStatus::Success;
}

CqeStatus check_fast_register(const MptEntry& mr, const ProtectionRequest& req,
                              uint32_t page_bytes) {
  if (mr.kind != MptKind::FastMr || mr.state != MptState::Free) return CqeStatus::LocalProtection;
  if (mr.pd != req.pd) return CqeStatus::LocalProtection;
  if (req.page_count == 0 || req.page_count > mr.page_capacity) return CqeStatus::LocalProtection;
  // BaseVA % PAGE_SIZE == FBO: BaseVA 0 is valid when FBO is 0 (R5.fr.va_zero).
  if (req.fbo >= page_bytes || req.va % page_bytes != req.fbo)
    return CqeStatus::LocalProtection;
  if (req.length > uint64_t(req.page_count) * page_bytes - req.fbo)
    return CqeStatus::LocalProtection;
  if ((req.rights & (kAccessRemoteRead | kAccessRemoteWrite)) &&
      !(mr.access & kAccessRemoteAllowed))
    return CqeStatus::LocalProtection;
  if ((req.rights & kAccessRemoteWrite) && !(req.rights & kAccessLocalWrite))
    return CqeStatus::LocalProtection;
  return CqeStatus::Success;
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

CqeStatus apply_invalidate(MptEntry& object, const ProtectionRequest& req) {
  if (object.kind != MptKind::FastMr && object.kind != MptKind::Mw)
    return CqeStatus::LocalProtection;  // normally registered MRs are never invalidated
  // SendAndInvalidate and RDMA_READ_LOCAL_INVALIDATE carry a token: it must be current; the
  // Invalidate verb names the object (R5.inv.token).
  if ((!req.by_object && object.tag != token_tag(req.token)) || object.state != MptState::Valid)
    return CqeStatus::LocalProtection;
  if (object.pd != req.pd) return CqeStatus::LocalProtection;
  if (object.kind == MptKind::Mw && object.bound_qpn != req.qpn)
    return CqeStatus::LocalProtection;  // a window is invalidated on the QP it is bound to
  if (object.kind == MptKind::FastMr && object.bound_windows > 0)
    return CqeStatus::LocalProtection;
  object.state = MptState::Free;
  return CqeStatus::Success;
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
