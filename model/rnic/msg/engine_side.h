// SPDX-License-Identifier: Apache-2.0
// Which engine asks a table unit shared by both (MPT, MTT), and that unit's lookup counters
// by side: one node's requester and responder walk different regions, so one hit rate for
// both would hide a thrashing side behind a hitting one.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "tlm/stats.h"

namespace rnic {

enum class EngineSide : uint8_t { Requester, Responder };
constexpr uint32_t kEngineSides = 2;
inline const char* engine_side_name(EngineSide side) {
  return side == EngineSide::Requester ? "requester" : "responder";
}

// `<table>_hits_<side>`, `<table>_misses_<side>`, `<table>_merged_<side>` in `stats`.
class SideCounters {
 public:
  SideCounters(StatGroup& stats, const std::string& table, const std::string& what) {
    for (uint32_t i = 0; i < kEngineSides; ++i) {
      const std::string side = engine_side_name(EngineSide(i));
      hits_[i] =
          &stats.add(table + "_hits_" + side, "lookups", what + " hits asked by the " + side);
      misses_[i] = &stats.add(table + "_misses_" + side, "lookups",
                              what + " misses asked by the " + side + " (a DMA read each)");
      merged_[i] = &stats.add(table + "_merged_" + side, "lookups",
                              what + " lookups by the " + side + " merged into a read in flight");
    }
  }
  Counter& hits(EngineSide side) { return *hits_[size_t(side)]; }
  Counter& misses(EngineSide side) { return *misses_[size_t(side)]; }
  Counter& merged(EngineSide side) { return *merged_[size_t(side)]; }

 private:
  std::array<Counter*, kEngineSides> hits_{};
  std::array<Counter*, kEngineSides> misses_{};
  std::array<Counter*, kEngineSides> merged_{};
};

}  // namespace rnic
