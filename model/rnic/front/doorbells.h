// SPDX-License-Identifier: Apache-2.0
// BAR decoder: turns MMIO writes into doorbells (send queue -> WqeFetcher, receive queue ->
// Responder, CQ consumer index -> CompletionEngine) and context-change notices (broadcast to every
// unit caching a table).
#pragma once

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/device_clock.h"
#include "model/rnic/msg/protocols.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"

namespace rnic {

class Doorbells : public sc_core::sc_module {
 public:
  TargetSocket<Doorbells> mmio_tsock;          // BAR 0 writes from the host
  ProtocolInitiatorSocket<DoorbellProtocol> fetcher_isock;             // send-queue doorbells
  ProtocolInitiatorSocket<CompletionControlProtocol> completion_isock;  // CQ doorbells
  ProtocolInitiatorSocket<DoorbellProtocol> responder_isock;           // receive-queue doorbells
  // Context changes, to every caching unit.
  ProtocolInitiatorSocket<ContextChangeProtocol, 0> ctrl_isock;

  struct Config {
    double clock_mhz = DeviceTiming{}.clock_mhz;               // device.clock_mhz
    uint32_t decode_cycles = DeviceTiming{}.doorbell_cycles;    // device.doorbell_cycles
    uint32_t decode_ii_cycles = DeviceTiming{}.doorbell_ii_cycles;
    bool fast = false;  // sim.fast: the decoder models no contention
  };
  // `clock`: the device's (null: one of its own, for a bench of this unit alone).
  Doorbells(sc_core::sc_module_name name, const Config& config, DeviceClock* clock = nullptr);
  StatGroup stats;

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  // A write to the BlueFlame window: a send-queue doorbell carrying its WQE.
  void blueflame(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  Clock clock_;
  PipelineStage decode_stage_;
  Counter& sq_doorbells_;
  Counter& cq_doorbells_;
  Counter& cq_arms_;
  Counter& rq_doorbells_;
  Counter& context_changes_;
  Counter& interrupt_setups_;
  Counter& unmapped_writes_;
  Counter& blueflame_writes_;
  ClockRef device_;  // the device's time (device_clock.h)
};

}  // namespace rnic
