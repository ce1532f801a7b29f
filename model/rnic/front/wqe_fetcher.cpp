// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/front/wqe_fetcher.h"

#include <algorithm>

namespace rnic {

WqeFetcher::WqeFetcher(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm,
                       DeviceClock* clock)
    : sc_module(name),
      doorbell_tsock("doorbell_tsock", this),
      ctrl_tsock("ctrl_tsock", this),
      dma_isock("dma_isock"),
      context_isock("context_isock"),
      work_isock("work_isock"),
      ready_tsock("ready_tsock", this),
      stats(std::string(this->name())),
      config_(config.wqe),
      icm_(icm),
      device_(clock),
      ring_(device_->add_stage<WqeFetcher, &WqeFetcher::fetch>(this)),
      turn_(device_->add_stage<WqeFetcher, &WqeFetcher::fetch>(this)),
      clock_(config.clock_mhz),
      decode_stage_(clock_, config.wqe.decode_cycles, config.wqe.decode_ii_cycles),
      scheduler_({config.wqe.fetch_batch, config.wqe.prefetch_depth, config.wqe.cache_entries,
                  config.wqe.cache_policy == WqeCachePolicy::Evict}),
      wqes_fetched_(stats.add("wqes_fetched", "WQEs", "WQEs read from send queues")),
      blueflame_wqes_(stats.add("blueflame_wqes", "WQEs",
                                "WQEs taken from their BlueFlame doorbell, with no ring read")),
      blueflame_discarded_(stats.add(
          "blueflame_discarded", "WQEs",
          "BlueFlame WQEs not taken from their doorbell: read from the ring with an earlier "
          "unread WQE of their QP, replaced by a later BlueFlame write, or their QP discarded")),
      fetch_reads_(stats.add("fetch_reads", "transactions", "DMA reads of WQE batches")),
      bad_doorbells_(
          stats.add("bad_doorbells", "writes", "doorbells for unknown QPs or beyond the ring")),
      buffer_full_(stats.add("buffer_full", "turns",
                             "scheduler turns taken while the next WQE read waited for WQE "
                             "buffer room")),
      buffer_wait_ps_(stats.add("buffer_wait_ps", "ps",
                                "time WQE reads waited for WQE buffer room, summed over reads: "
                                "the fetch-ahead's next read from the first turn that found no "
                                "room to its issue, and an evicted WQE's read again (evict)")),
      refused_(stats.add("refused_wqes", "WQEs",
                         "WQEs the requester could not start yet (ORD full, a fence): their "
                         "QP left the turns until the requester said it can go on")),
      evicted_wqes_(stats.add("evicted_wqes", "WQEs",
                              "WQEs evicted from the WQE buffer before they were handed on, "
                              "their slots taken by other QPs' reads (wqe.cache_policy evict)")),
      refetches_(stats.add("refetches", "transactions",
                           "DMA reads of evicted WQEs, read again when their QP's turn came")),
      refetched_bytes_(stats.add("refetched_bytes", "bytes", "bytes of WQEs read again")),
      refetch_waits_(stats.add("refetch_waits", "turns",
                               "turns that found the QP's next WQE evicted and no slot to read "
                               "it into (every slot held by a read in flight)")),
      fetch_latency_(stats.add_histogram(
          "fetch_latency_ns", "WQE batch: fetch start (QP context lookup) to the WQEs on chip")),
      wqes_buffered_(stats.add_occupancy(
          "wqes_buffered", "WQEs",
          "WQE buffer in use: fetched or being fetched, not yet handed on or evicted (at most "
          "wqe.cache_entries)")),
      batches_outstanding_(stats.add_occupancy(
          "batches_outstanding", "batches",
          "batch reads in flight or buffered, all QPs (per QP at most wqe.prefetch_depth)")) {
  decode_stage_.set_contention(!config.fast);
  buffer_.resize(size_t(std::max<uint32_t>(1, config.wqe.fetch_batch)) * kWqeBytes);
  // A device-clock stage: nothing it calls waits (the requester refuses what it cannot
  // start). In fast mode a whole read (request, remote service, response, landing,
  // completion) runs as nested calls below it.
}

void WqeFetcher::ring(int, Doorbell& db, sc_core::sc_time& delay) {
  if (db.number >= icm_.qpc_entries) {
    ++bad_doorbells_;
    return;
  }
  // The doorbell takes effect when it reaches the device: `delay` from now.
  const sc_core::sc_time at = device_->now() + delay;
  doorbells_.push_back({at, db.number, db.index, db.with_wqe, db.wqe});
  device_->notify(ring_, at);
}

void WqeFetcher::context_changed(int, ContextChange& change, sc_core::sc_time&) {
  if (change.kind == ContextKind::Qpc) {
    // A re-created QP starts with an empty ring (the entry stays: the fetch thread may hold it).
    if (Queue* q = scheduler_.find(change.index)) {
      release_buffer(*q);
      scheduler_.recreate(*q);
    }
  } else if (change.kind == ContextKind::QpClose && change.index < icm_.qpc_entries) {
    // The close marker follows the QP's last WQE through the requester (which completes in
    // order), so its arrival at the completion engine means the QP has nothing left. The
    // QP's doorbells were written before this notice (posted writes stay in order): they
    // count now.
    for (auto db = doorbells_.begin(); db != doorbells_.end();) {
      if (db->qpn != change.index) {
        ++db;
        continue;
      }
      apply_doorbell(*db);
      db = doorbells_.erase(db);
    }
    scheduler_.close(change.index);
    device_->notify_now(ring_);
  }
}

void WqeFetcher::send_close_marker(const Queue& q) {
  WorkRequest work;
  work.qpn = q.qpn();
  work.wqe_index = q.handed();
  work.close = true;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  work_isock->work(work, delay);
}

void WqeFetcher::close_drained() {
  size_t cursor = 0;
  while (const Queue* q = scheduler_.take_drained(cursor)) send_close_marker(*q);
}

void WqeFetcher::apply_due_doorbells() {
  const sc_core::sc_time now = device_->now();
  while (!doorbells_.empty() && doorbells_.front().at <= now) {
    apply_doorbell(doorbells_.front());
    doorbells_.pop_front();
  }
  if (!doorbells_.empty()) device_->notify(ring_, doorbells_.front().at);
}

void WqeFetcher::apply_doorbell(const PendingDoorbell& db) {
  scheduler_.ring(db.qpn, db.producer, db.with_wqe ? db.wqe.data() : nullptr);
  blueflame_discarded_ += scheduler_.take_blueflame_discarded();
}

void WqeFetcher::fetch_ahead() {
  const uint64_t now = device_->now().value();
  while (Queue* q = scheduler_.fetch_ahead_head()) {
    // No room for its next batch: it keeps its place, and nothing behind it goes first
    // (checked before top_up, which would spend a context lookup to learn it).
    const bool all_issued = scheduler_.room_for_next_batch(*q) && top_up(*q);
    scheduler_.end_fetch_ahead(all_issued, now);
    if (!all_issued) {
      ++buffer_full_;
      // Its next read waits from the first turn that found no room. One read of the head waits
      // at a time, and a read issued now ends one wait where the next begins: the sum is the
      // time the fetch-ahead was held by a full buffer.
      if (!head_waiting_) {
        head_waiting_ = true;
        head_wait_since_ps_ = now;
      }
      return;
    }
  }
  // Everything rung is read, or going out now: what waited for room has it.
  if (head_waiting_) {
    head_waiting_ = false;
    buffer_wait_ps_ += now - head_wait_since_ps_;
  }
}

void WqeFetcher::end_refetch_wait(uint32_t qpn, uint64_t now_ps) {
  if (refetch_wait_since_.empty()) return;
  const auto it = refetch_wait_since_.find(qpn);
  if (it == refetch_wait_since_.end()) return;
  buffer_wait_ps_ += now_ps - it->second;
  refetch_wait_since_.erase(it);
}

void WqeFetcher::release_buffer(const Queue& q) {
  const uint64_t now = device_->now().value();
  end_refetch_wait(q.qpn(), now);  // a refetch waiting for a slot is dropped with the rest
  for (const BufferedWqe& f : q.buffered()) {
    // The scheduler frees the slot now (a read still out lands in nothing).
    if (!f.evicted) wqes_buffered_.down(now, now);
    if (f.last_of_batch) batches_outstanding_.down(now, std::max(now, f.ready_ps));
  }
}

void WqeFetcher::note_evictions() {
  blueflame_discarded_ += scheduler_.take_blueflame_discarded();
  const uint32_t n = scheduler_.take_evicted();
  if (n == 0) return;
  const uint64_t now = device_->now().value();
  for (uint32_t i = 0; i < n; ++i) wqes_buffered_.down(now, now);
  evicted_wqes_ += n;
}

void WqeFetcher::refetch(Queue& q) {
  const uint64_t now = device_->now().value();
  // No slot: try again after a device cycle, or once the read holding the oldest is in.
  const SendScheduler::Read read =
      scheduler_.refetch(q, q.context.sq_depth, now, clock_.cycles(1).value());
  note_evictions();
  if (read.kind != SendScheduler::Read::Kind::Ring) {
    ++refetch_waits_;
    refetch_wait_since_.try_emplace(q.qpn(), now);  // from the first turn that found no slot
    return;
  }
  end_refetch_wait(q.qpn(), now);
  // The QP's context is on chip (its turn); the ring is where its last read found it.
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  const uint64_t addr = q.context.sq_base + uint64_t(read.slot) * kWqeBytes;
  const DmaAuthority ring = DmaAuthority::of_queue(DmaAuthority::Kind::SendQueue, q.qpn());
  const bool ok = dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND, addr, buffer_.data(),
                               read.count * kWqeBytes, DmaSource::WqeFetch, &ring, d);
  ++refetches_;
  refetched_bytes_ += uint64_t(read.count) * kWqeBytes;
  for (uint32_t i = 0; i < read.count; ++i) wqes_buffered_.up(now, now);
  if (!ok) {
    ++bad_doorbells_;
    release_buffer(q);
    scheduler_.discard(q);
    blueflame_discarded_ += scheduler_.take_blueflame_discarded();
    return;
  }
  for (uint32_t i = 0; i < read.count; ++i) {
    BufferedWqe& f = scheduler_.refill(q, i, now + d.value());
    f.wqe = Wqe::decode(buffer_.data() + size_t(i) * kWqeBytes);
    f.issued_ps = now;
  }
}

