// SPDX-License-Identifier: Apache-2.0
// The responder engine: serves incoming RDMA reads, writes and sends. Checks the remote token
// in the order of R5.read.resp.* (through the ProtectionChecker), translates (Mtt), then reads the
// source through the DmaReadEngine (at most IRD reads in service per QP, and at most
// responder.read_contexts on the whole NIC: read_context_pool.h) or lands data
// through the DmaWriteEngine. Sends consume the receive queue (fetched by DMA) and complete
// there; with no receive posted the requester gets an RNR NAK. A failed check NAKs the
// requester and puts this QP in the error state, flushing its posted receives.
#pragma once

#include <unordered_map>

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/device_clock.h"
#include "model/rnic/engines/read_context_pool.h"
#include "model/rnic/engines/receive_queue.h"
#include "model/rnic/msg/context.h"
#include "model/rnic/msg/messages.h"
#include "model/rnic/msg/protocols.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"
#include "tlm/trace.h"

namespace rnic {

class Responder : public sc_core::sc_module {
 public:
  ProtocolTargetSocket<PacketProtocol, Responder> request_tsock;  // requests from the Port
  ProtocolTargetSocket<ContextChangeProtocol, Responder> ctrl_tsock;  // context changes
  ProtocolTargetSocket<DoorbellProtocol, Responder> doorbell_tsock;   // receive-queue doorbells
  // QP errors found by this QP's Requester side.
  ProtocolTargetSocket<QpEventProtocol, Responder> qp_event_tsock;
  ProtocolInitiatorSocket<ProtectionProtocol> check_isock;   // ProtectionChecker
  ProtocolInitiatorSocket<TranslationProtocol> xlate_isock;  // Mtt
  ProtocolInitiatorSocket<DataMoveProtocol> read_isock;      // DmaReadEngine
  ProtocolInitiatorSocket<DataMoveProtocol> write_isock;     // DmaWriteEngine
  ProtocolInitiatorSocket<PacketProtocol> tx_isock;          // Port
  ProtocolInitiatorSocket<QpEventProtocol> qp_event_isock;   // this QP's Requester side
  ProtocolInitiatorSocket<CompletionProtocol> cq_isock;  // CompletionEngine (receive completions)
  InitiatorSocket<Responder> dma_isock;                  // receive-queue reads
  ProtocolInitiatorSocket<ContextLookupProtocol> context_isock;  // QP contexts (QpContext)

  struct Config {
    QpConfig qp;                                  // qp.*: IRD, SGEs, transfer size
    ResponderConfig responder;                    // responder.*: read contexts
    double clock_mhz = DeviceTiming{}.clock_mhz;  // device.clock_mhz
    uint32_t parse_cycles = DeviceTiming{}.responder_cycles;  // device.responder_cycles
    uint32_t parse_ii_cycles = DeviceTiming{}.responder_ii_cycles;
    bool fast = false;  // sim.fast: the parser models no contention
  };
  // `clock`: the device's (null: one of its own, for a bench of this unit alone).
  Responder(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm,
            uint32_t node_id, DeviceClock* clock = nullptr);
  StatGroup stats;
  // Service slices on this unit's track; DMA reads of read data on the DmaReadEngine's track
  // (`dma_read_path`), which traces nothing itself.
  void attach_trace(TraceSink* sink, const std::string& dma_read_path) {
    trace_.attach(sink, name(), &*device_);
    dma_read_trace_.attach(sink, dma_read_path, &*device_);
  }

 private:
  struct QpState {
    ReceiveQueue receives;  // posted receives and the QP's error state (receive_queue.h)
    uint32_t ird = 0;
    SlotPool in_service{1};
  };

  // Protocol targets (msg/protocols.h).
  void packet(int caller, Packet& request, sc_core::sc_time& delay);
  void context_changed(int caller, ContextChange& change, sc_core::sc_time& delay);
  void ring(int caller, Doorbell& db, sc_core::sc_time& delay);
  void qp_error(int caller, QpErrorEvent& event, sc_core::sc_time& delay);
  template <typename> friend struct PacketProtocol::forward;
  template <typename> friend struct ContextChangeProtocol::forward;
  template <typename> friend struct DoorbellProtocol::forward;
  template <typename> friend struct QpEventProtocol::forward;
  // The QP context from the QP-context unit, copied into `storage`; null if unreadable.
  // The QP's context from the QP-context unit; `trace_id` names the request a load is for.
  const QpcEntry* qpc(uint32_t qpn, QpcEntry* storage, sc_core::sc_time& delay,
                      uint64_t trace_id = 0);
  // Consumes the next receive for a send; sets *rnr when none is posted.
  Decision serve_send(const Packet& request, const QpcEntry& qpc, QpState& qp, bool* rnr,
                      sc_core::sc_time& delay);
  // The receive-side checks and data landing of serve_send.
  Decision land_send(const Packet& request, const QpcEntry& qpc, const Wqe& receive,
                     Cqe& cqe, sc_core::sc_time& delay);
  void complete(const QpcEntry& qpc, const Cqe& cqe, sc_core::sc_time& delay,
                uint64_t trace_id = 0);
  // Error state: every posted receive completes with a flush status.
  void flush_receives(uint32_t qpn, QpState& qp, sc_core::sc_time& delay);
  // Fills response_.payload with the requested bytes; returns the status to answer with.
  Decision serve_read(const Packet& request, const QpcEntry& qpc, QpState& qp,
                      sc_core::sc_time& delay);
  Decision serve_write(const Packet& request, const QpcEntry& qpc, sc_core::sc_time& delay);
  // Remote key check + translation of [remote_addr, +length) with `access`; on success
  // `authority` is what the request named, for its DMAs.
  Decision check_and_translate(const Packet& request, const QpcEntry& qpc, uint16_t access,
                               DmaAuthority* authority, sc_core::sc_time& delay);
  void enter_error(uint32_t qpn, QpState& qp, CqeStatus cause, sc_core::sc_time& delay);
  Wqe read_receive(uint32_t qpn, const QpcEntry& qpc, uint32_t index, sc_core::sc_time& delay);

  Config config_;
  IcmLayout icm_;
  uint32_t node_id_;
  Clock clock_;
  PipelineStage parse_stage_;
  PayloadPool pool_;
  std::unordered_map<uint32_t, QpState> qps_;
  ReadContextPool read_contexts_;  // NIC-wide, all QPs
  bool contexts_can_bind_;         // fewer than max_qps x max_ird: the pool is consulted
  Packet response_;
  TranslateRequest translate_;
  TraceTrack trace_;
  TraceTrack dma_read_trace_;
  Counter& requests_;
  Counter& write_requests_;
  Counter& send_requests_;
  Counter& receives_;
  Counter& rnr_naks_;
  Counter& write_bytes_;
  Counter& bytes_;
  Counter& naks_;
  Counter& access_errors_;
  Counter& ird_stall_ps_;
  Histogram& read_service_;
  Occupancy& ird_in_use_;
  Counter& context_waits_;
  Counter& context_wait_ps_;
  Occupancy& contexts_in_use_;
  ClockRef device_;  // the device's time (device_clock.h)
};

}  // namespace rnic
