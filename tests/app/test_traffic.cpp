// SPDX-License-Identifier: Apache-2.0
// The traffic op's byte check can fail: while a read flow runs, a host thread on the target
// node keeps rewriting the flow's source region, so a sampled read's bytes no longer match
// their source when the op compares them. No scenario can reach the op's own buffers, so the
// test reaches them as another program on that host would: through its CPU's stores.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "app/runner/runner.h"
#include "app/scenario/scenario.h"
#include "model/host/host_cpu.h"

using namespace rnic;
using namespace rnic::app;

namespace {

constexpr uint64_t kMemoryBytes = 64ull << 20;
constexpr uint64_t kPageBytes = 4096;
constexpr uint64_t kRegionBytes = 16384;

std::string read_flow(uint64_t ops) {
  return R"({"name": "traffic-check", "nodes": ["A", "B"],
  "config": {"set": {"host.memory_bytes": )" + std::to_string(kMemoryBytes) + R"(}},
  "steps": [
    {"op": "traffic", "ops": )" + std::to_string(ops) + R"(,
     "flows": [{"src": "A", "dst": "B", "verb": "read", "qps": 2, "size": 64,
                "outstanding": 2, "regions": 1, "region_bytes": )" +
         std::to_string(kRegionBytes) + R"(}]}
  ]})";
}

// The pages of B's memory that hold the flow's source region: the op fills it with
// incrementing bytes, so each of its pages starts 0, 1, ..., 255.
std::vector<uint64_t> source_pages(HostCpu& cpu) {
  std::vector<uint64_t> pages;
  uint8_t head[256];
  for (uint64_t addr = 0; addr < kMemoryBytes; addr += kPageBytes) {
    if (!cpu.mem_read(addr, head, sizeof head)) continue;
    bool incrementing = true;
    for (unsigned i = 0; i < sizeof head && incrementing; ++i) incrementing = head[i] == i;
    if (incrementing) pages.push_back(addr);
  }
  return pages;
}

}  // namespace

TEST_CASE("the traffic op fails a flow whose bytes differ from their source", "[app][traffic]") {
  const Scenario scenario = load_scenario(read_flow(4000));
  size_t rewrites = 0;
  std::vector<uint64_t> pages;
  // Owned here, not by the thread: the run stops while the thread waits, and its stack is
  // never unwound (a vector of its own would leak).
  std::vector<uint8_t> fill(kPageBytes);
  RunOptions options;
  options.step_started = [&](const Step& step) {
    if (step.op != Op::Traffic) return;
    auto* cpu = dynamic_cast<HostCpu*>(sc_core::sc_find_object("B.cpu"));
    REQUIRE(cpu);
    // From 2 us on (the op has set up its buffers and reads are in flight), every 100 ns for
    // 100 us (the run stops when the op fails, long before).
    sc_core::sc_spawn([cpu, &pages, &rewrites, &fill] {
      sc_core::wait(2, sc_core::SC_US);
      pages = source_pages(*cpu);
      for (unsigned n = 1; n <= 1000; ++n) {
        std::fill(fill.begin(), fill.end(), uint8_t(n));
        for (uint64_t page : pages) cpu->mem_write(page, fill.data(), fill.size());
        ++rewrites;
        sc_core::wait(100, sc_core::SC_NS);
      }
    });
  };
  const RunResult run = run_scenario(scenario, 1, options);

  CHECK(pages.size() == kRegionBytes / kPageBytes);
  CHECK(rewrites > 0);
  REQUIRE(run.outcome == RunOutcome::Failed);
  CHECK(run.message.find("an operation's bytes differ from its source") != std::string::npos);
}

TEST_CASE("the traffic op passes the same flow left alone", "[app][traffic]") {
  const RunResult run = run_scenario(load_scenario(read_flow(4000)), 1);
  CHECK(run.outcome == RunOutcome::Passed);
  CHECK(run.message.empty());
}
