// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/completion/completion_engine.h"

#include "model/rnic/util/byte_order.h"

namespace rnic {

CompletionEngine::CompletionEngine(sc_core::sc_module_name name, const Config& config,
                                   const IcmLayout& icm, DeviceClock* clock)
    : sc_module(name),
      cqe_tsock("cqe_tsock", this),
      doorbell_tsock("doorbell_tsock", this),
      ctrl_tsock("ctrl_tsock", this),
      dma_isock("dma_isock"),
      context_isock("context_isock"),
      stats(std::string(this->name())),
      icm_(icm),
      device_(clock),
      write_(device_->add_stage<CompletionEngine, &CompletionEngine::write_due>(this)),
      clock_(config.clock_mhz),
      build_stage_(clock_, config.build_cycles, config.build_ii_cycles),
      completions_(stats.add("completions", "entries", "completion entries written")),
      errors_(stats.add("error_completions", "entries", "entries with a non-success status")),
      overflows_(stats.add("overflows", "entries", "entries lost to a full CQ (flagged)")),
      bad_cq_(stats.add("bad_cq", "entries", "entries for a CQ that does not exist")),
      consumer_reads_(stats.add("consumer_reads", "reads",
                                "reads of a CQ's consumer index from its context in host "
                                "memory, when the ring looked full by the last one known")),
      interrupts_(stats.add("interrupts", "messages", "interrupt messages (MSI-X writes) sent")),
      immediate_interrupts_(
          stats.add("immediate_interrupts", "messages",
                    "of the interrupts, sent when the CQ was armed: its ring already held "
                    "entries past the consumer index the driver armed it with")),
      interrupt_errors_(
          stats.add("interrupt_errors", "messages",
                    "interrupt messages that got an error response (an address the host "
                    "does not map)")),
      queue_delay_(stats.add_histogram(
          "queue_delay_ns", "completion: hand-over to the start of its CQE write (build + FIFO)")),
      queue_depth_(stats.add_occupancy("queue_depth", "entries",
                                       "completions handed over, their CQE write not started")) {
  build_stage_.set_contention(!config.fast);
}

void CompletionEngine::complete(int, CompletionRecord& record, sc_core::sc_time& delay) {
  // FIFO order is posting order; a later entry never overtakes an earlier one.
  const sc_core::sc_time now = device_->now();
  const sc_core::sc_time handed = now + delay;
  sc_core::sc_time at = build_stage_.pass(handed);
  if (!queue_.empty() && queue_.back().at > at) at = queue_.back().at;
  queue_delay_.add_ps((at - handed).value());
  queue_depth_.hold(now.value(), handed.value(), at.value());
  queue_.push_back({handed, at, record});
  device_->notify(write_, at);
}

void CompletionEngine::ring(int, Doorbell& db, sc_core::sc_time& delay) {
  if (db.number >= icm_.cqc_entries) return;
  CqState& cq = cqs_[db.number];
  cq.consumer = db.index;
  if (!db.arm) return;
  // Entries the driver has not seen when the arm arrives interrupt at once, so an entry
  // written between its last poll and its arm never goes unsignalled.
  if (cq.producer != cq.consumer) {
    ++immediate_interrupts_;
    sc_core::sc_time d = delay;
    interrupt(db.number, d);
  } else {
    cq.armed = true;
  }
}

void CompletionEngine::set_interrupt_vector(int, InterruptVector& vector, sc_core::sc_time&) {
  interrupt_address_ = vector.address;
}

void CompletionEngine::interrupt(uint32_t data, sc_core::sc_time& delay) {
  if (!interrupt_address_) return;
  ++interrupts_;
  uint8_t raw[4];
  put_le<uint32_t>(raw, data);
  // Posted, like the entry before it: the message cannot pass it on the link.
  if (!dma_transfer(pool_, dma_isock, tlm::TLM_WRITE_COMMAND, interrupt_address_, raw, 4,
                    DmaSource::Interrupt, nullptr, delay))
    ++interrupt_errors_;
}

void CompletionEngine::context_changed(int, ContextChange& change, sc_core::sc_time&) {
  if (change.kind == ContextKind::Cqc) cqs_.erase(change.index);  // a (re)created CQ starts empty
}

void CompletionEngine::write_due() {
  // Every entry due now, in FIFO order, then sleep until the next one is due. The stage is
  // notified for each entry's due time (of two the earlier one wins, as with sc_event), so
  // this runs once per due time instead of at hand-over and again then.
  while (!queue_.empty() && queue_.front().at <= device_->now()) {
    const CompletionRecord record = queue_.front().record;
    const sc_core::sc_time handed = queue_.front().handed;
    queue_.pop_front();
    write_entry(record, handed);
  }
  if (!queue_.empty()) device_->notify(write_, queue_.front().at);
}

void CompletionEngine::write_entry(const CompletionRecord& record, const sc_core::sc_time& handed) {
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  // From hand-over (FIFO wait included) until the CQE (or the overflow flag) is written.
  const TraceScope slice(trace_, "completion", record.trace_id, handed, delay);
  if (record.close) {
    // Every earlier entry of the QP is written (FIFO): tell the driver its close is done.
    if (record.cqe.qpn >= icm_.qpc_entries) return;
    uint8_t closed = 1;
    const DmaAuthority qpc = DmaAuthority::of_table(DmaTable::Qpc, record.cqe.qpn);
    dma_transfer(pool_, dma_isock, tlm::TLM_WRITE_COMMAND,
                 icm_.qpc_addr(record.cqe.qpn) + QpcEntry::kClosedOffset, &closed, 1,
                 DmaSource::Completion, &qpc, delay);
    interrupt(0xFFFFFFFFu, delay);
    return;
  }
  CqcEntry context;
  const CqcEntry* cqc = read_context(context_isock, record.cqn, record.trace_id, &context, delay)
                            ? &context
                            : nullptr;
  if (!cqc || !cqc->valid || cqc->depth == 0) {
    ++bad_cq_;
    return;
  }
  CqState& cq = cqs_[record.cqn];
  if (cq.producer - cq.consumer >= cqc->depth) {
    // Full by the last consumer index the engine knows (an arm carries one): read the
    // driver's current one from its CQ context before calling it an overflow.
    const DmaAuthority cq_context = DmaAuthority::of_table(DmaTable::Cqc, record.cqn);
    uint8_t raw[4];
    ++consumer_reads_;
    if (dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND,
                     icm_.cqc_addr(record.cqn) + CqcEntry::kConsumerOffset, raw, 4,
                     DmaSource::Completion, &cq_context, delay))
      cq.consumer = get_le<uint32_t>(raw);
  }
  if (cq.producer - cq.consumer >= cqc->depth) {
    ++overflows_;
    const DmaAuthority cq_context = DmaAuthority::of_table(DmaTable::Cqc, record.cqn);
    uint8_t flag = 1;
    dma_transfer(pool_, dma_isock, tlm::TLM_WRITE_COMMAND,
                 icm_.cqc_addr(record.cqn) + CqcEntry::kOverflowOffset, &flag, 1,
                 DmaSource::Completion, &cq_context, delay);
    cq.armed = false;
    interrupt(record.cqn, delay);  // an error event: whether armed or not
    return;
  }
  Cqe cqe = record.cqe;
  cqe.owner = uint8_t(1 + ((cq.producer / cqc->depth) & 1));
  uint8_t raw[kCqeBytes];
  cqe.encode(raw);
  const uint64_t addr = cqc->ring_base + uint64_t(cq.producer % cqc->depth) * kCqeBytes;
  const DmaAuthority ring = DmaAuthority::of_completion(record.cqn, record.trace_id);
  dma_transfer(pool_, dma_isock, tlm::TLM_WRITE_COMMAND, addr, raw, kCqeBytes,
               DmaSource::Completion, &ring, delay);
  ++cq.producer;
  if (cq.armed) {
    cq.armed = false;
    interrupt(record.cqn, delay);
  }
  ++completions_;
  if (cqe.status != CqeStatus::Success) ++errors_;
}

}  // namespace rnic
