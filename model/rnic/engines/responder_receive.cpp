// SPDX-License-Identifier: Apache-2.0
// The Responder's receive queue: sends consume posted receives in order.
#include <algorithm>

#include "model/rnic/engines/responder.h"

namespace rnic {

void Responder::ring(int, Doorbell& doorbell, sc_core::sc_time& delay) {
  const Doorbell* db = &doorbell;
  if (db->number >= icm_.qpc_entries) return;
  QpState& qp = qps_[db->number];
  qp.receives.post(db->index);
  // Receives posted to a QP in the error state complete at once with a flush status.
  if (qp.receives.in_error()) flush_receives(db->number, qp, delay);
}

void Responder::qp_error(int, QpErrorEvent& event_message, sc_core::sc_time& delay) {
  const QpErrorEvent* event = &event_message;
  if (event->qpn >= icm_.qpc_entries) return;
  QpState& qp = qps_[event->qpn];
  if (!qp.receives.enter_error()) return;
  flush_receives(event->qpn, qp, delay);
}

Wqe Responder::read_receive(uint32_t qpn, const QpcEntry& context, uint32_t index,
                           sc_core::sc_time& delay) {
  uint8_t raw[kWqeBytes];
  const uint64_t addr = context.rq_base + uint64_t(index % context.rq_depth) * kWqeBytes;
  const DmaAuthority ring = DmaAuthority::of_queue(DmaAuthority::Kind::ReceiveQueue, qpn);
  if (!dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND, addr, raw, kWqeBytes,
                    DmaSource::WqeFetch, &ring, delay))
    return Wqe{};
  return Wqe::decode(raw);
}

void Responder::complete(const QpcEntry& context, const Cqe& cqe, sc_core::sc_time& delay,
                         uint64_t trace_id) {
  CompletionRecord record;
  record.trace_id = trace_id;
  record.cqn = context.cqn;
  record.cqe = cqe;
  sc_core::sc_time d = delay;
  cq_isock->complete(record, d);
}

void Responder::flush_receives(uint32_t qpn, QpState& qp, sc_core::sc_time& delay) {
  QpcEntry found_entry;
  const QpcEntry* found = qpc(qpn, &found_entry, delay);
  const ReceiveQueue::Range flushed = qp.receives.take_all(found ? found->rq_depth : 0);
  if (flushed.size() == 0) return;
  const QpcEntry context = *found;
  for (uint32_t index = flushed.first; index != flushed.end; ++index) {
    const Wqe receive = read_receive(qpn, context, index, delay);
    Cqe cqe;
    cqe.status = CqeStatus::Flush;
    cqe.rule = uint16_t(RuleId::R4_error_flush_receives);
    cqe.opcode = CqeOpcode::Receive;
    cqe.wr_id = receive.wr_id;
    cqe.qpn = qpn;
    cqe.wqe_index = index;
    complete(context, cqe, delay);
    ++receives_;
  }
}

