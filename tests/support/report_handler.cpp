// SPDX-License-Identifier: Apache-2.0
#include "support/report_handler.h"

#include <catch2/catch.hpp>
#include <systemc>

namespace rnic::test {

namespace {
std::vector<std::string>& reports() {
  static std::vector<std::string> list;
  return list;
}

std::string& expected_type() {
  static std::string type;
  return type;
}

void handler(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
  if (report.get_severity() >= sc_core::SC_WARNING) {
    reports().push_back(std::string(report.get_msg_type()) + ": " + report.get_msg());
    if (report.get_msg_type() == expected_type()) return;
    FAIL_CHECK("SystemC " << (report.get_severity() == sc_core::SC_WARNING ? "warning" : "error")
                          << " [" << report.get_msg_type() << "] " << report.get_msg());
  }
  // Keep SystemC's own handling of fatal errors, minus the abort on SC_ERROR (a test fails
  // instead of the process dying).
  sc_core::sc_report_handler::default_handler(
      report, actions & ~(sc_core::SC_ABORT | sc_core::SC_THROW | sc_core::SC_STOP));
}
}  // namespace

void install_report_handler() {
  sc_core::sc_report_handler::set_handler(handler);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
}

void expect_reports(const std::string& msg_type) { expected_type() = msg_type; }

std::vector<std::string> take_reports() {
  std::vector<std::string> out;
  out.swap(reports());
  return out;
}

}  // namespace rnic::test
