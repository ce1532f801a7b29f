// SPDX-License-Identifier: Apache-2.0
// A checker on the device's host-memory port, independent of the device's own checks and
// caches: every DMA must fall inside memory the device was given at that moment. Tables (ICM)
// are always allowed; WQE reads must lie in a valid QP's send or receive ring; completion
// writes in a valid CQ's ring; data reads and writes in the pages of a VALID memory region,
// inside its registered range (read from the MPT and MTT in host memory at the time of the
// DMA). A violation is counted, reported as a SystemC warning (rnicsim/protection_monitor),
// and the access is still performed, so a test sees both the report and the damage.
#pragma once

#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "model/rnic/abi/icm.h"
#include "model/rnic/msg/dma.h"
#include "tlm/dmi_cache.h"
#include "tlm/extensions.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"

namespace rnic {

class ProtectionMonitor : public sc_core::sc_module {
 public:
  TargetSocket<ProtectionMonitor> device_tsock;  // from the device's PCIe port
  InitiatorSocket<ProtectionMonitor> link_isock; // to the PCIe link

  ProtectionMonitor(sc_core::sc_module_name name, const IcmLayout& icm);
  StatGroup stats;
  uint64_t violations() const { return violations_.value; }
  const std::vector<std::string>& violation_log() const { return log_; }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);
  bool allowed(uint64_t addr, uint64_t length, DmaSource source);
  bool in_queue_ring(uint64_t addr, uint64_t length);
  bool in_cq_ring(uint64_t addr, uint64_t length);
  bool in_valid_region(uint64_t addr, uint64_t length);
  // Does page `page` of `region` (its MTT entry as host memory has it now) hold the range?
  bool page_covers(const MptEntry& region, uint64_t page, uint64_t addr, uint64_t length);
  bool read(uint64_t addr, void* data, uint32_t length);

  IcmLayout icm_;
  struct Match {
    uint32_t index;
    uint64_t page;
  };
  std::vector<Match> recent_;  // last regions and pages that allowed a DMA, newest first
  std::vector<uint8_t> table_;
  void invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end) { dmi_.invalidate(start, end); }
  DmiCache dmi_;  // table reads through DMI where host memory grants it
  tlm::tlm_generic_payload read_gp_;  // reused by read(): no payload construction per check
  std::vector<std::string> log_;
  Counter& checked_;
  Counter& violations_;
};

}  // namespace rnic
