// SPDX-License-Identifier: Apache-2.0
// The PCIe link between the device and the root complex, one bandwidth pipe per direction.
// Device reads: a request TLP upstream, the host round trip, completion TLPs downstream split
// at the read completion boundary and at MPS. Device writes: posted TLPs upstream split at MPS.
// Host MMIO writes: one posted TLP downstream. Every TLP pays tlp_overhead_bytes. A device
// write into the MSI window (kMsiWindowBase) is an interrupt message: the root complex hands it
// to the CPU (msi_isock), not to memory, behind the device's earlier posted writes.
#pragma once

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/host/msi.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"

namespace rnic {

// Usable bytes per ns per direction for a generation and width (after line encoding).
double pcie_bytes_per_ns(uint32_t gen, uint32_t lanes);
// Number of completion TLPs for a read of `length` bytes at `address`.
uint32_t pcie_completion_count(uint64_t address, uint64_t length, uint32_t rcb_bytes,
                               uint32_t mps_bytes);

class PcieLink : public sc_core::sc_module {
 public:
  TargetSocket<PcieLink> dev_tsock;     // TLPs the device initiates
  InitiatorSocket<PcieLink> mem_isock;  // to host memory
  TargetSocket<PcieLink> host_tsock;    // MMIO from the host CPU
  InitiatorSocket<PcieLink> mmio_isock; // to the device BAR
  InitiatorSocket<PcieLink> msi_isock;  // interrupt messages, to the host CPU

  struct Config {
    PcieConfig pcie;  // pcie.*
    // sim.fast: the link directions stop queuing transfers behind each other (see
    // BandwidthPipe::set_contention); the per-transfer formulas stay the same.
    bool fast = false;
  };
  PcieLink(sc_core::sc_module_name name, const Config& config);
  StatGroup stats;

 private:
  void dev_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void host_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned dev_transport_dbg(tlm::tlm_generic_payload& gp);
  // DMI passes through for untimed readers on the device side (the protection monitor's table
  // reads); the device's DMA masters never ask, since a DMA must pay the link's time.
  bool dev_get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  void mem_invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);

  PcieConfig config_;
  BandwidthPipe upstream_;    // device -> host
  BandwidthPipe downstream_;  // host -> device
  sc_core::sc_time read_fixed_;  // round trip minus the serialization of a minimal read
  sc_core::sc_time write_flight_;  // pcie.write_latency_ns
  sc_core::sc_time mmio_latency_;  // pcie.mmio_latency_ns
  Counter& read_requests_;
  Counter& completion_tlps_;
  Counter& write_tlps_;
  Counter& mmio_tlps_;
  Counter& msi_tlps_;
  Counter& upstream_bytes_;
  Counter& downstream_bytes_;
};

}  // namespace rnic
