// SPDX-License-Identifier: Apache-2.0
// Context lookups: the fetcher, the responder and the completion engine ask the QP-context
// unit for a QP or CQ context entry (front/qp_context.h). The requester asks nobody: the
// fetcher hands it the context with each WQE (WorkRequest::context).
#pragma once

#include <cstdint>
#include <type_traits>

#include "model/rnic/abi/bar.h"
#include "model/rnic/abi/icm.h"

namespace rnic {

// WqeFetcher, Responder, CompletionEngine -> QpContext: one QP or CQ context entry. The unit
// knows who asks from the socket the lookup came through: the callers bind its lookup socket
// in ContextRole order (model/rnic/rnic.cpp).
enum class ContextRole : uint8_t { Fetcher, Responder, Completion };
constexpr uint32_t kContextRoles = 3;
struct ContextRead {
  ContextKind kind = ContextKind::Qpc;  // Qpc or Cqc
  uint32_t index = 0;     // QP or CQ number
  uint64_t trace_id = 0;  // the request it serves (a load shows on its timeline)
  bool ok = false;        // out: the entry was read (the caller still checks `valid`)
  // Where the entry goes (the caller's storage: no copy through the message), by kind.
  QpcEntry* qpc = nullptr;
  CqcEntry* cqc = nullptr;
};

// One lookup through `socket` of a QP context (QpcEntry) or CQ context (CqcEntry) numbered
// `index`; `delay` grows to when the entry is on chip. The entry is copied out: a pointer
// into the cache would not survive the next lookup.
template <typename Socket, typename Entry>
bool read_context(Socket& socket, uint32_t index, uint64_t trace_id, Entry* out,
                  sc_core::sc_time& delay) {
  static_assert(std::is_same_v<Entry, QpcEntry> || std::is_same_v<Entry, CqcEntry>,
                "a context is a QPC or a CQC entry");
  ContextRead req;
  req.index = index;
  req.trace_id = trace_id;
  if constexpr (std::is_same_v<Entry, QpcEntry>) {
    req.kind = ContextKind::Qpc;
    req.qpc = out;
  } else {
    req.kind = ContextKind::Cqc;
    req.cqc = out;
  }
  socket->lookup(req, delay);
  return req.ok;
}

}  // namespace rnic
