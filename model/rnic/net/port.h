// SPDX-License-Identifier: Apache-2.0
// The network port: serializes packets at line rate (a read response of N bytes travels as
// ceil(N / MTU) packets, each paying the per-packet header) and dispatches received packets:
// requests to the Responder, responses to the Requester.
#pragma once

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/device_clock.h"
#include "model/rnic/msg/protocols.h"
#include "model/rnic/net/packet.h"
#include "tlm/stats.h"
#include "tlm/timing.h"
#include "tlm/trace.h"

namespace rnic {

class Port : public sc_core::sc_module {
 public:
  // Packets to send, from the Requester and the Responder.
  ProtocolTargetSocket<PacketProtocol, Port> tx_tsock;
  ProtocolInitiatorSocket<WireProtocol> wire_isock;       // to the fabric
  ProtocolTargetSocket<WireProtocol, Port> wire_tsock;    // from the fabric
  ProtocolInitiatorSocket<PacketProtocol> request_isock;  // received requests -> Responder
  ProtocolInitiatorSocket<PacketProtocol> response_isock; // received responses -> Requester

  struct Config {
    PortConfig port;                              // port.*
    double clock_mhz = DeviceTiming{}.clock_mhz;  // device.clock_mhz
    bool fast = false;  // sim.fast: the wire models no contention
  };
  // `clock`: the device's (null: one of its own, for a bench of this unit alone).
  Port(sc_core::sc_module_name name, const Config& config, DeviceClock* clock = nullptr);
  StatGroup stats;
  void attach_trace(TraceSink* sink) { trace_.attach(sink, name(), &*device_); }

 private:
  // Protocol targets (msg/protocols.h): a packet to send, a packet off the wire.
  void packet(int caller, Packet& packet, sc_core::sc_time& delay);
  void frame(int caller, Packet& packet, sc_core::sc_time& delay);
  template <typename> friend struct PacketProtocol::forward;
  template <typename> friend struct WireProtocol::forward;
  // The same while the device runs ahead of the kernel (device_clock.h).
  void send_ahead(Packet& packet, sc_core::sc_time& delay);
  void receive_ahead(Packet& packet, sc_core::sc_time& delay);
  // A received packet to the Responder (a request) or the Requester (a response).
  inline void dispatch(Packet& packet, sc_core::sc_time& delay);

  PortConfig config_;
  Clock clock_;
  sc_core::sc_time pipeline_;  // port.pipeline_cycles, converted once
  BandwidthPipe wire_;
  TraceTrack trace_;
  Counter& tx_packets_;
  Counter& tx_bytes_;
  Counter& rx_packets_;
  Counter& rx_bytes_;
  ClockRef device_;  // the device's time (device_clock.h)
};

}  // namespace rnic
