// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/engines/requester.h"

namespace rnic {

// The engine's commands as socket calls, annotated with the delay of the call that caused them.
class Requester::Io final : public SendEngine::Actions {
 public:
  Io(Requester& unit, const sc_core::sc_time& delay) : unit_(unit), delay_(delay) {}

  void complete(uint32_t qpn, const SendRequest& r) override {
    CompletionRecord record;
    record.cqn = r.cqn;
    record.cqe.status = r.status;
    record.cqe.opcode = completion_opcode(r.opcode);
    record.cqe.byte_count = r.status == CqeStatus::Success ? r.bytes : 0;
    record.cqe.wr_id = r.wr_id;
    record.cqe.qpn = qpn;
    record.cqe.wqe_index = r.wqe_index;
    record.cqe.took_effect = r.took_effect ? 1 : 0;
    record.cqe.rule = uint16_t(r.rule);
    record.trace_id = r.trace_id;
    sc_core::sc_time d = delay_;
    unit_.cq_isock->complete(record, d);
  }
  void ready(uint32_t qpn) override {
    // The fetcher takes the QP back into its turns at once; the WQE starts no earlier than it
    // was decoded.
    SendQueueReady ready{qpn};
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    unit_.ready_isock->ready(ready, d);
  }
  void qp_error(uint32_t qpn, CqeStatus cause) override {
    QpErrorEvent event{qpn, cause};
    sc_core::sc_time d = delay_;
    unit_.qp_event_isock->qp_error(event, d);
  }
  void closed(uint32_t qpn) override {
    CompletionRecord record;
    record.close = true;
    record.cqe.qpn = qpn;
    sc_core::sc_time d = delay_;
    unit_.cq_isock->complete(record, d);
  }

 private:
  Requester& unit_;
  const sc_core::sc_time& delay_;
};

SendEngine::Config Requester::engine_config(const Config& config) {
  SendEngine::Config c;
  c.max_ord = config.qp.max_ord;
  c.max_sge = config.qp.max_sge;
  c.max_transfer_bytes = config.qp.max_transfer_bytes;
  c.rnr_retry_count = config.qp.rnr_retry_count;
  c.rnr_timer_ps = to_ps(sc_core::sc_time(double(config.qp.rnr_timer_ns), sc_core::SC_NS));
  c.adapter_flags = config.adapter_flags;
  c.slot_pool_ord = config.fast;
  return c;
}

Requester::Requester(sc_core::sc_module_name name, const Config& config, uint32_t node_id,
                     DeviceClock* clock)
    : sc_module(name),
      work_tsock("work_tsock", this),
      response_tsock("response_tsock", this),
      qp_event_tsock("qp_event_tsock", this),
      ctrl_tsock("ctrl_tsock", this),
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
      device_(clock),
      retry_(device_->add_stage<Requester, &Requester::retry>(this)),
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
      ord_wait_ps_(stats.add("ord_wait_ps", "ps",
                             "time reads waited for an ORD slot, summed over reads: from their "
                             "first refusal to their start, and (fast mode) from ready to sent")),
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
          "reads sent and awaiting their response, all QPs (per QP at most its ORD)")),
      engine_(engine_config(config),
              SendEngine::Stats{wqes_, completions_, errors_, flushed_, ord_stalls_, ord_wait_ps_,
                                stray_responses_, read_latency_, write_latency_, send_latency_,
                                reads_in_flight_}) {
}

void Requester::retry() {
  // Sends every retransmission due now; the stage is due again at the next one, or when a
  // response asks for one (nothing here waits: a packet's sending is annotated).
  for (;;) {
    if (!engine_.retry_waiting()) return;
    const uint64_t now = now_ps();
    if (engine_.next_retry_ps() > now) {
      device_->notify(retry_, sc_core::sc_time::from_value(engine_.next_retry_ps()));
      return;
    }
    Packet* packet = engine_.take_retry();
    if (!packet) continue;  // flushed meanwhile
    ++rnr_retries_;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    tx_isock->packet(*packet, delay);
  }
}

