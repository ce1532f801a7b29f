// SPDX-License-Identifier: Apache-2.0
// A packet between two ports: the header fields the fabric routes and serializes by, and the
// payload. Plain C++: the switch and the ports include this, not the device's messages.
#pragma once

#include <cstdint>
#include <vector>

#include "model/config/config.h"
#include "model/rnic/abi/rules.h"
#include "model/rnic/abi/wqe.h"

namespace rnic {

enum class PacketKind : uint8_t {
  ReadRequest = 1,
  ReadResponse = 2,
  Nak = 3,
  WriteRequest = 4,  // carries the data
  Ack = 5,           // positive acknowledgement of a write or send
  SendRequest = 6,   // carries the data; remote_token != 0 with `invalidate`: SendAndInvalidate
  RnrNak = 7,        // receiver not ready: no receive posted, retry later
};
inline bool is_request(PacketKind kind) {
  return kind == PacketKind::ReadRequest || kind == PacketKind::WriteRequest ||
         kind == PacketKind::SendRequest;
}
struct Packet {
  PacketKind kind = PacketKind::ReadRequest;
  uint32_t src_node = 0;
  uint32_t dst_node = 0;
  uint32_t src_qpn = 0;
  uint32_t dst_qpn = 0;
  uint64_t sequence = 0;  // requester's sequence of the request it belongs to
  uint64_t remote_addr = 0;
  uint32_t remote_token = 0;
  uint32_t length = 0;    // requested / carried bytes
  CqeStatus syndrome = CqeStatus::Success;  // Nak: why
  RuleId rule = RuleId::None;  // Nak: the responder's rule that decided (abi/rules.h)
  bool invalidate = false;  // SendRequest: invalidate remote_token at the receiver
  uint64_t trace_id = 0;    // the requester's work request (tracing only; not on the wire)
  // Bytes on the wire, headers included, as the sending port framed it (0: not sent yet); the
  // switch and the receiving port take it from here instead of dividing by the MTU again.
  uint64_t wire_bytes = 0;
  std::vector<uint8_t> payload;
};


// Bytes a packet takes on the wire: the payload in MTU-sized packets, each with the RoCEv2
// headers (`PortConfig::header_bytes`), plus the RETH of a request or the AETH of an ACK.
uint64_t wire_bytes(const Packet& packet, const PortConfig& config);
// The size as framed: `packet.wire_bytes` once a port sent it, else wire_bytes().
inline uint64_t framed_bytes(const Packet& packet, const PortConfig& config) {
  return packet.wire_bytes ? packet.wire_bytes : wire_bytes(packet, config);
}

}  // namespace rnic
