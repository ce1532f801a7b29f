// SPDX-License-Identifier: Apache-2.0
#include "app/observe/vcd_probe.h"

#include "app/observe/gauges.h"
#include "app/runner/output_files.h"

namespace rnic::app {

std::string vcd_written_name(const std::string& file) {
  const bool has_suffix = file.size() > 4 && file.compare(file.size() - 4, 4, ".vcd") == 0;
  return has_suffix ? file : file + ".vcd";
}

VcdProbe::VcdProbe(System& system, const std::string& file, const sc_core::sc_time& period)
    : file_(file) {
  written_ = vcd_written_name(file);
  const std::string base = written_.substr(0, written_.size() - 4);
  trace_ = sc_core::sc_create_vcd_trace_file(base.c_str());
  // Picoseconds: the model's times are not whole nanoseconds (clock periods, link rates).
  // SystemC says so as an info message; the summary line is the only stdout output.
  const sc_core::sc_actions info =
      sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  trace_->set_time_unit(1, sc_core::SC_PS);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, info);

  for (Gauge& g : declare_gauges(system, period)) {
    Probe p;
    p.signal = std::make_unique<sc_core::sc_signal<sc_dt::uint64>>(
        sc_core::sc_gen_unique_name("probe"));
    p.read = std::move(g.read);
    sc_core::sc_trace(trace_, *p.signal, g.name);
    probes_.push_back(std::move(p));
  }
}

VcdProbe::~VcdProbe() { close(); }

void VcdProbe::sample() {
  for (Probe& p : probes_) p.signal->write(p.read());
}

std::string VcdProbe::close() {
  if (!trace_) return {};
  sc_core::sc_close_vcd_trace_file(trace_);
  trace_ = nullptr;
  // SystemC appends ".vcd": move its file to the name asked for, never replacing a link.
  return written_ != file_ ? move_output_file(written_, file_) : std::string();
}

}  // namespace rnic::app
