// SPDX-License-Identifier: Apache-2.0
// HostMemory alone: a stub CPU and a stub device drive its two ports.
#include <catch2/catch.hpp>

#include <vector>

#include <systemc>

#include "model/host/host_memory.h"
#include "tlm/dmi_cache.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

HostMemoryConfig with_size(HostMemoryConfig host, uint64_t size) {
  host.size_bytes = size;
  return host;
}

struct MemoryBench {
  HostMemory::Config config;
  HostMemory memory;
  InitiatorStub cpu{"cpu"};
  InitiatorStub dev{"dev"};

  explicit MemoryBench(uint64_t size = 1 << 20, HostMemoryConfig host = {}, bool fast = false)
      : config{with_size(host, size), fast}, memory("memory", config) {
    cpu.isock.bind(memory.cpu_tsock);
    dev.isock.bind(memory.dev_tsock);
  }
};

}  // namespace

TEST_CASE("host memory: untouched memory reads as zero and creates no page", "[tlm][host]") {
  MemoryBench t;
  std::vector<uint8_t> data(128, 0xAB);
  tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  t.dev.script = [&] {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    status = t.dev.transfer(tlm::TLM_READ_COMMAND, 0x5000, data.data(), 128, delay);
  };
  run_simulation();
  CHECK(status == tlm::TLM_OK_RESPONSE);
  for (uint8_t b : data) REQUIRE(b == 0);
  CHECK(t.memory.touched_pages() == 0);
  CHECK(counter(t.memory.stats, "dev_reads") == 1);
  CHECK(counter(t.memory.stats, "dev_read_lines") == 2);
}

TEST_CASE("host memory: write and read back across a 4 KiB page boundary", "[tlm][host]") {
  MemoryBench t;
  std::vector<uint8_t> out(100), in(100, 0);
  for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(i * 3 + 1);
  const uint64_t addr = 2 * 4096 - 50;  // 50 bytes in page 1, 50 in page 2
  t.cpu.script = [&] {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    REQUIRE(t.cpu.transfer(tlm::TLM_WRITE_COMMAND, addr, out.data(), 100, delay) ==
            tlm::TLM_OK_RESPONSE);
    REQUIRE(t.dev.transfer(tlm::TLM_READ_COMMAND, addr, in.data(), 100, delay) ==
            tlm::TLM_OK_RESPONSE);
  };
  run_simulation();
  CHECK(in == out);
  CHECK(t.memory.touched_pages() == 2);
  // The bytes around the write stay zero (debug port).
  uint8_t around[2] = {0xFF, 0xFF};
  CHECK(t.cpu.debug(tlm::TLM_READ_COMMAND, addr - 1, &around[0], 1) == 1);
  CHECK(t.cpu.debug(tlm::TLM_READ_COMMAND, addr + 100, &around[1], 1) == 1);
  CHECK(around[0] == 0);
  CHECK(around[1] == 0);
}

