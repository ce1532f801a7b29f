// SPDX-License-Identifier: Apache-2.0
// The quantities the observers sample, declared once: the VCD probe binds each to a waveform
// (vcd_probe.h), the trace writes the instantaneous ones as counter tracks (sampler.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

#include "model/platform/system.h"

namespace rnic::app {

struct Gauge {
  enum class Kind {
    Level,       // a level at the sampled instant (WQEs in flight, tags in use)
    Cumulative,  // a running total (bytes, cache hits): the slope is the rate
    Percent,     // the share of a capacity used over the last sampling period
  };
  std::string name;  // "A.reads_outstanding": node, then the quantity
  Kind kind;
  std::function<uint64_t()> read;
};

// Every node's gauges, for one consumer sampling every `period` (a Percent gauge keeps its
// last reading: each consumer needs its own set).
std::vector<Gauge> declare_gauges(System& system, const sc_core::sc_time& period);

}  // namespace rnic::app