void Requester::work(int, WorkRequest& request, sc_core::sc_time& delay) {
  WorkRequest* work = &request;
  Io out(*this, delay);
  const uint64_t now = now_ps();
  if (work->close) {
    engine_.close(work->qpn, now, now + delay.value(), out);
    return;
  }
  // The message lives in the fetcher until this call returns. Execution starts at the
  // annotated time, when the WQE is decoded, in both modes, with no wait: a wait here held the
  // fetcher's thread through every WQE's decode latency, so WQEs left the decoder one latency
  // apart instead of wqe.decode_ii_cycles apart.
  const SendEngine::Admission admission =
      engine_.admit(work->qpn, work->context, work->wqe, work->wqe_index, work->trace_id,
                    now + delay.value(), now, out);
  if (admission.step == SendEngine::Step::Refused) {
    // It stays in the fetcher, which skips the QP until the engine says it can go on. (Waiting
    // here instead held the fetcher, so one QP at its ORD stalled every QP of the device.)
    work->refused = true;
    return;
  }
  const TraceScope slice(trace_, "execute", work->trace_id, delay);
  Qp& qp = *admission.qp;
  const uint64_t sequence = admission.request->sequence;
  switch (admission.step) {
    case SendEngine::Step::Read:
      execute_read(qp, sequence, *work, delay, out);
      break;
    case SendEngine::Step::Outbound:
      execute_outbound(qp, sequence, *work, delay, out);
      break;
    case SendEngine::Step::Bind:
      engine_.executed(qp, sequence, execute_bind(*work, delay), now, out);
      break;
    case SendEngine::Step::FastRegister:
      engine_.executed(qp, sequence, execute_fast_register(*work, delay), now, out);
      break;
    case SendEngine::Step::Invalidate:
      engine_.executed(qp, sequence, execute_invalidate(*work, delay), now, out);
      break;
    default:  // ended at admission
      break;
  }
  engine_.retire(qp, now + delay.value(), out);
}

void Requester::packet(int, Packet& response, sc_core::sc_time& delay) {
  const Packet* packet = &response;
  Qp* qp = nullptr;
  SendRequest* request = engine_.awaiting(packet, &qp);
  if (!request) return;  // a stray: the request was flushed meanwhile
  const TraceScope slice(trace_, "response", request->trace_id, delay);
  Io out(*this, delay);
  const uint64_t now = now_ps();
  Decision decision;
  switch (engine_.reply(*qp, *request, *packet, now, now + delay.value(), &decision)) {
    case SendEngine::Reply::Retry:
      device_->notify_now(retry_);
      return;
    case SendEngine::Reply::Land:
      decision = land_response(packet->dst_qpn, *request, *packet, delay);
      break;
    case SendEngine::Reply::Decided:
      break;
  }
  if (engine_.invalidates_first_sink(*request, decision))
    decision = invalidate_first_sink(packet->dst_qpn, *request, delay);
  engine_.finish(*qp, *request, decision, now, out);
  engine_.retire(*qp, now + delay.value(), out);
}

void Requester::qp_error(int, QpErrorEvent& event_message, sc_core::sc_time& delay) {
  const QpErrorEvent* event = &event_message;
  // The responder side of this QP failed: everything not finished yet is flushed.
  Io out(*this, delay);
  const uint64_t now = now_ps();
  engine_.responder_failed(event->qpn, now, now + delay.value(), out);
}

void Requester::context_changed(int, ContextChange& change, sc_core::sc_time& delay) {
  if (change.kind == ContextKind::QpFlush) {
    Io out(*this, delay);
    const uint64_t now = now_ps();
    engine_.flush(change.index, now, now + delay.value(), out);
  } else if (change.kind == ContextKind::Qpc) {
    engine_.context_changed(change.index);
  }
}

}  // namespace rnic
