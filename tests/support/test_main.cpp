// SPDX-License-Identifier: Apache-2.0
// Catch2 main for the test binaries. SystemC's library wants an sc_main symbol; tests build
// their models inside each test case and call sc_start() themselves, so this one never runs.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <systemc>

#include "support/report_handler.h"

int sc_main(int, char**) { return 0; }

int main(int argc, char** argv) {
  rnic::test::install_report_handler();
  return Catch::Session().run(argc, argv);
}
