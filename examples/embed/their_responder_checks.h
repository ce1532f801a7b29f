// SPDX-License-Identifier: Apache-2.0
// "Your" implementation: the responder's access checks of a NIC under development, as a
// validation engineer's team might have written them (their own types, no rnicsim headers),
// from the rules of rnicsim's docs/behaviour.md (R5.read.resp.*, R5.write.*). embed_compare
// holds it against rnicsim decision by decision. `seeded_bug` swaps two checks: the rights
// are checked before the PD, a bug whose status is always right (both refuse with a remote
// access error) and whose rule is not.
#pragma once

#include <cstdint>
#include <string>

namespace their {

enum class ObjectKind { None, Region, Window };

// One protection-table entry as their design holds it.
struct Object {
  ObjectKind kind = ObjectKind::None;
  bool valid = false;
  uint8_t tag = 0;
  uint32_t pd = 0;
  uint64_t base = 0, length = 0;
  bool remote_read = false, remote_write = false;
  uint32_t bound_qp = 0;     // a window's QP
  bool zero_based = false;   // a window addressed by offsets
};

struct RemoteAccess {
  bool write = false;  // RDMA write (else read)
  uint32_t token = 0;  // index << 8 | tag
  uint32_t qp = 0, pd = 0;  // the responder QP and its PD
  uint64_t address = 0, length = 0;
};

struct Verdict {
  bool allowed = false;
  std::string rule;  // the rule ID that decided (docs/behaviour.md)
};

Verdict check_remote_access(const RemoteAccess& access, const Object& object, bool seeded_bug);

}  // namespace their
