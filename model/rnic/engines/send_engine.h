// SPDX-License-Identifier: Apache-2.0
// The send engine: what the requester decides, in plain C++ (no kernel, no sockets; times are
// picoseconds). Per QP it keeps the send queue (send_queue.h), the start gate and the ORD limit,
// and it decides:
// - whether an arriving WQE starts now or waits in the fetcher (ORD, R4.ord; READ_FENCE,
//   R2.read_fence; the Invalidate fence, R5.inv.fence), and when the fetcher may hand it again;
// - what the WQE does: completes at once (flushed, no usable context, malformed) or runs its
//   verb's steps;
// - when a read goes out (the ORD limit of the mode), what a response means, when to retry a
//   send after an RNR NAK;
// - how a request ends, what the QP's first error cancels (R4.error.flush_later), what a flush or
//   a close cancels, what retires in posting order (R4.order) and which completions are due
//   (R2.silent_success).
// The Requester around it makes the crossings and owns the timing: protection checks,
// translations, DMA, packets, CQEs, the QP-error and ready notices. It hands the engine the
// checker's answers and the current times, and carries out the engine's commands (Actions).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <unordered_map>
#include <vector>

#include "model/rnic/abi/caps.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/abi/rules.h"
#include "model/rnic/abi/wqe.h"
#include "model/rnic/engines/send_queue.h"
#include "model/rnic/net/packet.h"
#include "tlm/stats.h"

namespace rnic {

// A local SGE the protection checker passed: the range and token it named, which the DMAs of
// its request carry as their authority, and the region the checker found it in, where the MTT
// translates its pages.
struct CheckedSge {
  uint64_t va = 0;
  uint32_t length = 0;
  uint32_t token = 0;
  uint32_t mtt_index = 0;  // MTT entry of the page holding page_base_va
  uint8_t page_shift = 12;
  uint64_t page_base_va = 0;
};

// One request of a send queue, from its WQE to its completion.
struct SendRequest {
  // What the send queue keeps of it (send_queue.h): its number and how it ended.
  uint64_t sequence = 0;
  bool done = false;
  CqeStatus status = CqeStatus::Success;
  RuleId rule = RuleId::None;  // the rule that decided it (Cqe::rule)
  // From the WQE and the QP context that came with it.
  uint64_t wr_id = 0;
  uint64_t trace_id = 0;
  uint32_t wqe_index = 0;
  WqeOpcode opcode = WqeOpcode::Nop;
  uint16_t flags = 0;
  uint32_t cqn = 0;
  // Progress.
  bool awaiting_response = false;
  bool holds_ord_slot = false;  // a read, until its response or its cancelling
  bool sent = false;            // its request went out (latency histograms)
  uint64_t started_ps = 0;      // execution start (absolute)
  uint64_t sent_ps = 0;         // a read: request handed to the port (absolute)
  // Bind/FastRegister/Invalidate changed the object (R4.cancelled.undefined)
  bool took_effect = false;
  uint32_t bytes = 0;
  uint32_t rnr_retries = 0;
  // The local SGEs as checked when it started: a read's sinks (checked again when its data
  // lands, if the MPT changed meanwhile), or a write's or send's sources.
  uint8_t sges = 0;
  uint16_t sge_access = 0;                     // the rights they were checked for
  CheckList sge_checks = CheckList::ReadSink;  // and whose checks
  std::array<CheckedSge, kMaxSge> sge{};
  uint32_t first_sink_token = 0;  // RDMA_READ_LOCAL_INVALIDATE target
  uint32_t pd = 0;                // the QP's PD when they were checked
  uint64_t mpt_generation = 0;    // the checker's MPT generation at the first check
  Packet retry;                   // a send: the packet to transmit again after an RNR NAK
};

// What a request is doing, as the checker and the DMA authority name it (data verbs only).
inline RequestVerb data_verb(WqeOpcode opcode) {
  return opcode == WqeOpcode::Read             ? RequestVerb::Read
         : opcode == WqeOpcode::Write          ? RequestVerb::Write
         : opcode == WqeOpcode::SendInvalidate ? RequestVerb::SendInvalidate
                                               : RequestVerb::Send;
}

// ORD (R4.ord): at most ORD reads of a QP outstanding. In both modes the start gate refuses a
// read while ORD are outstanding; what else holds a read back, and when it stops being
// outstanding, is the mode's: one of these per QP.
class OrdLimit {
 public:
  virtual ~OrdLimit() = default;
  // A read the gate let through, ready at `ready_ps` while `outstanding` reads of the QP await
  // their response: when it goes out. It holds what it took until release().
  virtual uint64_t take(uint32_t ord, uint32_t outstanding, uint64_t ready_ps) = 0;
  virtual void release(uint64_t at_ps) = 0;
  // A read whose response is handled at `now_ps` and annotated `response_ps` stops being
  // outstanding at the time returned.
  virtual uint64_t read_end_ps(uint64_t now_ps, uint64_t response_ps) const = 0;
};

// Cycle mode: the gate's count is the whole limit. A response is handled at its time, so the
// read ends and its slot frees there.
class OrdCount final : public OrdLimit {
 public:
  uint64_t take(uint32_t, uint32_t, uint64_t ready_ps) override { return ready_ps; }
  void release(uint64_t) override {}
  uint64_t read_end_ps(uint64_t now_ps, uint64_t) const override { return now_ps; }
};

// Fast mode: responses arrive as nested calls, before their time, so the count rarely reaches
// ORD. Each read holds one of ORD slots until its response's annotated time instead, and goes
// out no earlier than a slot is free: ORD still spaces reads in simulated time.
class OrdSlotPool final : public OrdLimit {
 public:
  uint64_t take(uint32_t ord, uint32_t outstanding, uint64_t ready_ps) override;
  void release(uint64_t at_ps) override { free_at_.push(at_ps); }
  uint64_t read_end_ps(uint64_t, uint64_t response_ps) const override { return response_ps; }
  uint32_t slots() const { return slots_; }

