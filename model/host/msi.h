// SPDX-License-Identifier: Apache-2.0
// The host's MSI address window (x86: the local APICs' 0xFEE00000, 1 MiB). The root complex
// hands a device write in it to the CPU's interrupt controller, never to memory; the driver
// gives the device an address in it for its interrupt messages.
#pragma once

#include <cstdint>

namespace rnic {

constexpr uint64_t kMsiWindowBase = 0xFEE00000;
constexpr uint64_t kMsiWindowBytes = 0x100000;

}  // namespace rnic
