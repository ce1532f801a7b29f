// SPDX-License-Identifier: Apache-2.0
#include "their_responder_checks.h"

#include <cstdint>

namespace their {

Verdict check_remote_access(const RemoteAccess& a, const Object& o, bool seeded_bug) {
  // The rule IDs differ by verb only in name (docs/behaviour.md, "RDMA read" and "RDMA write").
  auto rule = [&a](const char* read, const char* write) {
    return Verdict{false, a.write ? write : read};
  };
  if (o.kind == ObjectKind::None) return rule("R5.read.resp.index", "R5.write.resp.index");
  if (o.tag != (a.token & 0xFF)) return rule("R5.read.resp.tag", "R5.write.stale");
  if (!o.valid) return rule("R5.read.resp.valid", "R5.write.resp.valid");
  const bool rights = a.write ? o.remote_write : o.remote_read;
  if (seeded_bug && !rights) return rule("R5.read.resp.rights", "R5.write.rights");
  if (o.pd != a.pd) return rule("R5.read.resp.pd", "R5.write.resp.pd");
  if (o.kind == ObjectKind::Window && o.bound_qp != a.qp)
    return rule("R5.read.resp.window_qp", "R5.write.resp.window_qp");
  if (!rights) return rule("R5.read.resp.rights", "R5.write.rights");
  // A zero-based window is addressed by offsets from its base.
  const bool wraps = o.zero_based && a.address > UINT64_MAX - o.base;
  const uint64_t start = o.zero_based ? o.base + a.address : a.address;
  const bool inside = !wraps && start >= o.base && a.length <= o.length &&
                      start - o.base <= o.length - a.length;
  if (!inside) return rule("R5.read.resp.bounds", "R5.write.bounds");
  return Verdict{true, ""};
}

}  // namespace their
