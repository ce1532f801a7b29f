// SPDX-License-Identifier: Apache-2.0
// A test bench of two connected nodes: a source buffer on B (incrementing bytes, scattered
// pages) registered as mr_b, a sink on A (0xEE) registered as mr_a, a window mw_b on B.
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <vector>

#include <systemc>

#include "host_api/adapter.h"
#include "model/platform/system.h"
#include "support/report_handler.h"

namespace rnic::test {

using namespace rnic::host;
using namespace rnic::ndk;

// Two connected nodes with a source buffer on B (incrementing bytes) and a sink on A.
struct TwoNodes {
  TwoNodes() = default;
  // A platform with other limits (table sizes, memory) than the default.
  explicit TwoNodes(const SystemConfig& c) : config(c) {}

  SystemConfig config;
  System system{config, {"A", "B"}};
  Adapter a{system.node(0).cpu, config.rnic, config.host_memory.size_bytes, 0, 1};
  Adapter b{system.node(1).cpu, config.rnic, config.host_memory.size_bytes, 1, 1};
  Buffer sink, src;
  PdHandle pd_a = 0, pd_b = 0;
  CqHandle cq_a = 0, cq_b = 0;
  QpHandle qp_a = 0, qp_b = 0;
  MrHandle mr_a = 0, mr_b = 0;
  MwHandle mw_b = 0;
  bool provokes_violations = false;  // a test that breaks the device on purpose

  void setup(uint32_t sink_flags = NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_RDMA_READ_SINK) {
    REQUIRE(a.AllocBuffer(4096, 4096, false, BufferFill::Byte, 0xEE, &sink) == STATUS_SUCCESS);
    REQUIRE(b.AllocBuffer(65536, 4096, true, BufferFill::Incrementing, 0, &src) == STATUS_SUCCESS);
    REQUIRE(a.CreatePd(&pd_a) == STATUS_SUCCESS);
    REQUIRE(b.CreatePd(&pd_b) == STATUS_SUCCESS);
    REQUIRE(a.CreateCq(64, &cq_a) == STATUS_SUCCESS);
    REQUIRE(b.CreateCq(64, &cq_b) == STATUS_SUCCESS);
    REQUIRE(a.CreateQp(pd_a, cq_a, 64, 64, 16, 16, 0xA, &qp_a) == STATUS_SUCCESS);
    REQUIRE(b.CreateQp(pd_b, cq_b, 64, 64, 16, 16, 0xB, &qp_b) == STATUS_SUCCESS);
    REQUIRE(Adapter::Connect(a, qp_a, b, qp_b) == STATUS_SUCCESS);
    REQUIRE(a.CreateMr(pd_a, false, &mr_a) == STATUS_SUCCESS);
    REQUIRE(a.RegisterMr(mr_a, sink, 0, 4096, sink_flags) == STATUS_SUCCESS);
    REQUIRE(b.CreateMr(pd_b, false, &mr_b) == STATUS_SUCCESS);
    REQUIRE(b.RegisterMr(mr_b, src, 0, 65536, NDK_MR_FLAG_ALLOW_LOCAL_WRITE) == STATUS_SUCCESS);
    REQUIRE(b.CreateMw(pd_b, &mw_b) == STATUS_SUCCESS);
  }

  NDK_RESULT_EX bind_window(uint64_t offset, uint64_t length, uint32_t flags) {
    REQUIRE(b.NdkBind(qp_b, 1, mr_b, mw_b, b.ObjectBaseVa(mr_b) + offset, length, flags) ==
            STATUS_SUCCESS);
    auto done = b.WaitCq(cq_b, 1, sc_core::sc_time(1, sc_core::SC_MS));
    REQUIRE(done.size() == 1);
    return done[0];
  }

  NDK_RESULT_EX read(uint64_t remote_addr, uint32_t token, uint32_t length, uint64_t context) {
    NDK_SGE sge{a.ObjectBaseVa(mr_a), length, a.GetLocalTokenFromMr(mr_a)};
    REQUIRE(a.NdkRead(qp_a, context, &sge, 1, remote_addr, token, 0) == STATUS_SUCCESS);
    auto done = a.WaitCq(cq_a, 1, sc_core::sc_time(1, sc_core::SC_MS));
    REQUIRE(done.size() == 1);
    return done[0];
  }

  // The next completion on `cq` (fails the test when none arrives within 1 ms).
  static NDK_RESULT_EX next(Adapter& adapter, CqHandle cq) {
    auto done = adapter.WaitCq(cq, 1, sc_core::sc_time(1, sc_core::SC_MS));
    REQUIRE(done.size() == 1);
    return done[0];
  }

  std::vector<uint8_t> sink_bytes(uint32_t length) {
    std::vector<uint8_t> bytes(length);
    REQUIRE(a.ReadBuffer(sink, 0, bytes.data(), length));
    return bytes;
  }

  // Runs `body` in a SystemC thread (the host CPU) and then stops the simulation.
  void run(std::function<void()> body) {
    sc_core::sc_spawn([body] {
      body();
      sc_core::sc_stop();
    });
    sc_core::sc_start();
    if (!provokes_violations) {
      CHECK(test::take_reports().empty());
      CHECK(system.protection_violations() == 0);  // the monitor is on in every test
    }
  }
};


}  // namespace rnic::test