Decision Responder::land_send(const Packet& request, const QpcEntry& context, const Wqe& receive,
                              Cqe& cqe, sc_core::sc_time& delay) {
  // The receive's completion and the sender's (the NAK) name the same rule.
  auto fail = [&cqe](CqeStatus receiver, CqeStatus sender, RuleId rule) {
    cqe.status = receiver;
    cqe.rule = uint16_t(rule);
    return Decision::fail(sender, rule);
  };
  const uint64_t length = request.payload.size();
  if (receive.nsge > kMaxSge || receive.nsge > config_.qp.max_sge)
    return fail(CqeStatus::LocalQpOperation, CqeStatus::RemoteOperation,
                RuleId::R4_inline_sge_count);
  if (length > receive.sgl_length())  // receive buffer too small
    return fail(CqeStatus::LocalLength, CqeStatus::RemoteInvalidRequest, RuleId::R5_send_overrun);
  // Check every receive SGE the data reaches before moving a byte.
  std::array<ProtectionRequest, kMaxSge> checks;
  uint64_t left = length;
  uint32_t used = 0;
  for (uint32_t i = 0; i < receive.nsge && left > 0; ++i) {
    const Sge& sge = receive.sge[i];
    if (sge.length == 0) continue;
    ProtectionRequest& check = checks[used++];
    check.op = ProtectionOp::LocalAccess;
    check.token = sge.token;
    check.pd = context.pd;
    check.qpn = request.dst_qpn;
    check.va = sge.addr;
    check.length = sge.length;
    check.access = kAccessLocalWrite;
    check.checks = CheckList::ReceiveSge;
    check.verb = RequestVerb::Receive;
    check.trace_id = request.trace_id;
    check_isock->check(check, delay);
    if (check.status != CqeStatus::Success)
      return fail(CqeStatus::LocalProtection, CqeStatus::RemoteOperation, check.rule);
    left -= std::min<uint64_t>(left, sge.length);
  }
  uint64_t offset = 0;
  for (uint32_t i = 0; i < used && offset < length; ++i) {
    const uint64_t n = std::min<uint64_t>(checks[i].length, length - offset);
    translate_.region = checks[i].region;
    translate_.va = checks[i].target_va;
    translate_.length = n;
    translate_.trace_id = request.trace_id;
    xlate_isock->translate(translate_, delay);
    DmaAuthority authority;  // the receive SGE's token, checked for its whole length
    authority.kind = DmaAuthority::Kind::Data;
    authority.checks = CheckList::ReceiveSge;
    authority.verb = RequestVerb::Receive;
    authority.access = kAccessLocalWrite;
    authority.token = checks[i].token;
    authority.pd = context.pd;
    authority.qpn = request.dst_qpn;
    authority.va = checks[i].va;
    authority.length = checks[i].length;
    authority.trace_id = request.trace_id;
    DmaRequest write;
    write.authority = &authority;
    write.trace_id = request.trace_id;
    write.segments = &translate_.segments;
    write.data = const_cast<uint8_t*>(request.payload.data()) + offset;
    if (translate_.ok) write_isock->move(write, delay);
    if (!translate_.ok || !write.ok)  // a model error: no rule
      return fail(CqeStatus::LocalProtection, CqeStatus::RemoteOperation, RuleId::None);
    offset += n;
  }
  if (request.invalidate) {
    ProtectionRequest invalidate;
    invalidate.op = ProtectionOp::Invalidate;
    invalidate.verb = RequestVerb::SendInvalidate;
    invalidate.token = request.remote_token;
    invalidate.pd = context.pd;
    invalidate.qpn = request.dst_qpn;
    invalidate.trace_id = request.trace_id;
    check_isock->check(invalidate, delay);
    if (invalidate.status != CqeStatus::Success) {
      // An invalid token in a SendAndInvalidate fails the receiver's QP (R5.send_inv.invalid):
      // the rule is the Invalidate check that refused it.
      return fail(CqeStatus::LocalProtection, CqeStatus::RemoteInvalidRequest, invalidate.rule);
    }
    cqe.opcode = CqeOpcode::ReceiveInvalidate;
    cqe.invalidated_token = request.remote_token;
    cqe.rule = uint16_t(RuleId::R5_send_inv_success);
  } else {
    cqe.rule = uint16_t(RuleId::R5_send_success);
  }
  cqe.byte_count = uint32_t(length);
  return Decision::ok();
}

Decision Responder::serve_send(const Packet& request, const QpcEntry& context, QpState& qp,
                               bool* rnr, sc_core::sc_time& delay) {
  ++send_requests_;
  uint32_t index = 0;
  if (!qp.receives.take(context.rq_depth, &index)) {
    ++rnr_naks_;
    *rnr = true;
    return Decision::ok();
  }
  ++receives_;
  const Wqe receive = read_receive(request.dst_qpn, context, index, delay);
  Cqe cqe;
  cqe.opcode = CqeOpcode::Receive;
  cqe.wr_id = receive.wr_id;
  cqe.qpn = request.dst_qpn;
  cqe.wqe_index = index;
  const Decision decision = land_send(request, context, receive, cqe, delay);
  // The receive completes before the QP (on an error) flushes the receives after it.
  complete(context, cqe, delay, request.trace_id);
  return decision;
}

}  // namespace rnic
