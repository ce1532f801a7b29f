// SPDX-License-Identifier: Apache-2.0
// Work queue entries (send queue, 128 bytes) and completion entries (64 bytes) as they sit in
// host memory. The driver encodes, the device decodes: plain C++, shared by both.
#pragma once

#include <array>
#include <cstdint>

namespace rnic {

constexpr uint32_t kMaxSge = 4;  // SGEs that fit in one 128-byte WQE
// INLINE send/write: the payload sits in the WQE where the SGEs would (bytes 64..127).
constexpr uint32_t kMaxInlineBytes = 64;
// WQE flag bits: the NDK_OP_FLAG_* values of the request (docs/behaviour.md, Flags).
constexpr uint16_t kWqeFlagSilentSuccess = 0x001;        // NDK_OP_FLAG_SILENT_SUCCESS
constexpr uint16_t kWqeFlagReadFence = 0x002;            // NDK_OP_FLAG_READ_FENCE
constexpr uint16_t kWqeFlagSolicit = 0x004;              // NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT
constexpr uint16_t kWqeFlagInline = 0x040;               // NDK_OP_FLAG_INLINE
constexpr uint16_t kWqeFlagReadLocalInvalidate = 0x100;  // NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE

enum class WqeOpcode : uint8_t {
  Nop = 0,
  Read = 1,
  Write = 2,
  Send = 3,
  Bind = 4,
  FastRegister = 5,
  Invalidate = 6,
  SendInvalidate = 7,
  Receive = 8,  // receive-queue entry: only the SGEs and wr_id are used
};

struct Sge {
  uint64_t addr = 0;
  uint32_t length = 0;
  uint32_t token = 0;  // local token of the MR holding the buffer
};

struct Wqe {
  WqeOpcode opcode = WqeOpcode::Nop;
  uint8_t nsge = 0;
  uint16_t flags = 0;        // NDK_OP_FLAG_* of the request
  uint32_t access = 0;       // Bind / FastRegister: the ALLOW_* rights (NDK op flag values)
  uint64_t wr_id = 0;        // the request context, returned in the completion
  uint64_t remote_addr = 0;  // Read/Write: remote VA; Bind: window VA; FastRegister: base VA
  uint32_t remote_token = 0; // Read/Write: remote token; Bind: MW; Invalidate/FastRegister:
                             // target; SendInvalidate: the token the receiver invalidates
  uint32_t aux_token = 0;    // Bind: MR local token
  uint64_t length = 0;       // Bind / FastRegister length
  uint64_t page_list = 0;    // FastRegister: physical address of the page array
  uint32_t page_count = 0;   // FastRegister
  uint32_t fbo = 0;          // FastRegister: first byte offset
  uint8_t zero_based = 0;    // Bind: the user-mode variant (remote offsets start at 0)
  std::array<Sge, kMaxSge> sge{};
  // INLINE Write/Send/SendInvalidate: `length` payload bytes, copied at post time.
  std::array<uint8_t, kMaxInlineBytes> inline_data{};

  // INLINE applies to this WQE (the flag on a send or write).
  bool is_inline() const {
    return (flags & kWqeFlagInline) &&
           (opcode == WqeOpcode::Write || opcode == WqeOpcode::Send ||
            opcode == WqeOpcode::SendInvalidate);
  }

  uint64_t sgl_length() const {
    uint64_t total = 0;
    for (uint32_t i = 0; i < nsge && i < kMaxSge; ++i) total += sge[i].length;
    return total;
  }
  void encode(uint8_t* out) const;  // kWqeBytes
  static Wqe decode(const uint8_t* in);
};

// InfiniBand work-completion status codes (ibv_wc_status numbering).
enum class CqeStatus : uint8_t {
  Success = 0,
  LocalLength = 1,
  LocalQpOperation = 2,
  LocalProtection = 4,
  Flush = 5,
  MwBind = 6,
  RemoteInvalidRequest = 9,
  RemoteAccess = 10,
  RemoteOperation = 11,
  RetryExceeded = 12,
  RnrRetryExceeded = 13,
};

enum class CqeOpcode : uint8_t {
  Send = 0,
  Write = 1,
  Read = 2,
  Bind = 3,
  FastRegister = 4,
  Invalidate = 5,
  Receive = 6,
  ReceiveInvalidate = 7,
};

struct Cqe {
  CqeStatus status = CqeStatus::Success;
  CqeOpcode opcode = CqeOpcode::Send;
  uint8_t owner = 0;  // 1 on even passes over the ring, 2 on odd: tells new entries from old
  uint32_t byte_count = 0;
  uint64_t wr_id = 0;
  uint32_t qpn = 0;
  uint32_t invalidated_token = 0;
  uint32_t wqe_index = 0;  // send queue: index of the WQE completed (frees ring slots)
  // Bind, FastRegister, Invalidate: the device executed it and it changed the object (set also when
  // it completes CANCELLED behind an earlier error, R4.cancelled.undefined). Not in NDK_RESULT_EX.
  uint8_t took_effect = 0;
  // The rule that decided the request (a RuleId of abi/rules.h; 0: none), a vendor field like
  // mlx5's syndrome: the check that failed it, or the flush that cancelled it. Not in
  // NDK_RESULT_EX.
  uint16_t rule = 0;

  void encode(uint8_t* out) const;  // kCqeBytes
  static Cqe decode(const uint8_t* in);
};

CqeOpcode completion_opcode(WqeOpcode opcode);

// A WQE the device can execute: its flags are ones its opcode defines (SEND_AND_SOLICIT_EVENT
// only on sends, R2.solicit; INLINE only on sends and writes, with at most kMaxInlineBytes).
// Anything else is a malformed WQE: a local QP operation error (as mlx5 reports a bad WQE).
bool wqe_well_formed(const Wqe& wqe);

}  // namespace rnic
