// SPDX-License-Identifier: Apache-2.0
// The device's MMIO register map (BAR 0), shared by the driver and the Doorbells unit.
#pragma once

#include <cstdint>


namespace rnic {

// The context-change register's kinds: the driver changed these ICM entries.
// QpFlush: the driver flushed the QP (Flush): it enters the error state.
// QpClose: the driver is closing the flushed QP: once every WQE rung so far has completed,
// the device sets QpcEntry::closed, so the driver knows no completion of the QP is to come.
enum class ContextKind : uint8_t { Mpt = 1, Qpc = 2, Cqc = 3, Mtt = 4, QpFlush = 5, QpClose = 6 };

namespace bar {

constexpr uint64_t kSqDoorbell = 0x000000;     // + qpn * 8: send-queue producer index
constexpr uint64_t kRqDoorbell = 0x100000;     // + qpn * 8: receive-queue producer index
// + cqn * 8: completion-queue consumer index (bits 0-31; a driver may instead store it in the
// CQ context, CqcEntry::consumer, which the device reads when the ring looks full). With
// kCqArm set, the write also asks
// for one interrupt (NDK INDCompletionQueue::Notify, ibv_req_notify_cq): at the next entry, or
// at once if the ring already holds entries past that consumer index. One-shot: the interrupt
// disarms the CQ, and a CQ never armed sends none.
constexpr uint64_t kCqDoorbell = 0x200000;
constexpr uint64_t kCqArm = uint64_t(1) << 32;
constexpr uint64_t kContextChange = 0x300000;  // kind << 56 | count << 32 | index
// BlueFlame: + qpn * kBlueFlameStride: the send-queue producer index (8 bytes) followed by
// the WQE it makes the last posted (kWqeBytes), in one write-combined MMIO write. The
// device takes the WQE from the write instead of reading the ring.
constexpr uint64_t kSqBlueFlame = 0x400000;
constexpr uint64_t kBlueFlameStride = 256;  // a ConnectX BlueFlame buffer
// Room for every QP number qp.max_qps allows (1 << 20 at most).
constexpr uint64_t kBlueFlameWindowBytes = (uint64_t(1) << 20) * kBlueFlameStride;
// The MSI-X message address of completion interrupts (the driver's, in the host's MSI
// window): after a completion entry of an armed CQ (kCqArm), a CQ overflow flag or a QP-close
// notice, the device writes 4 bytes there (the CQ number; 0xFFFFFFFF for a close). 0, the
// reset value: none.
constexpr uint64_t kInterruptAddress = 0x300008;
constexpr uint64_t kRegisterStride = 8;
constexpr uint64_t kWindowBytes = 0x100000;

inline uint64_t context_change_value(ContextKind kind, uint32_t index, uint32_t count) {
  return uint64_t(kind) << 56 | uint64_t(count & 0xffffff) << 32 | index;
}

}  // namespace bar
}  // namespace rnic
