// SPDX-License-Identifier: Apache-2.0
// Reads posted WQEs from send-queue rings in host memory by DMA and hands them, decoded, to
// the Requester in posting order.
//
// - Fetch: up to wqe.fetch_batch WQEs per DMA read, never past the ring's end.
// - Prefetch: per QP, up to wqe.prefetch_depth batch reads in flight or waiting on chip; a
//   batch used up is replaced by the next read at once, so one QP's fetch latency overlaps
//   its execution.
// - WQE buffer: every WQE fetched and not yet handed on holds one of wqe.cache_entries slots
//   (all QPs share it); a read is issued only when its batch has room.
// - Fetch: QPs rung and not yet read get their reads issued in doorbell order while the WQE
//   buffer has room, ahead of the scheduler's turns: the reads of many QPs overlap on the
//   link as those of one QP do (bounded by the buffer and by the DMA engine's read tags).
// - BlueFlame: a WQE written with its doorbell (Doorbell::with_wqe) is taken from there when
//   it is the QP's next to fetch: no ring read, only the QP context lookup.
// - Scheduler: the QPs with WQEs on chip (or on their way) take turns round-robin, one batch
//   per turn; a QP whose next batch is still being read keeps its place and lets the next QP
//   with a WQE on chip go first.
// - A WQE the Requester refuses (its QP's ORD is full, or a fence waits) stays in the buffer,
//   decoded, and its QP leaves the turns until the Requester sends SendQueueReady; the other
//   QPs go on meanwhile (no head-of-line blocking across QPs).
#pragma once

#include <array>
#include <deque>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/msg/context.h"
#include "model/rnic/msg/messages.h"
#include "tlm/payload_pool.h"
#include "tlm/recycling_allocator.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"
#include "tlm/trace.h"

namespace rnic {

class WqeFetcher : public sc_core::sc_module {
 public:
  TargetSocket<WqeFetcher> doorbell_tsock;    // send-queue doorbells
  TargetSocket<WqeFetcher> ctrl_tsock;        // context changes
  InitiatorSocket<WqeFetcher> dma_isock;      // WQE reads
  InitiatorSocket<WqeFetcher> context_isock;  // QP contexts (QpContext)
  InitiatorSocket<WqeFetcher> work_isock;     // decoded WQEs to the Requester
  TargetSocket<WqeFetcher> ready_tsock;       // Requester: a QP that refused a WQE can go on

  struct Config {
    WqeConfig wqe;                                // wqe.*
    double clock_mhz = DeviceTiming{}.clock_mhz;  // device.clock_mhz
    bool fast = false;  // sim.fast: runs ahead of simulated time (temporal decoupling)
  };
  WqeFetcher(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm);
  StatGroup stats;
  // Fetch slices on this unit's track; WQEs get trace ids of node `node`.
  void attach_trace(TraceSink* sink, uint32_t node) {
    trace_.attach(sink, name());
    trace_node_ = node;
  }

