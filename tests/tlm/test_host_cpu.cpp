// SPDX-License-Identifier: Apache-2.0
// HostCpu with a HostMemory: what a host thread sees when an interrupt message wakes it.
#include <catch2/catch.hpp>

#include <functional>
#include <utility>

#include <systemc>

#include "model/host/host_cpu.h"
#include "model/host/host_memory.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

struct CpuBench {
  HostMemory::Config config{HostMemoryConfig{1 << 20, 0}};
  HostMemory memory{"memory", config};
  HostCpu cpu;
  MemoryStub bar{"bar"};     // MMIO: unused here
  MessageSink<DmaBenchRequest> bench{"bench"};  // benchmark requests: unused here
  InitiatorStub dev{"dev"};  // the device port; its two writers are spawned threads
  InitiatorStub msi{"msi"};  // the PCIe link's interrupt messages

  explicit CpuBench(uint32_t poll_ns = 0) : cpu("cpu", HostCpu::Config{poll_ns}) {
    cpu.mem_isock.bind(memory.cpu_tsock);
    cpu.mmio_isock.bind(bar.tsock);
    cpu.bench_isock.bind(bench.tsock);
    dev.isock.bind(memory.dev_tsock);
    msi.isock.bind(cpu.msi_tsock);
  }

  // Runs `body` in a thread of its own that then waits for good instead of returning (a
  // SystemC thread that returns can leave AddressSanitizer's idea of the main stack on its
  // freed coroutine stack: tests/support/stubs.h, InitiatorStub).
  void spawn(std::function<void()> body) { spawn_parked(parked, std::move(body)); }
  sc_core::sc_event parked;

  // A device write and, behind it, its interrupt message, both landing `delay` from now.
  void write_and_interrupt(uint64_t address, uint8_t* byte, const sc_core::sc_time& delay) {
    sc_core::sc_time d = delay;
    dev.transfer(tlm::TLM_WRITE_COMMAND, address, byte, 1, d);
    uint8_t vector[4] = {0, 0, 0, 0};
    d = delay;
    msi.transfer(tlm::TLM_WRITE_COMMAND, kMsiWindowBase, vector, 4, d);
  }

  // What a host thread saw: whether an interrupt woke it, when, and the byte it then read.
  struct Wakeup {
    bool woke = false;
    sc_core::sc_time when;
    uint8_t seen = 0;
  };
  // Spawns a host thread that waits for an interrupt (10 us at most), then reads `address`.
  void spawn_waiter(uint64_t address, Wakeup* out) {
    spawn([this, address, out] {
      out->woke = cpu.wait_for_interrupt(sc_core::sc_time(10, sc_core::SC_US));
      out->when = sc_core::sc_time_stamp();
      REQUIRE(cpu.mem_read(address, &out->seen, 1));
    });
  }
};

// Two device writes land at the same picosecond: one annotated ahead of time (its interrupt
// message wakes the host), one made by a process that itself wakes at that time. Which of the
// two timed wakeups the kernel runs first follows the order they were scheduled in; the host
// must see both writes either way (device first at equal times), or a result would depend on
// the scheduling of unrelated activity. Without HostCpu's settling, `early_waker = true` misses
// the second write. (One case per order: a process elaborates once.)
void check_simultaneous_writes_seen(bool early_waker) {
  CpuBench t;
  const sc_core::sc_time at(1, sc_core::SC_US);
  uint8_t one = 0x11, two = 0x22;
  auto annotated = [&] { t.write_and_interrupt(0x100, &one, at); };  // lands, wakes at `at`
  auto at_time = [&] {  // wakes at `at` itself and writes with no delay
    sc_core::wait(at);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x200, &two, 1, delay);
  };
  // The process that schedules its timed event first runs first at `at`.
  t.spawn([&] {
    if (!early_waker) sc_core::wait(sc_core::SC_ZERO_TIME);
    annotated();
  });
  t.spawn([&] {
    if (early_waker) sc_core::wait(sc_core::SC_ZERO_TIME);
    at_time();
  });
  uint8_t seen[2] = {0, 0};
  sc_core::sc_time woke;
  t.spawn([&] {
    REQUIRE(t.cpu.wait_for_interrupt(sc_core::sc_time(10, sc_core::SC_US)));
    woke = sc_core::sc_time_stamp();
    REQUIRE(t.cpu.mem_read(0x100, &seen[0], 1));
    REQUIRE(t.cpu.mem_read(0x200, &seen[1], 1));
  });
  run_simulation();
  CHECK(woke == at);
  CHECK(seen[0] == 0x11);
  CHECK(seen[1] == 0x22);
}

}  // namespace

TEST_CASE("host CPU: a device write in the same picosecond as the wakeup is seen (waker first)",
          "[tlm][host]") {
  check_simultaneous_writes_seen(true);
}

TEST_CASE("host CPU: a device write in the same picosecond as the wakeup is seen (writer first)",
          "[tlm][host]") {
  check_simultaneous_writes_seen(false);
}

TEST_CASE("host CPU: a device write alone wakes nothing, its interrupt message wakes the host "
          "on arrival",
          "[tlm][host]") {
  CpuBench t;
  uint8_t data = 0x33;
  const sc_core::sc_time write_at(1, sc_core::SC_US), message_at(3, sc_core::SC_US);
  t.spawn([&] {
    sc_core::sc_time d = write_at;
    t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x300, &data, 1, d);  // host memory stores bytes only
    uint8_t vector[4] = {5, 0, 0, 0};
    d = message_at;
    t.msi.transfer(tlm::TLM_WRITE_COMMAND, kMsiWindowBase, vector, 4, d);
  });
  CpuBench::Wakeup host;
  t.spawn_waiter(0x300, &host);
  run_simulation();
  CHECK(host.woke);
  CHECK(host.when == message_at);
  CHECK(host.seen == 0x33);
  CHECK(t.cpu.interrupts() == 1);
}

TEST_CASE("host CPU: with no interrupt message the wait ends at its timeout", "[tlm][host]") {
  CpuBench t;
  uint8_t data = 0x44;
  t.spawn([&] {
    sc_core::sc_time d(1, sc_core::SC_US);
    t.dev.transfer(tlm::TLM_WRITE_COMMAND, 0x400, &data, 1, d);
  });
  bool woke = true;
  sc_core::sc_time when;
  t.spawn([&] {
    woke = t.cpu.wait_for_interrupt(sc_core::sc_time(5, sc_core::SC_US));
    when = sc_core::sc_time_stamp();
  });
  run_simulation();
  CHECK_FALSE(woke);
  CHECK(when == sc_core::sc_time(5, sc_core::SC_US));
  CHECK(t.cpu.interrupts() == 0);
}

// host.poll_ns: the spinning CPU sees what the device wrote that long after the interrupt
// message lands (the line's move from the LLC to the core), not at once.
TEST_CASE("host CPU: with a poll cost the host wakes poll_ns after the interrupt message",
          "[tlm][host]") {
  const uint32_t poll_ns = 50;
  CpuBench t(poll_ns);
  uint8_t data = 0x44;
  const sc_core::sc_time message_at(2, sc_core::SC_US);
  t.spawn([&] { t.write_and_interrupt(0x400, &data, message_at); });
  CpuBench::Wakeup host;
  t.spawn_waiter(0x400, &host);
  run_simulation();
  CHECK(host.woke);
  CHECK(host.when == message_at + sc_core::sc_time(poll_ns, sc_core::SC_NS));
  CHECK(host.seen == 0x44);
  CHECK(t.cpu.interrupts() == 1);
}
