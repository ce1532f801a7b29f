// SPDX-License-Identifier: Apache-2.0
// Limits the driver enforces (the queue limits are reported in NDK_ADAPTER_INFO). The device
// tables (QPs, CQs, MPT, MTT) are sized by QpConfig; these bound what has no table.
#pragma once

#include <cstdint>

namespace rnic::host {
constexpr uint32_t kMaxQueueDepth = 16384;
constexpr uint32_t kMaxCqDepth = 65536;
constexpr uint32_t kMaxPds = 65536;  // open protection domains per adapter
}  // namespace rnic::host
