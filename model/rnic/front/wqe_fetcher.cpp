// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/front/wqe_fetcher.h"

#include <algorithm>

namespace rnic {

WqeFetcher::WqeFetcher(sc_core::sc_module_name name, const RnicConfig& config,
                       const IcmLayout& icm)
    : sc_module(name),
      doorbell_tsock("doorbell_tsock"),
      ctrl_tsock("ctrl_tsock"),
      dma_isock("dma_isock"),
      work_isock("work_isock"),
      stats(std::string(this->name())),
      config_(config),
      icm_(icm),
      clock_(config.timing.clock_mhz),
      decode_stage_(clock_, config.wqe.decode_cycles, config.wqe.decode_ii_cycles),
      wqes_fetched_(stats.add("wqes_fetched", "WQEs", "WQEs read from send queues")),
      fetch_reads_(stats.add("fetch_reads", "transactions", "DMA reads of WQE batches")),
      bad_doorbells_(stats.add("bad_doorbells", "writes", "doorbells for unknown QPs or beyond the ring")),
      fetch_latency_(stats.add_histogram(
          "fetch_latency_ns", "WQE batch: fetch start (QP context lookup) to the WQEs on chip")) {
  decode_stage_.set_contention(!config.sim.fast);
  doorbell_tsock.register_b_transport(this, &WqeFetcher::doorbell_b_transport);
  ctrl_tsock.register_b_transport(this, &WqeFetcher::ctrl_b_transport);
  buffer_.resize(size_t(std::max<uint32_t>(1, config.wqe.fetch_batch)) * kWqeBytes);
  SC_HAS_PROCESS(WqeFetcher);
  SC_THREAD(fetch_thread);
  // Fast mode: the whole read (request, remote service, response, landing, completion) can
  // run as nested calls on this thread's stack.
  if (config.sim.fast) set_stack_size(4u << 20);
}

void WqeFetcher::doorbell_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const Doorbell* db = message_of<Doorbell>(gp);
  if (!db || db->number >= icm_.qpc_entries) {
    ++bad_doorbells_;
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  // The doorbell takes effect when it reaches the device: `delay` from now.
  doorbells_.push_back({sc_core::sc_time_stamp() + delay, db->number, db->index});
  doorbell_event_.notify(delay);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void WqeFetcher::ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
  const ContextChange* change = message_of<ContextChange>(gp);
  if (change && change->kind == ContextKind::Qpc) {
    qpc_.invalidate(change->index);
    // A re-created QP starts with an empty ring (the entry stays: the fetch thread may hold it).
    auto it = queues_.find(change->index);
    if (it != queues_.end()) it->second.producer = it->second.fetched = 0;
  } else if (change && change->kind == ContextKind::QpClose && change->index < icm_.qpc_entries) {
    // The close marker follows the QP's last WQE through the requester (which completes in
    // order), so its arrival at the completion engine means the QP has nothing left. The
    // QP's doorbells were written before this notice (posted writes stay in order): they
    // count now.
    for (auto db = doorbells_.begin(); db != doorbells_.end();) {
      if (db->qpn != change->index) {
        ++db;
        continue;
      }
      queues_[db->qpn].producer = db->producer;
      db = doorbells_.erase(db);
    }
    QueueState& q = queues_[change->index];
    q.closing = true;
    if (!q.active) {
      q.active = true;
      round_robin_.push_back(change->index);
    }
    doorbell_event_.notify(sc_core::SC_ZERO_TIME);
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void WqeFetcher::send_close_marker(uint32_t qpn, QueueState& q) {
  q.closing = false;
  WorkRequest work;
  work.qpn = qpn;
  work.wqe_index = q.fetched;
  work.close = true;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  send_message(pool_, work_isock, work, delay);
}

void WqeFetcher::apply_due_doorbells() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (!doorbells_.empty() && doorbells_.front().at <= now) {
    const PendingDoorbell db = doorbells_.front();
    doorbells_.pop_front();
    QueueState& q = queues_[db.qpn];
    q.producer = db.producer;
    if (!q.active && q.producer != q.fetched) {
      q.active = true;
      round_robin_.push_back(db.qpn);
    }
  }
  if (!doorbells_.empty()) doorbell_event_.notify(doorbells_.front().at - now);
}

void WqeFetcher::fetch_thread() {
  for (;;) {
    apply_due_doorbells();
    if (round_robin_.empty()) {
      wait(doorbell_event_);
      continue;
    }
    const uint32_t qpn = round_robin_.front();
    round_robin_.pop_front();
    auto it = queues_.find(qpn);
    if (it == queues_.end()) continue;
    QueueState& q = it->second;
    if (q.producer != q.fetched) fetch_from(qpn, q);
    if (q.producer != q.fetched) {
      round_robin_.push_back(qpn);
    } else {
      q.active = false;
      if (q.closing) send_close_marker(qpn, q);
    }
  }
}

void WqeFetcher::fetch_from(uint32_t qpn, QueueState& q) {
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  const sc_core::sc_time started = sc_core::sc_time_stamp();
  auto read = [this](uint64_t addr, uint8_t* data, uint32_t len, sc_core::sc_time& d) {
    return dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND, addr, data, len,
                        DmaSource::ContextTable, d);
  };
  const QpcEntry* qpc = qpc_.get(icm_.qpc_addr(qpn), qpn, read, delay);
  const uint32_t posted = q.producer - q.fetched;  // modulo 2^32
  if (!qpc || !qpc->valid || qpc->sq_depth == 0 || posted > qpc->sq_depth) {
    // A doorbell for a QP that does not exist, or claiming more WQEs than the ring holds:
    // the device ignores it rather than reading memory it was never given.
    ++bad_doorbells_;
    q.fetched = q.producer;
    return;
  }
  const uint32_t slot = q.fetched % qpc->sq_depth;
  const uint32_t batch = std::min({posted, std::max<uint32_t>(1, config_.wqe.fetch_batch),
                                   qpc->sq_depth - slot});
  const uint64_t addr = qpc->sq_base + uint64_t(slot) * kWqeBytes;
  const bool ok = dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND, addr, buffer_.data(),
                               batch * kWqeBytes, DmaSource::WqeFetch, delay);
  ++fetch_reads_;
  // The WQEs are on chip only when the read completes, at `ready`. Rather than waiting for it
  // here and again for each decode, the first WQE goes to the requester with read + decode as
  // its annotated delay (the requester synchronises once, at the same time as before), later
  // ones with the decode alone (the requester's synchronisation has consumed the read).
  const sc_core::sc_time ready = started + delay;
  fetch_latency_.add_ps(delay.value());
  if (!ok) {
    wait(delay);
    ++bad_doorbells_;
    q.fetched = q.producer;
    return;
  }
  for (uint32_t i = 0; i < batch; ++i) {
    WorkRequest work;
    work.qpn = qpn;
    work.wqe_index = q.fetched;
    work.wqe = Wqe::decode(buffer_.data() + size_t(i) * kWqeBytes);
    ++wqes_fetched_;
    ++q.fetched;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    sc_core::sc_time d = decode_stage_.pass(ready > now ? ready : now) - now;
    if (trace_.on()) {
      // Context lookup, the batch's DMA read and this WQE's decode.
      work.trace_id = make_trace_id(trace_node_, qpn, trace_number_++);
      trace_.slice("fetch", started, sc_core::sc_time_stamp() + d, work.trace_id);
    }
    send_message(pool_, work_isock, work, d);
  }
}

}  // namespace rnic
