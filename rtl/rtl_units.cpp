// SPDX-License-Identifier: Apache-2.0
#include "rtl/rtl_units.h"

#include "model/rnic/protection/rtl_protection_datapath.h"

using sc_core::sc_time_stamp;  // for verilated_funcs.h (rtl_protection_datapath.cpp says why)
#include "verilated_vcd_c.h"

namespace rnic::rtl {

app::RtlUnits units(uint32_t mutant) {
  app::RtlUnits u;
  u.make_protection = [mutant](const ProtectionUnitConfig& config) {
    RtlProtectionDatapath::Config c;
    c.recent_calls = config.divergence_trace_checks;
    c.mutant = mutant;
    return std::unique_ptr<ProtectionDatapath>(std::make_unique<RtlProtectionDatapath>(c));
  };
  u.write_protection_vcd = [](const ProtectionDatapath& unit, const std::string& path) {
    const auto* rtl = dynamic_cast<const RtlProtectionDatapath*>(&unit);
    if (!rtl) return std::string("not an RTL unit");
    bool opened = false;
    rtl->replay_recent([&](VerilatedVcdC& vcd) {
      vcd.set_time_unit("1ns");
      vcd.set_time_resolution("1ns");
      vcd.open(path.c_str());
      opened = vcd.isOpen();
      return opened;
    });
    return opened ? std::string() : "cannot write " + path;
  };
  u.protection_description = "protection checker: " + RtlProtectionDatapath::description() +
                             (RtlProtectionDatapath::has_mutants() ? " (seeded bugs)" : "");
  return u;
}

}  // namespace rnic::rtl
