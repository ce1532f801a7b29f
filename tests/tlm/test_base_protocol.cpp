// SPDX-License-Identifier: Apache-2.0
// The TLM-2.0 base protocol (IEEE 1666-2011 section 14) on every PCIe-side socket of two real
// nodes: checkers between each device's DMA port and the protection monitor, between the
// monitor and the PCIe link, between the link and the device BAR, and on the CPU's loads and
// stores. A bind, a read and a write must run without a single violation; and the checker
// itself must catch a malformed transaction.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <vector>

#include "host_api/adapter.h"
#include "model/platform/system.h"
#include "support/base_protocol_checker.h"
#include "support/report_handler.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::ndk;
using rnic::test::BaseProtocolChecker;

namespace {

// model/platform/system.cpp's Node, with a checker on every PCIe-side binding.
struct CheckedNode : sc_core::sc_module {
  HostMemory memory;
  PcieLink pcie;
  Rnic rnic;
  HostCpu cpu;
  ProtectionMonitor monitor;
  BaseProtocolChecker dma_check;   // device DMA port -> protection monitor
  BaseProtocolChecker link_check;  // protection monitor -> PCIe link (device TLPs + debug reads)
  BaseProtocolChecker bar_check;   // PCIe link -> device BAR (MMIO doorbells)
  BaseProtocolChecker cpu_check;   // host CPU -> host memory (the driver's loads and stores)

  CheckedNode(sc_core::sc_module_name name, uint32_t node_id, const SystemConfig& config)
      : sc_module(name),
        memory("memory", HostMemory::Config{config.host_memory}),
        pcie("pcie", PcieLink::Config{config.rnic.pcie, config.rnic.sim.fast}),
        rnic("rnic", config.rnic, node_id),
        cpu("cpu"),
        monitor("monitor", rnic.icm(), config.rnic.adapter_flags),
        dma_check("dma_check"),
        link_check("link_check"),
        bar_check("bar_check"),
        cpu_check("cpu_check") {
    cpu.mem_isock.bind(cpu_check.tsock);
    cpu_check.isock.bind(memory.cpu_tsock);
    cpu.mmio_isock.bind(pcie.host_tsock);
    cpu.bench_isock.bind(rnic.bench_tsock);
    pcie.mmio_isock.bind(bar_check.tsock);
    bar_check.isock.bind(rnic.mmio_tsock);
    rnic.pcie_isock.bind(dma_check.tsock);
    dma_check.isock.bind(monitor.device_tsock);
    monitor.link_isock.bind(link_check.tsock);
    link_check.isock.bind(pcie.dev_tsock);
    pcie.mem_isock.bind(memory.dev_tsock);
    pcie.msi_isock.bind(cpu.msi_tsock);
  }

  std::vector<const BaseProtocolChecker*> checkers() const {
    return {&dma_check, &link_check, &bar_check, &cpu_check};
  }
};

}  // namespace

