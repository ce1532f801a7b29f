// SPDX-License-Identifier: Apache-2.0
// The RTL units built into this executable (docs/rtl-cosim.md). None unless main() registers
// them: rnicsim does when built with the RNICSIM_RTL option (rtl/rtl_units.h), so the runner
// and its tests need no Verilator.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "model/config/config.h"
#include "model/rnic/protection/protection_datapath.h"

namespace rnic::app {

struct RtlUnits {
  // A protection unit for one node (an empty function: none built).
  std::function<std::unique_ptr<ProtectionDatapath>(const ProtectionUnitConfig&)> make_protection;
  // Writes the waveform of `unit`'s recent calls (RtlProtectionDatapath::replay_recent) to
  // `path`: "" or why not.
  std::function<std::string(const ProtectionDatapath& unit, const std::string& path)>
      write_protection_vcd;
  // "rtl/protection_checker/protection_decide.sv rtl/protection_checker/protection_checker.sv,
  // Verilator 5.006, LATENCY 4" (--version).
  std::string protection_description;
};

void register_rtl_units(RtlUnits units);
const RtlUnits& rtl_units();

// Why `config` cannot run in this executable ("" when it can): an RTL implementation asked
// for and none built.
std::string check_rtl_units(const SystemConfig& config);

}  // namespace rnic::app
