// SPDX-License-Identifier: Apache-2.0
// The memory budget (docs/user-guide.md, "Limits"): before anything is simulated, `validate`
// and `run` estimate the memory a run of the file(s) takes at its peak, from what the file
// asks for, and refuse the file (exit 2) when the estimate is above the budget. Plain C++:
// the sizes come from the steps and the config, the constants from measurements of the model
// (memory.cpp says which). The estimate is meant to be an upper bound of the peak resident
// memory, not an exact figure: tests/tools/check_memory.py checks both properties.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/scenario/scenario.h"

namespace rnic::app {

constexpr uint64_t kDefaultMemoryBudget = 4ull << 30;  // --memory-budget's default
constexpr uint64_t kMinMemoryBudget = 64ull << 20;     // below this not even one node fits
constexpr uint64_t kMaxMemoryBudget = 1ull << 50;      // 1 PiB: anything above is a typo

// What a run adds besides the files (the options of `rnicsim run`).
struct MemoryOptions {
  bool results_file = false;   // --out / --out-dir: each results JSON is built in memory
  uint64_t trace_events = 0;   // --trace: the events kept until the trace is written
};

// One contributor: "host buffers", with what it is made of ("2 GiB of alloc on 2 nodes").
struct MemoryPart {
  std::string name;
  uint64_t bytes = 0;
  std::string detail;
};

struct MemoryEstimate {
  uint64_t total = 0;
  std::vector<MemoryPart> parts;  // largest first; parts of 0 bytes left out
};

// The whole run of `scenarios` in one process (one file, or several: `rnicsim run F1 F2`).
// `labels` name the files in the details when there are several (may be empty).
MemoryEstimate estimate_memory(const std::vector<const Scenario*>& scenarios,
                               const MemoryOptions& options = {},
                               const std::vector<std::string>& labels = {});
MemoryEstimate estimate_memory(const Scenario& scenario, const MemoryOptions& options = {});

// "" when `estimate` fits in `budget`, else the refusal: the budget, the estimate and the
// largest contributors, one per line after the first.
std::string check_memory_budget(const MemoryEstimate& estimate, uint64_t budget);

// "4GiB", "512MiB", "1.5G", "65536" (bytes): binary units B, K/KiB, M/MiB, G/GiB, T/TiB,
// case-insensitive; false for anything else or more than 2^64 - 1 bytes.
bool parse_byte_size(const std::string& text, uint64_t* out);
// "4 GiB", "1.5 GiB", "300 MiB", "12 KiB", "512 bytes": 3 significant digits.
std::string format_size(uint64_t bytes);

}  // namespace rnic::app
