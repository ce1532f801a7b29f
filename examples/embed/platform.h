// SPDX-License-Identifier: Apache-2.0
// A SystemC platform that is not rnicsim's: its own sparse DRAM and its own address-decoding
// interconnect, with an rnicsim RNIC plugged in (BAR target and DMA initiator bound to the
// interconnect) and a HostCpu port for the NDK-style driver. Shared by the example programs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "model/config/config.h"
#include "model/host/host_cpu.h"
#include "model/rnic/abi/bar.h"
#include "model/rnic/rnic.h"

namespace embed {

constexpr uint64_t kMemoryBytes = 256ull << 20;   // DRAM at physical 0
constexpr uint64_t kBarBase = 0xF000'0000'0000ull;  // where this platform maps BAR 0
// BAR 0: four 1 MiB register windows (model/rnic/abi/bar.h), the last holding the context-change
// register.
constexpr uint64_t kBarBytes = rnic::bar::kContextChange + rnic::bar::kWindowBytes;

// Sparse DRAM with a fixed read latency.
class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> tsock;

  Memory(sc_core::sc_module_name name, uint64_t size_bytes, sc_core::sc_time read_latency)
      : sc_module(name), tsock("tsock"), size_(size_bytes), read_latency_(read_latency) {
    tsock.register_b_transport(this, &Memory::b_transport);
    tsock.register_transport_dbg(this, &Memory::transport_dbg);
  }

 private:
  static constexpr uint64_t kPage = 4096;

  bool access(tlm::tlm_generic_payload& gp) {
    const uint64_t addr = gp.get_address();
    const uint64_t len = gp.get_data_length();
    if (gp.get_byte_enable_ptr() || gp.get_streaming_width() < len) {
      gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
      return false;
    }
    if (addr >= size_ || len > size_ - addr) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return false;
    }
    for (uint64_t done = 0; done < len && gp.get_command() != tlm::TLM_IGNORE_COMMAND;) {
      const uint64_t a = addr + done;
      const uint64_t n = std::min(len - done, kPage - a % kPage);
      std::vector<uint8_t>& page = pages_[a / kPage];
      if (page.empty()) page.assign(kPage, 0);
      uint8_t* p = page.data() + a % kPage;
      if (gp.is_write()) {
        std::memcpy(p, gp.get_data_ptr() + done, n);
      } else {
        std::memcpy(gp.get_data_ptr() + done, p, n);
      }
      done += n;
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return true;
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    if (access(gp) && gp.is_read()) delay += read_latency_;
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) {
    return access(gp) ? gp.get_data_length() : 0;
  }

  uint64_t size_;
  sc_core::sc_time read_latency_;
  std::unordered_map<uint64_t, std::vector<uint8_t>> pages_;
};

// An address-decoding interconnect: any number of initiators on `tsock`, targets on `isock`
// bound in the order of map() calls, each owning a window [base, base + size) and seeing
// window-relative addresses. An initiator binding may carry an address offset (the root port
// that turns the CPU's BAR-relative MMIO into platform addresses). Every hop costs `hop`.
class Router : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Router> tsock;
  tlm_utils::multi_passthrough_initiator_socket<Router> isock;

  Router(sc_core::sc_module_name name, sc_core::sc_time hop)
      : sc_module(name), tsock("tsock"), isock("isock"), hop_(hop) {
    tsock.register_b_transport(this, &Router::b_transport);
    tsock.register_transport_dbg(this, &Router::transport_dbg);
  }
  // Target number `windows.size()` (the next isock binding) decodes [base, base + size).
  void map(uint64_t base, uint64_t size) { windows_.push_back({base, size}); }
  // Transactions arriving on tsock binding `initiator` get `offset` added to their address.
  void set_initiator_offset(size_t initiator, uint64_t offset) {
    if (offsets_.size() <= initiator) offsets_.resize(initiator + 1, 0);
    offsets_[initiator] = offset;
  }
  uint64_t decode_errors = 0;

 private:
  struct Window {
    uint64_t base, size;
  };

  // Rebases the payload into its target's window; -1 when no window holds the whole access.
  int route(int from, tlm::tlm_generic_payload& gp) {
    const uint64_t offset = size_t(from) < offsets_.size() ? offsets_[size_t(from)] : 0;
    const uint64_t addr = gp.get_address() + offset;
    const uint64_t len = gp.get_data_length();
    for (size_t i = 0; i < windows_.size(); ++i) {
      const Window& w = windows_[i];
      if (addr >= w.base && addr - w.base < w.size && len <= w.size - (addr - w.base)) {
        gp.set_address(addr - w.base);
        return int(i);
      }
    }
    return -1;
  }
  void b_transport(int from, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    const uint64_t original = gp.get_address();
    const int to = route(from, gp);
    if (to < 0) {
      ++decode_errors;
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    delay += hop_;
    isock[to]->b_transport(gp, delay);
    gp.set_address(original);  // the base protocol: the address is the initiator's on return
  }
  unsigned transport_dbg(int from, tlm::tlm_generic_payload& gp) {
    const uint64_t original = gp.get_address();
    const int to = route(from, gp);
    const unsigned n = to < 0 ? 0 : isock[to]->transport_dbg(gp);
    gp.set_address(original);
    return n;
  }

  sc_core::sc_time hop_;
  std::vector<Window> windows_;
  std::vector<uint64_t> offsets_;
};

// One host of this platform: DRAM, the interconnect, a CPU port for the driver and the RNIC.
struct Host : sc_core::sc_module {
  Memory memory;
  Router bus;
  rnic::Rnic nic;
  rnic::HostCpu cpu;

  Host(sc_core::sc_module_name name, const rnic::RnicConfig& config, uint32_t node_id)
      : sc_module(name),
        memory("memory", kMemoryBytes, sc_core::sc_time(80, sc_core::SC_NS)),
        bus("bus", sc_core::sc_time(20, sc_core::SC_NS)),
        nic("nic", config, node_id),
        cpu("cpu") {
    // Targets, in window order: DRAM, the device's BAR 0, and the CPU's MSI window, where the
    // device's completion interrupts (posted writes) go.
    bus.map(0, kMemoryBytes);
    bus.isock.bind(memory.tsock);
    bus.map(kBarBase, kBarBytes);
    bus.isock.bind(nic.mmio_tsock);
    bus.map(rnic::kMsiWindowBase, rnic::kMsiWindowBytes);
    bus.isock.bind(cpu.msi_tsock);
    // Initiators: 0 the CPU's loads and stores, 1 its MMIO (BAR-relative, so the root port
    // adds the BAR base), 2 the device's DMA.
    cpu.mem_isock.bind(bus.tsock);
    cpu.mmio_isock.bind(bus.tsock);
    bus.set_initiator_offset(1, kBarBase);
    nic.pcie_isock.bind(bus.tsock);
    // The device's DMA benchmark control port is not used here, but the CPU's socket must be
    // bound.
    cpu.bench_isock.bind(nic.bench_tsock);
  }
};

}  // namespace embed
