// SPDX-License-Identifier: Apache-2.0
// Adapter capability flags the device reports in NDK_ADAPTER_INFO (docs/behaviour.md, Flags; the
// values are those of the public ndkpi.h header).
#pragma once

#include <cstdint>

namespace rnic::caps {

constexpr uint32_t kInOrderDma = 0x1;
constexpr uint32_t kRdmaReadSinkNotRequired = 0x2;
constexpr uint32_t kCqInterruptModeration = 0x4;
constexpr uint32_t kMultiEngine = 0x8;
constexpr uint32_t kRdmaReadLocalInvalidateSupported = 0x10;
constexpr uint32_t kCqResize = 0x100;
constexpr uint32_t kLoopbackConnections = 0x10000;

}  // namespace rnic::caps
