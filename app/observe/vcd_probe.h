// SPDX-License-Identifier: Apache-2.0
// `--vcd FILE`: a few key quantities of every node (the gauges of gauges.h), sampled every
// period by the Sampler (sampler.h) into sc_signals traced with SystemC's own VCD writer
// (sc_trace). Sampling, not updates from the units: the model is loosely timed (work is booked
// ahead with annotated delays), so a value is what the model has committed at the sampled
// instant.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "model/platform/system.h"

namespace rnic::app {

// The file SystemC's VCD writer creates for `file`: FILE itself when it ends in ".vcd", else
// FILE.vcd (moved to FILE at close()).
std::string vcd_written_name(const std::string& file);

class VcdProbe {
 public:
  // Creates FILE (SystemC's VCD writer; ".vcd" is appended unless FILE ends in it and the file
  // is renamed to FILE at close()). Call during elaboration, before sc_start().
  VcdProbe(System& system, const std::string& file, const sc_core::sc_time& period);
  ~VcdProbe();
  VcdProbe(const VcdProbe&) = delete;
  VcdProbe& operator=(const VcdProbe&) = delete;
  // Reads every gauge into its signal (the Sampler calls it every period).
  void sample();
  // Flushes and closes the file; returns an error message or "".
  std::string close();

 private:
  struct Probe {
    std::unique_ptr<sc_core::sc_signal<sc_dt::uint64>> signal;
    std::function<uint64_t()> read;
  };

  std::string file_, written_;
  sc_core::sc_trace_file* trace_ = nullptr;
  std::vector<Probe> probes_;
};

}  // namespace rnic::app
