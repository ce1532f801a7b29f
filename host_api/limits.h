// SPDX-License-Identifier: Apache-2.0
// Limits the driver enforces (the queue limits are reported in NDK_ADAPTER_INFO). The device
// tables (QPs, CQs, MPT, MTT) are sized by QpConfig; these bound what has no table, and say
// how many objects each table holds.
#pragma once

#include <algorithm>
#include <cstdint>

#include "model/config/config.h"

namespace rnic::host {
constexpr uint32_t kMaxQueueDepth = 16384;
constexpr uint32_t kMaxCqDepth = 65536;
constexpr uint32_t kMaxPds = 65536;  // open protection domains per adapter
constexpr uint32_t kMaxMptIndex = 1u << 24;  // a token holds a 24-bit index (R1.token.tag)

// Objects of each table one adapter can hold at once. Index 0 of every table is never used:
// token 0 is never valid, nor QP or CQ number 0.
inline uint32_t qp_capacity(const QpConfig& c) { return c.max_qps - 1; }
inline uint32_t cq_capacity(const QpConfig& c) { return c.max_cqs - 1; }
inline uint32_t mpt_capacity(const QpConfig& c) {
  return std::min<uint32_t>(c.max_mpt_entries, kMaxMptIndex) - 1;
}
}  // namespace rnic::host
