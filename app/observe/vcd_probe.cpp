// SPDX-License-Identifier: Apache-2.0
#include "app/observe/vcd_probe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/runner/output_files.h"
#include "model/host/pcie_link.h"

namespace rnic::app {

namespace {

const Counter* find_counter(const StatGroup& group, const char* name) {
  for (const Counter& c : group.counters()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace

std::string vcd_written_name(const std::string& file) {
  const bool has_suffix = file.size() > 4 && file.compare(file.size() - 4, 4, ".vcd") == 0;
  return has_suffix ? file : file + ".vcd";
}

VcdProbe::VcdProbe(sc_core::sc_module_name name, System& system, const std::string& file,
                   const sc_core::sc_time& period)
    : sc_module(name), period_(period), file_(file) {
  written_ = vcd_written_name(file);
  const std::string base = written_.substr(0, written_.size() - 4);
  trace_ = sc_core::sc_create_vcd_trace_file(base.c_str());
  // Picoseconds: the model's times are not whole nanoseconds (clock periods, link rates).
  // SystemC says so as an info message; the summary line is the only stdout output.
  const sc_core::sc_actions info =
      sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  trace_->set_time_unit(1, sc_core::SC_PS);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, info);

  for (size_t i = 0; i < system.node_count(); ++i) {
    Node& node = system.node(i);
    const std::string n = std::string(node.name()) + ".";
    Rnic& rnic = node.rnic;
    const Requester* requester = &rnic.requester;
    add(n + "sq_wqes_in_flight", [requester] { return requester->wqes_in_flight(); });
    add(n + "reads_outstanding", [requester] { return requester->reads_outstanding(); });
    // Occupancies (read tags, IRD slots, CQ queue, reads in flight), as the model booked them.
    rnic.visit_groups([&](const StatGroup& group) {
      const std::string& owner = group.owner();
      const std::string unit = owner.substr(owner.rfind('.') + 1);
      for (const Occupancy& o : group.occupancies()) {
        const Occupancy* occupancy = &o;
        add(n + unit + "_" + o.name,
            [occupancy] { return occupancy->level_at(sc_core::sc_time_stamp().value()); });
      }
    });
    // Counters (cumulative; a waveform viewer's analog view shows the rate as the slope).
    const std::pair<const StatGroup*, const char*> counters[] = {
        {&rnic.dma_read.stats, "bytes"},      {&rnic.dma_write.stats, "bytes"},
        {&rnic.mtt.stats, "mtt_hits"},        {&rnic.mtt.stats, "mtt_misses"},
        {&rnic.protection.stats, "mpt_hits"}, {&rnic.protection.stats, "mpt_misses"},
        {&rnic.port.stats, "tx_bytes"}};
    for (const auto& [group, counter] : counters) {
      const Counter* c = find_counter(*group, counter);
      if (!c) continue;
      const std::string& owner = group->owner();
      const std::string unit = owner.substr(owner.rfind('.') + 1);
      add(n + unit + "_" + counter, [c] { return c->value; });
    }
    // PCIe link busy, percent of each direction's capacity over the last period (bytes booked
    // on the link in the period over what it can carry; approximate: LT books ahead).
    const double per_period =
        pcie_bytes_per_ns(system.config().rnic.pcie.gen, system.config().rnic.pcie.lanes) *
        (period.to_seconds() * 1e9);
    for (const char* dir : {"upstream_bytes", "downstream_bytes"}) {
      const Counter* c = find_counter(node.pcie.stats, dir);
      if (!c || per_period <= 0) continue;
      auto last = std::make_shared<uint64_t>(0);
      add(n + "pcie_" + std::string(dir, std::string(dir).find('_')) + "_busy_pct",
          [c, last, per_period] {
            const uint64_t delta = c->value - *last;
            *last = c->value;
            return uint64_t(std::min(100.0, 100.0 * double(delta) / per_period + 0.5));
          });
    }
  }
  SC_HAS_PROCESS(VcdProbe);
  SC_THREAD(run);
}

VcdProbe::~VcdProbe() { close(); }

void VcdProbe::add(const std::string& name, std::function<uint64_t()> read) {
  Probe p;
  p.signal = std::make_unique<sc_core::sc_signal<sc_dt::uint64>>(
      sc_core::sc_gen_unique_name("probe"));
  p.read = std::move(read);
  sc_core::sc_trace(trace_, *p.signal, name);
  probes_.push_back(std::move(p));
}

void VcdProbe::sample() {
  for (Probe& p : probes_) p.signal->write(p.read());
}

void VcdProbe::run() {
  for (;;) {
    // Asked before this sample's own signal updates are scheduled: is anything else left, and
    // how far ahead is it?
    const bool others = sc_core::sc_pending_activity();
    const sc_core::sc_time gap = sc_core::sc_time_to_pending_activity();
    sample();
    if (!others) return;
    // Nothing in the model runs before `gap`, so no probed value changes: skip whole periods
    // to the last sampling instant at or before the next activity (an idle `wait` of 1,000 s
    // costs one sample, not 10^10). Samples stay on the period grid.
    wait(gap > period_ ? period_ * std::floor(gap / period_) : period_);
  }
}

std::string VcdProbe::close() {
  if (!trace_) return {};
  sc_core::sc_close_vcd_trace_file(trace_);
  trace_ = nullptr;
  // SystemC appends ".vcd": move its file to the name asked for, never replacing a link.
  return written_ != file_ ? move_output_file(written_, file_) : std::string();
}

}  // namespace rnic::app
