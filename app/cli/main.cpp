// SPDX-License-Identifier: Apache-2.0
// The rnicsim executable. Our own main() silences SystemC's copyright banner (printed when the
// kernel starts; the command's output is meant for people and scripts), then hands over to
// SystemC, which calls sc_main().
#include <cstdlib>
#include <iostream>
#include <string>
#include <systemc>
#include <vector>

#include "app/cli/cli.h"
#ifdef RNICSIM_HAVE_RTL
#include "rtl/rtl_units.h"
#endif

int sc_main(int argc, char** argv) {
#ifdef RNICSIM_HAVE_RTL
  rnic::app::register_rtl_units(rnic::rtl::units());  // protection.implementation = rtl, lockstep
#endif
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  const int status = rnic::app::run_cli(args, std::cout, std::cerr);
  std::cout.flush();
  return status;
}

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);  // a user's explicit setting wins
  return sc_core::sc_elab_and_sim(argc, argv);
}