TEST_CASE("host memory: addresses beyond the size get an address error", "[tlm][host]") {
  MemoryBench t(1 << 20);
  std::vector<uint8_t> data(8, 0x11);
  std::vector<tlm::tlm_response_status> statuses;
  t.dev.script = [&] {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    statuses.push_back(t.dev.transfer(tlm::TLM_READ_COMMAND, 1 << 20, data.data(), 8, delay));
    statuses.push_back(
        t.dev.transfer(tlm::TLM_WRITE_COMMAND, (1 << 20) - 4, data.data(), 8, delay));
    statuses.push_back(
        t.dev.transfer(tlm::TLM_READ_COMMAND, UINT64_MAX - 3, data.data(), 8, delay));
    statuses.push_back(
        t.dev.transfer(tlm::TLM_WRITE_COMMAND, (1 << 20) - 8, data.data(), 8, delay));
  };
  run_simulation();
  REQUIRE(statuses.size() == 4);
  CHECK(statuses[0] == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(statuses[1] == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(statuses[2] == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(statuses[3] == tlm::TLM_OK_RESPONSE);  // the last 8 bytes are inside
  CHECK(counter(t.memory.stats, "address_errors") == 3);
  CHECK(t.memory.touched_pages() == 1);  // the failed write created nothing
}

TEST_CASE("host memory: a device write lands its bytes and counts, a CPU store does not count",
          "[tlm][host]") {
  MemoryBench t;
  std::vector<uint8_t> data(16, 0x42);
  t.cpu.script = [&] {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    t.cpu.transfer(tlm::TLM_WRITE_COMMAND, 0x100, data.data(), 16, delay);
    delay = sc_core::sc_time(200, sc_core::SC_NS);
    t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x200, data.data(), 16, delay);
  };
  run_simulation();
  CHECK(counter(t.memory.stats, "dev_writes") == 1);
  CHECK(counter(t.memory.stats, "dev_write_lines") == 1);
  uint8_t b = 0;
  t.cpu.debug(tlm::TLM_READ_COMMAND, 0x20F, &b, 1);
  CHECK(b == 0x42);
  t.cpu.debug(tlm::TLM_READ_COMMAND, 0x10F, &b, 1);
  CHECK(b == 0x42);
}

TEST_CASE("host memory: DMI grants one page that the device port then sees", "[tlm][host]") {
  MemoryBench t(1 << 20);
  DmiCache dmi;
  std::vector<uint8_t> out(6000), in(6000, 0), dev_in(6000, 0);
  for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(i * 7 + 3);
  const uint64_t addr = 3 * 4096 - 100;  // spans three pages
  bool wrote = false, read = false, beyond = true;
  t.cpu.script = [&] {
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(4096 + 10);
    tlm::tlm_dmi grant;
    REQUIRE(t.cpu.isock->get_direct_mem_ptr(gp, grant));
    CHECK(grant.get_start_address() == 4096);
    CHECK(grant.get_end_address() == 2 * 4096 - 1);
    CHECK(grant.is_read_write_allowed());

    wrote = dmi.copy(t.cpu.isock, true, addr, out.data(), out.size());
    read = dmi.copy(t.cpu.isock, false, addr, in.data(), in.size());
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    REQUIRE(t.dev.transfer(tlm::TLM_READ_COMMAND, addr, dev_in.data(), 6000, delay) ==
            tlm::TLM_OK_RESPONSE);
    // Beyond the memory: refused, so the caller falls back to a transaction.
    uint8_t byte = 0;
    beyond = dmi.copy(t.cpu.isock, false, 1 << 20, &byte, 1);
  };
  run_simulation();
  CHECK(wrote);
  CHECK(read);
  CHECK(in == out);
  CHECK(dev_in == out);  // DMI stores are the same bytes the device reads
  CHECK_FALSE(beyond);
  CHECK(dmi.grants() == 3);  // one per page touched, reused for the read back
  CHECK(counter(t.memory.stats, "dev_reads") == 1);  // DMI accesses are not transactions
}

TEST_CASE("host memory: a DMI view shows bytes in place, within one granted page only",
          "[tlm][host]") {
  MemoryBench t(1 << 20);
  DmiCache dmi;
  const uint8_t* inside = nullptr;
  const uint8_t* across = reinterpret_cast<const uint8_t*>(1);
  const uint8_t* beyond = reinterpret_cast<const uint8_t*>(1);
  uint8_t seen = 0, seen_after_store = 0;
  t.cpu.script = [&] {
    uint8_t value = 0x5A;
    REQUIRE(dmi.copy(t.cpu.isock, true, 8192 + 64, &value, 1));
    inside = dmi.view(t.cpu.isock, 8192 + 64, 64);  // one page: in place
    if (inside) seen = inside[0];
    uint8_t later = 0xA5;
    REQUIRE(dmi.copy(t.cpu.isock, true, 8192 + 64, &later, 1));
    if (inside) seen_after_store = inside[0];  // the same bytes, not a copy
    across = dmi.view(t.cpu.isock, 8192 + 4096 - 8, 16);  // crosses the page's end
    beyond = dmi.view(t.cpu.isock, 1 << 20, 1);            // refused
  };
  run_simulation();
  REQUIRE(inside != nullptr);
  CHECK(seen == 0x5A);
  CHECK(seen_after_store == 0xA5);
  CHECK(across == nullptr);
  CHECK(beyond == nullptr);
}

TEST_CASE("host memory: a watched byte's device write notifies when it lands, others do not",
          "[tlm][host]") {
  MemoryBench t;
  std::vector<uint8_t> data(16, 0x42);
  std::vector<sc_core::sc_time> seen;
  t.cpu.script = [&] {
    t.memory.watch(0x20F);  // the last byte of the second write
    // A CPU store and a device write elsewhere: no notice.
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    t.cpu.transfer(tlm::TLM_WRITE_COMMAND, 0x20F, data.data(), 1, delay);
    delay = sc_core::sc_time(100, sc_core::SC_NS);
    t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x100, data.data(), 16, delay);
    // The device write covering it lands 200 ns from now.
    delay = sc_core::sc_time(200, sc_core::SC_NS);
    t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x200, data.data(), 16, delay);
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US), t.memory.written_event());
    seen.push_back(sc_core::sc_time_stamp());
    t.memory.unwatch();
    delay = sc_core::SC_ZERO_TIME;
    t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x200, data.data(), 16, delay);  // unwatched
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US), t.memory.written_event());
    seen.push_back(sc_core::sc_time_stamp());
  };
  run_simulation();
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == sc_core::sc_time(200, sc_core::SC_NS));
  CHECK(seen[1] == sc_core::sc_time(1200, sc_core::SC_NS));  // the timeout, no notice
}

