// SPDX-License-Identifier: Apache-2.0
#include "model/fabric/switch.h"

namespace rnic {

Switch::Switch(sc_core::sc_module_name name, const Config& config)
    : sc_module(name),
      port_tsock("port_tsock", this),
      port_isock("port_isock"),
      stats(std::string(this->name())),
      link_latency_ps_(to_ps(sc_core::sc_time(double(config.fabric.link_latency_ns),
                                              sc_core::SC_NS))),
      port_(config.port),
      direct_(config.fast),
      forwarded_(stats.add("forwarded", "messages", "messages delivered")),
      dropped_(stats.add("dropped", "messages", "messages for a node that does not exist")),
      queued_ps_(stats.add("queued_ps", "ps", "time messages waited for a busy output port")) {
  SC_HAS_PROCESS(Switch);
  SC_METHOD(deliver);
  sensitive << arrival_event_;
  dont_initialize();
}

Packet* Switch::take_packet() {
  if (free_packets_.empty()) {
    packets_.push_back(std::make_unique<Packet>());
    return packets_.back().get();
  }
  Packet* p = free_packets_.back();
  free_packets_.pop_back();
  return p;
}

void Switch::frame(int, Packet& arriving, sc_core::sc_time& delay) {
  const Packet* packet = &arriving;
  if (packet->dst_node >= unsigned(port_isock.size())) {
    ++dropped_;
    return;
  }
  if (egress_.size() < size_t(port_isock.size())) {
    BandwidthPipe pipe(port_.gbps / 8.0);
    pipe.set_contention(!direct_);
    egress_.resize(size_t(port_isock.size()), pipe);
  }
  // `delay` is when the last bit left the sender. Cut-through: the output port starts
  // sending one link latency after the sender did, or when it is free.
  // In picoseconds: one sc_time is built per packet, not one per step.
  const sc_core::sc_time now = sim_time(*this);
  BandwidthPipe& out = egress_[packet->dst_node];
  const uint64_t bytes = framed_bytes(*packet, port_);
  const uint64_t serialization = out.duration_ps(bytes);
  const uint64_t sent = to_ps(now) + to_ps(delay);
  const uint64_t earliest = (sent > serialization ? sent - serialization : 0) + link_latency_ps_;
  const uint64_t arrival_ps = out.reserve_ps(earliest, bytes);
  // Time spent waiting for the egress link: start of service minus earliest possible start.
  queued_ps_ += arrival_ps - serialization - earliest;
  const sc_core::sc_time arrival = ps(arrival_ps);
  if (direct_) {
    // Fast mode: the receiver handles the sender's own message now, annotated with the
    // arrival time; the sender's `delay` is its own and stays as it was.
    ++forwarded_;
    sc_core::sc_time at = arrival - now;
    port_isock[int(packet->dst_node)]->frame(arriving, at);
    return;
  }
  Packet* copy = take_packet();
  if (payload_is_taken(packet->kind)) {
    // The payload moves into the copy instead of being copied: a second copy of a 1 GiB read
    // response would double the memory of the transfer (docs/user-guide.md, Limits). The
    // sender gets the copy's old buffer back, emptied: were the packet sent again, it would
    // arrive without payload (refused by the receiver's length check), never as another's.
    Packet& sender = arriving;
    std::vector<uint8_t> data;
    data.swap(sender.payload);
    sender.payload.swap(copy->payload);
    sender.payload.clear();
    *copy = sender;  // the header; the payload is empty
    copy->payload.swap(data);
  } else {
    *copy = *packet;  // reuses the copy's payload capacity
  }
  in_flight_.push({arrival, order_++, copy});
  arrival_event_.notify(in_flight_.top().arrival - now);
}

void Switch::deliver() {
  // Every packet due now, then sleep until the next arrival. frame() notifies the event
  // for each arrival (an earlier pending notification wins): one activation per arrival time.
  while (!in_flight_.empty() && in_flight_.top().arrival <= sim_time(*this)) {
    Packet* packet = in_flight_.top().packet;
    in_flight_.pop();
    ++forwarded_;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    port_isock[int(packet->dst_node)]->frame(*packet, delay);
    // A large payload is given back at once rather than kept for reuse (memory), a small
    // one is kept (no allocation per packet).
    if (packet->payload.capacity() > kKeptPayloadBytes) {
      std::vector<uint8_t>().swap(packet->payload);
    }
    free_packets_.push_back(packet);
  }
  if (!in_flight_.empty()) arrival_event_.notify(in_flight_.top().arrival - sim_time(*this));
}

}  // namespace rnic
