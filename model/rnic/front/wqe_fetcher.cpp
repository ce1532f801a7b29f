// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/front/wqe_fetcher.h"

#include <algorithm>

namespace rnic {

WqeFetcher::WqeFetcher(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm)
    : sc_module(name),
      doorbell_tsock("doorbell_tsock"),
      ctrl_tsock("ctrl_tsock"),
      dma_isock("dma_isock"),
      context_isock("context_isock"),
      work_isock("work_isock"),
      ready_tsock("ready_tsock"),
      stats(std::string(this->name())),
      config_(config.wqe),
      icm_(icm),
      clock_(config.clock_mhz),
      decode_stage_(clock_, config.wqe.decode_cycles, config.wqe.decode_ii_cycles),
      wqes_fetched_(stats.add("wqes_fetched", "WQEs", "WQEs read from send queues")),
      blueflame_wqes_(stats.add("blueflame_wqes", "WQEs",
                                "WQEs taken from their BlueFlame doorbell, with no ring read")),
      fetch_reads_(stats.add("fetch_reads", "transactions", "DMA reads of WQE batches")),
      bad_doorbells_(
          stats.add("bad_doorbells", "writes", "doorbells for unknown QPs or beyond the ring")),
      buffer_full_(stats.add("buffer_full", "turns",
                             "scheduler turns taken while the next WQE read waited for WQE "
                             "buffer room")),
      refused_(stats.add("refused_wqes", "WQEs",
                         "WQEs the requester could not start yet (ORD full, a fence): their "
                         "QP left the turns until the requester said it can go on")),
      fetch_latency_(stats.add_histogram(
          "fetch_latency_ns", "WQE batch: fetch start (QP context lookup) to the WQEs on chip")),
      wqes_buffered_(stats.add_occupancy(
          "wqes_buffered", "WQEs",
          "WQE buffer in use: fetched or being fetched, not yet handed on (at most "
          "wqe.cache_entries)")),
      batches_outstanding_(stats.add_occupancy(
          "batches_outstanding", "batches",
          "batch reads in flight or buffered, all QPs (per QP at most wqe.prefetch_depth)")) {
  decode_stage_.set_contention(!config.fast);
  doorbell_tsock.register_b_transport(this, &WqeFetcher::doorbell_b_transport);
  ctrl_tsock.register_b_transport(this, &WqeFetcher::ctrl_b_transport);
  ready_tsock.register_b_transport(this, &WqeFetcher::ready_b_transport);
  buffer_.resize(size_t(std::max<uint32_t>(1, config.wqe.fetch_batch)) * kWqeBytes);
  SC_HAS_PROCESS(WqeFetcher);
  // A method: nothing it calls waits (the requester refuses what it cannot start), so the
  // kernel runs it without a thread switch. In fast mode a whole read (request, remote
  // service, response, landing, completion) runs as nested calls below it.
  SC_METHOD(fetch);
}

void WqeFetcher::doorbell_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const Doorbell* db = message_of<Doorbell>(gp);
  if (!db || db->number >= icm_.qpc_entries) {
    ++bad_doorbells_;
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  // The doorbell takes effect when it reaches the device: `delay` from now.
  doorbells_.push_back({sim_time(*this) + delay, db->number, db->index, db->with_wqe,
                        db->wqe});
  doorbell_event_.notify(delay);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void WqeFetcher::ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
  const ContextChange* change = message_of<ContextChange>(gp);
  if (change && change->kind == ContextKind::Qpc) {
    // A re-created QP starts with an empty ring (the entry stays: the fetch thread may hold it).
    auto it = queues_.find(change->index);
    if (it != queues_.end()) {
      discard(it->second);
      it->second.producer = it->second.fetched = it->second.handed = 0;
    }
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
      apply_doorbell(*db);
      db = doorbells_.erase(db);
    }
    QueueState& q = queue(change->index);
    if (!q.closing) {
      q.closing = true;
      closing_.push_back(change->index);
    }
    doorbell_event_.notify(sc_core::SC_ZERO_TIME);
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void WqeFetcher::send_close_marker(uint32_t qpn, QueueState& q) {
  q.closing = false;
  WorkRequest work;
  work.qpn = qpn;
  work.wqe_index = q.handed;
  work.close = true;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  send_message(pool_, work_isock, work, delay);
}

void WqeFetcher::close_drained() {
  for (size_t i = 0; i < closing_.size();) {
    QueueState& q = queue(closing_[i]);
    if (q.producer != q.handed) {
      ++i;
      continue;
    }
    const uint32_t qpn = closing_[i];
    closing_.erase(closing_.begin() + ptrdiff_t(i));
    send_close_marker(qpn, q);
  }
}

void WqeFetcher::apply_due_doorbells() {
  const sc_core::sc_time now = sim_time(*this);
  while (!doorbells_.empty() && doorbells_.front().at <= now) {
    apply_doorbell(doorbells_.front());
    doorbells_.pop_front();
  }
  if (!doorbells_.empty()) doorbell_event_.notify(doorbells_.front().at - now);
}

WqeFetcher::QueueState& WqeFetcher::queue(uint32_t qpn) {
  QueueState& q = queues_[qpn];
  q.qpn = qpn;
  return q;
}

void WqeFetcher::apply_doorbell(const PendingDoorbell& db) {
  QueueState& q = queue(db.qpn);
  q.producer = db.producer;
  if (db.with_wqe) {
    q.blueflame = true;
    q.bf_index = db.producer - 1;
    q.bf_wqe = db.wqe;
  }
  note_posted(q);
}

void WqeFetcher::note_posted(QueueState& q) {
  if (!q.waiting_fetch && q.producer != q.fetched) {
    q.waiting_fetch = true;
    fetch_ahead_.push_back(&q);
  }
}

void WqeFetcher::fetch_ahead() {
  while (!fetch_ahead_.empty()) {
    QueueState& q = *fetch_ahead_.front();
    const uint32_t qpn = q.qpn;
    // No room for its next batch: it keeps its place, and nothing behind it goes first
    // (checked before top_up, which would spend a context lookup to learn it).
    const uint32_t next_batch =
        std::min(q.producer - q.fetched, std::max<uint32_t>(1, config_.fetch_batch));
    const bool all_issued = buffered_ + next_batch <= config_.cache_entries && top_up(qpn, q);
    // WQEs on chip (or on their way) make the QP eligible for the scheduler, even when its
    // later batches still wait for room: handing them on is what makes room.
    if (!q.active && !q.stalled && !q.buffered.empty()) {
      q.active = true;
      round_robin_.push_back(&q);
    }
    if (!all_issued) {
      ++buffer_full_;
      return;
    }
    fetch_ahead_.pop_front();
    q.waiting_fetch = false;
  }
}

void WqeFetcher::discard(QueueState& q) {
  const uint64_t now = sim_time(*this).value();
  for (const FetchedWqe& f : q.buffered) {
    wqes_buffered_.down(now, std::max<uint64_t>(now, f.ready.value()));
    if (f.last_of_batch) batches_outstanding_.down(now, std::max<uint64_t>(now, f.ready.value()));
  }
  buffered_ -= uint32_t(q.buffered.size());
  q.buffered.clear();
  q.batches = 0;
  ++q.epoch;
  q.fetched = q.handed = q.producer;
  q.blueflame = false;  // a re-created QP's indices start again: an old WQE must not match
  q.stalled = false;
}

void WqeFetcher::ready_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
  const SendQueueReady* ready = message_of<SendQueueReady>(gp);
  if (!ready) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  auto it = queues_.find(ready->qpn);
  if (it == queues_.end() || !it->second.stalled) return;
  QueueState& q = it->second;
  q.stalled = false;
  if (!q.active && !q.buffered.empty()) {
    q.active = true;
    round_robin_.push_back(&q);
  }
  // The fetcher takes its next turn in the next delta cycle (it may be the caller: a read
  // that ends inside a nested call of its own hand-over).
  doorbell_event_.notify(sc_core::SC_ZERO_TIME);
}

void WqeFetcher::fetch() {
  for (;;) {
    apply_due_doorbells();
    // Reads go out in doorbell order while the WQE buffer has room, ahead of the turns: a
    // QP waiting for the requester must not hold the link idle.
    fetch_ahead();
    close_drained();
    if (round_robin_.empty()) {
      next_trigger(doorbell_event_);
      return;
    }
    // The scheduler's turn: QPs with WQEs on chip, round-robin, one batch each. A QP whose
    // next batch is still being read keeps its place but does not hold the turn: the first
    // QP with a WQE on chip takes it (no head-of-line wait behind a read in flight).
    const size_t turn = next_turn();
    if (turn == round_robin_.size()) {
      next_trigger(earliest_ready_ - sim_time(*this), doorbell_event_);
      return;
    }
    QueueState& q = *round_robin_[turn];
    // Usually the front's turn: pop_front is O(1) where deque::erase is a general move.
    if (turn == 0) {
      round_robin_.pop_front();
    } else {
      round_robin_.erase(round_robin_.begin() + ptrdiff_t(turn));
    }
    if (!q.buffered.empty()) hand_batch(q.qpn, q);
    // Its next reads go out at once (the fetch-ahead list, in turn with the other QPs), so
    // they are read while the requester works on this batch.
    note_posted(q);
    if (!q.buffered.empty() && !q.stalled) {
      round_robin_.push_back(&q);
    } else {
      q.active = false;
    }
  }
}

size_t WqeFetcher::next_turn() {
  const sc_core::sc_time now = sim_time(*this);
  earliest_ready_ = sc_core::sc_max_time();
  for (size_t i = 0; i < round_robin_.size(); ++i) {
    const QueueState& q = *round_robin_[i];
    // Nothing buffered (discarded): its turn only takes it off the list.
    if (q.buffered.empty() || q.buffered.front().ready <= now) return i;
    earliest_ready_ = std::min(earliest_ready_, q.buffered.front().ready);
  }
  return round_robin_.size();
}

bool WqeFetcher::top_up(uint32_t qpn, QueueState& q) {
  const uint32_t depth = std::max<uint32_t>(1, config_.prefetch_depth);
  const uint32_t batch_limit = std::max<uint32_t>(1, config_.fetch_batch);
  if (q.producer == q.fetched || q.batches >= depth) return true;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  QpcEntry context;
  // Traced, a context load shows on the timeline of the first WQE it fetches for.
  const uint64_t first_trace_id = trace_.on() ? make_trace_id(trace_node_, qpn, trace_number_) : 0;
  const bool have_context = read_context(pool_, context_isock, ContextRole::Fetcher, qpn,
                                         first_trace_id, &context, delay);
  const uint32_t posted = q.producer - q.handed;  // modulo 2^32
  if (!have_context || !context.valid || context.sq_depth == 0 || posted > context.sq_depth) {
    // A doorbell for a QP that does not exist, or claiming more WQEs than the ring holds:
    // the device ignores it rather than reading memory it was never given.
    ++bad_doorbells_;
    discard(q);
    return true;
  }
  q.context = context;
  const sc_core::sc_time now = sim_time(*this);
  while (q.producer != q.fetched && q.batches < depth) {
    if (q.blueflame && int32_t(q.fetched - q.bf_index) > 0) q.blueflame = false;  // read already
    if (q.blueflame && q.fetched == q.bf_index) {
      // BlueFlame: the WQE came with its doorbell; it is on chip once the context is.
      if (buffered_ + 1 > config_.cache_entries) return false;
      q.blueflame = false;
      FetchedWqe f;
      f.wqe = Wqe::decode(q.bf_wqe.data());
      f.index = q.fetched++;
      f.issued = f.ready = now + delay;
      f.last_of_batch = true;
      if (trace_.on()) f.trace_id = make_trace_id(trace_node_, qpn, trace_number_++);
      q.buffered.push_back(f);
      wqes_buffered_.up(now.value(), f.issued.value());
      ++blueflame_wqes_;
      ++buffered_;
      ++q.batches;
      batches_outstanding_.up(now.value(), f.issued.value());
      continue;
    }
    const uint32_t slot = q.fetched % context.sq_depth;
    const uint32_t batch = std::min({q.producer - q.fetched, batch_limit, context.sq_depth - slot});
    if (buffered_ + batch > config_.cache_entries) return false;
    // Every read of this top-up starts after the context lookup; the link orders them.
    sc_core::sc_time d = delay;
    const uint64_t addr = context.sq_base + uint64_t(slot) * kWqeBytes;
    const DmaAuthority ring = DmaAuthority::of_queue(DmaAuthority::Kind::SendQueue, qpn);
    const bool ok = dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND, addr, buffer_.data(),
                                 batch * kWqeBytes, DmaSource::WqeFetch, &ring, d);
    ++fetch_reads_;
    fetch_latency_.add_ps(d.value());
    if (!ok) {
      ++bad_doorbells_;
      discard(q);
      return true;
    }
    const sc_core::sc_time issued = now + delay;
    const sc_core::sc_time ready = now + d;
    for (uint32_t i = 0; i < batch; ++i) {
      FetchedWqe f;
      f.wqe = Wqe::decode(buffer_.data() + size_t(i) * kWqeBytes);
      f.index = q.fetched++;
      f.issued = issued;
      f.ready = ready;
      f.last_of_batch = i + 1 == batch;
      if (trace_.on()) f.trace_id = make_trace_id(trace_node_, qpn, trace_number_++);
      q.buffered.push_back(f);
      wqes_buffered_.up(now.value(), issued.value());
    }
    wqes_fetched_ += batch;
    buffered_ += batch;
    ++q.batches;
    batches_outstanding_.up(now.value(), issued.value());
  }
  return true;
}

