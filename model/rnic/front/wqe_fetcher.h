// SPDX-License-Identifier: Apache-2.0
// Reads posted WQEs from send-queue rings in host memory by DMA and hands them, decoded, to
// the Requester in posting order. The policy (fetch-ahead in doorbell order, prefetch depth,
// the shared WQE buffer, BlueFlame, round-robin turns, stalls, epochs) is SendScheduler's,
// plain C++ beside it; this module does the I/O and the timing:
// - doorbells take effect when they reach the device; a BlueFlame WQE (Doorbell::with_wqe)
//   comes with its doorbell;
// - per read, the QP-context lookup (handed on with the WQEs) and the DMA read of a batch,
//   which is on chip when the read completes;
// - each WQE is decoded once its read is in (wqe.decode_cycles, one per decode_ii_cycles) and
//   handed to the Requester; a WQE it refuses (its QP's ORD is full, or a fence waits) stays in
//   the buffer, decoded, and its QP sits out the turns until the Requester sends
//   SendQueueReady, while the other QPs go on (no head-of-line blocking across QPs);
// - with wqe.cache_policy evict, a read that finds the WQE buffer full evicts WQEs of other
//   QPs that are on chip and not yet handed on; an evicted WQE is read again by DMA when its
//   QP's turn comes (its turn then ends, and the QP waits for that read like any other);
// - a closing QP's close marker follows its last WQE.
#pragma once

#include <array>
#include <deque>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/device_clock.h"
#include "model/rnic/front/send_scheduler.h"
#include "model/rnic/msg/context.h"
#include "model/rnic/msg/messages.h"
#include "model/rnic/msg/protocols.h"
#include "tlm/payload_pool.h"
#include "tlm/recycling_allocator.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"
#include "tlm/trace.h"

namespace rnic {

class WqeFetcher : public sc_core::sc_module {
 public:
  ProtocolTargetSocket<DoorbellProtocol, WqeFetcher> doorbell_tsock;      // send-queue doorbells
  ProtocolTargetSocket<ContextChangeProtocol, WqeFetcher> ctrl_tsock;     // context changes
  InitiatorSocket<WqeFetcher> dma_isock;                                  // WQE reads
  ProtocolInitiatorSocket<ContextLookupProtocol> context_isock;           // QP contexts
  ProtocolInitiatorSocket<WorkProtocol> work_isock;  // decoded WQEs to the Requester
  // Requester: a QP that refused a WQE can go on.
  ProtocolTargetSocket<ReadyProtocol, WqeFetcher> ready_tsock;

  struct Config {
    WqeConfig wqe;                                // wqe.*
    double clock_mhz = DeviceTiming{}.clock_mhz;  // device.clock_mhz
    bool fast = false;  // sim.fast: runs ahead of simulated time (temporal decoupling)
  };
  // `clock`: the device's (null: one of its own, for a bench of this unit alone).
  WqeFetcher(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm,
             DeviceClock* clock = nullptr);
  StatGroup stats;
  // Fetch slices on this unit's track; WQEs get trace ids of node `node`.
  void attach_trace(TraceSink* sink, uint32_t node) {
    trace_.attach(sink, name(), &*device_);
    trace_node_ = node;
  }

 private:
  struct PendingDoorbell {
    sc_core::sc_time at;
    uint32_t qpn;
    uint32_t producer;
    bool with_wqe;                         // BlueFlame
    std::array<uint8_t, kWqeBytes> wqe;
  };
  using Queue = SendScheduler::Queue;
  // A doorbell takes effect: the producer index, and a BlueFlame WQE if it carries one.
  void apply_doorbell(const PendingDoorbell& db);

  // Protocol targets (msg/protocols.h).
  void ring(int caller, Doorbell& db, sc_core::sc_time& delay);
  void context_changed(int caller, ContextChange& change, sc_core::sc_time& delay);
  void ready(int caller, SendQueueReady& ready, sc_core::sc_time& delay);
  template <typename> friend struct DoorbellProtocol::forward;
  template <typename> friend struct ContextChangeProtocol::forward;
  template <typename> friend struct ReadyProtocol::forward;
  // Takes turns until every QP waits (a WQE read, a doorbell, the requester), then sets its
  // next wake-up: a device-clock stage, due when a doorbell takes effect or a QP can go on
  // (ring_) or when the next buffered WQE is in (turn_).
  void fetch();
  void apply_due_doorbells();
  // Issues the reads of QPs waiting in the fetch-ahead list while the WQE buffer has room.
  void fetch_ahead();
  // Sends the close marker of each closing QP whose WQEs have all been handed on.
  void close_drained();
  // Issues batch reads for the QP while it has unread WQEs, prefetch depth and buffer room.
  // False when it stopped for lack of buffer room.
  bool top_up(Queue& queue);
  // Hands the QP's next batch (what is buffered of it) to the Requester; stops at a WQE the
  // Requester refuses, which stays at the front of the buffer (the QP is then stalled).
  void hand_batch(Queue& queue);
  // The QP's buffered WQEs are about to be dropped: their buffer occupancy ends now.
  void release_buffer(const Queue& queue);
  // WQEs the scheduler evicted since the last call: their buffer occupancy ends now.
  void note_evictions();
  // The QP's front WQE was evicted: reads it (and the evicted ones behind it, up to a batch)
  // again, or leaves it waiting for a slot.
  void refetch(Queue& queue);
  void send_close_marker(const Queue& queue);
  // The QP's evicted WQE waited for a slot since its first refetch found none: that wait ends
  // at `now_ps` (buffer_wait_ps).
  void end_refetch_wait(uint32_t qpn, uint64_t now_ps);

  WqeConfig config_;
  IcmLayout icm_;
  ClockRef device_;
  DeviceClock::Stage ring_;  // a doorbell takes effect, a QP can go on
  DeviceClock::Stage turn_;  // the next WQE read is in
  Clock clock_;
  PipelineStage decode_stage_;
  PayloadPool pool_;
  SendScheduler scheduler_;  // the policy: what to read, whose turn
  std::deque<PendingDoorbell, RecyclingAllocator<PendingDoorbell>> doorbells_;  // nodes recycled
  std::vector<uint8_t> buffer_;  // one batch read's bytes
  TraceTrack trace_;
  uint32_t trace_node_ = 0;
  uint32_t trace_number_ = 0;
  Counter& wqes_fetched_;
  Counter& blueflame_wqes_;
  Counter& blueflame_discarded_;
  Counter& fetch_reads_;
  Counter& bad_doorbells_;
  Counter& buffer_full_;
  Counter& buffer_wait_ps_;
  Counter& refused_;
  Counter& evicted_wqes_;
  Counter& refetches_;
  Counter& refetched_bytes_;
  Counter& refetch_waits_;
  Histogram& fetch_latency_;
  Occupancy& wqes_buffered_;
  Occupancy& batches_outstanding_;
  // The fetch-ahead head's next read has waited for buffer room since head_wait_since_ps_.
  bool head_waiting_ = false;
  uint64_t head_wait_since_ps_ = 0;
  // Evict: QPs whose evicted front WQE waits for a slot to be read into, since when.
  std::unordered_map<uint32_t, uint64_t> refetch_wait_since_;
};

}  // namespace rnic
