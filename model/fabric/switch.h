// SPDX-License-Identifier: Apache-2.0
// A switch connecting every node's port: each packet waits for its output port (serialized
// at port.gbps: contention when several senders target one node) and arrives after the link
// latency. Packets are copied on entry (the sender's buffer is reused at once) and delivered
// from the switch's own delivery process at their arrival time. The payload of a read response or a
// write request is moved, not copied: their senders (Responder::response_,
// Requester::tx_packet_) build each one anew and never send it twice, so a transfer is held
// once, not twice (docs/user-guide.md, Limits). A send request is copied: the requester sends
// the same packet again after an RNR NAK.
#pragma once

#include <memory>
#include <queue>
#include <vector>

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/msg/protocols.h"
#include "model/rnic/net/packet.h"
#include "tlm/stats.h"
#include "tlm/timing.h"

namespace rnic {

class Switch : public sc_core::sc_module {
 public:
  // From every node's port (bind in node-id order: the caller is the sending node).
  ProtocolTargetSocket<WireProtocol, Switch> port_tsock;
  // To every node's port (bind in node-id order).
  ProtocolInitiatorSocket<WireProtocol, 0> port_isock;

  // `sim.fast`: deliver each packet by a direct call from frame(), with the arrival time
  // as annotated delay (loosely timed), instead of from the delivery process at that time.
  struct Config {
    FabricConfig fabric;  // fabric.*
    PortConfig port;      // the ports' line rate and framing (port.*)
    bool fast = false;    // sim.fast
  };
  Switch(sc_core::sc_module_name name, const Config& config);
  StatGroup stats;

 private:
  struct InFlight {
    sc_core::sc_time arrival;
    uint64_t order;  // FIFO among equal arrival times
    Packet* packet;
    bool operator>(const InFlight& other) const {
      return arrival != other.arrival ? arrival > other.arrival : order > other.order;
    }
  };

  // Payloads above this are freed once delivered; smaller buffers stay for the next packet.
  static constexpr size_t kKeptPayloadBytes = 1 << 20;
  static bool payload_is_taken(PacketKind kind) {
    return kind == PacketKind::ReadResponse || kind == PacketKind::WriteRequest;
  }

  // Protocol target (msg/protocols.h): a packet from node `caller`'s port.
  void frame(int caller, Packet& packet, sc_core::sc_time& delay);
  template <typename> friend struct WireProtocol::forward;
  void deliver();
  Packet* take_packet();

  uint64_t link_latency_ps_;
  PortConfig port_;
  bool direct_;
  std::vector<BandwidthPipe> egress_;
  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<InFlight>> in_flight_;
  std::vector<std::unique_ptr<Packet>> packets_;
  std::vector<Packet*> free_packets_;
  uint64_t order_ = 0;
  sc_core::sc_event arrival_event_;
  Counter& forwarded_;
  Counter& dropped_;
  Counter& queued_ps_;
};

}  // namespace rnic
