// SPDX-License-Identifier: Apache-2.0
// Host DRAM holding the real bytes: queues, device tables (ICM), data buffers. A sparse store
// of 4 KiB pages, zero on first touch. Two ports: the device's (through the PCIe link) and the
// CPU's (the driver). It stores bytes only: the host learns of a completion from an
// interrupt message (HostCpu::msi_tsock), not from memory. Addresses at or above size_bytes
// get TLM_ADDRESS_ERROR_RESPONSE.
// Device reads are timed per 64 B line (LineService): the delay a read returns is its wait
// beyond one uncontended line service (which the PCIe round trip already counts), plus
// host.extra_latency_ns. The caller's delay on entry is the read's arrival at the host.
// Both ports grant DMI, one 4 KiB page per grant (pages are never freed, so a grant is never
// withdrawn); only untimed initiators use it (the CPU, the protection monitor's table reads).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/host/line_service.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"

namespace rnic {

class HostMemory : public sc_core::sc_module {
 public:
  TargetSocket<HostMemory> dev_tsock;  // device DMA, from PcieLink
  TargetSocket<HostMemory> cpu_tsock;  // loads and stores of the host CPU

  struct Config {
    HostMemoryConfig host;  // host.*
    // sim.fast: reads take no wait for slots or lines (as the PCIe link stops queuing);
    // the service still counts in read_service_busy_ps, which bounds fast mode's rates.
    bool fast = false;
  };
  HostMemory(sc_core::sc_module_name name, const Config& config);

  uint64_t size_bytes() const { return config_.size_bytes; }
  // A CPU spinning on lines (a ping-pong's last byte; a driver waiting for a posted Bind, on
  // the window's table entry and its CQ ring): while armed, every device write that covers a
  // watched byte notifies written_event() at the time it lands. watch() adds a range;
  // unwatch() drops them all.
  void watch(uint64_t address, uint64_t length = 1) {
    if (length) watches_.push_back({address, length});
  }
  void unwatch() { watches_.clear(); }
  const sc_core::sc_event& written_event() const { return written_; }
  uint64_t touched_pages() const { return pages_.size(); }
  StatGroup stats;

 private:
  static constexpr uint64_t kPageBytes = 4096;
  static constexpr uint64_t kLineBytes = 64;

  void dev_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void cpu_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  bool access(tlm::tlm_generic_payload& gp);
  uint8_t* page(uint64_t page_number, bool create);

  HostMemoryConfig config_;
  bool fast_;
  LineService line_service_;
  uint64_t line_busy_ps_;  // one line's share of the host's read capacity: service / slots
  sc_core::sc_time extra_latency_;  // host.extra_latency_ns, converted once
  struct Watch {
    uint64_t address = 0;
    uint64_t length = 0;
  };
  std::vector<Watch> watches_;  // a few at most: a linear look per device write
  sc_core::sc_event written_;
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
  // Pages found recently, direct-mapped by page number (pages are never freed, so the
  // pointers stay valid): queues, tables and data buffers each hit their own few pages.
  struct RecentPage {
    uint64_t number = ~uint64_t(0);
    uint8_t* data = nullptr;
  };
  static constexpr size_t kRecentPages = 64;
  RecentPage recent_[kRecentPages];
  Counter& dev_reads_;
  Counter& dev_writes_;
  Counter& dev_read_lines_;
  Counter& dev_write_lines_;
  Counter& address_errors_;
  Counter& capacity_waits_;
  Counter& line_conflicts_;
  Counter& read_wait_ps_;
  Counter& read_service_busy_ps_;
};

}  // namespace rnic
