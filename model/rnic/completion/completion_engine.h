// SPDX-License-Identifier: Apache-2.0
// Writes completion entries into CQ rings in host memory, in the order the engines hand them
// over, each no earlier than the time it was handed over for. A full ring (producer - consumer
// = depth) is an overflow: the entry is not written and the CQ context's overflow flag is set,
// so the driver reports it (never a silent drop, R1.cq.overflow). It sends an interrupt
// message (an MSI-X write of 4 bytes, through the PCIe endpoint like any posted write, so never
// ahead of the entry) to the address the driver set (bar::kInterruptAddress) after an entry of
// an armed CQ, an overflow flag or a QP-close notice. Arming is one-shot, as NDK's
// INDCompletionQueue::Notify and ibv_req_notify_cq are: a driver that polls without arming
// takes no interrupts, one that sleeps arms first (bar::kCqArm).
#pragma once

#include <deque>
#include <unordered_map>

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/device_clock.h"
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

class CompletionEngine : public sc_core::sc_module {
 public:
  // Completions of the Requester and the Responder.
  ProtocolTargetSocket<CompletionProtocol, CompletionEngine> cqe_tsock;
  // CQ consumer indices and arms, the interrupt address.
  ProtocolTargetSocket<CompletionControlProtocol, CompletionEngine> doorbell_tsock;
  ProtocolTargetSocket<ContextChangeProtocol, CompletionEngine> ctrl_tsock;  // context changes
  InitiatorSocket<CompletionEngine> dma_isock;                    // CQE writes
  ProtocolInitiatorSocket<ContextLookupProtocol> context_isock;   // CQ contexts (QpContext)

  struct Config {
    double clock_mhz = DeviceTiming{}.clock_mhz;                // device.clock_mhz
    uint32_t build_cycles = DeviceTiming{}.completion_cycles;    // device.completion_cycles
    uint32_t build_ii_cycles = DeviceTiming{}.completion_ii_cycles;
    bool fast = false;  // sim.fast: the builder models no contention
  };
  // `clock`: the device's (null: one of its own, for a bench of this unit alone).
  CompletionEngine(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm,
                   DeviceClock* clock = nullptr);
  StatGroup stats;
  void attach_trace(TraceSink* sink) { trace_.attach(sink, name(), &*device_); }

 private:
  struct CqState {
    uint32_t producer = 0;
    uint32_t consumer = 0;
    bool armed = false;  // the driver asked for an interrupt at the next entry
  };
  struct Queued {
    sc_core::sc_time handed;  // when the engine handed it over (tracing)
    sc_core::sc_time at;
    CompletionRecord record;
  };

  // Protocol targets (msg/protocols.h).
  void complete(int caller, CompletionRecord& record, sc_core::sc_time& delay);
  void ring(int caller, Doorbell& db, sc_core::sc_time& delay);
  void set_interrupt_vector(int caller, InterruptVector& vector, sc_core::sc_time& delay);
  void context_changed(int caller, ContextChange& change, sc_core::sc_time& delay);
  template <typename> friend struct CompletionProtocol::forward;
  template <typename> friend struct CompletionControlProtocol::forward;
  template <typename> friend struct ContextChangeProtocol::forward;
  void write_due();
  void write_entry(const CompletionRecord& record, const sc_core::sc_time& handed);
  // The interrupt message after a write to host memory, when the driver set an address.
  void interrupt(uint32_t data, sc_core::sc_time& delay);

  IcmLayout icm_;
  ClockRef device_;
  DeviceClock::Stage write_;  // the first queued entry is due
  Clock clock_;
  PipelineStage build_stage_;
  PayloadPool pool_;
  std::unordered_map<uint32_t, CqState> cqs_;
  std::deque<Queued, RecyclingAllocator<Queued>> queue_;  // nodes recycled, not freed per CQE
  TraceTrack trace_;
  Counter& completions_;
  Counter& errors_;
  Counter& overflows_;
  Counter& bad_cq_;
  Counter& consumer_reads_;
  Counter& interrupts_;
  Counter& immediate_interrupts_;
  Counter& interrupt_errors_;
  uint64_t interrupt_address_ = 0;  // 0: no interrupts
  Histogram& queue_delay_;
  Occupancy& queue_depth_;
};

}  // namespace rnic
