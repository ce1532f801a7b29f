// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/engines/requester.h"

#include <algorithm>

#include "model/rnic/protection/protection_rules.h"

namespace rnic {

Requester::Requester(sc_core::sc_module_name name, const Config& config, uint32_t node_id)
    : sc_module(name),
      work_tsock("work_tsock"),
      response_tsock("response_tsock"),
      qp_event_tsock("qp_event_tsock"),
      ctrl_tsock("ctrl_tsock"),
      check_isock("check_isock"),
      xlate_isock("xlate_isock"),
      write_isock("write_isock"),
      read_isock("read_isock"),
      tx_isock("tx_isock"),
      cq_isock("cq_isock"),
      qp_event_isock("qp_event_isock"),
      ready_isock("ready_isock"),
      stats(std::string(this->name())),
      config_(config),
      node_id_(node_id),
      clock_(config.clock_mhz),
      wqes_(stats.add("wqes", "WQEs", "send-queue requests executed")),
      reads_(stats.add("reads", "requests", "RDMA read requests sent")),
      binds_(stats.add("binds", "requests", "bind requests executed")),
      sends_(stats.add("sends", "requests", "sends transmitted (first attempts)")),
      rnr_retries_(stats.add("rnr_retries", "packets", "sends retransmitted after an RNR NAK")),
      writes_(stats.add("writes", "requests", "RDMA write requests sent")),
      fast_registers_(stats.add("fast_registers", "requests", "fast-register requests executed")),
      invalidates_(stats.add("invalidates", "requests", "invalidate requests executed")),
      read_bytes_(stats.add("read_bytes", "bytes", "read response bytes landed in sinks")),
      completions_(stats.add("completions", "entries", "completions handed to the CQ engine")),
      errors_(stats.add("errors", "requests", "requests that ended with an error status")),
      flushed_(stats.add("flushed", "requests", "requests flushed by the QP error state")),
      ord_stalls_(
          stats.add("ord_stalls", "requests",
                    "WQEs that waited for an ORD slot or a fence: refused and kept by the "
                    "fetcher while other QPs go on (cycle mode), or started later (fast mode)")),
      stray_responses_(stats.add("stray_responses", "packets", "responses matching no read")),
      read_latency_(stats.add_histogram(
          "read_latency_ns",
          "RDMA read sent: execution start to retirement (completion hand-off)")),
      write_latency_(stats.add_histogram(
          "write_latency_ns", "RDMA write sent: execution start to retirement after its ACK")),
      send_latency_(stats.add_histogram("send_latency_ns",
                                        "send sent: execution start to retirement after its ACK")),
      reads_in_flight_(stats.add_occupancy(
          "reads_outstanding", "reads",
          "reads sent and awaiting their response, all QPs (per QP at most its ORD)")) {
  work_tsock.register_b_transport(this, &Requester::work_b_transport);
  response_tsock.register_b_transport(this, &Requester::response_b_transport);
  qp_event_tsock.register_b_transport(this, &Requester::qp_event_b_transport);
  ctrl_tsock.register_b_transport(this, &Requester::ctrl_b_transport);
  SC_HAS_PROCESS(Requester);
  SC_THREAD(retry_thread);
  if (config.fast) set_stack_size(4u << 20);  // retransmissions run nested, as in WqeFetcher
}

void Requester::retry_thread() {
  for (;;) {
    if (retries_.empty()) {
      wait(retry_event_);
      continue;
    }
    const sc_core::sc_time now = sim_time(*this);
    if (retries_.front().at > now) {
      wait(retries_.front().at - now, retry_event_);
      continue;
    }
    const RetryAt retry = retries_.front();
    retries_.pop_front();
    auto it = qps_.find(retry.qpn);
    Pending* p = it != qps_.end() ? find(it->second, retry.sequence) : nullptr;
    if (!p || p->done || !p->awaiting_response) continue;  // flushed meanwhile
    ++rnr_retries_;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    send_message(pool_, tx_isock, p->retry, delay);
  }
}

Requester::QpState& Requester::state(uint32_t qpn) {
  QpState& qp = qps_[qpn];
  qp.qpn = qpn;
  return qp;
}

void Requester::work_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  WorkRequest* work = message_of<WorkRequest>(gp);
  if (!work) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  if (work->close) {
    close(work->qpn, delay);
    return;
  }
  const uint32_t qpn = work->qpn;
  // The message lives in the fetcher until this call returns, waits included.
  const Wqe& wqe = work->wqe;
  const QpcEntry& context = work->context;  // read by the fetcher with the WQE's batch
  const uint32_t wqe_index = work->wqe_index;
  const uint64_t trace_id = work->trace_id;
  QpState& qp = state(qpn);
  // A WQE that cannot start now stays in the fetcher's buffer and its QP leaves the
  // scheduler's turns until note_progress says it can go on; the other QPs' work goes ahead,
  // as a hardware send scheduler skips a QP without ORD credit. (Waiting here instead held
  // the fetcher, so one QP at its ORD stalled every QP of the device: a limit of the code.)
  if (!can_start(qp, context, wqe)) {
    work->refused = true;
    qp.fetcher_waiting = true;
    ++ord_stalls_;
    return;
  }
  ++wqes_;
  // Execution starts at the annotated time, when the WQE is decoded, in both modes, with no
  // wait: a wait here held the fetcher's thread through every WQE's decode latency, so WQEs
  // left the decoder one latency apart instead of wqe.decode_ii_cycles apart.
  const TraceScope slice(trace_, "execute", trace_id, delay);