 private:
  // When each slot frees, earliest first. One slot until the first read sizes the pool.
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> free_at_{
      std::greater<uint64_t>(), std::vector<uint64_t>(1, 0)};
  uint32_t slots_ = 0;  // ORD the pool was sized for (0: not yet)
};

class SendEngine {
 public:
  struct Config {
    uint32_t max_ord = 16;  // qp.max_ord: a QP's ORD is capped here
    uint32_t max_sge = 4;
    uint64_t max_transfer_bytes = 1ull << 31;
    uint32_t rnr_retry_count = 7;
    uint64_t rnr_timer_ps = 10'000'000;
    uint32_t adapter_flags = 0;  // the capability bits it honours (abi/caps.h)
    bool slot_pool_ord = false;  // sim.fast: ORD as a slot pool (OrdSlotPool), else a count
  };
  // The statistics the engine keeps, declared by the unit around it.
  struct Stats {
    Counter& wqes;
    Counter& completions;
    Counter& errors;
    Counter& flushed;
    Counter& ord_stalls;
    Counter& ord_wait_ps;  // reads' time waiting for an ORD slot (ps)
    Counter& stray_responses;
    Histogram& read_latency;
    Histogram& write_latency;
    Histogram& send_latency;
    Occupancy& reads_outstanding;
  };
  // What the engine has the unit do, in the order it decides it.
  class Actions {
   public:
    // A retired request whose completion is due: its CQE.
    virtual void complete(uint32_t qpn, const SendRequest& request) = 0;
    // The QP whose WQE was refused can take it now: the ready notice to the fetcher.
    virtual void ready(uint32_t qpn) = 0;
    // The QP entered the error state, and its error completion has left: the QP-event notice
    // to its responder side (R4.error.flush_receives, R5.peer_error).
    virtual void qp_error(uint32_t qpn, CqeStatus cause) = 0;
    // Every request ahead of the QP's close marker has retired: the marker follows them.
    virtual void closed(uint32_t qpn) = 0;

   protected:
    ~Actions() = default;
  };

  // A QP's state; the unit holds it only to hand it back (references stay valid).
  struct Qp {
    uint32_t qpn = 0;
    SendQueue<SendRequest> queue;
    uint32_t reads_outstanding = 0;
    std::unique_ptr<OrdLimit> ord;
    // The fetcher holds this QP's next WQE, refused: it can start once fewer than
    // `wait_reads_below` reads are outstanding and, if `wait_all_done`, no request runs.
    bool fetcher_waiting = false;
    uint32_t wait_reads_below = ~uint32_t(0);
    bool wait_all_done = false;
    // The refused WQE is a read held back by ORD alone (no fence) since `ord_wait_since_ps`,
    // the time it would first have started: its wait ends when it starts (ord_wait_ps).
    bool ord_waiting = false;
    uint64_t ord_wait_since_ps = 0;
    // A local error still to be told to the responder side, once its completion is out.
    CqeStatus responder_notice = CqeStatus::Success;
  };