TEST_CASE("a bind then a read then a write keep the TLM base protocol on every PCIe socket",
          "[tlm]") {
  SystemConfig config;
  CheckedNode node_a("A", 0, config);
  CheckedNode node_b("B", 1, config);
  Switch fabric("switch", Switch::Config{config.fabric, config.rnic.port, config.rnic.sim.fast});
  for (CheckedNode* node : {&node_a, &node_b}) {
    node->rnic.net_isock.bind(fabric.port_tsock);
    fabric.port_isock.bind(node->rnic.net_tsock);
  }
  host::Adapter a{node_a.cpu, config.rnic, config.host_memory.size_bytes, 0, 1};
  host::Adapter b{node_b.cpu, config.rnic, config.host_memory.size_bytes, 1, 1};

  sc_core::sc_event parked;
  test::spawn_parked(parked, [&] {
    host::Buffer sink, src;
    host::PdHandle pd_a = 0, pd_b = 0;
    host::CqHandle cq_a = 0, cq_b = 0;
    host::QpHandle qp_a = 0, qp_b = 0;
    host::MrHandle mr_a = 0, mr_b = 0, target = 0;
    host::MwHandle mw_b = 0;
    REQUIRE(a.AllocBuffer(4096, 4096, false, host::BufferFill::Byte, 0xEE, &sink) ==
            STATUS_SUCCESS);
    REQUIRE(b.AllocBuffer(65536, 4096, true, host::BufferFill::Incrementing, 0, &src) ==
            STATUS_SUCCESS);
    REQUIRE(a.CreatePd(&pd_a) == STATUS_SUCCESS);
    REQUIRE(b.CreatePd(&pd_b) == STATUS_SUCCESS);
    REQUIRE(a.CreateCq(64, &cq_a) == STATUS_SUCCESS);
    REQUIRE(b.CreateCq(64, &cq_b) == STATUS_SUCCESS);
    REQUIRE(a.CreateQp(pd_a, cq_a, 64, 64, 16, 16, 0xA, &qp_a) == STATUS_SUCCESS);
    REQUIRE(b.CreateQp(pd_b, cq_b, 64, 64, 16, 16, 0xB, &qp_b) == STATUS_SUCCESS);
    REQUIRE(host::Adapter::Connect(a, qp_a, b, qp_b) == STATUS_SUCCESS);
    REQUIRE(a.CreateMr(pd_a, false, &mr_a) == STATUS_SUCCESS);
    REQUIRE(a.RegisterMr(mr_a, sink, 0, 4096,
                         NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_RDMA_READ_SINK) ==
            STATUS_SUCCESS);
    REQUIRE(b.CreateMr(pd_b, false, &mr_b) == STATUS_SUCCESS);
    REQUIRE(b.RegisterMr(mr_b, src, 0, 65536, NDK_MR_FLAG_ALLOW_LOCAL_WRITE) == STATUS_SUCCESS);
    REQUIRE(b.CreateMw(pd_b, &mw_b) == STATUS_SUCCESS);
    const sc_core::sc_time timeout(1, sc_core::SC_MS);

    // Bind a window over B's region [4096, 12288), read 256 bytes at window offset 100.
    REQUIRE(b.NdkBind(qp_b, 1, mr_b, mw_b, b.ObjectBaseVa(mr_b) + 4096, 8192,
                      NDK_OP_FLAG_ALLOW_REMOTE_READ) == STATUS_SUCCESS);
    auto bound = b.WaitCq(cq_b, 1, timeout);
    REQUIRE(bound.size() == 1);
    CHECK(bound[0].Status == STATUS_SUCCESS);
    NDK_SGE sge{a.ObjectBaseVa(mr_a), 256, a.GetLocalTokenFromMr(mr_a)};
    REQUIRE(a.NdkRead(qp_a, 2, &sge, 1, b.ObjectBaseVa(mw_b) + 100, b.GetRemoteTokenFromMw(mw_b),
                      0) == STATUS_SUCCESS);
    auto read = a.WaitCq(cq_a, 1, timeout);
    REQUIRE(read.size() == 1);
    CHECK(read[0].Status == STATUS_SUCCESS);
    std::vector<uint8_t> got(256);
    REQUIRE(a.ReadBuffer(sink, 0, got.data(), got.size()));
    for (uint32_t i = 0; i < 256; ++i) REQUIRE(got[i] == uint8_t(4096 + 100 + i));

    // Write 64 of those bytes back to a remote-writable region of B.
    REQUIRE(b.CreateMr(pd_b, false, &target) == STATUS_SUCCESS);
    REQUIRE(b.RegisterMr(target, src, 32768, 4096, NDK_MR_FLAG_ALLOW_REMOTE_WRITE) ==
            STATUS_SUCCESS);
    sge.BufferLength = 64;
    REQUIRE(a.NdkWrite(qp_a, 3, &sge, 1, b.ObjectBaseVa(target), b.GetRemoteTokenFromMr(target),
                       0) == STATUS_SUCCESS);
    auto written = a.WaitCq(cq_a, 1, timeout);
    REQUIRE(written.size() == 1);
    CHECK(written[0].Status == STATUS_SUCCESS);
    REQUIRE(b.ReadBuffer(src, 32768, got.data(), 64));
    for (uint32_t i = 0; i < 64; ++i) REQUIRE(got[i] == uint8_t(4096 + 100 + i));
    sc_core::sc_stop();
  });
  sc_core::sc_start();

  CHECK(test::take_reports().empty());
  for (const CheckedNode* node : {&node_a, &node_b}) {
    CHECK(node->monitor.violations() == 0);
    for (const BaseProtocolChecker* checker : node->checkers()) {
      INFO(checker->name());
      CHECK(checker->violations().empty());
      for (const std::string& v : checker->violations()) UNSCOPED_INFO(v);
    }
    // Every checker saw traffic: the path under test really went through it.
    CHECK(node->dma_check.transactions() > 0);
    CHECK(node->link_check.transactions() > 0);
    CHECK(node->bar_check.transactions() > 0);
    CHECK(node->cpu_check.transactions() > 0);
  }
}

namespace {

// A target that breaks the base protocol in the way `fault` says.
struct FaultyTarget : sc_core::sc_module {
  enum class Fault { None, NoResponseStatus, ChangesAddress, TimeBackwards };
  tlm_utils::simple_target_socket<FaultyTarget> tsock;
  Fault fault = Fault::None;

