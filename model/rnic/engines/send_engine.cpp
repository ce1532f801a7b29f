// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/engines/send_engine.h"

#include <algorithm>


namespace rnic {

uint64_t OrdSlotPool::take(uint32_t ord, uint32_t outstanding, uint64_t ready_ps) {
  // The pool follows the QP's ORD, resized only when no read holds a slot.
  if (slots_ != ord && outstanding == 0) {
    free_at_ = {};
    for (uint32_t i = 0; i < ord; ++i) free_at_.push(0);
    slots_ = ord;
  }
  const uint64_t free = free_at_.top();
  free_at_.pop();
  return std::max(free, ready_ps);
}

SendEngine::SendEngine(const Config& config, const Stats& stats)
    : config_(config), stats_(stats) {}

SendEngine::Qp& SendEngine::lookup(uint32_t qpn) {
  auto [it, created] = qps_.try_emplace(qpn);
  Qp& qp = it->second;
  last_ = &qp;
  if (created) {
    qp.qpn = qpn;
    if (config_.slot_pool_ord) {
      qp.ord = std::make_unique<OrdSlotPool>();
    } else {
      qp.ord = std::make_unique<OrdCount>();
    }
  }
  return qp;
}

uint32_t SendEngine::ord_of(const QpcEntry& context) const {
  return std::max<uint32_t>(1, std::min(context.ord, config_.max_ord));
}

SendEngine::Admission SendEngine::admit(uint32_t qpn, const QpcEntry& context, const Wqe& wqe,
                                        uint32_t wqe_index, uint64_t trace_id,
                                        uint64_t start_ps, uint64_t now_ps, Actions& out) {
  Qp& qp = state(qpn);
  // A WQE that cannot start now stays in the fetcher's buffer and its QP leaves the
  // scheduler's turns until note_progress says it can go on; the other QPs' work goes ahead,
  // as a hardware send scheduler skips a QP without ORD credit.
  if (!can_start(qp, context, wqe)) {
    qp.fetcher_waiting = true;
    ++stats_.ord_stalls;
    // A read without a fence is refused only for ORD: its wait runs from its first refusal
    // (the fetcher hands it again, at a later start) to its start.
    if (!qp.ord_waiting && wqe.opcode == WqeOpcode::Read && !(wqe.flags & kWqeFlagReadFence)) {
      qp.ord_waiting = true;
      qp.ord_wait_since_ps = start_ps;
    }
    return {Step::Refused, &qp, nullptr};
  }
  if (qp.ord_waiting) {
    qp.ord_waiting = false;
    if (start_ps > qp.ord_wait_since_ps) stats_.ord_wait_ps += start_ps - qp.ord_wait_since_ps;
  }
  ++stats_.wqes;
  SendRequest& request = qp.queue.post_new();
  request.wr_id = wqe.wr_id;
  request.wqe_index = wqe_index;
  request.trace_id = trace_id;
  request.opcode = wqe.opcode;
  request.flags = wqe.flags;
  request.started_ps = start_ps;
  request.cqn = context.cqn;
  Admission admission{Step::Ended, &qp, &request};
  if (qp.queue.in_error()) {
    ++stats_.flushed;
    finish(qp, request, Decision::fail(CqeStatus::Flush, RuleId::R4_error_flush_later), now_ps,
           out);
  } else if (!context.valid || !context.connected) {
    // No usable QP context: a local QP operation error (R3.map.local_qp_op).
    finish(qp, request, Decision::fail(CqeStatus::LocalQpOperation, RuleId::None), now_ps, out);
  } else if (const RuleId malformed = wqe_malformed_rule(wqe); malformed != RuleId::None) {
    // A flag its opcode does not define, inline data that does not fit: a local QP operation
    // error, STATUS_INTERNAL_ERROR (R3.map.local_qp_op).
    finish(qp, request, Decision::fail(CqeStatus::LocalQpOperation, malformed), now_ps, out);
  } else if (wqe.opcode == WqeOpcode::Read) {
    admission.step = Step::Read;
  } else if (wqe.opcode == WqeOpcode::Write || wqe.opcode == WqeOpcode::Send ||
             wqe.opcode == WqeOpcode::SendInvalidate) {
    admission.step = Step::Outbound;
  } else if (wqe.opcode == WqeOpcode::Bind) {
    admission.step = Step::Bind;
  } else if (wqe.opcode == WqeOpcode::FastRegister) {
    admission.step = Step::FastRegister;
  } else if (wqe.opcode == WqeOpcode::Invalidate) {
    admission.step = Step::Invalidate;
  } else {
    // Not executed by this version of the device: a local QP operation error.
    finish(qp, request, Decision::fail(CqeStatus::LocalQpOperation, RuleId::None), now_ps, out);
  }
  return admission;
}

bool SendEngine::can_start(Qp& qp, const QpcEntry& context, const Wqe& wqe) const {
  if (qp.queue.in_error()) return true;  // it completes flushed at once
  const bool runs = context.valid && context.connected && wqe_well_formed(wqe);
  qp.wait_reads_below = ~uint32_t(0);
  // READ_FENCE: no request starts before every earlier read of the QP has completed.
  if (wqe.flags & kWqeFlagReadFence) {
    qp.wait_reads_below = 1;
  } else if (runs && wqe.opcode == WqeOpcode::Read) {
    qp.wait_reads_below = ord_of(context);
  }
  // The Invalidate verb is a local fence: it runs once every earlier request has finished.
  qp.wait_all_done = runs && wqe.opcode == WqeOpcode::Invalidate;
  return wait_over(qp);
}

bool SendEngine::wait_over(const Qp& qp) {
  return qp.reads_outstanding < qp.wait_reads_below &&
         !(qp.wait_all_done && qp.queue.any_running());
}

void SendEngine::note_progress(Qp& qp, Actions& out) {
  if (!qp.fetcher_waiting || !(qp.queue.in_error() || wait_over(qp))) return;
  qp.fetcher_waiting = false;
  out.ready(qp.qpn);
}

uint64_t SendEngine::issue_read(Qp& qp, SendRequest& request, const QpcEntry& context,
                                uint64_t bytes, uint64_t ready_ps, uint64_t now_ps) {
  // The gate let it through, so the count is below ORD; the mode's limit may still space it.
  const uint64_t sent_ps = qp.ord->take(ord_of(context), qp.reads_outstanding, ready_ps);
  if (sent_ps > ready_ps) {
    ++stats_.ord_stalls;
    stats_.ord_wait_ps += sent_ps - ready_ps;  // fast mode: it waited for a slot to free
  }
  request.holds_ord_slot = true;
  request.awaiting_response = true;
  request.bytes = uint32_t(bytes);
  request.sent = true;
  request.sent_ps = sent_ps;
  stats_.reads_outstanding.up(now_ps, sent_ps);
  ++qp.reads_outstanding;
  return sent_ps;
}

void SendEngine::issue_outbound(SendRequest& request, uint64_t bytes) {
  request.awaiting_response = true;
  request.bytes = uint32_t(bytes);
  request.sges = 0;  // nothing to land on the acknowledgement
  request.sent = true;
}

void SendEngine::executed(Qp& qp, uint64_t sequence, Decision decision, uint64_t now_ps,
                          Actions& out) {
  SendRequest* request = find(qp, sequence);
  if (!request) return;
  if (request->opcode == WqeOpcode::Invalidate) {
    if (!decision.failed()) request->took_effect = true;
    if (request->done) return;
  } else {
    request->took_effect = !decision.failed();
  }
  finish(qp, *request, decision, now_ps, out);
}

SendRequest* SendEngine::awaiting(const Packet* packet, Qp** qp) {
  Qp* found = nullptr;
  if (packet && last_ && last_->qpn == packet->dst_qpn) {
    found = last_;
  } else if (packet) {
    auto it = qps_.find(packet->dst_qpn);
    if (it != qps_.end()) found = &it->second;
  }
  SendRequest* request = found ? find(*found, packet->sequence) : nullptr;
  if (!request || !request->awaiting_response) {
    ++stats_.stray_responses;  // e.g. the request was flushed meanwhile
    return nullptr;
  }
  *qp = found;
  return request;
}

SendEngine::Reply SendEngine::reply(Qp& qp, SendRequest& request, const Packet& packet,
                                    uint64_t now_ps, uint64_t at_ps, Decision* decision) {
  if (packet.kind == PacketKind::RnrNak) {
    if (request.rnr_retries < config_.rnr_retry_count) {
      // Receiver not ready: send again after the RNR timer (IB 9.7.5.2.8).
      ++request.rnr_retries;
      retries_.push_back({at_ps + config_.rnr_timer_ps, packet.dst_qpn, packet.sequence});
      return Reply::Retry;
    }
    request.awaiting_response = false;
    *decision = Decision::fail(CqeStatus::RnrRetryExceeded, RuleId::R5_send_no_receive);
    return Reply::Decided;
  }
  request.awaiting_response = false;
  if (request.opcode == WqeOpcode::Read) {
    --qp.reads_outstanding;
    read_ended(request, now_ps, qp.ord->read_end_ps(now_ps, at_ps));
  }
  if (request.holds_ord_slot) {
    request.holds_ord_slot = false;
    qp.ord->release(at_ps);
  }
  // A NAK carries the responder's decision: its status and the rule that decided.
  if (packet.kind == PacketKind::Nak) {
    *decision = {packet.syndrome, packet.rule};
    return Reply::Decided;
  }
  // An acknowledgement answers a write or send; read data answers a read: anything else is a
  // protocol error (a model error: no rule).
  const bool read = request.opcode == WqeOpcode::Read;
  *decision = Decision::fail(CqeStatus::RemoteOperation, RuleId::None);
  if (packet.kind == PacketKind::Ack) {
    if (read) return Reply::Decided;
    if (request.opcode == WqeOpcode::Write) {
      *decision = Decision::ok(RuleId::R5_write_success);
    } else {
      *decision = Decision::ok(request.opcode == WqeOpcode::SendInvalidate
                                   ? RuleId::R5_send_inv_success
                                   : RuleId::R5_send_success);
    }
    return Reply::Decided;
  }
  if (!read || packet.payload.size() != request.bytes) return Reply::Decided;
  return Reply::Land;
}

void SendEngine::finish(Qp& qp, SendRequest& request, Decision decision, uint64_t now_ps,
                        Actions& out) {
  const CqeStatus status = decision.status;
  if (is_error_status(status)) ++stats_.errors;
  const auto outcome = qp.queue.finish(request, decision,
                                       [&](SendRequest& later) { cancel(qp, later, now_ps); });
  stats_.flushed += outcome.cancelled;
  stats_.errors.value -= outcome.errors_revoked;  // errors behind this one complete CANCELLED
  // The whole QP enters the error state: its responder side flushes the posted receives and
  // refuses further requests (R4.error.flush_receives, R5.peer_error), once this error's
  // completion is out.
  if (outcome.entered_error) qp.responder_notice = status;
  note_progress(qp, out);
}

void SendEngine::retire(Qp& qp, uint64_t at_ps, Actions& out) {
  qp.queue.retire([&](const SendRequest& request) {
    if (request.sent) record_latency(request, at_ps);
    if (request.status == CqeStatus::Success && (request.flags & kWqeFlagSilentSuccess)) return;
    out.complete(qp.qpn, request);
    ++stats_.completions;
  });
  if (qp.responder_notice != CqeStatus::Success && !qp.queue.error_pending()) {
    const CqeStatus cause = qp.responder_notice;
    qp.responder_notice = CqeStatus::Success;
    out.qp_error(qp.qpn, cause);
  }
}

void SendEngine::responder_failed(uint32_t qpn, uint64_t now_ps, uint64_t at_ps, Actions& out) {
  Qp& qp = state(qpn);
  if (qp.queue.in_error()) return;
  flush_all(qp, RuleId::R4_error_flush_later, now_ps, out);
  retire(qp, at_ps, out);
}

void SendEngine::flush(uint32_t qpn, uint64_t now_ps, uint64_t at_ps, Actions& out) {
  Qp& qp = state(qpn);
  flush_all(qp, RuleId::R5_flush, now_ps, out);
  retire(qp, at_ps, out);
}

void SendEngine::close(uint32_t qpn, uint64_t now_ps, uint64_t at_ps, Actions& out) {
  // Every request ahead of the marker completes (flushed, if the driver did not flush first);
  // the marker then follows their completions through the completion engine.
  flush(qpn, now_ps, at_ps, out);
  out.closed(qpn);
}

void SendEngine::context_changed(uint32_t qpn) {
  auto it = qps_.find(qpn);
  // A QP being (re)created starts clean; one being connected has no requests yet.
  if (it != qps_.end() && it->second.queue.reset_if_idle()) {
    it->second.reads_outstanding = 0;
    it->second.ord_waiting = false;
  }
}

void SendEngine::flush_all(Qp& qp, RuleId rule, uint64_t now_ps, Actions& out) {
  stats_.flushed +=
      qp.queue.flush_all(rule, [&](SendRequest& request) { cancel(qp, request, now_ps); });
  note_progress(qp, out);
}

void SendEngine::cancel(Qp& qp, SendRequest& request, uint64_t now_ps) {
  if (request.awaiting_response && request.opcode == WqeOpcode::Read) {
    --qp.reads_outstanding;
    read_ended(request, now_ps, now_ps);
  }
  if (request.holds_ord_slot) {
    request.holds_ord_slot = false;
    qp.ord->release(now_ps);
  }
  request.awaiting_response = false;
}

void SendEngine::read_ended(const SendRequest& request, uint64_t now_ps, uint64_t at_ps) {
  // Not before it was sent: a read spaced by the ORD slots may be cancelled before it left.
  stats_.reads_outstanding.down(now_ps, std::max(at_ps, request.sent_ps));
}

void SendEngine::record_latency(const SendRequest& request, uint64_t end_ps) {
  const uint64_t ps = end_ps > request.started_ps ? end_ps - request.started_ps : 0;
  if (request.opcode == WqeOpcode::Read) {
    stats_.read_latency.add_ps(ps);
  } else if (request.opcode == WqeOpcode::Write) {
    stats_.write_latency.add_ps(ps);
  } else {
    stats_.send_latency.add_ps(ps);  // Send, SendInvalidate: the only other kinds that go out
  }
}

Packet* SendEngine::take_retry() {
  const RetryAt retry = retries_.front();
  retries_.pop_front();
  auto it = qps_.find(retry.qpn);
  SendRequest* request = it != qps_.end() ? find(it->second, retry.sequence) : nullptr;
  if (!request || request->done || !request->awaiting_response) return nullptr;  // flushed
  return &request->retry;
}

uint32_t SendEngine::wqes_in_flight() const {
  size_t n = 0;
  for (const auto& [qpn, qp] : qps_) n += qp.queue.size();
  return uint32_t(n);
}

uint32_t SendEngine::reads_outstanding() const {
  uint32_t n = 0;
  for (const auto& [qpn, qp] : qps_) n += qp.reads_outstanding;
  return n;
}

}  // namespace rnic