  Pending& entry = qp.queue.post_new();
  entry.wr_id = wqe.wr_id;
  entry.wqe_index = wqe_index;
  entry.trace_id = trace_id;
  entry.opcode = wqe.opcode;
  entry.flags = wqe.flags;
  entry.started_ps = (sim_time(*this) + delay).value();
  entry.cqn = context.cqn;
  const uint64_t sequence = entry.sequence;

  Pending* posted = find(qp, sequence);
  if (qp.queue.in_error()) {
    ++flushed_;
    finish(qp, *posted, Decision::fail(CqeStatus::Flush, RuleId::R4_error_flush_later));
  } else if (!context.valid || !context.connected) {
    // No usable QP context: a local QP operation error (R3.map.local_qp_op).
    finish(qp, *posted, Decision::fail(CqeStatus::LocalQpOperation, RuleId::None));
  } else if (const RuleId malformed = wqe_malformed_rule(wqe); malformed != RuleId::None) {
    // A malformed WQE (a flag its opcode does not define, inline data that does not fit): a
    // local QP operation error, STATUS_INTERNAL_ERROR (R3.map.local_qp_op).
    finish(qp, *posted, Decision::fail(CqeStatus::LocalQpOperation, malformed));
  } else if (wqe.opcode == WqeOpcode::Read) {
    execute_read(qpn, qp, context, sequence, wqe, delay);
  } else if (wqe.opcode == WqeOpcode::Write || wqe.opcode == WqeOpcode::Send ||
             wqe.opcode == WqeOpcode::SendInvalidate) {
    execute_outbound(qpn, qp, context, sequence, wqe, delay);
  } else if (wqe.opcode == WqeOpcode::Bind) {
    const Decision decision = execute_bind(qpn, context, wqe, trace_id, delay);
    if (Pending* p = find(qp, sequence)) {
      p->took_effect = !decision.failed();
      finish(qp, *p, decision);
    }
  } else if (wqe.opcode == WqeOpcode::FastRegister) {
    const Decision decision = execute_fast_register(qpn, context, wqe, trace_id, delay);
    if (Pending* p = find(qp, sequence)) {
      p->took_effect = !decision.failed();
      finish(qp, *p, decision);
    }
  } else if (wqe.opcode == WqeOpcode::Invalidate) {
    const Decision decision = execute_invalidate(qpn, context, wqe, trace_id, delay);
    Pending* p = find(qp, sequence);
    if (p && !decision.failed()) p->took_effect = true;
    if (p && !p->done) finish(qp, *p, decision);
  } else {
    // Not executed by this version of the device: a local QP operation error.
    finish(qp, *posted, Decision::fail(CqeStatus::LocalQpOperation, RuleId::None));
  }
  retire(qpn, qp, delay);
}

bool Requester::can_start(QpState& qp, const QpcEntry& context, const Wqe& wqe) {
  if (qp.queue.in_error()) return true;  // it completes flushed at once
  const bool runs = context.valid && context.connected && wqe_well_formed(wqe);
  qp.wait_reads_below = ~uint32_t(0);
  // READ_FENCE: no request starts before every earlier read of the QP has completed.
  if (wqe.flags & kWqeFlagReadFence) {
    qp.wait_reads_below = 1;
  } else if (runs && wqe.opcode == WqeOpcode::Read) {
    qp.wait_reads_below = std::max<uint32_t>(1, std::min(context.ord, config_.qp.max_ord));
  }
  // The Invalidate verb is a local fence: it runs once every earlier request has finished.
  qp.wait_all_done = runs && wqe.opcode == WqeOpcode::Invalidate;
  return wait_over(qp);
}

