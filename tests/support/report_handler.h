// SPDX-License-Identifier: Apache-2.0
// Any SystemC warning or error fails the running test (as VCML's test handler does).
#pragma once

#include <string>
#include <vector>

namespace rnic::test {
void install_report_handler();
// Messages of warnings and errors reported since the last call (tests assert it is empty).
std::vector<std::string> take_reports();
// Reports with this message type are recorded (take_reports) but do not fail the test: for
// tests that provoke them on purpose.
void expect_reports(const std::string& msg_type);
}  // namespace rnic::test
