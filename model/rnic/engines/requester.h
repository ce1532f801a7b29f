// SPDX-License-Identifier: Apache-2.0
// The requester engine: executes send-queue WQEs (Read, Write, Bind, FastRegister,
// Invalidate) in posting order, keeps at most
// ORD reads outstanding per QP (more wait, they never fail), honours READ_FENCE, lands read
// responses in the sink SGEs, and retires requests in posting order, so completions of one
// send queue arrive in posting order. The first error puts the QP in the error state: every
// later request completes with a flush status (R4.error.flush_later, R4.error.posted_later).
#pragma once

#include <array>
#include <deque>
#include <unordered_map>

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/engines/send_queue.h"
#include "model/rnic/msg/messages.h"
#include "tlm/payload_pool.h"
#include "tlm/recycling_allocator.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"
#include "tlm/trace.h"

namespace rnic {

class Requester : public sc_core::sc_module {
 public:
  TargetSocket<Requester> work_tsock;       // decoded WQEs from the WqeFetcher
  TargetSocket<Requester> response_tsock;   // read responses / NAKs from the Port
  TargetSocket<Requester> qp_event_tsock;   // QP errors found by the Responder
  TargetSocket<Requester> ctrl_tsock;       // context changes
  InitiatorSocket<Requester> check_isock;   // ProtectionChecker
  InitiatorSocket<Requester> xlate_isock;   // Mtt
  InitiatorSocket<Requester> write_isock;   // DmaWriteEngine
  InitiatorSocket<Requester> read_isock;    // DmaReadEngine (write source data)
  InitiatorSocket<Requester> tx_isock;      // Port
  InitiatorSocket<Requester> cq_isock;      // CompletionEngine
  InitiatorSocket<Requester> qp_event_isock;  // this QP's Responder side: a local error
  InitiatorSocket<Requester> ready_isock;     // WqeFetcher: a QP that refused work can go on

  struct Config {
    QpConfig qp;  // qp.*: ORD, SGEs, transfer size, RNR retries
    uint32_t adapter_flags = RnicConfig{}.adapter_flags;  // capability bits it honours
    double clock_mhz = DeviceTiming{}.clock_mhz;          // device.clock_mhz
    bool fast = false;  // sim.fast: runs ahead of simulated time (temporal decoupling)
  };
  Requester(sc_core::sc_module_name name, const Config& config, uint32_t node_id);
  StatGroup stats;
  // Execute and response slices on this unit's track; DMA reads of source data on the
  // DmaReadEngine's track (`dma_read_path`), which traces nothing itself.
  void attach_trace(TraceSink* sink, const std::string& dma_read_path) {
    trace_.attach(sink, name());
    dma_read_trace_.attach(sink, dma_read_path);
  }
  // Gauges for waveforms: requests accepted and not yet retired, reads awaiting a response.
  uint32_t wqes_in_flight() const;
  uint32_t reads_outstanding() const;

 private:
  struct SinkSge {
    Region region;
    uint64_t va = 0;
    uint32_t length = 0;
    uint32_t token = 0;  // checked again when read data lands if the MPT changed meanwhile
  };
  struct Pending {
    uint64_t sequence = 0;
    uint64_t wr_id = 0;
    uint64_t trace_id = 0;
    uint32_t wqe_index = 0;
    WqeOpcode opcode = WqeOpcode::Nop;
    uint16_t flags = 0;
    bool done = false;
    bool awaiting_response = false;
    bool holds_ord_slot = false;  // fast mode: owns one of qp.ord_slots until it finishes
    bool sent = false;            // its request went out (latency histograms)
    uint64_t started_ps = 0;      // execution start (absolute)
    uint64_t sent_ps = 0;         // request handed to the port (absolute)
    CqeStatus status = CqeStatus::Success;
    RuleId rule = RuleId::None;  // the rule that decided it (Cqe::rule)
    // Bind/FastRegister/Invalidate changed the object (R4.cancelled.undefined)
    bool took_effect = false;
    uint32_t bytes = 0;
    uint8_t sinks = 0;
    uint16_t sink_access = 0;  // rights the sinks were checked for
    CheckList sink_checks = CheckList::ReadSink;  // and whose checks
    std::array<SinkSge, kMaxSge> sink{};
    uint32_t first_sink_token = 0;  // RDMA_READ_LOCAL_INVALIDATE target
    uint32_t pd = 0;                // the QP's PD when the sinks were checked
    uint32_t cqn = 0;  // the QP's CQ, from the context that came with the WQE
    uint64_t mpt_generation = 0;    // the checker's MPT generation when the sinks were checked
    uint32_t rnr_retries = 0;
    Packet retry;  // Send: the packet to retransmit after an RNR NAK
  };
  struct RetryAt {
    sc_core::sc_time at;
    uint32_t qpn;
    uint64_t sequence;
  };
  struct QpState {
    uint32_t qpn = 0;
    // Requests in posting order and the completion rules (send_queue.h). A Pending is larger
    // than a deque node's 512 B target, so each post allocated a node: recycled instead.
    SendQueue<Pending, RecyclingAllocator<Pending>> queue;
    uint32_t reads_outstanding = 0;
    // Fast mode: read responses arrive as nested calls, so the count above never reaches
    // ORD; instead each read holds a slot until its response's (annotated) time, and a read
    // starts no earlier than a slot is free: ORD still spaces reads in simulated time.
    SlotPool ord_slots;
    uint32_t ord_slot_count = 0;
    // A local error still to be told to the responder side, after its completion is out.
    CqeStatus responder_notice = CqeStatus::Success;
    // The fetcher holds this QP's next WQE, refused: it can start once fewer than
    // `wait_reads_below` reads are outstanding and, if `wait_all_done`, no request is running.
    bool fetcher_waiting = false;
    uint32_t wait_reads_below = ~uint32_t(0);
    bool wait_all_done = false;
  };

