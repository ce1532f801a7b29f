// SPDX-License-Identifier: Apache-2.0
// The rnicsim executable. SystemC's library owns main() and calls sc_main().
#include <iostream>
#include <string>
#include <systemc>
#include <vector>

#include "app/cli.h"

int sc_main(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  const int status = rnic::app::run_cli(args, std::cout, std::cerr);
  std::cout.flush();
  return status;
}
