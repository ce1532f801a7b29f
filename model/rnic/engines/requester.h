// SPDX-License-Identifier: Apache-2.0
// The requester: executes send-queue WQEs (Read, Write, Send, SendAndInvalidate, Bind,
// FastRegister, Invalidate) and retires them in posting order. The decisions are the send
// engine's (send_engine.h: ORD, fences, each request's state, the error flush, RNR retries);
// this module makes the crossings its steps need (protection checks, translations, DMA,
// packets, CQEs, the QP-error and ready notices) and owns their timing.
#pragma once

#include <string>

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/device_clock.h"
#include "model/rnic/engines/send_engine.h"
#include "model/rnic/msg/messages.h"
#include "model/rnic/msg/protocols.h"
#include "tlm/stats.h"
#include "tlm/timing.h"
#include "tlm/trace.h"

namespace rnic {

class Requester : public sc_core::sc_module {
 public:
  ProtocolTargetSocket<WorkProtocol, Requester> work_tsock;  // decoded WQEs from the WqeFetcher
  // Read responses, ACKs and NAKs from the Port.
  ProtocolTargetSocket<PacketProtocol, Requester> response_tsock;
  // QP errors found by the Responder.
  ProtocolTargetSocket<QpEventProtocol, Requester> qp_event_tsock;
  ProtocolTargetSocket<ContextChangeProtocol, Requester> ctrl_tsock;  // context changes
  ProtocolInitiatorSocket<ProtectionProtocol> check_isock;  // ProtectionChecker
  ProtocolInitiatorSocket<TranslationProtocol> xlate_isock; // Mtt
  ProtocolInitiatorSocket<DataMoveProtocol> write_isock;    // DmaWriteEngine
  ProtocolInitiatorSocket<DataMoveProtocol> read_isock;     // DmaReadEngine (write source data)
  ProtocolInitiatorSocket<PacketProtocol> tx_isock;         // Port
  ProtocolInitiatorSocket<CompletionProtocol> cq_isock;     // CompletionEngine
  // This QP's Responder side: a local error.
  ProtocolInitiatorSocket<QpEventProtocol> qp_event_isock;
  // WqeFetcher: a QP that refused work can go on.
  ProtocolInitiatorSocket<ReadyProtocol> ready_isock;

  struct Config {
    QpConfig qp;  // qp.*: ORD, SGEs, transfer size, RNR retries
    uint32_t adapter_flags = RnicConfig{}.adapter_flags;  // capability bits it honours
    double clock_mhz = DeviceTiming{}.clock_mhz;          // device.clock_mhz
    bool fast = false;  // sim.fast: runs ahead of simulated time (temporal decoupling)
  };
  // `clock`: the device's (null: one of its own, for a bench of this unit alone).
  Requester(sc_core::sc_module_name name, const Config& config, uint32_t node_id,
            DeviceClock* clock = nullptr);
  StatGroup stats;
  // Execute and response slices on this unit's track; DMA reads of source data on the
  // DmaReadEngine's track (`dma_read_path`), which traces nothing itself.
  void attach_trace(TraceSink* sink, const std::string& dma_read_path) {
    trace_.attach(sink, name(), &*device_);
    dma_read_trace_.attach(sink, dma_read_path, &*device_);
  }
  // Gauges for waveforms: requests accepted and not yet retired, reads awaiting a response.
  uint32_t wqes_in_flight() const { return engine_.wqes_in_flight(); }
  uint32_t reads_outstanding() const { return engine_.reads_outstanding(); }

 private:
  using Qp = SendEngine::Qp;
  class Io;  // the engine's commands as socket calls

  // Protocol targets (msg/protocols.h).
  void work(int caller, WorkRequest& work, sc_core::sc_time& delay);
  void packet(int caller, Packet& response, sc_core::sc_time& delay);
  void qp_error(int caller, QpErrorEvent& event, sc_core::sc_time& delay);
  void context_changed(int caller, ContextChange& change, sc_core::sc_time& delay);
  template <typename> friend struct WorkProtocol::forward;
  template <typename> friend struct PacketProtocol::forward;
  template <typename> friend struct QpEventProtocol::forward;
  template <typename> friend struct ContextChangeProtocol::forward;
  // RNR retransmissions that are due (a device-clock stage).
  void retry();

  // The verbs' crossings (requester_verbs.cpp). Each ends its request through the engine
  // unless it went out.
  void execute_read(Qp& qp, uint64_t sequence, const WorkRequest& work, sc_core::sc_time& delay,
                    SendEngine::Actions& out);
  // Write, Send, SendInvalidate: reads the source SGEs and transmits the data.
  void execute_outbound(Qp& qp, uint64_t sequence, const WorkRequest& work,
                        sc_core::sc_time& delay, SendEngine::Actions& out);
  // Fills tx_packet_'s header for a request of this QP (the payload is the caller's).
  void start_request(PacketKind kind, const WorkRequest& work, uint64_t sequence,
                     uint64_t length);
  Decision execute_bind(const WorkRequest& work, sc_core::sc_time& delay);
  Decision execute_fast_register(const WorkRequest& work, sc_core::sc_time& delay);
  Decision execute_invalidate(const WorkRequest& work, sc_core::sc_time& delay);
  // The engine's local SGE checks, each SGE asked of the checker.
  Decision check_sgl(const WorkRequest& work, uint16_t access, CheckList checks,
                     SendRequest& request, uint64_t* total, sc_core::sc_time& delay);
  // Read data: the sinks checked again if the MPT changed, then translated and written.
  Decision land_response(uint32_t qpn, SendRequest& request, const Packet& packet,
                         sc_core::sc_time& delay);
  // Do the sinks checked when the read started still pass? (a generation compare, and a full
  // check only if the MPT changed meanwhile): the failing check's decision, or a success.
  Decision sinks_still_allowed(uint32_t qpn, SendRequest& request, sc_core::sc_time& delay);
  Decision invalidate_first_sink(uint32_t qpn, const SendRequest& request,
                                 sc_core::sc_time& delay);
  // What `sge` (a read's sink, a write's or send's source) named and was checked for: the
  // authority its DMAs carry.
  static DmaAuthority sge_authority(uint32_t qpn, const SendRequest& request,
                                    const CheckedSge& sge);
  // Translates `sge` into translate_.segments; false if the MTT refused.
  bool translate(const CheckedSge& sge, uint64_t trace_id, sc_core::sc_time& delay);

  static SendEngine::Config engine_config(const Config& config);
  uint64_t now_ps() const { return device_->now().value(); }

  Config config_;
  uint32_t node_id_;
  ClockRef device_;
  DeviceClock::Stage retry_;  // a retransmission may be due
  Packet tx_packet_;
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
  Counter& ord_wait_ps_;
  Counter& stray_responses_;
  Histogram& read_latency_;
  Histogram& write_latency_;
  Histogram& send_latency_;
  Occupancy& reads_in_flight_;
  SendEngine engine_;  // after the statistics it records
};

}  // namespace rnic
