// SPDX-License-Identifier: Apache-2.0
// Reads posted WQEs from send-queue rings in host memory by DMA, up to wqe.fetch_batch per
// read, round-robin over QPs with work, decodes them and hands them to the Requester in
// posting order. A blocked Requester (ORD full, fence) holds the fetcher: backpressure.
#pragma once

#include <deque>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/util/context_cache.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/msg/messages.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"
#include "tlm/trace.h"

namespace rnic {

class WqeFetcher : public sc_core::sc_module {
 public:
  TargetSocket<WqeFetcher> doorbell_tsock;  // send-queue doorbells
  TargetSocket<WqeFetcher> ctrl_tsock;      // context changes
  InitiatorSocket<WqeFetcher> dma_isock;    // WQE and QP context reads
  InitiatorSocket<WqeFetcher> work_isock;   // decoded WQEs to the Requester

  WqeFetcher(sc_core::sc_module_name name, const RnicConfig& config, const IcmLayout& icm);
  StatGroup stats;
  // Fetch slices on this unit's track; WQEs get trace ids of node `node`.
  void attach_trace(TraceSink* sink, uint32_t node) {
    trace_.attach(sink, name());
    trace_node_ = node;
  }

 private:
  struct QueueState {
    uint32_t producer = 0;  // from the latest doorbell
    uint32_t fetched = 0;   // WQEs handed on
    bool active = false;    // in the round-robin list
    bool closing = false;   // QpClose: send the close marker once everything rung is fetched
  };
  struct PendingDoorbell {
    sc_core::sc_time at;
    uint32_t qpn;
    uint32_t producer;
  };

  void doorbell_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void fetch_thread();
  void apply_due_doorbells();
  void fetch_from(uint32_t qpn, QueueState& queue);
  void send_close_marker(uint32_t qpn, QueueState& queue);

  RnicConfig config_;
  IcmLayout icm_;
  Clock clock_;
  PipelineStage decode_stage_;
  PayloadPool pool_;
  ContextCache<QpcEntry, kQpcEntryBytes> qpc_;
  std::unordered_map<uint32_t, QueueState> queues_;
  std::deque<uint32_t> round_robin_;
  std::deque<PendingDoorbell> doorbells_;
  sc_core::sc_event doorbell_event_;
  std::vector<uint8_t> buffer_;
  TraceTrack trace_;
  uint32_t trace_node_ = 0;
  uint32_t trace_number_ = 0;
  Counter& wqes_fetched_;
  Counter& fetch_reads_;
  Counter& bad_doorbells_;
  Histogram& fetch_latency_;
};

}  // namespace rnic
