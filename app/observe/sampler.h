// SPDX-License-Identifier: Apache-2.0
// One SystemC thread samples the gauges (gauges.h) for every consumer, each on its own
// period: the VCD probe's waveforms (--vcd) and the trace's counter tracks (--trace). One
// thread, not one per consumer: a sampler stops when nothing else is left to simulate, so it
// never keeps a finished or stalled run alive; two would keep each other alive. Periods in
// which nothing runs are skipped (the values cannot change there).
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <systemc>

#include "app/observe/gauges.h"
#include "tlm/trace.h"

namespace rnic::app {

class Sampler : public sc_core::sc_module {
 public:
  struct Consumer {
    sc_core::sc_time period;
    std::function<void()> sample;  // reads its gauges at the current time
  };
  // Call during elaboration, before sc_start(). Each consumer samples at 0 and every period.
  Sampler(sc_core::sc_module_name name, std::vector<Consumer> consumers);

 private:
  void run();
  std::vector<Consumer> consumers_;
  // Each consumer's next sampling instant. A member, not a local of run(): the thread is never
  // unwound when the simulation stops, so its locals would never be freed.
  std::vector<sc_core::sc_time> next_;
};

// The trace's counter tracks: the Level and Percent gauges (not the running totals, which
// would change at every sample), written to `sink` (which keeps changes only).
class TraceCounters {
 public:
  TraceCounters(System& system, TraceSink& sink, const sc_core::sc_time& period);
  void sample();

 private:
  TraceSink& sink_;
  std::vector<std::pair<uint32_t, Gauge>> gauges_;  // counter track, gauge
};

}  // namespace rnic::app
