// SPDX-License-Identifier: Apache-2.0
// The Requester's verb executors: what each send-queue WQE does on the device.
#include <algorithm>

#include "model/rnic/engines/requester.h"
#include "model/rnic/protection/protection_rules.h"

namespace rnic {

Decision Requester::check_sgl(uint32_t qpn, const QpcEntry& context, const Wqe& wqe,
                              uint16_t access, CheckList checks, Pending& p, uint64_t* total,
                              sc_core::sc_time& delay) {
  // The driver's inline limits, repeated for a WQE that did not come through it.
  if (wqe.nsge > config_.qp.max_sge || wqe.nsge > kMaxSge)
    return Decision::fail(CqeStatus::LocalQpOperation, RuleId::R4_inline_sge_count);
  *total = 0;
  p.sinks = 0;
  p.pd = context.pd;
  for (uint32_t i = 0; i < wqe.nsge; ++i) {
    const Sge& sge = wqe.sge[i];
    if (sge.length == 0) continue;
    ProtectionRequest check;
    check.op = ProtectionOp::LocalAccess;
    check.token = sge.token;
    check.pd = context.pd;
    check.qpn = qpn;
    check.va = sge.addr;
    check.length = sge.length;
    check.access = access;
    check.checks = checks;
    check.verb = wqe.opcode == WqeOpcode::Read             ? RequestVerb::Read
                 : wqe.opcode == WqeOpcode::Write          ? RequestVerb::Write
                 : wqe.opcode == WqeOpcode::SendInvalidate ? RequestVerb::SendInvalidate
                                                           : RequestVerb::Send;
    check.trace_id = p.trace_id;
    send_message(pool_, check_isock, check, delay);
    if (check.status != CqeStatus::Success)
      return Decision::fail(CqeStatus::LocalProtection, check.rule);
    if (p.sinks == 0) {
      p.first_sink_token = sge.token;
      p.mpt_generation = check.generation;  // the earliest: a later change is then seen
    }
    p.sink[p.sinks++] = SinkSge{check.region, sge.addr, sge.length, sge.token};
    *total += sge.length;
  }
  if (*total > config_.qp.max_transfer_bytes)
    return Decision::fail(CqeStatus::LocalLength, RuleId::R4_inline_total_length);
  p.sink_access = access;
  p.sink_checks = checks;
  return Decision::ok();
}

void Requester::execute_read(uint32_t qpn, QpState& qp, const QpcEntry& context,
                             uint64_t sequence, const Wqe& wqe, sc_core::sc_time& delay) {
  Pending* p = find(qp, sequence);
  // Sink checks (R5.read.sink.*, requester side): VALID local MR of this PD, local write,
  // inside the MR, and RDMA_READ_SINK unless the adapter does not require it.
  uint16_t access = kAccessLocalWrite;
  if (!(config_.adapter_flags & caps::kRdmaReadSinkNotRequired)) access |= kAccessReadSink;
  uint64_t total = 0;
  const Decision checked =
      check_sgl(qpn, context, wqe, access, CheckList::ReadSink, *p, &total, delay);
  p = find(qp, sequence);
  if (checked.failed()) {
    finish(qp, *p, checked);
    return;
  }
  // An ORD slot is free: the fetcher hands a read over only then (can_start).
  const uint32_t ord = std::max<uint32_t>(1, std::min(context.ord, config_.qp.max_ord));
  if (config_.fast) {
    if (qp.ord_slot_count != ord && qp.reads_outstanding == 0) {
      qp.ord_slots.resize(ord);
      qp.ord_slot_count = ord;
    }
    const sc_core::sc_time now = sim_time(*this);
    const sc_core::sc_time start = qp.ord_slots.acquire(now + delay);
    if (start > now + delay) ++ord_stalls_;
    delay = start - now;
    p->holds_ord_slot = true;
  }
  start_request(PacketKind::ReadRequest, qpn, context, sequence, wqe, total);
  tx_packet_.trace_id = p->trace_id;
  tx_packet_.payload.clear();
  p->awaiting_response = true;
  p->bytes = uint32_t(total);
  p->sent = true;
  const sc_core::sc_time now = sim_time(*this);
  p->sent_ps = (now + delay).value();
  reads_in_flight_.up(now.value(), p->sent_ps);
  ++qp.reads_outstanding;
  ++reads_;
  send_message(pool_, tx_isock, tx_packet_, delay);
}

void Requester::start_request(PacketKind kind, uint32_t qpn, const QpcEntry& context,
                              uint64_t sequence, const Wqe& wqe, uint64_t length) {
  tx_packet_.kind = kind;
  tx_packet_.src_node = node_id_;
  tx_packet_.dst_node = context.peer_node;
  tx_packet_.src_qpn = qpn;
  tx_packet_.dst_qpn = context.peer_qpn;
  tx_packet_.sequence = sequence;
  tx_packet_.remote_addr = wqe.remote_addr;
  tx_packet_.remote_token = wqe.remote_token;
  tx_packet_.length = uint32_t(length);
  tx_packet_.syndrome = CqeStatus::Success;
  tx_packet_.rule = RuleId::None;
  tx_packet_.invalidate = false;
}

Decision Requester::execute_bind(uint32_t qpn, const QpcEntry& context, const Wqe& wqe,
                                 uint64_t trace_id, sc_core::sc_time& delay) {
  ProtectionRequest bind;
  bind.trace_id = trace_id;
  bind.op = ProtectionOp::Bind;
  bind.token = wqe.remote_token;
  bind.mr_token = wqe.aux_token;
  bind.pd = context.pd;
  bind.qpn = qpn;
  bind.va = wqe.remote_addr;
  bind.length = wqe.length;
  bind.rights = access_from_op_flags(wqe.access) & (kAccessRemoteRead | kAccessRemoteWrite);
  bind.zero_based = wqe.zero_based ? 1 : 0;
  bind.verb = RequestVerb::Bind;
  send_message(pool_, check_isock, bind, delay);
  if (bind.status == CqeStatus::Success) ++binds_;
  return {bind.status, bind.rule};
}

void Requester::execute_outbound(uint32_t qpn, QpState& qp, const QpcEntry& context,
                                 uint64_t sequence, const Wqe& wqe, sc_core::sc_time& delay) {
  Pending* p = find(qp, sequence);
  uint64_t total = 0;
  if (wqe.is_inline()) {
    // INLINE (R2.inline): the payload was copied into the WQE at post time; there are no
    // SGEs, so no local key check and no DMA read of the source buffer.
    total = wqe.length;  // <= kMaxInlineBytes: wqe_well_formed() checked it
    p->sinks = 0;
    tx_packet_.payload.assign(wqe.inline_data.begin(), wqe.inline_data.begin() + total);
  } else {
    // Source SGEs: local read is always granted, so only key, PD and range are checked.
    const Decision checked = check_sgl(qpn, context, wqe, 0, CheckList::Source, *p, &total, delay);
    if (checked.failed()) {
      finish(qp, *p, checked);
      return;
    }
    tx_packet_.payload.resize(total);
  }
  uint64_t offset = 0;
  for (uint32_t i = 0; i < p->sinks; ++i) {
    const SinkSge& source = p->sink[i];
    translate_.region = source.region;
    translate_.va = source.va;
    translate_.length = source.length;
    translate_.trace_id = p->trace_id;
    send_message(pool_, xlate_isock, translate_, delay);
    const DmaAuthority authority = sge_authority(qpn, *p, source);
    DmaRequest read;
    read.authority = &authority;
    read.segments = &translate_.segments;
    read.data = tx_packet_.payload.data() + offset;
    read.trace_id = p->trace_id;
    if (translate_.ok) {
      const TraceScope slice(dma_read_trace_, "DMA read", p->trace_id, delay);
      send_message(pool_, read_isock, read, delay);
    }
    if (!translate_.ok || !read.ok) {
      finish(qp, *p, Decision::fail(CqeStatus::LocalProtection, RuleId::None));  // model error
      return;
    }
    offset += source.length;
  }
  const bool send = wqe.opcode == WqeOpcode::Send || wqe.opcode == WqeOpcode::SendInvalidate;
  start_request(send ? PacketKind::SendRequest : PacketKind::WriteRequest, qpn, context, sequence,
                wqe, total);
  tx_packet_.invalidate = wqe.opcode == WqeOpcode::SendInvalidate;
  tx_packet_.trace_id = p->trace_id;
  p->awaiting_response = true;
  p->bytes = uint32_t(total);
  p->sinks = 0;  // nothing to land on the acknowledgement
  p->sent = true;
  if (send) {
    p->retry = tx_packet_;  // kept for RNR retries
    ++sends_;
  } else {
    ++writes_;
  }
  send_message(pool_, tx_isock, tx_packet_, delay);
}

Decision Requester::execute_fast_register(uint32_t qpn, const QpcEntry& context, const Wqe& wqe,
                                          uint64_t trace_id, sc_core::sc_time& delay) {
  ProtectionRequest req;
  req.trace_id = trace_id;
  req.op = ProtectionOp::FastRegisterCheck;
  req.token = wqe.remote_token;
  req.pd = context.pd;
  req.qpn = qpn;
  req.va = wqe.remote_addr;
  req.length = wqe.length;
  req.rights = access_from_op_flags(wqe.access);
  req.page_count = wqe.page_count;
  req.fbo = wqe.fbo;
  req.verb = RequestVerb::FastRegister;
  send_message(pool_, check_isock, req, delay);
  if (req.status != CqeStatus::Success) return {req.status, req.rule};
  // The device reads the page array by DMA and writes the translation entries; an unaligned
  // page address, the last check, fails it there (R5.fr.page_align).
  PageListLoad load;
  load.page_list = wqe.page_list;
  load.count = wqe.page_count;
  load.mtt_index = req.region.mtt_index;
  load.page_shift = 12;
  load.trace_id = trace_id;
  DmaAuthority authority;
  authority.kind = DmaAuthority::Kind::PageList;
  authority.verb = RequestVerb::FastRegister;
  authority.token = wqe.remote_token;
  authority.pd = context.pd;
  authority.qpn = qpn;
  authority.va = wqe.page_list;
  authority.number = wqe.page_count;
  authority.trace_id = trace_id;
  load.authority = &authority;
  send_message(pool_, xlate_isock, load, delay);
  if (!load.ok) return Decision::fail(CqeStatus::LocalProtection, load.rule);
  req.op = ProtectionOp::FastRegisterCommit;
  send_message(pool_, check_isock, req, delay);
  if (req.status != CqeStatus::Success) return {req.status, req.rule};
  ++fast_registers_;
  return Decision::ok(RuleId::R5_fr_success);
}

Decision Requester::execute_invalidate(uint32_t qpn, const QpcEntry& context, const Wqe& wqe,
                                       uint64_t trace_id, sc_core::sc_time& delay) {
  // Every earlier request of the QP has finished: the fetcher hands it over only then.
  ProtectionRequest req;
  req.trace_id = trace_id;
  req.op = ProtectionOp::Invalidate;
  req.token = wqe.remote_token;
  req.by_object = true;  // the Invalidate verb names the object (R5.inv.token)
  req.verb = RequestVerb::Invalidate;
  req.pd = context.pd;
  req.qpn = qpn;
  send_message(pool_, check_isock, req, delay);
  if (req.status == CqeStatus::Success) ++invalidates_;
  return {req.status, req.rule};
}

}  // namespace rnic