  void work_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void response_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void qp_event_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  QpState& state(uint32_t qpn);
  static Pending* find(QpState& qp, uint64_t sequence) { return qp.queue.find(sequence); }
  void execute_read(uint32_t qpn, QpState& qp, const QpcEntry& qpc, uint64_t sequence,
                    const Wqe& wqe, sc_core::sc_time& delay);
  // Write, Send, SendAndInvalidate: reads the source SGEs and transmits the data.
  void execute_outbound(uint32_t qpn, QpState& qp, const QpcEntry& qpc, uint64_t sequence,
                        const Wqe& wqe, sc_core::sc_time& delay);
  // Fills tx_packet_'s header for a request of this QP (the payload is the caller's).
  void start_request(PacketKind kind, uint32_t qpn, const QpcEntry& qpc, uint64_t sequence,
                     const Wqe& wqe, uint64_t length);
  Decision execute_bind(uint32_t qpn, const QpcEntry& qpc, const Wqe& wqe, uint64_t trace_id,
                        sc_core::sc_time& delay);
  Decision execute_fast_register(uint32_t qpn, const QpcEntry& qpc, const Wqe& wqe,
                                 uint64_t trace_id, sc_core::sc_time& delay);
  Decision execute_invalidate(uint32_t qpn, const QpcEntry& qpc, const Wqe& wqe,
                              uint64_t trace_id, sc_core::sc_time& delay);
  // Local SGE checks of `checks` (a read's sinks, or a source); fills p.sink (regions) and
  // returns the total length, or fails.
  Decision check_sgl(uint32_t qpn, const QpcEntry& qpc, const Wqe& wqe, uint16_t access,
                     CheckList checks, Pending& p, uint64_t* total, sc_core::sc_time& delay);
  // Every request not retired completes CANCELLED under `rule`.
  void flush_all(QpState& qp, RuleId rule);
  // What a cancelled request gives back: its read slot, its ORD slot.
  void cancel(QpState& qp, Pending& p);
  // The close marker of `qpn` (WorkRequest::close): see ContextKind::QpClose.
  void close(uint32_t qpn, sc_core::sc_time& delay);
  Decision land_response(uint32_t qpn, Pending& p, const Packet& packet, sc_core::sc_time& delay);
  // What `sge` (a read's sink, a write's or send's source) named and was checked for: the
  // authority its DMAs carry.
  static DmaAuthority sge_authority(uint32_t qpn, const Pending& p, const SinkSge& sge);
  // Do the sinks checked when the read started still pass? (a generation compare, and a full
  // check only if the MPT changed meanwhile): the failing check's decision, or a success.
  Decision sinks_still_allowed(uint32_t qpn, Pending& p, sc_core::sc_time& delay);
  // Ends `p` with `decision`; an error also flushes every later request of the QP.
  void finish(QpState& qp, Pending& p, Decision decision);
  void retire(uint32_t qpn, QpState& qp, sc_core::sc_time& delay);
  // Can `wqe` start now? If not, records in `qp` what it waits for (ORD: fewer reads
  // outstanding than the QP's ORD; READ_FENCE: none; Invalidate: every earlier request done).
  bool can_start(QpState& qp, const QpcEntry& context, const Wqe& wqe);
  static bool wait_over(const QpState& qp);
  // A request of `qp` finished or a read ended: tells the fetcher when a refused WQE can start.
  void note_progress(QpState& qp);
  void retry_thread();
  // Fast mode: frees p's ORD slot at `at` (absolute), if it holds one.
  static void release_ord_slot(QpState& qp, Pending& p, const sc_core::sc_time& at);
  // A read stops being outstanding at `at_ps` (absolute; not before it was sent).
  void read_ended(const Pending& p, uint64_t now_ps, uint64_t at_ps);
  // Latency of a retired request, by kind, from execution start to `end_ps`.
  void record_latency(const Pending& p, uint64_t end_ps);

  Config config_;
  uint32_t node_id_;
  Clock clock_;
  PayloadPool pool_;
  std::unordered_map<uint32_t, QpState> qps_;
  Packet tx_packet_;
  std::deque<RetryAt> retries_;  // in time order: every retry waits the same RNR timer
  sc_core::sc_event retry_event_;
  TranslateRequest translate_;
  TraceTrack trace_;
  TraceTrack dma_read_trace_;
  Counter& wqes_;
  Counter& reads_;
  Counter& binds_;
  Counter& sends_;
  Counter& rnr_retries_;
  Counter& writes_;
  Counter& fast_registers_;
  Counter& invalidates_;
  Counter& read_bytes_;
  Counter& completions_;
  Counter& errors_;
  Counter& flushed_;
  Counter& ord_stalls_;
  Counter& stray_responses_;
  Histogram& read_latency_;
  Histogram& write_latency_;
  Histogram& send_latency_;
  Occupancy& reads_in_flight_;
};

}  // namespace rnic
