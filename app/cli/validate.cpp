// SPDX-License-Identifier: Apache-2.0
// rnicsim validate: load and check a scenario, run nothing.
#include "app/cli/commands.h"
#include "app/runner/runner.h"

namespace rnic::app {

const char* const kValidateUsage =
    "usage: rnicsim validate FILE.json [--set key=value ...] [--memory-budget SIZE] [--quiet]\n"
    "\n"
    "Parses and checks the file (JSON syntax, fields, names, references, config keys),\n"
    "estimates the memory its run needs against the budget, and runs nothing. Exit 0 when\n"
    "valid, 2 otherwise.\n";

int cmd_validate(const CommandContext& c) {
  const CliOptions& o = c.options;
  Scenario scenario;
  try {
    scenario = load_scenario_file(o.file, o.sets);
  } catch (const ScenarioError& e) {
    c.err << file_error(o.file, e) << '\n';
    return kExitInvalid;
  }
  // The run as `rnicsim run FILE` would make it (without --out or --trace, which add theirs).
  const MemoryEstimate memory = estimate_memory(scenario);
  const std::string over = check_memory_budget(memory, o.memory_budget);
  if (!over.empty()) {
    c.err << o.file << ": " << over << '\n';
    return kExitInvalid;
  }
  const std::string unsupported = check_supported(scenario);
  if (!unsupported.empty()) c.err << o.file << ": note: " << unsupported << '\n';
  if (!o.quiet) {
    c.out << o.file << ": valid (" << scenario.steps.size() << " steps); memory estimate "
          << format_size(memory.total) << " of the " << format_size(o.memory_budget)
          << " budget\n";
  }
  return kExitPassed;
}

}  // namespace rnic::app
