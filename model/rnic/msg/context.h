// SPDX-License-Identifier: Apache-2.0
// Context lookups: the fetcher and the engines ask the QP-context unit for a QP or CQ context
// entry (front/qp_context.h).
#pragma once

#include <cstdint>

#include "model/rnic/abi/bar.h"
#include "model/rnic/abi/icm.h"
#include "tlm/extensions.h"
#include "tlm/payload_pool.h"

namespace rnic {

// WqeFetcher, Requester, Responder, CompletionEngine -> QpContext: one QP or CQ context entry.
enum class ContextRole : uint8_t { Fetcher, Requester, Responder, Completion };
constexpr uint32_t kContextRoles = 4;
struct ContextRead {
  ContextKind kind = ContextKind::Qpc;  // Qpc or Cqc
  ContextRole role = ContextRole::Requester;
  uint32_t index = 0;     // QP or CQ number
  uint64_t trace_id = 0;  // the request it serves (a load shows on its timeline)
  bool ok = false;        // out: the entry was read (the caller still checks `valid`)
  // Where the entry goes (the caller's storage: no copy through the message), by kind.
  QpcEntry* qpc = nullptr;
  CqcEntry* cqc = nullptr;
};

// One lookup through `socket`; `delay` grows to when the entry is on chip. The entry is
// copied out: a pointer into the cache would not survive the next lookup.
template <typename Socket>
bool read_qpc(PayloadPool& pool, Socket& socket, ContextRole role, uint32_t qpn, uint64_t trace_id,
              QpcEntry* out, sc_core::sc_time& delay) {
  ContextRead req;
  req.kind = ContextKind::Qpc;
  req.role = role;
  req.index = qpn;
  req.trace_id = trace_id;
  req.qpc = out;
  send_message(pool, socket, req, delay);
  return req.ok;
}
template <typename Socket>
bool read_cqc(PayloadPool& pool, Socket& socket, ContextRole role, uint32_t cqn, uint64_t trace_id,
              CqcEntry* out, sc_core::sc_time& delay) {
  ContextRead req;
  req.kind = ContextKind::Cqc;
  req.role = role;
  req.index = cqn;
  req.trace_id = trace_id;
  req.cqc = out;
  send_message(pool, socket, req, delay);
  return req.ok;
}

}  // namespace rnic
