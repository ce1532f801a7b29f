// SPDX-License-Identifier: Apache-2.0
// The lockstep report (docs/rtl-cosim.md): when a node's RTL unit and the C++ rules first
// disagree, the message naming the check, its inputs and both answers, the inputs as JSON (a
// one-request test for the RTL designer), and the RTL's waveform over the last checks.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "app/runner/runner.h"
#include "app/scenario/scenario.h"
#include "model/platform/system.h"
#include "model/rnic/protection/protection_datapath.h"

namespace rnic::app {

// Lockstep's stop: at the first divergence the scenario drivers still running are killed,
// which unwinds their stacks (the executors' buffers and vectors freed, IEEE 1666-2011
// 5.6.6.2), and the simulation stops. A method, one delta after the divergence: the
// divergent check may run inside a driver's own call.
class DivergenceStop : public sc_core::sc_module {
 public:
  explicit DivergenceStop(sc_core::sc_module_name name);
  // A driver thread, and its flag that says it finished on its own.
  void watch(sc_core::sc_process_handle driver, const bool* finished) {
    drivers_.emplace_back(std::move(driver), finished);
  }
  void request() { requested_.notify(sc_core::SC_ZERO_TIME); }

 private:
  void stop();
  sc_core::sc_event requested_;
  std::vector<std::pair<sc_core::sc_process_handle, const bool*>> drivers_;
};

// True when a protection checker of `system` diverged from its unit.
bool any_divergence(System& system);
// The first divergence among `system`'s protection checkers (`units`: theirs, by node),
// reported into `result` as a failure with its files, `prefix`-NODE-protection.json (the
// inputs and answers) and .vcd (the unit's waveform). False when none diverged.
bool report_divergence(System& system,
                       const std::vector<std::unique_ptr<ProtectionDatapath>>& units,
                       const Scenario& scenario, const std::string& prefix, RunResult& result);

struct DivergenceReport {
  std::string unit;      // "B.rnic.protection"
  std::string where;     // "step 17 (read)"
  uint64_t time_ps = 0;
  const DatapathDivergence* divergence = nullptr;
};

// "lockstep: B.rnic.protection diverged at 4.212 us, step 17 (read), check 84 (...)"
std::string divergence_line(const DivergenceReport& report);
// The inputs and both answers as a JSON document.
std::string divergence_json(const DivergenceReport& report);

}  // namespace rnic::app