TEST_CASE("host memory: several watched ranges, any covered byte notifies", "[tlm][host]") {
  MemoryBench t;
  std::vector<uint8_t> data(8, 0x42);
  std::vector<sc_core::sc_time> seen;
  t.cpu.script = [&] {
    t.memory.watch(0x1000, 64);  // a table entry
    t.memory.watch(0x3000, 256);  // a ring
    sc_core::sc_time delay = sc_core::sc_time(10, sc_core::SC_NS);
    t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x0FF8, data.data(), 8, delay);  // ends before
    t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x3100, data.data(), 8, delay);  // past the ring
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US), t.memory.written_event());
    seen.push_back(sc_core::sc_time_stamp());  // 1 us: neither write touched a watched byte
    delay = sc_core::sc_time(30, sc_core::SC_NS);
    t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x30FC, data.data(), 8, delay);  // straddles its end
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US), t.memory.written_event());
    seen.push_back(sc_core::sc_time_stamp());
    delay = sc_core::sc_time(40, sc_core::SC_NS);
    t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x1038, data.data(), 8, delay);  // inside the entry
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US), t.memory.written_event());
    seen.push_back(sc_core::sc_time_stamp());
  };
  run_simulation();
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == sc_core::sc_time(1000, sc_core::SC_NS));
  CHECK(seen[1] == sc_core::sc_time(1030, sc_core::SC_NS));
  CHECK(seen[2] == sc_core::sc_time(1070, sc_core::SC_NS));
}

namespace {

// Two device reads reach the memory at the same instant: the first of 65 bytes (two lines),
// the second starting in the first's second line. Returns the delays each read returned.
std::pair<sc_core::sc_time, sc_core::sc_time> same_line_reads(MemoryBench& t) {
  std::vector<uint8_t> a(65), b(64);
  sc_core::sc_time first, second;
  t.dev.script = [&] {
    first = sc_core::sc_time(10, sc_core::SC_NS);  // the reads' arrival, 10 ns from now
    REQUIRE(t.dev.transfer(tlm::TLM_READ_COMMAND, 0x1000, a.data(), 65, first) ==
            tlm::TLM_OK_RESPONSE);
    second = sc_core::sc_time(10, sc_core::SC_NS);
    REQUIRE(t.dev.transfer(tlm::TLM_READ_COMMAND, 0x1041, b.data(), 64, second) ==
            tlm::TLM_OK_RESPONSE);
  };
  run_simulation();
  return {first, second};
}

}  // namespace

TEST_CASE("host memory: a device read waits for an access in service to the same line",
          "[tlm][host]") {
  HostMemoryConfig host;
  host.line_service_ns = 40;
  host.extra_latency_ns = 5;
  MemoryBench t(1 << 20, host);
  const auto [first, second] = same_line_reads(t);
  // The lone read returns only host.extra_latency_ns: its line service is in the round trip.
  CHECK(first == sc_core::sc_time(15, sc_core::SC_NS));
  // The second's line 0x1040 is in service until 10 + 40 ns: it is served 40 ns later.
  CHECK(second == sc_core::sc_time(55, sc_core::SC_NS));
  CHECK(counter(t.memory.stats, "dev_read_lines") == 4);
  CHECK(counter(t.memory.stats, "read_line_conflicts") == 1);
  // The second reaches the host at the same instant as the first: it books the capacity
  // after the first's two lines (2.5 ns), a wait the line's 40 ns hides.
  CHECK(counter(t.memory.stats, "read_capacity_waits") == 1);
  CHECK(counter(t.memory.stats, "read_wait_ps") == 40'000);
  // 4 lines x 40 ns / 32 slots
  CHECK(counter(t.memory.stats, "read_service_busy_ps") == 4 * 40'000 / 32);
}

TEST_CASE("host memory: fast mode counts the line service but never waits", "[tlm][host]") {
  MemoryBench t(1 << 20, HostMemoryConfig{}, true);
  const auto [first, second] = same_line_reads(t);
  CHECK(first == sc_core::sc_time(10, sc_core::SC_NS));
  CHECK(second == sc_core::sc_time(10, sc_core::SC_NS));
  CHECK(counter(t.memory.stats, "read_line_conflicts") == 0);
  CHECK(counter(t.memory.stats, "read_service_busy_ps") ==
        4 * uint64_t(HostMemoryConfig{}.line_service_ns) * 1000 /
            HostMemoryConfig{}.lines_in_service);
}