void WqeFetcher::hand_batch(uint32_t qpn, QueueState& q) {
  const uint32_t epoch = q.epoch;
  bool last = false;
  while (!last && !q.buffered.empty() && q.epoch == epoch) {
    // Copied into the message; it leaves the buffer only if the requester takes it.
    FetchedWqe& front = q.buffered.front();
    WorkRequest work;
    work.qpn = qpn;
    work.wqe_index = front.index;
    work.wqe = front.wqe;
    work.context = q.context;
    work.trace_id = front.trace_id;
    // The WQE is decoded once its read is in (once only, if it was refused before); the
    // requester executes it at that time.
    const sc_core::sc_time now = sim_time(*this);
    if (!front.decoded) {
      front.decoded_at = decode_stage_.pass(front.ready > now ? front.ready : now);
      front.decoded = true;
    }
    const sc_core::sc_time handed_at = front.decoded_at > now ? front.decoded_at : now;
    const sc_core::sc_time issued = front.issued;
    last = front.last_of_batch;
    sc_core::sc_time d = handed_at - now;
    send_message(pool_, work_isock, work, d);
    // A QP re-created meanwhile (a nested call) dropped its buffer, `front` with it.
    if (q.epoch != epoch) return;
    if (work.refused) {
      ++refused_;
      q.stalled = true;
      return;
    }
    q.buffered.pop_front();
    --buffered_;
    wqes_buffered_.down(now.value(), handed_at.value());
    if (last) {
      --q.batches;
      batches_outstanding_.down(now.value(), handed_at.value());
    }
    ++q.handed;
    // The batch's DMA read and this WQE's decode (a context load is the QP-context unit's).
    if (trace_.on()) trace_.slice("fetch", issued, handed_at, work.trace_id);
  }
}

}  // namespace rnic