 private:
  // A WQE on chip (or on its way): decoded when its batch read was issued, usable at `ready`.
  struct FetchedWqe {
    Wqe wqe;
    uint32_t index = 0;
    sc_core::sc_time issued;  // its batch read started (trace)
    sc_core::sc_time ready;   // its batch read completed
    bool last_of_batch = false;
    uint64_t trace_id = 0;    // its request's timeline id, given when it is fetched
    bool decoded = false;     // refused once: decoded at `decoded_at`, not decoded again
    sc_core::sc_time decoded_at;
  };
  struct QueueState {
    uint32_t qpn = 0;
    uint32_t producer = 0;  // from the latest doorbell
    uint32_t fetched = 0;   // WQEs read (or being read)
    uint32_t handed = 0;    // WQEs handed on
    uint32_t batches = 0;   // batch reads in flight or buffered
    uint32_t epoch = 0;     // bumped when the QP is re-created: buffered WQEs are stale
    bool active = false;         // in the round-robin list (has WQEs on chip)
    bool waiting_fetch = false;  // in the fetch-ahead list (has WQEs rung, not yet read)
    bool closing = false;  // QpClose: send the close marker once everything rung is handed on
    bool stalled = false;  // its next WQE was refused: out of the turns until SendQueueReady
    bool blueflame = false;  // bf_wqe is WQE bf_index, written with its doorbell: no ring read
    uint32_t bf_index = 0;
    std::array<uint8_t, kWqeBytes> bf_wqe{};
    // A FetchedWqe holds its WQE: a deque node keeps two, so nodes are recycled, not freed.
    std::deque<FetchedWqe, RecyclingAllocator<FetchedWqe>> buffered;
    QpcEntry context;  // as read for the latest batch: handed on with its WQEs
  };
  struct PendingDoorbell {
    sc_core::sc_time at;
    uint32_t qpn;
    uint32_t producer;
    bool with_wqe;                         // BlueFlame
    std::array<uint8_t, kWqeBytes> wqe;
  };
  // A doorbell takes effect: the producer index, and a BlueFlame WQE if it carries one.
  void apply_doorbell(const PendingDoorbell& db);

  void doorbell_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void ready_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  // Takes turns until every QP waits (a WQE read, a doorbell, the requester), then sets its
  // next trigger.
  void fetch();
  void apply_due_doorbells();
  // The QP's state, created on first use. Entries are never erased, so the lists below hold
  // pointers to them (an unordered_map keeps its elements in place): no lookup per turn.
  QueueState& queue(uint32_t qpn);
  // Queues the QP for fetch-ahead if it has WQEs rung and not yet read.
  void note_posted(QueueState& queue);
  // Issues the reads of QPs waiting in the fetch-ahead list while the WQE buffer has room;
  // a QP with WQEs on chip joins the round-robin.
  void fetch_ahead();
  // Sends the close marker of each closing QP whose WQEs have all been handed on.
  void close_drained();
  // Issues batch reads for `qpn` while it has unread WQEs, prefetch depth and buffer room.
  // False when it stopped for lack of buffer room.
  bool top_up(uint32_t qpn, QueueState& queue);
  // The position in round_robin_ of the first QP whose next WQE is on chip, or size() when
  // every one waits for a read (earliest_ready_ is then the first read to arrive).
  size_t next_turn();
  // Hands the QP's next batch (what is buffered of it) to the Requester; stops at a WQE the
  // Requester refuses, which stays at the front of the buffer (the QP is then stalled).
  void hand_batch(uint32_t qpn, QueueState& queue);
  // Drops what is buffered for `queue` and forgets its posted WQEs.
  void discard(QueueState& queue);
  void send_close_marker(uint32_t qpn, QueueState& queue);

  WqeConfig config_;
  IcmLayout icm_;
  Clock clock_;
  PipelineStage decode_stage_;
  PayloadPool pool_;
  std::unordered_map<uint32_t, QueueState> queues_;
  std::deque<QueueState*> round_robin_;
  sc_core::sc_time earliest_ready_;  // set by next_turn()
  std::deque<QueueState*> fetch_ahead_;  // QPs with WQEs rung and not yet read, doorbell order
  std::vector<uint32_t> closing_;     // QPs closed whose close marker is not sent yet
  std::deque<PendingDoorbell, RecyclingAllocator<PendingDoorbell>> doorbells_;  // nodes recycled
  sc_core::sc_event doorbell_event_;
  std::vector<uint8_t> buffer_;  // one batch read's bytes
  uint32_t buffered_ = 0;        // WQE buffer slots in use, all QPs
  TraceTrack trace_;
  uint32_t trace_node_ = 0;
  uint32_t trace_number_ = 0;
  Counter& wqes_fetched_;
  Counter& blueflame_wqes_;
  Counter& fetch_reads_;
  Counter& bad_doorbells_;
  Counter& buffer_full_;
  Counter& refused_;
  Histogram& fetch_latency_;
  Occupancy& wqes_buffered_;
  Occupancy& batches_outstanding_;
};

}  // namespace rnic
