// SPDX-License-Identifier: Apache-2.0
// Test equipment, not the product: rnicsim whose RTL protection checker carries one seeded bug
// (rtl/protection_checker/mutants.tsv), chosen at run time through the unit's mutant_sel pin,
// so that ctest rtl/mutants can show that lockstep stops each one at its rule
// (docs/rtl-cosim.md, "Mutation check").
//   usage: RNICSIM_RTL_MUTANT=N rnicsim_rtl_mutants ARGS   (ARGS and exit statuses as rnicsim's)
#include <cstdlib>
#include <iostream>
#include <string>
#include <systemc>
#include <vector>

#include "app/cli/cli.h"
#include "app/scenario/text.h"
#include "rtl/rtl_units.h"

int sc_main(int argc, char** argv) {
  const char* text = std::getenv("RNICSIM_RTL_MUTANT");
  uint64_t mutant = 0;
  if (!text || !rnic::app::parse_unsigned(text, &mutant) || mutant > 15) {
    std::cerr << "rnicsim_rtl_mutants: set RNICSIM_RTL_MUTANT to a seeded bug's number "
                 "(rtl/protection_checker/mutants.tsv; 0: none)\n";
    return rnic::app::kExitInvalid;
  }
  rnic::app::register_rtl_units(rnic::rtl::units(uint32_t(mutant)));
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  const int status = rnic::app::run_cli(args, std::cout, std::cerr);
  std::cout.flush();
  return status;
}

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);  // as rnicsim's main()
  return sc_core::sc_elab_and_sim(argc, argv);
}