void WqeFetcher::ready(int, SendQueueReady& ready, sc_core::sc_time&) {
  if (!scheduler_.resume(ready.qpn, device_->now().value())) return;
  // The fetcher takes its next turn after the running stage (it may be the caller: a read
  // that ends inside a nested call of its own hand-over).
  device_->notify_now(ring_);
}

void WqeFetcher::fetch() {
  // Whichever stage woke it, this run sees what the other's notifications up to now were
  // for (as a method's one activation for an event and a timeout at the same time); the
  // timeout is set again below.
  device_->cancel(turn_);
  device_->cancel_due(ring_, device_->now());
  for (;;) {
    apply_due_doorbells();
    // Reads go out in doorbell order while the WQE buffer has room, ahead of the turns: a
    // QP waiting for the requester must not hold the link idle.
    fetch_ahead();
    if (scheduler_.closing()) close_drained();
    if (scheduler_.idle()) return;  // until ring_
    const sc_core::sc_time& now = device_->now();
    Queue* q = scheduler_.take_turn(now.value());
    if (!q) {
      device_->notify(turn_, sc_core::sc_time::from_value(scheduler_.next_ready_ps()));
      return;
    }
    if (q->has_buffered()) hand_batch(*q);
    scheduler_.end_turn(*q, now.value());  // the device's time: the same after the hand-over
  }
}