  SendEngine(const Config& config, const Stats& stats);

  // ---- A WQE arrives, with the QP context read with it; it would start at `start_ps`.
  enum class Step : uint8_t {
    Refused,  // not taken: it stays in the fetcher until Actions::ready
    Ended,    // completed at once (flushed, no usable context, malformed): retire
    Read,     // the verb's steps, then retire
    Outbound,  // Write, Send, SendInvalidate
    Bind,
    FastRegister,
    Invalidate,
  };
  struct Admission {
    Step step = Step::Refused;
    Qp* qp = nullptr;
    SendRequest* request = nullptr;  // null when refused
  };
  Admission admit(uint32_t qpn, const QpcEntry& context, const Wqe& wqe, uint32_t wqe_index,
                  uint64_t trace_id, uint64_t start_ps, uint64_t now_ps, Actions& out);

  // ---- The verbs' steps.
  // The request numbered `sequence`, or null once it retired (look again after a crossing).
  static SendRequest* find(Qp& qp, uint64_t sequence) { return qp.queue.find(sequence); }
  // The rights a read's sinks are checked for: local write, and RDMA_READ_SINK unless the
  // adapter does not require it (R5.read.sink.local_write, R5.read.sink.read_sink).
  uint16_t sink_access() const {
    return (config_.adapter_flags & caps::kRdmaReadSinkNotRequired)
               ? uint16_t(kAccessLocalWrite)
               : uint16_t(kAccessLocalWrite | kAccessReadSink);
  }
  // The local SGE checks of `request`: the driver's limits again for a WQE that did not come
  // through it (R4.inline.sge_count, R4.inline.total_length), and each SGE with a length (one
  // of length 0 is skipped: no key check) checked in order by `check(sge, &checked)`, the
  // checker's decision, which on success fills checked.mtt_index, page_shift and page_base_va
  // and returns its MPT generation in `*generation`. Records the SGEs for the DMAs and
  // returns the first failure, LocalProtection with the checker's rule, or a success with the
  // total length in `*total`.
  template <typename Check>
  Decision check_sgl(SendRequest& request, const Wqe& wqe, uint32_t pd, uint16_t access,
                     CheckList checks, uint64_t* total, Check&& check) const;
  // A read whose sinks passed goes out, ready at `ready_ps`: the time it leaves (the ORD limit
  // may hold it back).
  uint64_t issue_read(Qp& qp, SendRequest& request, const QpcEntry& context, uint64_t bytes,
                      uint64_t ready_ps, uint64_t now_ps);
  // A write or send goes out with `bytes`; its acknowledgement lands nothing.
  static void issue_outbound(SendRequest& request, uint64_t bytes);
  // A Bind, FastRegister or Invalidate was executed: whether it took effect, and its end.
  void executed(Qp& qp, uint64_t sequence, Decision decision, uint64_t now_ps, Actions& out);

  // ---- A response arrives.
  // The request it answers, or null when none awaits it (flushed meanwhile: a stray).
  SendRequest* awaiting(const Packet* packet, Qp** qp);
  enum class Reply : uint8_t {
    Retry,    // an RNR NAK with retries left: sent again at next_retry_ps()
    Decided,  // *decision says how the request ends
    Land,     // read data of the expected length: land it in the sinks
  };
  // What `packet` means for `request`, handled at `now_ps` and annotated `at_ps`. A read stops
  // being outstanding here.
  Reply reply(Qp& qp, SendRequest& request, const Packet& packet, uint64_t now_ps,
              uint64_t at_ps, Decision* decision);
  // RDMA_READ_LOCAL_INVALIDATE: does a read ending with `decision` invalidate its first
  // sink's token? (R2.read_local_invalidate; not without the capability,
  // R2.read_local_invalidate.ignored)
  bool invalidates_first_sink(const SendRequest& request, Decision decision) const {
    return !decision.failed() && request.opcode == WqeOpcode::Read &&
           (request.flags & kWqeFlagReadLocalInvalidate) &&
           (config_.adapter_flags & caps::kRdmaReadLocalInvalidateSupported) &&
           request.sges > 0;
  }

