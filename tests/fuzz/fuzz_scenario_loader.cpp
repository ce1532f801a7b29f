// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the scenario loader the CLI uses (`rnicsim run` and `rnicsim validate`
// call load_scenario_file(), which is load_scenario() on the file's text). Every input must
// either load or be refused with ScenarioError (the documented failure, exit 2 in the CLI);
// a crash, an abort, a sanitizer report, a hang or any other exception is a finding.
// Built and run by scripts/fuzz (tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/scenario/memory.h"
#include "app/scenario/scenario.h"

namespace {

// Exercise what callers do with the two outcomes: the loaded steps, or the error's message.
// A loaded file also gets its memory estimate (what `validate` and `run` do next), which must
// add up: its total is the sum of its parts (saturated, never wrapped), largest first.
void use(const rnic::app::Scenario& s) {
  volatile size_t sink = s.steps.size() + s.nodes.size() + s.name.size();
  (void)sink;
  rnic::app::MemoryOptions options;
  options.results_file = true;
  options.trace_events = 10000000;
  for (const rnic::app::MemoryEstimate& e :
       {rnic::app::estimate_memory(s), rnic::app::estimate_memory(s, options)}) {
    uint64_t sum = 0;
    for (size_t i = 0; i < e.parts.size(); ++i) {
      const uint64_t b = e.parts[i].bytes;
      sum = sum > UINT64_MAX - b ? UINT64_MAX : sum + b;
      if (b == 0 || (i > 0 && b > e.parts[i - 1].bytes)) __builtin_trap();
    }
    if (sum != e.total) __builtin_trap();
    (void)rnic::app::check_memory_budget(e, rnic::app::kDefaultMemoryBudget);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    use(rnic::app::load_scenario(text));
  } catch (const rnic::app::ScenarioError& e) {
    const std::string message = rnic::app::describe(e);  // what the CLI prints
    volatile size_t sink = message.size() + e.line + e.column;
    (void)sink;
  }
  // Also with a --set override, as `rnicsim run FILE --set K=V` does: the config cross-checks
  // run again after it.
  try {
    use(rnic::app::load_scenario(text, {"pcie.mrrs=256"}));
  } catch (const rnic::app::ScenarioError& e) {
    (void)rnic::app::describe(e);
  }
  return 0;
}
