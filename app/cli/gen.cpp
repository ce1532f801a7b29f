// SPDX-License-Identifier: Apache-2.0
// rnicsim gen: a constrained-random scenario whose expectations are the reference model's.
#include <exception>

#include "app/cli/commands.h"

namespace rnic::app {

const char* const kGenUsage =
    "usage: rnicsim gen --seed N [--steps K] [--out FILE.json]\n"
    "\n"
    "Writes a constrained-random scenario (two nodes, PDs, MRs, fast-register MRs, windows,\n"
    "QP pairs, then K random actions, default 40) whose every expectation (inline statuses,\n"
    "completions, final memory) is the reference model's prediction, so that `rnicsim run`\n"
    "checks the timed model against it. Same seed, same file. Output: FILE.json or stdout.\n"
    "Exit 0 written, 2 bad option, 3 the generator failed (a bug).\n";

int cmd_gen(const CommandContext& c) {
  GenOptions options;
  options.seed = *c.options.seed;
  options.steps = c.options.steps;
  options.ref = c.reference;
  OrderedJson scenario;
  try {
    scenario = generate_scenario(options);
  } catch (const std::exception& e) {
    c.err << "rnicsim: gen --seed " << options.seed << ": internal error: " << e.what() << '\n';
    return kExitInternal;
  }
  return write_output(c, format_scenario(scenario));
}

}  // namespace rnic::app
