// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/net/port.h"

#include <algorithm>

namespace rnic {

Port::Port(sc_core::sc_module_name name, const Config& config, DeviceClock* clock)
    : sc_module(name),
      tx_tsock("tx_tsock", this),
      wire_isock("wire_isock"),
      wire_tsock("wire_tsock", this),
      request_isock("request_isock"),
      response_isock("response_isock"),
      stats(std::string(this->name())),
      config_(config.port),
      clock_(config.clock_mhz),
      pipeline_(clock_.cycles(config.port.pipeline_cycles)),
      wire_(config.port.gbps / 8.0),
      tx_packets_(stats.add("tx_packets", "packets", "packets sent (MTU segments)")),
      tx_bytes_(stats.add("tx_bytes", "bytes", "bytes sent, headers included")),
      rx_packets_(stats.add("rx_packets", "messages", "messages received")),
      rx_bytes_(stats.add("rx_bytes", "bytes", "bytes received, headers included")),
      device_(clock) {
  wire_.set_contention(!config.fast);
  wire_.count_busy(&stats.add("tx_busy_ps", "ps", "time the port was sending").value);
}

void Port::packet(int, Packet& sent_packet, sc_core::sc_time& delay) {
  const Packet* packet = &sent_packet;
  const uint64_t bytes = wire_bytes(*packet, config_);
  sent_packet.wire_bytes = bytes;
  const uint64_t mtu = std::max<uint32_t>(config_.mtu_bytes, 256);
  tx_packets_ += packet->payload.empty() ? 1 : (packet->payload.size() + mtu - 1) / mtu;
  tx_bytes_ += bytes;
  const sc_core::sc_time now = device_->now();
  const sc_core::sc_time sent =
      wire_.reserve(now + delay + pipeline_, bytes);
  delay = sent - now;  // the last bit leaves the port
  if (trace_.on()) {
    // Serialization only: time queued behind earlier packets is the gap before the slice.
    static const char* const kNames[] = {"tx ?",   "tx read request", "tx read response",
                                         "tx NAK", "tx write request", "tx ACK",
                                         "tx send request", "tx RNR NAK"};
    const size_t kind = size_t(packet->kind);
    trace_.slice(kind < 8 ? kNames[kind] : kNames[0], sent - wire_.duration(bytes), sent,
                 packet->trace_id);
  }
  if (device_->ahead()) {
    send_ahead(sent_packet, delay);
  } else {
    wire_isock->frame(sent_packet, delay);
  }
}

void Port::send_ahead(Packet& packet, sc_core::sc_time& delay) {
  // The fabric measures delays from the kernel's time, the device from its own: they differ
  // while an entry runs ahead of the kernel (device_clock.h).
  const sc_core::sc_time ahead = device_->ahead_by();
  delay += ahead;
  wire_isock->frame(packet, delay);
  delay -= ahead;
}

void Port::frame(int, Packet& packet, sc_core::sc_time& delay) {
  ++rx_packets_;
  rx_bytes_ += framed_bytes(packet, config_);
  if (device_->ahead()) {
    receive_ahead(packet, delay);
    return;
  }
  delay += pipeline_;
  dispatch(packet, delay);
}

void Port::receive_ahead(Packet& packet, sc_core::sc_time& delay) {
  // From the kernel's time to the device's: a packet that reaches this device by nested calls
  // while it runs ahead (fast mode) left its sender after the device's time.
  const sc_core::sc_time ahead = device_->ahead_by();
  delay = (delay > ahead ? delay - ahead : sc_core::SC_ZERO_TIME) + pipeline_;
  dispatch(packet, delay);
  delay += ahead;
}

void Port::dispatch(Packet& packet, sc_core::sc_time& delay) {
  if (is_request(packet.kind)) {
    request_isock->packet(packet, delay);
  } else {
    response_isock->packet(packet, delay);
  }
}

}  // namespace rnic