bool WqeFetcher::top_up(Queue& q) {
  if (!scheduler_.wants_read(q)) return true;
  const uint32_t qpn = q.qpn();
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  QpcEntry context;
  // Traced, a context load shows on the timeline of the first WQE it fetches for.
  const uint64_t first_trace_id = trace_.on() ? make_trace_id(trace_node_, qpn, trace_number_) : 0;
  const bool have_context = read_context(context_isock, qpn, first_trace_id, &context, delay);
  if (!have_context || !context.valid || context.sq_depth == 0 || q.posted() > context.sq_depth) {
    // A doorbell for a QP that does not exist, or claiming more WQEs than the ring holds:
    // the device ignores it rather than reading memory it was never given.
    ++bad_doorbells_;
    release_buffer(q);
    scheduler_.discard(q);
    blueflame_discarded_ += scheduler_.take_blueflame_discarded();
    return true;
  }
  q.context = context;
  const uint64_t now = device_->now().value();
  // Every read of this top-up starts after the context lookup; the link orders them.
  const uint64_t issued = now + delay.value();
  for (;;) {
    const SendScheduler::Read read = scheduler_.next_read(q, context.sq_depth, now);
    note_evictions();
    if (read.kind == SendScheduler::Read::Kind::None) return true;
    if (read.kind == SendScheduler::Read::Kind::NoRoom) return false;
    if (read.kind == SendScheduler::Read::Kind::BlueFlame) {
      // The WQE came with its doorbell; it is on chip once the context is.
      BufferedWqe& f = scheduler_.add(q, issued, true, now);
      f.wqe = Wqe::decode(q.blueflame_wqe());
      f.issued_ps = issued;
      if (trace_.on()) f.trace_id = make_trace_id(trace_node_, qpn, trace_number_++);
      wqes_buffered_.up(now, now);  // the slot is the scheduler's from now: the fetch starts
      ++blueflame_wqes_;
      batches_outstanding_.up(now, issued);
      continue;
    }
    sc_core::sc_time d = delay;
    const uint64_t addr = context.sq_base + uint64_t(read.slot) * kWqeBytes;
    const DmaAuthority ring = DmaAuthority::of_queue(DmaAuthority::Kind::SendQueue, qpn);
    const bool ok = dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND, addr, buffer_.data(),
                                 read.count * kWqeBytes, DmaSource::WqeFetch, &ring, d);
    ++fetch_reads_;
    fetch_latency_.add_ps(d.value());
    if (!ok) {
      ++bad_doorbells_;
      release_buffer(q);
      scheduler_.discard(q);
      blueflame_discarded_ += scheduler_.take_blueflame_discarded();
      return true;
    }
    const uint64_t ready = now + d.value();
    for (uint32_t i = 0; i < read.count; ++i) {
      BufferedWqe& f = scheduler_.add(q, ready, i + 1 == read.count, now);
      f.wqe = Wqe::decode(buffer_.data() + size_t(i) * kWqeBytes);
      f.issued_ps = issued;
      if (trace_.on()) f.trace_id = make_trace_id(trace_node_, qpn, trace_number_++);
      wqes_buffered_.up(now, now);
    }
    wqes_fetched_ += read.count;
    batches_outstanding_.up(now, issued);
  }
}

