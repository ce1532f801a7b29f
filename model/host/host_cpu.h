// SPDX-License-Identifier: Apache-2.0
// The host CPU as seen by the driver (host_api): loads and stores to host memory and posted
// MMIO writes to the device BAR, both through TLM sockets, and its interrupt controller: a
// device write into the MSI window (msi_tsock) is an interrupt. Calls that spend simulated
// time (wait_for_interrupt) must run inside a SystemC thread.
#pragma once

#include <systemc>
#include <tlm>

#include "model/host/msi.h"
#include "model/instruments/dma_bench.h"
#include "tlm/dmi_cache.h"
#include "tlm/sockets.h"

namespace rnic {

class HostCpu : public sc_core::sc_module {
 public:
  InitiatorSocket<HostCpu> mem_isock;   // to HostMemory's CPU port
  InitiatorSocket<HostCpu> mmio_isock;  // to PcieLink's downstream (MMIO) port
  // To the device's DMA benchmark engine. Its control path is not timed: pcie-bench, too,
  // measures only the engine's DMA, not how the host starts it.
  ProtocolInitiatorSocket<DmaBenchProtocol> bench_isock;
  // Interrupt messages (MSI-X writes) from the PCIe link: any write wakes wait_for_interrupt
  // Config::poll_ns after it arrives. The data (the CQ number) is not looked at: the driver's poll
  // re-reads its rings after any wakeup.
  TargetSocket<HostCpu> msi_tsock;

  struct Config {
    // host.poll_ns: the driver spins on its completion queue and sees an entry this long
    // after it lands (the line's move from the LLC to the core). The interrupt message
    // lands right behind the entry (same posted path), so the waiting thread wakes this long
    // after the message.
    uint32_t poll_ns = 0;
  };
  HostCpu(sc_core::sc_module_name name, const Config& config);
  explicit HostCpu(sc_core::sc_module_name name);  // poll_ns 0

  // Cache-coherent CPU accesses: zero simulated time (the driver's own cost is not modeled),
  // through DMI where host memory grants it, else a transaction.
  // Return false when the address range is outside host memory.
  bool mem_write(uint64_t phys_addr, const void* data, uint64_t length);
  bool mem_read(uint64_t phys_addr, void* data, uint64_t length);

  // Posted MMIO write of a 64-bit register at `bar_offset`: returns at once with the time
  // after which the device has seen it (link and MMIO latency).
  sc_core::sc_time mmio_write64(uint64_t bar_offset, uint64_t value);
  // A write-combined MMIO write of `length` bytes (BlueFlame: a doorbell with its WQE).
  sc_core::sc_time mmio_write(uint64_t bar_offset, const uint8_t* data, uint32_t length);

  // Runs a DMA benchmark on the device and waits (simulated time) until it has finished.
  // Must run in a SystemC thread.
  void run_dma_bench(DmaBenchRequest& request);

  // Blocks until an interrupt message arrives (msi_tsock) or `timeout` passes. Returns false
  // on timeout.
  bool wait_for_interrupt(const sc_core::sc_time& timeout);
  uint64_t interrupts() const { return interrupts_; }
  // Notified when an interrupt message arrives (for a platform's own waiting thread).
  const sc_core::sc_event& interrupt_event() const { return interrupt_event_; }

 private:
  void invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end) { dmi_.invalidate(start, end); }
  void msi_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  DmiCache dmi_;
  sc_core::sc_time poll_;
  sc_core::sc_event interrupt_event_;
  uint64_t interrupts_ = 0;
  // One timeout event for every wait_for_interrupt. A wait(timeout, event) that ends by
  // the event leaves its cancelled timeout in the kernel's timed queue until it would have
  // expired (Accellera 2.3 keeps cancelled timed notifications queued), so a 10 ms patience per
  // poll kept ~10^5 dead entries there; one re-armed timer keeps at most one.
  sc_core::sc_event timeout_event_;
  sc_core::sc_time timeout_at_;
  bool timeout_armed_ = false;
  sc_core::sc_event_or_list wake_;  // interrupt | timeout
  // Reused for every CPU access (a payload constructed per access costs two heap calls).
  tlm::tlm_generic_payload mem_gp_;
  tlm::tlm_generic_payload mmio_gp_;
};

}  // namespace rnic
