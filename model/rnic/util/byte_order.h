// SPDX-License-Identifier: Apache-2.0
// Little-endian field access for structures the device and driver share in host memory.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace rnic {

// The byte loops say what the layout is; on a little-endian host the same bytes are one
// plain load or store, which the compiler does not always see through the loop (decoding
// the tables' entries was 1% of a 64 B read's instructions).
template <typename T>
inline void put_le(uint8_t* p, T v) {
  static_assert(std::is_unsigned_v<T>, "fields are unsigned");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::memcpy(p, &v, sizeof(T));
#else
  for (unsigned i = 0; i < sizeof(T); ++i) p[i] = uint8_t(uint64_t(v) >> (8 * i));
#endif
}
template <typename T>
inline T get_le(const uint8_t* p) {
  static_assert(std::is_unsigned_v<T>, "fields are unsigned");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
#else
  uint64_t v = 0;
  for (unsigned i = 0; i < sizeof(T); ++i) v |= uint64_t(p[i]) << (8 * i);
  return T(v);
#endif
}

}  // namespace rnic
