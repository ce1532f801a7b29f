// SPDX-License-Identifier: Apache-2.0
// The equivalence bench's requests and expectations (protection_rtl_equivalence.cpp): random
// requests over the seven ops of the RTL protection checker's pin contract, and what the C++
// rule functions decide for each.
#pragma once

#include <cstdint>
#include <random>

#include "model/rnic/protection/protection_rules.h"

namespace rnic::rtl_bench {

// The op numbers of rnicsim_pkg (rtl/gen_package.cpp prints them from the same order).
enum Op : uint8_t {
  kLocal = 0, kRemote = 1, kBind = 2, kFrCheck = 3, kFrCommit = 4, kInvalidate = 5,
  kRelease = 6, kNoSuchOp = 7
};
inline const char* op_name(uint8_t op) {
  static const char* const names[] = {"local_access", "remote_access", "bind", "fr_check",
                                      "fr_commit", "invalidate", "release_window", "op7"};
  return names[op & 7];
}

struct Stimulus {
  uint8_t op = 0;
  uint8_t checks = 0;
  uint32_t token = 0, mr_token = 0, pd = 0, qpn = 0;
  uint64_t va = 0, len = 0;
  uint16_t access = 0, rights = 0;
  bool zero_based = false, by_object = false;
  uint32_t page_count = 0, fbo = 0, index0 = 0, index1 = 0;
  bool line1_present = false;
  uint8_t line0[kMptEntryBytes] = {}, line1[kMptEntryBytes] = {};
};

struct Expected {
  uint16_t tag = 0;
  uint8_t op = 0;
  Decision decision;
  bool has_target = false, has_region = false, has_token = false;
  uint64_t target_va = 0;
  Region region;
  uint32_t new_token = 0;
  bool write0 = false, write1 = false;
  uint8_t line0[kMptEntryBytes] = {}, line1[kMptEntryBytes] = {};
  Stimulus stim;  // for the report
};

// What the C++ rule functions decide and define for `s`.
Expected reference(const Stimulus& s, uint16_t tag);
// The next random request (seeded by seed_stimulus()).
Stimulus next_stimulus();
void seed_stimulus(uint64_t seed);
// From the same generator: a number below n (0 for n = 0), and true pct times in 100.
uint32_t below(uint32_t n);
bool chance(unsigned pct);

}  // namespace rnic::rtl_bench
