// SPDX-License-Identifier: Apache-2.0
// The key, window and region rules of docs/behaviour.md (R5.*) as plain functions over MPT entries:
// the ProtectionChecker module only fetches entries and spends time.
#pragma once

#include <cstdint>

#include "model/rnic/abi/icm.h"
#include "model/rnic/abi/rules.h"
#include "model/rnic/msg/messages.h"

namespace rnic {

// A region's translation parameters (MR: itself; MW: its parent MR).
Region region_of(const MptEntry& mr);

// [va, va+length) inside [base, base+size)? Overflow-safe.
bool range_inside(uint64_t va, uint64_t length, uint64_t base, uint64_t size);

// Every check returns its Decision: the status and the rule of the first check that failed,
// in the order of its CheckList (abi/rules.h, docs/behaviour.md).
//
// Local SGE check (req.checks: ReadSink, Source or ReceiveSge): the token names a VALID MR of
// the PD whose range holds the access, with the rights asked. `entry` is the MPT entry at
// token_index(req.token). On success sets req.region and req.target_va.
Decision check_local_access(const MptEntry& entry, ProtectionRequest& req);

// Responder check, in the order of R5.read.resp.*. `parent` is the window's MR (null for an MR).
// On success sets req.target_va to the absolute VA accessed.
Decision check_remote_access(const MptEntry& entry, const MptEntry* parent,
                             ProtectionRequest& req);

// Bind checks. On success updates `mw` (VALID, the tag of req.token, range, rights, QP, parent) and
// `mr` (one more bound window).
Decision apply_bind(uint32_t mw_index, MptEntry& mw, uint32_t mr_index, MptEntry& mr,
                    ProtectionRequest& req);

// FastRegister checks (R5.fr.*) on the MR entry; on success req.region is the
// MR's MTT range (page_shift 12, mtt_index).
Decision check_fast_register(const MptEntry& mr, const ProtectionRequest& req,
                             uint32_t page_bytes);
// Applies a checked FastRegister: VALID, the tag of req.token, base VA, length, rights.
void apply_fast_register(MptEntry& mr, const ProtectionRequest& req);

// Invalidate checks (R5.inv.*): only fast-register MRs and windows, current tag,
// VALID, same PD, a window only on its QP, an MR with bound windows cannot be invalidated.
// On success the object is
// FREE; the caller must drop one bound window from a window's parent MR.
Decision apply_invalidate(MptEntry& object, const ProtectionRequest& req);

}  // namespace rnic

namespace rnic {
// NDK_OP_FLAG_ALLOW_* rights of a Bind/FastRegister -> MptAccess bits.
uint16_t access_from_op_flags(uint32_t op_flags);
}  // namespace rnic