bool Requester::wait_over(const QpState& qp) {
  return qp.reads_outstanding < qp.wait_reads_below &&
         !(qp.wait_all_done && qp.queue.any_running());
}

void Requester::note_progress(QpState& qp) {
  if (!qp.fetcher_waiting || !(qp.queue.in_error() || wait_over(qp))) return;
  qp.fetcher_waiting = false;
  // The fetcher takes the QP back into its turns at once; the WQE starts no earlier than it
  // was decoded.
  SendQueueReady ready{qp.qpn};
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  send_message(pool_, ready_isock, ready, delay);
}

Decision Requester::sinks_still_allowed(uint32_t qpn, Pending& p, sc_core::sc_time& delay) {
  if (p.sinks == 0) return Decision::ok();
  // The sinks were checked in full when the read started. Their MRs may have been
  // deregistered, invalidated or re-registered since (R6.no_touch: no byte lands in memory the
  // token no longer allows): the checker's MPT generation says whether anything changed.
  ProtectionRequest recheck;
  recheck.op = ProtectionOp::Recheck;
  recheck.generation = p.mpt_generation;
  recheck.trace_id = p.trace_id;
  send_message(pool_, check_isock, recheck, delay);
  if (!recheck.mpt_changed) return Decision::ok();
  for (uint32_t i = 0; i < p.sinks; ++i) {
    SinkSge& sink = p.sink[i];
    ProtectionRequest check;
    check.op = ProtectionOp::LocalAccess;
    check.token = sink.token;
    check.pd = p.pd;
    check.qpn = qpn;
    check.va = sink.va;
    check.length = sink.length;
    check.access = p.sink_access;
    check.checks = p.sink_checks;
    check.verb = RequestVerb::Read;
    check.trace_id = p.trace_id;
    send_message(pool_, check_isock, check, delay);
    if (check.status != CqeStatus::Success) return {check.status, check.rule};
    sink.region = check.region;
  }
  return Decision::ok();
}

Decision Requester::land_response(uint32_t qpn, Pending& p, const Packet& packet,
                                  sc_core::sc_time& delay) {
  // A NAK carries the responder's decision: its status and the rule that decided.
  if (packet.kind == PacketKind::Nak) return {packet.syndrome, packet.rule};
  // An acknowledgement answers a write or send; read data answers a read: anything else is a
  // protocol error (a model error: no rule).
  const bool read = p.opcode == WqeOpcode::Read;
  const Decision protocol_error = Decision::fail(CqeStatus::RemoteOperation, RuleId::None);
  if (packet.kind == PacketKind::Ack) {
    if (read) return protocol_error;
    if (p.opcode == WqeOpcode::Write) return Decision::ok(RuleId::R5_write_success);
    return Decision::ok(p.opcode == WqeOpcode::SendInvalidate ? RuleId::R5_send_inv_success
                                                               : RuleId::R5_send_success);
  }
  if (!read || packet.payload.size() != p.bytes) return protocol_error;
  const Decision sinks = sinks_still_allowed(qpn, p, delay);
  if (sinks.failed()) return sinks;
  uint64_t offset = 0;
  for (uint32_t i = 0; i < p.sinks; ++i) {
    const SinkSge& sink = p.sink[i];
    translate_.region = sink.region;
    translate_.va = sink.va;
    translate_.length = sink.length;
    translate_.trace_id = p.trace_id;
    send_message(pool_, xlate_isock, translate_, delay);
    if (!translate_.ok) return Decision::fail(CqeStatus::LocalProtection, RuleId::None);
    const DmaAuthority authority = sge_authority(qpn, p, sink);
    DmaRequest write;
    write.authority = &authority;
    write.trace_id = p.trace_id;
    write.segments = &translate_.segments;
    write.data = const_cast<uint8_t*>(packet.payload.data()) + offset;
    send_message(pool_, write_isock, write, delay);
    if (!write.ok) return Decision::fail(CqeStatus::LocalProtection, RuleId::None);
    offset += sink.length;
  }
  read_bytes_ += offset;
  return Decision::ok();
}