  explicit FaultyTarget(sc_core::sc_module_name name) : sc_module(name), tsock("tsock") {
    tsock.register_b_transport(this, &FaultyTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    if (gp.is_read()) std::memset(gp.get_data_ptr(), 0x5A, gp.get_data_length());
    switch (fault) {
      case Fault::None: gp.set_response_status(tlm::TLM_OK_RESPONSE); break;
      case Fault::NoResponseStatus: break;  // forgets to set the response status
      case Fault::ChangesAddress:
        gp.set_address(gp.get_address() + 64);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        break;
      case Fault::TimeBackwards:
        delay = sc_core::SC_ZERO_TIME;  // drops the caller's annotation without waiting
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        break;
    }
  }
};

bool any_mentions(const std::vector<std::string>& violations, const std::string& text) {
  for (const std::string& v : violations) {
    if (v.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("the base-protocol checker flags malformed transactions", "[tlm]") {
  test::InitiatorStub initiator("initiator");
  BaseProtocolChecker checker("checker", false);
  FaultyTarget target("target");
  initiator.isock.bind(checker.tsock);
  checker.isock.bind(target.tsock);

  std::vector<std::string> clean, no_status, moved, backwards, bad_request;
  initiator.script = [&] {
    uint8_t data[16] = {};
    sc_core::sc_time delay(10, sc_core::SC_NS);
    initiator.transfer(tlm::TLM_READ_COMMAND, 0x1000, data, sizeof data, delay);
    clean = checker.violations();

    target.fault = FaultyTarget::Fault::NoResponseStatus;
    initiator.transfer(tlm::TLM_READ_COMMAND, 0x1000, data, sizeof data, delay);
    no_status = checker.violations();

    target.fault = FaultyTarget::Fault::ChangesAddress;
    initiator.transfer(tlm::TLM_WRITE_COMMAND, 0x2000, data, sizeof data, delay);
    moved = checker.violations();

    target.fault = FaultyTarget::Fault::TimeBackwards;
    initiator.transfer(tlm::TLM_WRITE_COMMAND, 0x2000, data, sizeof data, delay);
    backwards = checker.violations();

    // The initiator's side: a WRITE of zero bytes with a stale response status, a zero
    // streaming width and an address range wrapping past 2^64.
    target.fault = FaultyTarget::Fault::None;
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(~uint64_t(0) - 4);
    gp.set_data_ptr(data);
    gp.set_data_length(16);
    gp.set_streaming_width(0);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
    initiator.isock->b_transport(gp, zero);
    bad_request = checker.violations();
  };
  test::run_simulation();

  CHECK(checker.transactions() == 5);
  CHECK(clean.empty());
  REQUIRE(no_status.size() == 1);
  CHECK(any_mentions(no_status, "TLM_INCOMPLETE_RESPONSE (14.17 b)"));
  REQUIRE(moved.size() == 2);
  CHECK(any_mentions(moved, "address modified"));
  REQUIRE(backwards.size() == 3);
  CHECK(any_mentions(backwards, "moved backwards"));
  CHECK(any_mentions(bad_request, "not TLM_INCOMPLETE_RESPONSE on the way in"));
  CHECK(any_mentions(bad_request, "streaming_width == 0"));
  CHECK(any_mentions(bad_request, "wraps past 2^64"));
}

TEST_CASE("the base-protocol rules as plain functions", "[unit][tlm]") {
  uint8_t data[8] = {};
  uint8_t enables[2] = {0xff, 0x0f};
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(0x40);
  gp.set_data_ptr(data);
  gp.set_data_length(8);
  gp.set_streaming_width(8);
  CHECK(test::check_request(gp, false).empty());
  gp.set_byte_enable_ptr(enables);
  gp.set_byte_enable_length(2);
  CHECK(test::check_request(gp, false).size() == 1);  // 0x0f is no byte-enable value
  gp.set_byte_enable_length(0);
  CHECK(test::check_request(gp, false).size() == 1);  // length 0, nothing to scan
  gp.set_byte_enable_ptr(nullptr);
  gp.set_data_ptr(nullptr);
  CHECK(test::check_request(gp, false).size() == 1);
  CHECK(test::check_request(gp, true).size() == 1);
  gp.set_data_length(0);
  CHECK(test::check_request(gp, true).empty());  // a debug access of zero bytes is fine

  gp.set_data_ptr(data);
  gp.set_data_length(8);
  const test::PayloadSnapshot before = test::PayloadSnapshot::of(gp);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  CHECK(test::check_returned(before, gp, false).empty());
  gp.set_streaming_width(4);
  gp.set_data_length(4);
  CHECK(test::check_returned(before, gp, false).size() == 2);
}
