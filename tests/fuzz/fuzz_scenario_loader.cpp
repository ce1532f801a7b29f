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

#include "app/scenario/scenario.h"

namespace {

// Exercise what callers do with the two outcomes: the loaded steps, or the error's message.
void use(const rnic::app::Scenario& s) {
  volatile size_t sink = s.steps.size() + s.nodes.size() + s.name.size();
  (void)sink;
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
