// SPDX-License-Identifier: Apache-2.0
// Catch2 main for the test binaries of the plain-C++ libraries (no SystemC, no kernel).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
