// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/net/packet.h"

#include <algorithm>

namespace rnic {

uint64_t wire_bytes(const Packet& packet, const PortConfig& config) {
  const uint64_t mtu = std::max<uint32_t>(config.mtu_bytes, 256);
  const uint64_t data = packet.payload.size();
  const uint64_t packets = data ? (data + mtu - 1) / mtu : 1;
  // Requests also carry the RETH (16 B: address, key, length); an ACK the AETH (4 B).
  const uint64_t extension =
      is_request(packet.kind) ? 16 : packet.kind == PacketKind::Ack ? 4 : 0;
  return data + packets * config.header_bytes + extension;
}

}  // namespace rnic
