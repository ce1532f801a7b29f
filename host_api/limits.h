// SPDX-License-Identifier: Apache-2.0
// Queue limits the driver enforces (reported in NDK_ADAPTER_INFO).
#pragma once

#include <cstdint>

namespace rnic::host {
constexpr uint32_t kMaxQueueDepth = 16384;
constexpr uint32_t kMaxCqDepth = 65536;
}  // namespace rnic::host
