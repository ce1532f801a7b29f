// SPDX-License-Identifier: Apache-2.0
// PcieLink alone: a stub device and a stub CPU on its target sockets, memory stubs behind its
// memory and MMIO initiators. Plus its two pure functions.
#include <catch2/catch.hpp>

#include <vector>

#include <systemc>

#include "model/host/pcie_link.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

TEST_CASE("pcie: usable bandwidth per generation and width", "[unit][pcie]") {
  CHECK(pcie_bytes_per_ns(1, 1) == Approx(0.25));                // 2.5 GT/s, 8b/10b
  CHECK(pcie_bytes_per_ns(2, 4) == Approx(2.0));                 // 5 GT/s x4, 8b/10b
  CHECK(pcie_bytes_per_ns(3, 16) == Approx(8.0 * 16 / 8 * 128.0 / 130.0));
  CHECK(pcie_bytes_per_ns(4, 8) == Approx(pcie_bytes_per_ns(3, 16)));
  CHECK(pcie_bytes_per_ns(5, 16) == Approx(2 * pcie_bytes_per_ns(4, 16)));
}

TEST_CASE("pcie: completion TLP count at RCB and MPS", "[unit][pcie]") {
  // Aligned reads: one completion per MPS.
  CHECK(pcie_completion_count(0, 64, 64, 256) == 1);
  CHECK(pcie_completion_count(0, 256, 64, 256) == 1);
  CHECK(pcie_completion_count(0, 257, 64, 256) == 2);
  CHECK(pcie_completion_count(0x1000, 512, 64, 256) == 2);
  CHECK(pcie_completion_count(0x1000, 4096, 64, 128) == 32);
  // Unaligned start: the first completion stops at the RCB boundary.
  CHECK(pcie_completion_count(0x20, 64, 64, 256) == 2);   // 32 B + 32 B
  CHECK(pcie_completion_count(0x10, 1000, 64, 256) == 5); // 48 B, then 952 B in 4
  CHECK(pcie_completion_count(0x3F, 1, 64, 256) == 1);
  CHECK(pcie_completion_count(0x7F, 2, 128, 256) == 2);   // crosses an RCB of 128
  CHECK(pcie_completion_count(0, 0, 64, 256) == 1);       // zero-length read: one completion
}

namespace {

struct LinkBench {
  PcieConfig config;
  PcieLink link;
  InitiatorStub dev{"dev"};
  InitiatorStub host{"host"};
  MemoryStub memory{"memory"};
  MemoryStub bar{"bar"};
  MemoryStub cpu{"cpu"};  // the interrupt controller: MSI-window writes

  LinkBench() : link("link", PcieLink::Config{config, /*fast=*/false}) {
    dev.isock.bind(link.dev_tsock);
    host.isock.bind(link.host_tsock);
    link.mem_isock.bind(memory.tsock);
    link.mmio_isock.bind(bar.tsock);
    link.msi_isock.bind(cpu.tsock);
    memory.pattern = [](uint64_t a) { return uint8_t(a * 7 + (a >> 8)); };
  }
};

}  // namespace

TEST_CASE("pcie link: a device read returns the memory bytes, larger reads take longer",
          "[tlm][pcie]") {
  LinkBench t;
  std::vector<uint8_t> small(64), large(4096);
  sc_core::sc_time small_delay, large_delay;
  t.dev.script = [&] {
    small_delay = sc_core::SC_ZERO_TIME;
    REQUIRE(t.dev.transfer(tlm::TLM_READ_COMMAND, 0x1000, small.data(), 64, small_delay) ==
            tlm::TLM_OK_RESPONSE);
    sc_core::wait(small_delay + sc_core::sc_time(1, sc_core::SC_US));  // the link is idle again
    large_delay = sc_core::SC_ZERO_TIME;
    REQUIRE(t.dev.transfer(tlm::TLM_READ_COMMAND, 0x2000, large.data(), 4096, large_delay) ==
            tlm::TLM_OK_RESPONSE);
  };
  run_simulation();
  for (uint32_t i = 0; i < 64; ++i) REQUIRE(small[i] == t.memory.byte(0x1000 + i));
  for (uint32_t i = 0; i < 4096; ++i) REQUIRE(large[i] == t.memory.byte(0x2000 + i));
  CHECK(small_delay > sc_core::SC_ZERO_TIME);
  CHECK(large_delay > small_delay);
  // The memory sees each read once, unsplit; the link counts TLPs.
  REQUIRE(t.memory.log.size() == 2);
  CHECK(t.memory.log[1].address == 0x2000);
  CHECK(t.memory.log[1].length == 4096);
  CHECK(counter(t.link.stats, "read_requests") == 2);
  CHECK(counter(t.link.stats, "completion_tlps") == 1 + 4096 / 256);
  CHECK(counter(t.link.stats, "upstream_bytes") == 2 * t.config.tlp_overhead_bytes);
  CHECK(counter(t.link.stats, "downstream_bytes") ==
        64 + 4096 + (1 + 16) * t.config.tlp_overhead_bytes);
}