void WqeFetcher::hand_batch(Queue& q) {
  const uint32_t epoch = q.epoch();
  bool last = false;
  while (!last && q.has_buffered() && q.epoch() == epoch) {
    // Copied into the message; it leaves the buffer only if the requester takes it.
    BufferedWqe& front = q.front();
    if (front.evicted) {
      // A miss: read again; the turn ends here (the QP waits for the read on the turn list).
      refetch(q);
      return;
    }
    WorkRequest work;
    work.qpn = q.qpn();
    work.wqe_index = front.index;
    work.wqe = front.wqe;
    work.context = q.context;
    work.trace_id = front.trace_id;
    // The WQE is decoded once its read is in (once only, if it was refused before); the
    // requester executes it at that time.
    const sc_core::sc_time& now = device_->now();
    const uint64_t now_ps = now.value();
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;  // until it is handed on
    if (!front.decoded) {
      // Its turn came, so its read is in: it enters the decoder now.
      const sc_core::sc_time decoded_at = decode_stage_.pass(
          front.ready_ps > now_ps ? sc_core::sc_time::from_value(front.ready_ps) : now);
      front.decoded_at_ps = decoded_at.value();
      front.decoded = true;
      if (decoded_at > now) d = decoded_at - now;
    } else if (front.decoded_at_ps > now_ps) {
      d = sc_core::sc_time::from_value(front.decoded_at_ps) - now;
    }
    const uint64_t handed_at = std::max(front.decoded_at_ps, now_ps);
    const uint64_t issued = front.issued_ps;
    last = front.last_of_batch;
    work_isock->work(work, d);
    // A QP re-created meanwhile (a nested call) dropped its buffer, `front` with it.
    if (q.epoch() != epoch) return;
    if (work.refused) {
      ++refused_;
      scheduler_.refused(q);
      return;
    }
    scheduler_.handed(q);
    // Its slot is free from now (the scheduler lets the next read take it): the decoder, not
    // the buffer, holds the WQE until handed_at. The level follows the scheduler's count, so
    // its maximum is at most wqe.cache_entries.
    wqes_buffered_.down(now_ps, now_ps);
    if (last) batches_outstanding_.down(now_ps, handed_at);
    // The batch's DMA read and this WQE's decode (a context load is the QP-context unit's).
    if (trace_.on()) {
      trace_.slice("fetch", sc_core::sc_time::from_value(issued),
                   sc_core::sc_time::from_value(handed_at), work.trace_id);
    }
  }
}

}  // namespace rnic
