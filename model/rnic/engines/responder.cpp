// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/engines/responder.h"

#include <algorithm>

namespace rnic {

Responder::Responder(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm,
                     uint32_t node_id, DeviceClock* clock)
    : sc_module(name),
      request_tsock("request_tsock", this),
      ctrl_tsock("ctrl_tsock", this),
      doorbell_tsock("doorbell_tsock", this),
      qp_event_tsock("qp_event_tsock", this),
      check_isock("check_isock"),
      xlate_isock("xlate_isock"),
      read_isock("read_isock"),
      write_isock("write_isock"),
      tx_isock("tx_isock"),
      qp_event_isock("qp_event_isock"),
      cq_isock("cq_isock"),
      dma_isock("dma_isock"),
      context_isock("context_isock"),
      stats(std::string(this->name())),
      config_(config),
      icm_(icm),
      node_id_(node_id),
      clock_(config.clock_mhz),
      parse_stage_(clock_, config.parse_cycles, config.parse_ii_cycles),
      read_contexts_(config.responder.read_contexts),
      // As many contexts as every QP's IRD together: the pool can never make a read wait.
      contexts_can_bind_(uint64_t(config.responder.read_contexts) <
                         uint64_t(config.qp.max_qps) * config.qp.max_ird),
      requests_(stats.add("read_requests", "requests", "RDMA read requests received")),
      write_requests_(stats.add("write_requests", "requests", "RDMA write requests received")),
      send_requests_(stats.add("send_requests", "requests", "sends received")),
      receives_(stats.add("receives", "entries", "receive entries consumed or flushed")),
      rnr_naks_(stats.add("rnr_naks", "packets", "sends refused: no receive posted")),
      write_bytes_(stats.add("write_bytes", "bytes", "bytes landed by RDMA writes")),
      bytes_(stats.add("read_bytes", "bytes", "bytes returned in read responses")),
      naks_(stats.add("naks", "packets", "requests answered with a NAK")),
      access_errors_(
          stats.add("access_errors", "requests", "remote token or range check failures")),
      ird_stall_ps_(stats.add("ird_stall_ps", "ps", "time reads waited for an IRD slot")),
      read_service_(stats.add_histogram("read_service_ns",
                                        "read request: arrival to the last response byte sent")),
      ird_in_use_(stats.add_occupancy("ird_in_use", "slots",
                                      "IRD slots held by reads in service, all QPs")),
      context_waits_(stats.add("read_context_waits", "requests",
                               "reads that waited for a read-response context (all "
                               "responder.read_contexts held)")),
      context_wait_ps_(stats.add("read_context_wait_ps", "ps",
                                 "time reads waited for a read-response context")),
      contexts_in_use_(stats.add_occupancy(
          "read_contexts_in_use", "contexts",
          "read-response contexts held by reads in service, all QPs (at most "
          "responder.read_contexts)")),
      device_(clock) {
  parse_stage_.set_contention(!config.fast);
}

const QpcEntry* Responder::qpc(uint32_t qpn, QpcEntry* storage, sc_core::sc_time& delay,
                             uint64_t trace_id) {
  return read_context(context_isock, qpn, trace_id, storage, delay)
             ? storage
             : nullptr;
}

void Responder::enter_error(uint32_t qpn, QpState& qp, CqeStatus cause, sc_core::sc_time& delay) {
  if (!qp.receives.enter_error()) return;
  flush_receives(qpn, qp, delay);
  QpErrorEvent event{qpn, cause};
  sc_core::sc_time d = delay;
  qp_event_isock->qp_error(event, d);
}

Decision Responder::check_and_translate(const Packet& request, const QpcEntry& qpc,
                                        uint16_t access, DmaAuthority* authority,
                                        sc_core::sc_time& delay) {
  if (request.length > config_.qp.max_transfer_bytes)  // the adapter's MaxTransferLength
    return Decision::fail(CqeStatus::RemoteInvalidRequest, RuleId::R4_inline_total_length);
  ProtectionRequest check;
  check.op = ProtectionOp::RemoteAccess;
  check.token = request.remote_token;
  check.pd = qpc.pd;
  check.qpn = request.dst_qpn;
  check.va = request.remote_addr;
  check.length = request.length;
  check.access = access;
  check.verb = access & kAccessRemoteWrite ? RequestVerb::Write : RequestVerb::Read;
  check.trace_id = request.trace_id;
  check_isock->check(check, delay);
  if (check.status != CqeStatus::Success) {
    ++access_errors_;
    return Decision::fail(CqeStatus::RemoteAccess, check.rule);
  }
  authority->kind = DmaAuthority::Kind::Data;
  authority->checks = access & kAccessRemoteWrite ? CheckList::RemoteWrite : CheckList::RemoteRead;
  authority->verb = check.verb;
  authority->access = access;
  authority->token = request.remote_token;
  authority->pd = qpc.pd;
  authority->qpn = request.dst_qpn;
  authority->va = request.remote_addr;
  authority->length = request.length;
  authority->trace_id = request.trace_id;
  translate_.region = check.region;
  translate_.va = check.target_va;
  translate_.length = request.length;
  translate_.trace_id = request.trace_id;
  xlate_isock->translate(translate_, delay);
  return translate_.ok ? Decision::ok() : Decision::fail(CqeStatus::RemoteAccess, RuleId::None);
}

Decision Responder::serve_write(const Packet& request, const QpcEntry& qpc,
                                sc_core::sc_time& delay) {
  ++write_requests_;
  // A zero-length write moves nothing: no key checks, as for a read (R5.read.zero_length).
  if (request.length == 0) return Decision::ok(RuleId::R5_write_success);
  if (request.payload.size() != request.length)
    return Decision::fail(CqeStatus::RemoteInvalidRequest, RuleId::None);
  DmaAuthority authority;
  const Decision checked = check_and_translate(request, qpc, kAccessRemoteWrite, &authority, delay);
  if (checked.failed()) return checked;
  DmaRequest write;
  write.authority = &authority;
  write.segments = &translate_.segments;
  write.data = const_cast<uint8_t*>(request.payload.data());
  write.trace_id = request.trace_id;
  write_isock->move(write, delay);
  if (!write.ok) return Decision::fail(CqeStatus::RemoteOperation, RuleId::None);
  write_bytes_ += request.length;
  return Decision::ok(RuleId::R5_write_success);
}

Decision Responder::serve_read(const Packet& request, const QpcEntry& qpc, QpState& qp,
                               sc_core::sc_time& delay) {
  ++requests_;
  if (request.length == 0) return Decision::ok();  // no key checks (R5.read.zero_length)
  DmaAuthority authority;
  const Decision checked = check_and_translate(request, qpc, kAccessRemoteRead, &authority, delay);
  if (checked.failed()) return checked;

  // IRD: at most `ird` reads of this QP in service; a slot is held until the data is read.
  // Then a read-response context of the NIC's pool, held as long (a full pool: it waits).
  const sc_core::sc_time now = device_->now();
  const sc_core::sc_time ready = now + delay;
  const sc_core::sc_time slot = qp.in_service.acquire(ready);
  ird_stall_ps_ += (slot - ready).value();
  sc_core::sc_time start = slot;
  if (contexts_can_bind_) {
    const uint64_t waits = read_contexts_.waits();
    const uint64_t waited_ps = read_contexts_.wait_ps();
    start = sc_core::sc_time::from_value(read_contexts_.acquire(slot.value()));
    context_waits_ += read_contexts_.waits() - waits;
    context_wait_ps_ += read_contexts_.wait_ps() - waited_ps;
  }
  delay = start - now;
  response_.payload.resize(request.length);
  DmaRequest read;
  read.authority = &authority;
  read.segments = &translate_.segments;
  read.data = response_.payload.data();
  read.trace_id = request.trace_id;
  {
    const TraceScope slice(dma_read_trace_, "DMA read", request.trace_id, delay);
    read_isock->move(read, delay);
  }
  qp.in_service.release(now + delay);
  if (contexts_can_bind_) read_contexts_.release((now + delay).value());
  ird_in_use_.hold(now.value(), start.value(), (now + delay).value());
  contexts_in_use_.hold(now.value(), start.value(), (now + delay).value());
  if (!read.ok) return Decision::fail(CqeStatus::RemoteOperation, RuleId::None);
  bytes_ += request.length;
  return Decision::ok();
}

void Responder::packet(int, Packet& request_packet, sc_core::sc_time& delay) {
  const Packet* request = &request_packet;
  if (!is_request(request->kind)) return;
  const bool write = request->kind == PacketKind::WriteRequest;
  const bool send = request->kind == PacketKind::SendRequest;
  // The responder never waits: `now` holds for the whole request.
  const sc_core::sc_time now = device_->now();
  const sc_core::sc_time started = now + delay;
  delay = parse_stage_.pass(started) - now;
  const uint32_t qpn = request->dst_qpn;
  response_.kind = write || send ? PacketKind::Ack : PacketKind::ReadResponse;
  response_.src_node = node_id_;
  response_.dst_node = request->src_node;
  response_.src_qpn = qpn;
  response_.dst_qpn = request->src_qpn;
  response_.sequence = request->sequence;
  response_.trace_id = request->trace_id;
  response_.remote_addr = 0;
  response_.remote_token = 0;
  response_.length = request->length;
  response_.payload.clear();

  QpcEntry qpc_entry;
  const QpcEntry* qpc = this->qpc(qpn, &qpc_entry, delay, request->trace_id);
  Decision decision;
  bool rnr = false;
  bool served = false;  // reached serve_*: counted in read_service_ns if a read
  if (!qpc || !qpc->valid || !qpc->connected || qpc->peer_node != request->src_node ||
      qpc->peer_qpn != request->src_qpn) {
    decision = Decision::fail(CqeStatus::RemoteInvalidRequest, RuleId::None);  // not ours
  } else {
    QpState& qp = qps_[qpn];
    const uint32_t ird = std::max<uint32_t>(1, std::min(qpc->ird, config_.qp.max_ird));
    if (qp.ird != ird) {
      qp.ird = ird;
      qp.in_service.resize(ird);
    }
    if (qp.receives.in_error()) {
      // A QP in the error state drops incoming packets (IB); the requester's retries then run
      // out. The retransmissions are not simulated one by one, only their outcome.
      decision = Decision::fail(CqeStatus::RetryExceeded, RuleId::R5_peer_error);
    } else {
      const QpcEntry context = *qpc;
      served = true;
      decision = send    ? serve_send(*request, context, qp, &rnr, delay)
                 : write ? serve_write(*request, context, delay)
                         : serve_read(*request, context, qp, delay);
      // A remote access error moves both QPs to the error state (R5.read.error.both_qps).
      if (decision.failed()) enter_error(qpn, qp, decision.status, delay);
    }
  }
  if (rnr) {
    response_.kind = PacketKind::RnrNak;
    response_.payload.clear();
  } else if (decision.failed()) {
    ++naks_;
    response_.kind = PacketKind::Nak;
    response_.syndrome = decision.status;
    response_.rule = decision.rule;
    response_.payload.clear();
  } else {
    response_.syndrome = CqeStatus::Success;
    response_.rule = RuleId::None;
  }
  if (trace_.on()) {
    trace_.slice(send    ? "serve send"
                 : write ? "serve write"
                         : "serve read",
                 started, now + delay, request->trace_id);
  }
  tx_isock->packet(response_, delay);
  // `delay` now ends when the port has sent the response's last byte.
  if (served && !write && !send) read_service_.add_ps((now + delay - started).value());
}

void Responder::context_changed(int, ContextChange& change_message, sc_core::sc_time& delay) {
  const ContextChange* change = &change_message;
  if (change->kind == ContextKind::Qpc) {
    auto it = qps_.find(change->index);
    // (Re)created or connected: a fresh QP. A QP being created has an empty receive queue;
    // receives posted before Connect stay.
    if (it != qps_.end()) it->second.receives.leave_error();
  } else if (change->kind == ContextKind::QpFlush) {
    QpState& qp = qps_[change->index];
    qp.receives.enter_error();
    sc_core::sc_time d = delay;
    flush_receives(change->index, qp, d);
  } else if (change->kind == ContextKind::QpClose) {
    // Receives left (none after a flush) complete now, ahead of the requester's close marker;
    // a QP created later with this number starts with an empty receive queue.
    QpState& qp = qps_[change->index];
    qp.receives.enter_error();
    sc_core::sc_time d = delay;
    flush_receives(change->index, qp, d);
    qp.receives.clear();
  }
}

}  // namespace rnic
