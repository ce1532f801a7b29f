// SPDX-License-Identifier: Apache-2.0
// The device's PCIe core: every DMA master of the device (WQE fetch, table walks, data
// engines, completions) goes through here to the link. Counts traffic per source.
#pragma once

#include <array>

#include <systemc>
#include <tlm>

#include "model/rnic/device_clock.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"

namespace rnic {

class PcieEndpoint : public sc_core::sc_module {
 public:
  SharedTargetSocket<PcieEndpoint> dma_tsock;  // from the device's DMA masters
  InitiatorSocket<PcieEndpoint> pcie_isock;    // to the PCIe link

  // `clock`: the device's (null: one of its own, for a bench of this unit alone).
  explicit PcieEndpoint(sc_core::sc_module_name name, DeviceClock* clock = nullptr);
  StatGroup stats;

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
  // b_transport to the link while the device runs ahead of the kernel.
  void transport_ahead(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  Counter& dma_reads_;
  Counter& dma_read_bytes_;
  Counter& dma_writes_;
  Counter& dma_write_bytes_;
  Counter& dma_errors_;
  ClockRef device_;  // the device's time (device_clock.h)
};

}  // namespace rnic