TEST_CASE("pcie link: back-to-back reads share the downstream direction", "[tlm][pcie]") {
  LinkBench t;
  std::vector<uint8_t> a(4096), b(4096);
  sc_core::sc_time first = sc_core::SC_ZERO_TIME, second = sc_core::SC_ZERO_TIME;
  t.dev.script = [&] {
    t.dev.transfer(tlm::TLM_READ_COMMAND, 0x0, a.data(), 4096, first);
    t.dev.transfer(tlm::TLM_READ_COMMAND, 0x8000, b.data(), 4096, second);
  };
  run_simulation();
  CHECK(second > first);  // issued at the same time: the second waits for the first's data
}

TEST_CASE("pcie link: posted writes land bytes, split at MPS", "[tlm][pcie]") {
  LinkBench t;
  std::vector<uint8_t> data(600);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(255 - i);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  t.dev.script = [&] {
    REQUIRE(t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x30000, data.data(), 600, delay) ==
            tlm::TLM_OK_RESPONSE);
  };
  run_simulation();
  CHECK(t.memory.read(0x30000, 600) == data);
  REQUIRE(t.memory.count(tlm::TLM_WRITE_COMMAND) == 1);
  CHECK(t.memory.log[0].at > sc_core::SC_ZERO_TIME);  // after serialization upstream
  CHECK(counter(t.link.stats, "write_tlps") == 3);     // 256 + 256 + 88
  CHECK(counter(t.link.stats, "upstream_bytes") == 600 + 3 * t.config.tlp_overhead_bytes);
}

TEST_CASE("pcie link: a posted write is visible write_latency after it is sent, the device "
          "is done when it is sent",
          "[tlm][pcie]") {
  LinkBench t;
  std::vector<uint8_t> data(64, 0x33);
  sc_core::sc_time device_done;
  t.dev.script = [&] {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    REQUIRE(t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x30000, data.data(), 64, delay) ==
            tlm::TLM_OK_RESPONSE);
    device_done = delay;
  };
  run_simulation();
  REQUIRE(t.memory.count(tlm::TLM_WRITE_COMMAND) == 1);
  const sc_core::sc_time serialization = t.memory.log[0].at - device_done;
  CHECK(device_done > sc_core::SC_ZERO_TIME);  // the TLP's time on the link
  CHECK(serialization == sc_core::sc_time(double(t.config.write_latency_ns), sc_core::SC_NS));
}

TEST_CASE("pcie link: a write in the MSI window goes to the CPU behind earlier writes, not to "
          "memory",
          "[tlm][pcie]") {
  LinkBench t;
  std::vector<uint8_t> entry(64, 0x5A);
  uint8_t vector[4] = {7, 0, 0, 0};
  t.dev.script = [&] {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    REQUIRE(t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x40000, entry.data(), 64, delay) ==
            tlm::TLM_OK_RESPONSE);
    REQUIRE(t.dev.transfer(tlm::TLM_WRITE_COMMAND, kMsiWindowBase, vector, 4, delay) ==
            tlm::TLM_OK_RESPONSE);
  };
  run_simulation();
  REQUIRE(t.memory.count(tlm::TLM_WRITE_COMMAND) == 1);  // the entry only
  REQUIRE(t.cpu.count(tlm::TLM_WRITE_COMMAND) == 1);     // the message only
  CHECK(t.cpu.log[0].address == kMsiWindowBase);
  CHECK(t.cpu.log[0].at > t.memory.log[0].at);  // serialized after the entry
  CHECK(counter(t.link.stats, "msi_tlps") == 1);
  CHECK(counter(t.link.stats, "write_tlps") == 2);
}

TEST_CASE("pcie link: an error response from memory reaches the device", "[tlm][pcie]") {
  LinkBench t;
  t.memory.size_bytes = 0x10000;
  std::vector<uint8_t> data(64);
  tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
  t.dev.script = [&] {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    status = t.dev.transfer(tlm::TLM_READ_COMMAND, 0x10000, data.data(), 64, delay);
  };
  run_simulation();
  CHECK(status == tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST_CASE("pcie link: MMIO writes are forwarded to the device BAR", "[tlm][pcie]") {
  LinkBench t;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  t.host.script = [&] { status = t.host.write64(0x200018, 0x1122334455667788ull, delay); };
  run_simulation();
  CHECK(status == tlm::TLM_OK_RESPONSE);
  REQUIRE(t.bar.log.size() == 1);
  CHECK(t.bar.log[0].command == tlm::TLM_WRITE_COMMAND);
  CHECK(t.bar.log[0].address == 0x200018);
  CHECK(t.bar.log[0].length == 8);
  CHECK(t.bar.byte(0x200018) == 0x88);  // little endian
  CHECK(t.bar.byte(0x20001F) == 0x11);
  CHECK(t.bar.log[0].at > sc_core::SC_ZERO_TIME);  // the device sees it later
  CHECK(t.memory.log.empty());                      // not a memory access
  CHECK(counter(t.link.stats, "mmio_tlps") == 1);
  CHECK(counter(t.link.stats, "downstream_bytes") == 8 + t.config.tlp_overhead_bytes);
}
