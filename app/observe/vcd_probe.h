// SPDX-License-Identifier: Apache-2.0
// `--vcd FILE`: a probe module that samples a few key quantities of every node every period
// into sc_signals traced with SystemC's own VCD writer (sc_trace). Sampling, not updates from
// the units: the model is loosely timed (work is booked ahead with annotated delays), so a
// value is what the model has committed at the sampled instant. The probe stops sampling when
// nothing else is left to simulate, so it never keeps a finished or stalled run alive, and it
// skips the periods of a span in which nothing runs (the values cannot change there).
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

class VcdProbe : public sc_core::sc_module {
 public:
  // Creates FILE (SystemC's VCD writer; ".vcd" is appended unless FILE ends in it and the file
  // is renamed to FILE at close()). Call during elaboration, before sc_start().
  VcdProbe(sc_core::sc_module_name name, System& system, const std::string& file,
           const sc_core::sc_time& period);
  ~VcdProbe() override;
  // Flushes and closes the file; returns an error message or "".
  std::string close();

 private:
  struct Probe {
    std::unique_ptr<sc_core::sc_signal<sc_dt::uint64>> signal;
    std::function<uint64_t()> read;
  };
  void add(const std::string& name, std::function<uint64_t()> read);
  void sample();
  void run();

  sc_core::sc_time period_;
  std::string file_, written_;
  sc_core::sc_trace_file* trace_ = nullptr;
  std::vector<Probe> probes_;
};

}  // namespace rnic::app
