// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/abi/wqe.h"

#include <cstring>

#include "model/rnic/abi/icm.h"
#include "model/rnic/abi/rules.h"
#include "model/rnic/util/byte_order.h"

namespace rnic {

// WQE layout: 0 opcode 1 nsge 2 flags(16) 4 access(32) 8 wr_id 16 remote_addr
// 24 remote_token 28 aux_token 32 length 40 page_list 48 page_count 52 fbo 56 zero_based
// 64 + 16*i: sge[i] = addr(64) length(32) token(32); INLINE send/write: 64.. payload
void Wqe::encode(uint8_t* out) const {
  std::memset(out, 0, kWqeBytes);
  out[0] = uint8_t(opcode);
  out[1] = nsge;
  put_le<uint16_t>(out + 2, flags);
  put_le<uint32_t>(out + 4, access);
  put_le<uint64_t>(out + 8, wr_id);
  put_le<uint64_t>(out + 16, remote_addr);
  put_le<uint32_t>(out + 24, remote_token);
  put_le<uint32_t>(out + 28, aux_token);
  put_le<uint64_t>(out + 32, length);
  put_le<uint64_t>(out + 40, page_list);
  put_le<uint32_t>(out + 48, page_count);
  put_le<uint32_t>(out + 52, fbo);
  out[56] = zero_based;
  if (is_inline()) {
    std::memcpy(out + 64, inline_data.data(), kMaxInlineBytes);
    return;
  }
  for (uint32_t i = 0; i < kMaxSge; ++i) {
    uint8_t* s = out + 64 + 16 * i;
    put_le<uint64_t>(s, sge[i].addr);
    put_le<uint32_t>(s + 8, sge[i].length);
    put_le<uint32_t>(s + 12, sge[i].token);
  }
}

Wqe Wqe::decode(const uint8_t* in) {
  Wqe w;
  w.opcode = in[0] <= uint8_t(WqeOpcode::Receive) ? WqeOpcode(in[0]) : WqeOpcode::Nop;
  w.nsge = in[1] <= kMaxSge ? in[1] : uint8_t(kMaxSge + 1);  // > kMaxSge: rejected by the engine
  w.flags = get_le<uint16_t>(in + 2);
  w.access = get_le<uint32_t>(in + 4);
  w.wr_id = get_le<uint64_t>(in + 8);
  w.remote_addr = get_le<uint64_t>(in + 16);
  w.remote_token = get_le<uint32_t>(in + 24);
  w.aux_token = get_le<uint32_t>(in + 28);
  w.length = get_le<uint64_t>(in + 32);
  w.page_list = get_le<uint64_t>(in + 40);
  w.page_count = get_le<uint32_t>(in + 48);
  w.fbo = get_le<uint32_t>(in + 52);
  w.zero_based = in[56];
  if (w.is_inline()) {
    std::memcpy(w.inline_data.data(), in + 64, kMaxInlineBytes);
    return w;
  }
  for (uint32_t i = 0; i < kMaxSge; ++i) {
    const uint8_t* s = in + 64 + 16 * i;
    w.sge[i].addr = get_le<uint64_t>(s);
    w.sge[i].length = get_le<uint32_t>(s + 8);
    w.sge[i].token = get_le<uint32_t>(s + 12);
  }
  return w;
}

// CQE layout: 0 status 1 opcode 2 owner 4 byte_count 8 wr_id 16 qpn 20 invalidated_token
// 24 wqe_index
void Cqe::encode(uint8_t* out) const {
  std::memset(out, 0, kCqeBytes);
  out[0] = uint8_t(status);
  out[1] = uint8_t(opcode);
  out[2] = owner;
  out[3] = took_effect;
  put_le<uint32_t>(out + 4, byte_count);
  put_le<uint64_t>(out + 8, wr_id);
  put_le<uint32_t>(out + 16, qpn);
  put_le<uint32_t>(out + 20, invalidated_token);
  put_le<uint32_t>(out + 24, wqe_index);
  put_le<uint16_t>(out + 28, rule);
}

Cqe Cqe::decode(const uint8_t* in) {
  Cqe c;
  c.status = CqeStatus(in[0]);
  c.opcode = CqeOpcode(in[1]);
  c.owner = in[2];
  c.took_effect = in[3];
  c.byte_count = get_le<uint32_t>(in + 4);
  c.wr_id = get_le<uint64_t>(in + 8);
  c.qpn = get_le<uint32_t>(in + 16);
  c.invalidated_token = get_le<uint32_t>(in + 20);
  c.wqe_index = get_le<uint32_t>(in + 24);
  c.rule = get_le<uint16_t>(in + 28);
  return c;
}

CqeOpcode completion_opcode(WqeOpcode opcode) {
  switch (opcode) {
    case WqeOpcode::Read: return CqeOpcode::Read;
    case WqeOpcode::Write: return CqeOpcode::Write;
    case WqeOpcode::Bind: return CqeOpcode::Bind;
    case WqeOpcode::FastRegister: return CqeOpcode::FastRegister;
    case WqeOpcode::Invalidate: return CqeOpcode::Invalidate;
    case WqeOpcode::Receive: return CqeOpcode::Receive;
    case WqeOpcode::Send:
    case WqeOpcode::SendInvalidate:
    case WqeOpcode::Nop: break;
  }
  return CqeOpcode::Send;
}

bool wqe_well_formed(const Wqe& wqe) { return wqe_malformed_rule(wqe) == RuleId::None; }

}  // namespace rnic
