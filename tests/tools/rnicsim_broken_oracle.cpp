// SPDX-License-Identifier: Apache-2.0
// Test equipment, not the product: `rnicsim gen` and `rnicsim expect` with the reference
// model deliberately wrong in one rule, so that the differential test (scripts/difftest
// --break RULE, ctest difftest/fails) can show it catches a wrong oracle.
//   usage: rnicsim_broken_oracle RULE gen|expect [ARGS]   (exit statuses as rnicsim's)
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <systemc>
#include <vector>

#include "app/cli/cli.h"

int sc_main(int argc, char** argv) {
  using namespace rnic::app;
  const std::vector<std::string> rules = ref_broken_rules();
  std::string known;
  for (const std::string& r : rules) known += (known.empty() ? "" : ", ") + r;
  if (argc < 3) {
    std::cerr << "usage: rnicsim_broken_oracle RULE gen|expect [ARGS] (RULE: " << known << ")\n";
    return kExitInvalid;
  }
  RefOptions reference;
  reference.broken_rule = argv[1];
  if (std::find(rules.begin(), rules.end(), reference.broken_rule) == rules.end()) {
    std::cerr << "rnicsim_broken_oracle: " << reference.broken_rule << " is not a rule (" << known
              << ")\n";
    return kExitInvalid;
  }
  const std::string command = argv[2];
  if (command != "gen" && command != "expect") {
    std::cerr << "rnicsim_broken_oracle: only gen and expect use the reference model, not "
              << command << "\n";
    return kExitInvalid;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);
  const int status = run_cli(args, std::cout, std::cerr, reference);
  std::cout.flush();
  return status;
}

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
