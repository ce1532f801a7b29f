// SPDX-License-Identifier: Apache-2.0
// A checker on the device's host-memory port, independent of the device's own checks and
// caches: every DMA must fall inside memory the device was given at that moment. Tables (ICM)
// are always allowed; WQE reads must lie in a valid QP's send or receive ring; completion
// writes in a valid CQ's ring; data reads and writes in the pages of a VALID memory region,
// inside its registered range (read from the MPT and MTT in host memory at the time of the
// DMA). A violation is counted, reported as a SystemC warning (rnicsim/protection_monitor),
// and the access is still performed, so a test sees both the report and the damage.
#pragma once

#include <array>
#include <map>
#include <cstring>
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
  // A table entry as host memory holds it now: in place through DMI where granted (no copy),
  // else read into `buffer`. Null when it cannot be read.
  const uint8_t* view(uint64_t addr, uint8_t* buffer, uint32_t length);

  // A table entry as last read from host memory and its decoding. Every check reads the
  // entry again; the decoding is reused only while the bytes are the same (a speed-up of the
  // simulator, not a cache: what host memory holds at the DMA decides).
  template <typename Entry, size_t Bytes>
  struct Decoded {
    std::array<uint8_t, Bytes> raw{};
    Entry entry{};
    bool filled = false;
    const Entry& from(const uint8_t* bytes) {
      if (!filled || std::memcmp(raw.data(), bytes, Bytes) != 0) {
        std::memcpy(raw.data(), bytes, Bytes);
        entry = Entry::decode(bytes);
        filled = true;
      }
      return entry;
    }
  };
  // The QP ring, CQ ring or region that allowed the last DMA of its kind: checked first.
  bool in_recent_queue_ring(uint64_t addr, uint64_t length);
  bool in_recent_cq_ring(uint64_t addr, uint64_t length);

  IcmLayout icm_;
  struct Match {
    uint32_t index;
    uint64_t page;
    Decoded<MptEntry, kMptEntryBytes> mpt;
  };
  std::vector<Match> recent_;  // last regions and pages that allowed a DMA, newest first
  uint32_t recent_qpn_ = 0;    // 0: none yet
  Decoded<QpcEntry, kQpcEntryBytes> recent_qpc_;
  // Where QP rings were seen: ring base -> QP number, from scans of the QPC table. A hint
  // only (the QP's entry is read again and must hold the range), so that a DMA of one of
  // 10^5 QPs' rings costs a lookup, not a scan. QP numbers below `scanned_qpns_` are in it.
  std::map<uint64_t, uint32_t> ring_owner_;
  uint32_t scanned_qpns_ = 1;
  // Scans QPC entries from `first` up to the first never-used one, noting their rings; true
  // (and the QP recent) at the first whose rings hold the range.
  bool scan_queue_rings(uint32_t first, uint64_t addr, uint64_t length);
  uint32_t recent_cqn_ = 0;
  Decoded<CqcEntry, kCqcEntryBytes> recent_cqc_;
  std::vector<uint8_t> table_;
  void invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end) { dmi_.invalidate(start, end); }
  DmiCache dmi_;  // table reads through DMI where host memory grants it
  tlm::tlm_generic_payload read_gp_;  // reused by read(): no payload construction per check
  std::vector<std::string> log_;
  Counter& checked_;
  Counter& violations_;
};

}  // namespace rnic
