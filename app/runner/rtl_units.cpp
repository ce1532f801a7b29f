// SPDX-License-Identifier: Apache-2.0
#include "app/runner/rtl_units.h"

namespace rnic::app {

namespace {

RtlUnits& registered() {
  static RtlUnits units;
  return units;
}

}  // namespace

void register_rtl_units(RtlUnits units) { registered() = std::move(units); }

const RtlUnits& rtl_units() { return registered(); }

std::string check_rtl_units(const SystemConfig& config) {
  const ProtectionImplementation impl = config.rnic.protection.implementation;
  if (impl == ProtectionImplementation::Tlm || rtl_units().make_protection) return {};
  return std::string("protection.implementation = ") +
         (impl == ProtectionImplementation::Rtl ? "rtl" : "lockstep") +
         " needs the RTL units, and this rnicsim was built without them: install Verilator "
         "(Debian: verilator; scripts/setup does) and configure again with -DRNICSIM_RTL=ON "
         "(docs/rtl-cosim.md)";
}

}  // namespace rnic::app
