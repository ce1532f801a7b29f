// SPDX-License-Identifier: Apache-2.0
// Interconnect context memory (ICM): the device's tables live in host memory, as on
// ConnectX-class NICs, and the device caches them on chip. The driver writes entries and
// tells the device to drop its cached copy; the device reads them by DMA on a miss and writes
// MPT entries back (bind, fast-register, invalidate). Plain C++, no SystemC.
#pragma once

#include <array>
#include <cstdint>

#include "model/config/config.h"

namespace rnic {

constexpr uint32_t kMptEntryBytes = 64;
constexpr uint32_t kMttEntryBytes = 8;
constexpr uint32_t kQpcEntryBytes = 64;
constexpr uint32_t kCqcEntryBytes = 64;
constexpr uint32_t kWqeBytes = 128;
constexpr uint32_t kCqeBytes = 64;

// Fixed physical placement of the tables at the bottom of host memory; the driver's page
// allocator starts above `end`. Sizes follow the adapter limits in QpConfig.
struct IcmLayout {
  uint64_t mpt_base = 0;
  uint64_t mtt_base = 0;
  uint64_t qpc_base = 0;
  uint64_t cqc_base = 0;
  uint64_t end = 0;
  uint32_t mpt_entries = 0;
  uint32_t mtt_entries = 0;
  uint32_t qpc_entries = 0;
  uint32_t cqc_entries = 0;

  static IcmLayout from(const QpConfig& limits, uint64_t base = 0x100000);
  uint64_t mpt_addr(uint32_t index) const { return mpt_base + uint64_t(index) * kMptEntryBytes; }
  uint64_t mtt_addr(uint32_t index) const { return mtt_base + uint64_t(index) * kMttEntryBytes; }
  uint64_t qpc_addr(uint32_t qpn) const { return qpc_base + uint64_t(qpn) * kQpcEntryBytes; }
  uint64_t cqc_addr(uint32_t cqn) const { return cqc_base + uint64_t(cqn) * kCqcEntryBytes; }
};

// Tokens: 24-bit table index << 8 | 8-bit tag (R1.token.tag).
inline uint32_t make_token(uint32_t index, uint8_t tag) { return (index << 8) | tag; }
inline uint32_t token_index(uint32_t token) { return token >> 8; }
inline uint8_t token_tag(uint32_t token) { return uint8_t(token & 0xff); }

enum class MptState : uint8_t { Unused = 0, Free = 1, Valid = 2 };
enum class MptKind : uint8_t { None = 0, Mr = 1, FastMr = 2, Mw = 3 };

// Access rights held by an MPT entry (device encoding, not NDK flag values).
enum MptAccess : uint16_t {
  kAccessLocalWrite = 1 << 0,
  kAccessRemoteRead = 1 << 1,
  kAccessRemoteWrite = 1 << 2,
  kAccessReadSink = 1 << 3,
  kAccessRemoteAllowed = 1 << 4,  // fast-register MR initialised with remote access
};

// One MPT entry: a memory region or a memory window.
struct MptEntry {
  MptState state = MptState::Unused;
  MptKind kind = MptKind::None;
  uint16_t access = 0;
  uint8_t tag = 0;
  uint8_t page_shift = 12;   // 12 (4 KiB) or 21 (2 MiB)
  uint32_t pd = 0;
  uint64_t base_va = 0;      // first byte of the region / window
  uint64_t length = 0;
  uint32_t mtt_index = 0;    // MR: first MTT entry (page that holds base_va)
  uint32_t page_capacity = 0;// MR: MTT entries reserved for it
  uint32_t bound_qpn = 0;    // MW: QP it is bound to
  uint32_t parent_index = 0; // MW: the MR it is bound to
  uint32_t bound_windows = 0;// MR: windows currently bound to it
  uint8_t zero_based = 0;    // MW: remote offsets start at 0 (user-mode bind descriptor)

  void encode(uint8_t* out) const;      // kMptEntryBytes
  static MptEntry decode(const uint8_t* in);
};

// QP context written by the driver at CreateQp / Connect.
struct QpcEntry {
  uint8_t valid = 0;
  uint8_t connected = 0;
  uint8_t closed = 0;   // written by the device once a close has drained the QP (QpClose)
  uint8_t retired = 0;  // the driver closed the QP: the number was in use (table scans go on)
  uint32_t pd = 0;
  uint32_t cqn = 0;          // send and receive completions go to this CQ
  uint64_t sq_base = 0;      // physical address of the send-queue ring (contiguous)
  uint32_t sq_depth = 0;     // WQEs
  uint64_t rq_base = 0;
  uint32_t rq_depth = 0;
  uint32_t ord = 0;
  uint32_t ird = 0;
  uint32_t peer_node = 0;
  uint32_t peer_qpn = 0;
  // The running state: words the device owns (send-queue fetch index, receive-queue
  // position, next PSN) and writes back when the entry leaves its cache, never the driver's
  // words. The driver zeroes them when it writes the entry. The model keeps the live values in
  // the engines, so a write-back carries the words as its fill read them (docs/limits.md).
  static constexpr uint32_t kRunningOffset = 52;
  static constexpr uint32_t kRunningBytes = 12;
  std::array<uint8_t, kRunningBytes> running{};

  static constexpr uint32_t kClosedOffset = 2;
  void encode(uint8_t* out) const;  // kQpcEntryBytes
  static QpcEntry decode(const uint8_t* in);
};

// CQ context written by the driver at CreateCq.
struct CqcEntry {
  uint8_t valid = 0;
  uint8_t overflow = 0;    // set by the device when a completion found the ring full
  uint8_t retired = 0;     // the driver closed the CQ: the number was in use (table scans go on)
  uint64_t ring_base = 0;  // physical address of the ring (contiguous)
  uint32_t depth = 0;      // entries
  // The driver's consumer index, stored by the CPU after each poll (a doorbell record, as
  // mlx5's set_ci_db): the device reads it when the ring looks full, no MMIO per poll.
  uint32_t consumer = 0;
  // The running state (producer index, arm state): device words, as in QpcEntry.
  static constexpr uint32_t kRunningOffset = 20;
  static constexpr uint32_t kRunningBytes = 8;
  std::array<uint8_t, kRunningBytes> running{};

  static constexpr uint32_t kOverflowOffset = 1;
  static constexpr uint32_t kConsumerOffset = 16;
  void encode(uint8_t* out) const;  // kCqcEntryBytes
  // The 4 bytes at kConsumerOffset, as the driver stores them after a poll.
  static void encode_consumer(uint32_t consumer, uint8_t* out);
  static CqcEntry decode(const uint8_t* in);
};

}  // namespace rnic