DmaAuthority Requester::sge_authority(uint32_t qpn, const Pending& p, const SinkSge& sge) {
  DmaAuthority a;
  a.kind = DmaAuthority::Kind::Data;
  a.checks = p.sink_checks;
  a.verb = p.opcode == WqeOpcode::Read             ? RequestVerb::Read
           : p.opcode == WqeOpcode::Write          ? RequestVerb::Write
           : p.opcode == WqeOpcode::SendInvalidate ? RequestVerb::SendInvalidate
                                                   : RequestVerb::Send;
  a.access = p.sink_access;
  a.token = sge.token;
  a.pd = p.pd;
  a.qpn = qpn;
  a.va = sge.va;
  a.length = sge.length;
  a.trace_id = p.trace_id;
  return a;
}

void Requester::response_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  const Packet* packet = message_of<Packet>(gp);
  auto it = packet ? qps_.find(packet->dst_qpn) : qps_.end();
  Pending* p = it != qps_.end() ? find(it->second, packet->sequence) : nullptr;
  if (!p || !p->awaiting_response) {
    ++stray_responses_;  // e.g. the read was flushed meanwhile
    return;
  }
  QpState& qp = it->second;
  const TraceScope slice(trace_, "response", p->trace_id, delay);
  if (packet->kind == PacketKind::RnrNak) {
    if (p->rnr_retries < config_.qp.rnr_retry_count) {
      // Receiver not ready: send again after the RNR timer (IB 9.7.5.2.8).
      ++p->rnr_retries;
      const sc_core::sc_time timer(double(config_.qp.rnr_timer_ns), sc_core::SC_NS);
      retries_.push_back(
          {sim_time(*this) + delay + timer, packet->dst_qpn, packet->sequence});
      retry_event_.notify(sc_core::SC_ZERO_TIME);
      return;
    }
    p->awaiting_response = false;
    finish(qp, *p, Decision::fail(CqeStatus::RnrRetryExceeded, RuleId::R5_send_no_receive));
    retire(packet->dst_qpn, qp, delay);
    return;
  }
  p->awaiting_response = false;
  const sc_core::sc_time now = sim_time(*this);
  if (p->opcode == WqeOpcode::Read) {
    --qp.reads_outstanding;
    // The slot frees where the mode frees it: at this call (cycle mode: the count above), or
    // at the response's annotated time (fast mode: the ORD slot pool).
    read_ended(*p, now.value(), (config_.fast ? now + delay : now).value());
  }
  release_ord_slot(qp, *p, now + delay);
  Decision decision = land_response(packet->dst_qpn, *p, *packet, delay);
  if (!decision.failed() && p->opcode == WqeOpcode::Read &&
      (p->flags & kWqeFlagReadLocalInvalidate) &&
      (config_.adapter_flags & caps::kRdmaReadLocalInvalidateSupported) && p->sinks > 0) {
    // RDMA_READ_LOCAL_INVALIDATE: the read's success invalidates its first sink's token.
    ProtectionRequest invalidate;
    invalidate.op = ProtectionOp::Invalidate;
    invalidate.token = p->first_sink_token;
    invalidate.pd = p->pd;
    invalidate.qpn = packet->dst_qpn;
    invalidate.verb = RequestVerb::ReadLocalInvalidate;
    invalidate.trace_id = p->trace_id;
    send_message(pool_, check_isock, invalidate, delay);
    if (invalidate.status != CqeStatus::Success) decision = {invalidate.status, invalidate.rule};
  }
  finish(qp, *p, decision);
  retire(packet->dst_qpn, qp, delay);
}

void Requester::qp_event_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  const QpErrorEvent* event = message_of<QpErrorEvent>(gp);
  if (!event) return;
  QpState& qp = state(event->qpn);
  if (qp.queue.in_error()) return;
  // The responder side of this QP failed: flush everything not finished yet.
  flush_all(qp, RuleId::R4_error_flush_later);
  retire(event->qpn, qp, delay);
}

void Requester::flush_all(QpState& qp, RuleId rule) {
  flushed_ += qp.queue.flush_all(rule, [&](Pending& p) { cancel(qp, p); });
  note_progress(qp);
}

void Requester::cancel(QpState& qp, Pending& p) {
  const sc_core::sc_time now = sim_time(*this);
  if (p.awaiting_response && p.opcode == WqeOpcode::Read) {
    --qp.reads_outstanding;
    read_ended(p, now.value(), now.value());
  }
  release_ord_slot(qp, p, now);
  p.awaiting_response = false;
}