  // ---- Ends and retirement.
  // Ends `request` with `decision`; the QP's first error cancels every later request.
  void finish(Qp& qp, SendRequest& request, Decision decision, uint64_t now_ps, Actions& out);
  // Completes the requests at the front that ended, in posting order; `at_ps` is the time.
  void retire(Qp& qp, uint64_t at_ps, Actions& out);
  // The QP's responder side found an error: everything not finished is flushed
  // (R4.error.flush_later) and retires.
  void responder_failed(uint32_t qpn, uint64_t now_ps, uint64_t at_ps, Actions& out);
  // Flush(qp): every request not retired completes CANCELLED (R5.flush), later ones too.
  void flush(uint32_t qpn, uint64_t now_ps, uint64_t at_ps, Actions& out);
  // The QP's close marker: flushes and retires what is ahead of it, then Actions::closed.
  void close(uint32_t qpn, uint64_t now_ps, uint64_t at_ps, Actions& out);
  // The QP's context was written: a QP being (re)created starts clean, if nothing is queued.
  void context_changed(uint32_t qpn);

  // ---- RNR retries, in time order (each waits the same timer).
  bool retry_waiting() const { return !retries_.empty(); }
  uint64_t next_retry_ps() const { return retries_.front().at_ps; }
  // Takes the first retry: the packet to send again, or null if its request no longer waits.
  Packet* take_retry();

  // Gauges: requests accepted and not retired, reads awaiting a response (all QPs).
  uint32_t wqes_in_flight() const;
  uint32_t reads_outstanding() const;

 private:
  struct RetryAt {
    uint64_t at_ps;
    uint32_t qpn;
    uint64_t sequence;
  };

  // The QP's state, made on first use.
  Qp& state(uint32_t qpn) {
    if (last_ && last_->qpn == qpn) return *last_;
    return lookup(qpn);
  }
  Qp& lookup(uint32_t qpn);
  uint32_t ord_of(const QpcEntry& context) const;
  // Can `wqe` start now? If not, records in `qp` what it waits for.
  bool can_start(Qp& qp, const QpcEntry& context, const Wqe& wqe) const;
  static bool wait_over(const Qp& qp);
  // A request of `qp` finished or a read ended: the ready notice, once a refused WQE can start.
  static void note_progress(Qp& qp, Actions& out);
  void flush_all(Qp& qp, RuleId rule, uint64_t now_ps, Actions& out);
  // What a cancelled request gives back: its read, its ORD slot.
  void cancel(Qp& qp, SendRequest& request, uint64_t now_ps);
  void read_ended(const SendRequest& request, uint64_t now_ps, uint64_t at_ps);
  void record_latency(const SendRequest& request, uint64_t end_ps);

  Config config_;
  Stats stats_;
  std::unordered_map<uint32_t, Qp> qps_;  // nodes stay put: a Qp's address never changes
  Qp* last_ = nullptr;                     // the QP looked up last (one QP's work comes in runs)
  std::deque<RetryAt> retries_;
};

template <typename Check>
Decision SendEngine::check_sgl(SendRequest& request, const Wqe& wqe, uint32_t pd,
                               uint16_t access, CheckList checks, uint64_t* total,
                               Check&& check) const {
  if (wqe.nsge > config_.max_sge || wqe.nsge > kMaxSge)
    return Decision::fail(CqeStatus::LocalQpOperation, RuleId::R4_inline_sge_count);
  *total = 0;
  request.sges = 0;
  request.pd = pd;
  for (uint32_t i = 0; i < wqe.nsge; ++i) {
    const Sge& sge = wqe.sge[i];
    if (sge.length == 0) continue;
    CheckedSge& checked = request.sge[request.sges];
    uint64_t generation = 0;
    const Decision decision = check(sge, &checked, &generation);
    if (decision.failed()) return Decision::fail(CqeStatus::LocalProtection, decision.rule);
    if (request.sges == 0) {
      request.first_sink_token = sge.token;
      request.mpt_generation = generation;  // the earliest: a later change is then seen
    }
    checked.va = sge.addr;
    checked.length = sge.length;
    checked.token = sge.token;
    ++request.sges;
    *total += sge.length;
  }
  if (*total > config_.max_transfer_bytes)
    return Decision::fail(CqeStatus::LocalLength, RuleId::R4_inline_total_length);
  request.sge_access = access;
  request.sge_checks = checks;
  return Decision::ok();
}

}  // namespace rnic
