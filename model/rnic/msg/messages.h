// SPDX-License-Identifier: Apache-2.0
// Messages carried between device units, each on its link's protocol (msg/protocols.h).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <systemc>

#include "model/rnic/abi/bar.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/abi/rules.h"
#include "model/rnic/abi/wqe.h"
#include "model/rnic/msg/dma.h"
#include "model/rnic/msg/engine_side.h"
#include "model/rnic/net/packet.h"

namespace rnic {

// Doorbells -> WqeFetcher / CompletionEngine.
struct Doorbell {
  enum class Kind : uint8_t { SendQueue, ReceiveQueue, CqConsumer };
  Kind kind = Kind::SendQueue;
  uint32_t number = 0;  // QP or CQ number
  uint32_t index = 0;   // producer index (queues) or consumer index (CQ)
  bool arm = false;     // CQ: interrupt at the next entry (bar::kCqArm)
  // BlueFlame: the WQE at index - 1, written with the doorbell (bar::kSqBlueFlame).
  bool with_wqe = false;
  std::array<uint8_t, kWqeBytes> wqe{};
};

// Doorbells -> every unit caching a table: the driver changed these entries (the context-change
// register's payload, abi/bar.h).
struct ContextChange {
  ContextKind kind = ContextKind::Mpt;
  uint32_t index = 0;
  uint32_t count = 1;
};

// Doorbells -> CompletionEngine: the driver set the interrupt message address.
struct InterruptVector {
  uint64_t address = 0;  // 0: no interrupts
};

// WqeFetcher -> Requester. The QP context travels with the WQE, as read when its batch was
// fetched: the send pipeline carries it forward instead of the requester asking again.
struct WorkRequest {
  uint32_t qpn = 0;
  uint32_t wqe_index = 0;
  Wqe wqe;
  QpcEntry context;
  uint64_t trace_id = 0;  // the request's timeline id (tlm/trace.h); 0 = none
  bool close = false;     // no WQE: the QP's close marker, behind its last WQE (QpClose)
  // Set by the Requester: the WQE cannot start now (ORD full, a fence) and was not taken. It
  // stays in the fetcher's WQE buffer; a SendQueueReady says when the QP can go on.
  bool refused = false;
};

// Requester -> WqeFetcher: QP `qpn`, which refused a WQE, can take it now.
struct SendQueueReady {
  uint32_t qpn = 0;
};

// Responder -> Requester of the same device: the QP went to the error state.
struct QpErrorEvent {
  uint32_t qpn = 0;
  CqeStatus cause = CqeStatus::Success;
};

// What the MTT needs to translate inside one registered region.
struct Region {
  uint32_t mtt_index = 0;     // MTT entry of the page holding page_base_va
  uint8_t page_shift = 12;
  uint64_t page_base_va = 0;  // region base VA rounded down to its page size
};

enum class ProtectionOp : uint8_t {
  LocalAccess,
  RemoteAccess,
  Bind,
  FastRegisterCheck,   // MR may be fast-registered with these parameters (region = its MTT)
  FastRegisterCommit,  // MR becomes VALID with the new tag, range and rights
  Invalidate,          // MR/MW named by token becomes FREE
  // Has any MPT entry changed since `generation`? Answers in mpt_changed; when none has, the
  // checks made then still hold. A read's sinks are checked in full once, when the read
  // starts, and rechecked this cheaply when its data lands.
  Recheck,
};

// Requester / Responder -> ProtectionChecker.
struct ProtectionRequest {
  ProtectionOp op = ProtectionOp::LocalAccess;
  uint32_t token = 0;   // local or remote token; Bind: the MW's new token (index, new tag)
  uint32_t pd = 0;      // PD of the QP asking
  uint32_t qpn = 0;     // QP asking (windows are bound to one QP)
  uint64_t va = 0;      // start of the access (zero-based windows: offset)
  uint64_t length = 0;
  uint16_t access = 0;  // MptAccess bits the access needs
  // LocalAccess: whose checks (a read's sink, a write's or send's source, a receive SGE)
  CheckList checks = CheckList::ReadSink;
  RequestVerb verb = RequestVerb::Read;  // what the request is doing (coverage only)
  // Bind only
  uint32_t mr_token = 0;
  uint16_t rights = 0;   // MptAccess bits the window (Bind) or region (FastRegister) grants
  uint8_t zero_based = 0;
  // Invalidate only: the verb names the object, its tag is not checked (R5.inv.token)
  bool by_object = false;
  // FastRegister only
  uint32_t page_count = 0;
  uint32_t fbo = 0;
  // Results
  CqeStatus status = CqeStatus::Success;
  RuleId rule = RuleId::None;  // the rule that decided (abi/rules.h)
  // The object the token named, as the check found it (coverage only).
  MptKind object_kind = MptKind::None;
  MptState object_state = MptState::Unused;
  Region region;
  uint64_t target_va = 0;  // the absolute VA accessed (differs from va for zero-based windows)
  uint32_t new_token = 0;  // Bind: the window's token
  // The MPT generation the answer was given at (every op); Recheck: the one to compare with.
  uint64_t generation = 0;
  bool mpt_changed = false;  // Recheck: an MPT entry changed since `generation`
  uint64_t trace_id = 0;   // the work request asking (tracing only)
  // Who asked: set by the unit from the socket the request came through (the requester binds
  // first, the responder second: model/rnic/rnic.cpp), not by the caller.
  EngineSide side = EngineSide::Requester;
};

struct PhysSegment {
  uint64_t addr = 0;
  uint32_t length = 0;
};

// Requester -> Mtt: load `count` page addresses from the page array at `page_list` into the
// MTT entries starting at `mtt_index` (fast-register). Fails on an unaligned page address.
struct PageListLoad {
  uint64_t page_list = 0;
  uint32_t count = 0;
  uint32_t mtt_index = 0;
  uint8_t page_shift = 12;
  bool ok = false;
  RuleId rule = RuleId::None;  // a refusal's rule (R5.fr.page_align)
  // Who asked: set by the MTT from the socket the load came through (as for a translation).
  EngineSide side = EngineSide::Requester;
  uint64_t trace_id = 0;  // the work request asking (tracing only)
  const DmaAuthority* authority = nullptr;  // the WQE's page list and MR, for the DMAs
};

// Requester / Responder -> Mtt. `segments` keeps its capacity between uses.
struct TranslateRequest {
  Region region;
  uint64_t va = 0;
  uint64_t length = 0;
  std::vector<PhysSegment> segments;
  bool ok = false;
  uint64_t trace_id = 0;  // the work request asking (tracing only)
  // Who asked: set by the unit from the socket the request came through (the requester binds
  // first, the responder second: model/rnic/rnic.cpp), not by the caller.
  EngineSide side = EngineSide::Requester;
};

// Responder -> DmaReadEngine, Requester -> DmaWriteEngine.
struct DmaRequest {
  const std::vector<PhysSegment>* segments = nullptr;
  uint8_t* data = nullptr;  // length = sum of segment lengths
  DmaSource source = DmaSource::ReadData;
  // The request the data serves: the segments are the translation of [va, va + their length).
  const DmaAuthority* authority = nullptr;
  bool ok = false;
  uint64_t trace_id = 0;  // the work request asking (tracing only)
};

// Requester / Responder -> CompletionEngine.
struct CompletionRecord {
  uint32_t cqn = 0;
  Cqe cqe;
  uint64_t trace_id = 0;  // the work request completed (tracing only)
  bool close = false;     // no entry: set QpcEntry::closed of QP cqe.qpn (QpClose drained)
};

}  // namespace rnic