void Requester::close(uint32_t qpn, sc_core::sc_time& delay) {
  // Every request of the QP ahead of the marker completes (flushed, if the driver did not
  // flush first); the marker then follows their completions through the completion engine.
  QpState& qp = state(qpn);
  flush_all(qp, RuleId::R5_flush);
  retire(qpn, qp, delay);
  CompletionRecord record;
  record.close = true;
  record.cqe.qpn = qpn;
  sc_core::sc_time d = delay;
  send_message(pool_, cq_isock, record, d);
}

void Requester::ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const ContextChange* change = message_of<ContextChange>(gp);
  if (change && change->kind == ContextKind::QpFlush) {
    // Flush(qp): every pending request completes CANCELLED, later ones too (error state).
    QpState& qp = state(change->index);
    flush_all(qp, RuleId::R5_flush);
    sc_core::sc_time d = delay;
    retire(change->index, qp, d);
  } else if (change && change->kind == ContextKind::Qpc) {
    auto it = qps_.find(change->index);
    // A QP being (re)created starts clean; one being connected has no requests yet.
    if (it != qps_.end() && it->second.queue.reset_if_idle()) it->second.reads_outstanding = 0;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void Requester::finish(QpState& qp, Pending& p, Decision decision) {
  const CqeStatus status = decision.status;
  if (is_error_status(status)) ++errors_;
  const auto outcome = qp.queue.finish(p, decision, [&](Pending& later) { cancel(qp, later); });
  flushed_ += outcome.cancelled;
  errors_.value -= outcome.errors_revoked;  // errors behind this one complete CANCELLED
  // The whole QP enters the error state: its responder side flushes the posted receives and refuses
  // further requests (R4.error.flush_receives, R5.peer_error), once this error's completion is out.
  if (outcome.entered_error) qp.responder_notice = status;
  note_progress(qp);
}

void Requester::retire(uint32_t qpn, QpState& qp, sc_core::sc_time& delay) {
  qp.queue.retire([&](const Pending& p) {
    if (p.sent) record_latency(p, (sim_time(*this) + delay).value());
    if (p.status == CqeStatus::Success && (p.flags & kWqeFlagSilentSuccess)) return;
    CompletionRecord record;
    record.cqn = p.cqn;
    record.cqe.status = p.status;
    record.cqe.opcode = completion_opcode(p.opcode);
    record.cqe.byte_count = p.status == CqeStatus::Success ? p.bytes : 0;
    record.cqe.wr_id = p.wr_id;
    record.cqe.qpn = qpn;
    record.cqe.wqe_index = p.wqe_index;
    record.cqe.took_effect = p.took_effect ? 1 : 0;
    record.cqe.rule = uint16_t(p.rule);
    record.trace_id = p.trace_id;
    sc_core::sc_time d = delay;
    send_message(pool_, cq_isock, record, d);
    ++completions_;
  });
  if (qp.responder_notice != CqeStatus::Success && !qp.queue.error_pending()) {
    QpErrorEvent event{qpn, qp.responder_notice};
    qp.responder_notice = CqeStatus::Success;
    sc_core::sc_time d = delay;
    send_message(pool_, qp_event_isock, event, d);
  }
}

void Requester::release_ord_slot(QpState& qp, Pending& p, const sc_core::sc_time& at) {
  if (!p.holds_ord_slot) return;
  p.holds_ord_slot = false;
  qp.ord_slots.release(at);
}

void Requester::read_ended(const Pending& p, uint64_t now_ps, uint64_t at_ps) {
  reads_in_flight_.down(now_ps, std::max(at_ps, p.sent_ps));
}

void Requester::record_latency(const Pending& p, uint64_t end_ps) {
  const uint64_t ps = end_ps > p.started_ps ? end_ps - p.started_ps : 0;
  if (p.opcode == WqeOpcode::Read) {
    read_latency_.add_ps(ps);
  } else if (p.opcode == WqeOpcode::Write) {
    write_latency_.add_ps(ps);
  } else {
    send_latency_.add_ps(ps);  // Send, SendInvalidate: the only other kinds that go out
  }
}

uint32_t Requester::wqes_in_flight() const {
  size_t n = 0;
  for (const auto& [qpn, qp] : qps_) n += qp.queue.size();
  return uint32_t(n);
}

uint32_t Requester::reads_outstanding() const {
  uint32_t n = 0;
  for (const auto& [qpn, qp] : qps_) n += qp.reads_outstanding;
  return n;
}

}  // namespace rnic
