// SPDX-License-Identifier: Apache-2.0
// A checker on the device's host-memory port, independent of the device's own checks and
// caches: every DMA must be what the request it serves allows, no more (R6.no_touch). Each
// DMA carries the authority of that request (msg/dma.h, DmaAuthority); the monitor reads the
// tables from host memory at the time of the DMA and checks it against exactly that:
//  - data: the object the token names (index, current tag, VALID, the request's PD, a window
//    bound to the request's QP with a valid parent region), the rights the direction needs,
//    the request's range inside the object's, and page by page that the bytes moved are the
//    translation of their VAs through that region's MTT entries;
//  - WQE reads inside the named QP's ring, completions inside the named CQ's ring, table
//    accesses inside the named entries, fast-register page-list reads inside the WQE's list and
//    its MTT writes inside the MR's reserved entries, interrupts in the MSI window.
// A violation is counted, logged with the request and the rule it breaks, reported as a
// SystemC warning (rnicsim/protection_monitor), and the access is still performed, so a test
// sees both the report and the damage.
#pragma once

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "model/rnic/abi/icm.h"
#include "model/rnic/msg/dma.h"
#include "tlm/dmi_cache.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"

namespace rnic {

class ProtectionMonitor : public sc_core::sc_module {
 public:
  TargetSocket<ProtectionMonitor> device_tsock;  // from the device's PCIe port
  InitiatorSocket<ProtectionMonitor> link_isock; // to the PCIe link

  // `adapter_flags`: the device's capability bits (abi/caps.h); RDMA_READ_SINK_NOT_REQUIRED
  // decides whether a read's sink needs the RDMA_READ_SINK right (R2.cap.read_sink_not_required).
  ProtectionMonitor(sc_core::sc_module_name name, const IcmLayout& icm, uint32_t adapter_flags);
  StatGroup stats;
  uint64_t violations() const { return violations_.value; }
  // One line per violation: the DMA, the request it served, the rule it breaks.
  const std::vector<std::string>& violation_log() const { return log_; }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);

  // What a check found: the rule a DMA breaks (None: allowed) and why, in a few words.
  struct Verdict {
    RuleId rule = RuleId::None;
    const char* why = nullptr;
    bool allowed() const { return why == nullptr; }
  };
  Verdict check(const tlm::tlm_generic_payload& gp, DmaSource source, const DmaAuthority* a,
                uint64_t offset);
  Verdict check_data(uint64_t addr, uint64_t length, bool write, const DmaAuthority& a,
                     uint64_t offset);
  // Are the bytes at [addr, +length) the translation of [va, +length) through `region`'s MTT?
  Verdict check_translation(const MptEntry& region, uint64_t va, uint64_t addr, uint64_t length);
  Verdict check_page_list(uint64_t addr, uint64_t length, bool write, const DmaAuthority& a);
  Verdict check_table(uint64_t addr, uint64_t length, const DmaAuthority& a) const;
  void report(const tlm::tlm_generic_payload& gp, DmaSource source, const DmaAuthority* a,
              uint64_t offset, const Verdict& verdict);

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
    uint32_t index = ~0u;         // the entry these bytes were read from
    const uint8_t* at = nullptr;  // entry `index` in host memory through DMI (null: none)
    const Entry& from(uint32_t at, const uint8_t* bytes) {
      if (index != at || std::memcmp(raw.data(), bytes, Bytes) != 0) {
        std::memcpy(raw.data(), bytes, Bytes);
        entry = Entry::decode(bytes);
        index = at;
      }
      return entry;
    }
  };
  // Entry `index` of a table, decoded, as host memory holds it now (null: unreadable). A few
  // slots per table, by index: a stream's objects stay decoded.
  template <typename Entry, size_t Bytes, size_t Slots>
  const Entry* entry(std::array<Decoded<Entry, Bytes>, Slots>& slots, uint64_t base,
                     uint32_t index);
  const MptEntry* mpt(uint32_t index);
  const QpcEntry* qpc(uint32_t qpn);
  const CqcEntry* cqc(uint32_t cqn);

  IcmLayout icm_;
  bool read_sink_required_;
  std::string node_;  // the node whose port this is, for the log
  std::array<Decoded<MptEntry, kMptEntryBytes>, 16> mpt_{};
  std::array<Decoded<QpcEntry, kQpcEntryBytes>, 16> qpc_{};
  std::array<Decoded<CqcEntry, kCqcEntryBytes>, 8> cqc_{};
  void invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end);
  DmiCache dmi_;  // table reads through DMI where host memory grants it
  tlm::tlm_generic_payload read_gp_;  // reused by read(): no payload construction per check
  std::vector<std::string> log_;
  Counter& checked_;
  Counter& violations_;
};

}  // namespace rnic
