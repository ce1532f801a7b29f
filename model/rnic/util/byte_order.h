// SPDX-License-Identifier: Apache-2.0
// Little-endian field access for structures the device and driver share in host memory.
#pragma once

#include <cstdint>

namespace rnic {

template <typename T>
inline void put_le(uint8_t* p, T v) {
  for (unsigned i = 0; i < sizeof(T); ++i) p[i] = uint8_t(uint64_t(v) >> (8 * i));
}
template <typename T>
inline T get_le(const uint8_t* p) {
  uint64_t v = 0;
  for (unsigned i = 0; i < sizeof(T); ++i) v |= uint64_t(p[i]) << (8 * i);
  return T(v);
}

}  // namespace rnic
