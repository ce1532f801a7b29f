// SPDX-License-Identifier: Apache-2.0
// rnicsim gen: a constrained-random scenario whose expectations are the reference model's.
#include <exception>

#include "app/cli/commands.h"
#include "app/coverage/coverage.h"

namespace rnic::app {

const char* const kGenUsage =
    "usage: rnicsim gen --seed N [--steps K] [--focus BIN[,BIN]...] [--weights W.json]\n"
    "                   [--out FILE.json]\n"
    "\n"
    "Writes a constrained-random scenario (two nodes, PDs, MRs, fast-register MRs, windows,\n"
    "QP pairs, then K random actions, default 40) whose every expectation (inline statuses,\n"
    "completions, final memory) is the reference model's prediction, so that `rnicsim run`\n"
    "checks the timed model against it. Each random choice is tagged with the coverage bins\n"
    "it can hit (`rnicsim coverage bins`): --focus multiplies the weight of the choices that\n"
    "can hit a bin by 50, --weights by the file's weight for each bin or prefix of bins.\n"
    "Same seed and options, same file. Output: FILE.json or stdout.\n"
    "Exit 0 written, 2 bad option, 3 the generator failed (a bug).\n";

static_assert(kFocusWeight == 50, "kGenUsage states the --focus weight");

int cmd_gen(const CommandContext& c) {
  GenOptions options;
  options.seed = *c.options.seed;
  options.steps = c.options.steps;
  options.ref = c.reference;
  for (const std::string& bin : c.options.focus) {
    if (!coverage::names_bins(bin)) {
      c.err << "rnicsim: --focus: " << coverage::unknown_bin(bin) << '\n';
      return kExitInvalid;
    }
    options.weights.emplace_back(bin, kFocusWeight);
  }
  if (!c.options.weights.empty()) {
    nlohmann::json j;
    std::string error;
    if (!read_json_input(c.options.weights, &j, &error) ||
        !parse_weights(j, &options.weights, &error)) {
      c.err << "rnicsim: --weights: " << (error.rfind('"', 0) == 0 ? "" : c.options.weights + ": ")
            << error << '\n';
      return kExitInvalid;
    }
  }
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
