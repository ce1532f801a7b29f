// SPDX-License-Identifier: Apache-2.0
// Which engine asks a table unit shared by both (MPT, MTT). The units count their cache
// lookups by side (util/table_cache.h): one node's requester and responder walk different
// regions, so one hit rate for both would hide a thrashing side behind a hitting one.
#pragma once

#include <cstdint>

namespace rnic {

enum class EngineSide : uint8_t { Requester, Responder };
constexpr uint32_t kEngineSides = 2;
// The side of a caller of a unit both engines share, from its index on the unit's socket: the
// requester binds first, the responder second (model/rnic/rnic.cpp; the binding list in
// docs/architecture.md is checked against the code).
inline EngineSide side_of(int caller) {
  return caller == 0 ? EngineSide::Requester : EngineSide::Responder;
}

inline const char* engine_side_name(EngineSide side) {
  return side == EngineSide::Requester ? "requester" : "responder";
}

}  // namespace rnic
