// SPDX-License-Identifier: Apache-2.0
// The network port: serializes packets at line rate (a read response of N bytes travels as
// ceil(N / MTU) packets, each paying the per-packet header) and dispatches received packets:
// requests to the Responder, responses to the Requester.
#pragma once

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/msg/messages.h"
#include "model/rnic/net/packet.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"
#include "tlm/trace.h"

namespace rnic {

class Port : public sc_core::sc_module {
 public:
  SharedTargetSocket<Port> tx_tsock;          // packets from the Requester and Responder
  InitiatorSocket<Port> wire_isock;           // to the fabric
  TargetSocket<Port> wire_tsock;              // from the fabric
  InitiatorSocket<Port> request_isock;        // received requests -> Responder
  InitiatorSocket<Port> response_isock;       // received responses -> Requester

  struct Config {
    PortConfig port;                              // port.*
    double clock_mhz = DeviceTiming{}.clock_mhz;  // device.clock_mhz
    bool fast = false;  // sim.fast: the wire models no contention
  };
  Port(sc_core::sc_module_name name, const Config& config);
  StatGroup stats;
  void attach_trace(TraceSink* sink) { trace_.attach(sink, name()); }

 private:
  void tx_b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void rx_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  PortConfig config_;
  Clock clock_;
  sc_core::sc_time pipeline_;  // port.pipeline_cycles, converted once
  BandwidthPipe wire_;
  TraceTrack trace_;
  Counter& tx_packets_;
  Counter& tx_bytes_;
  Counter& rx_packets_;
  Counter& rx_bytes_;
};

}  // namespace rnic
