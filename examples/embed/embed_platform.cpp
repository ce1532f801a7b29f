// SPDX-License-Identifier: Apache-2.0
// A SystemC platform that is not rnicsim's: its own host memory and its own address-decoding
// interconnect, with two rnicsim RNICs plugged in (BAR target and DMA initiator bound to the
// interconnect, network ports to rnicsim's Switch). The NDK-style driver (rnic::host::Adapter)
// runs on a HostCpu per node and performs an RDMA read of 256 bytes from node B to node A;
// the program checks every byte and prints PASS (exit 0) or FAIL (exit 1).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <systemc>

#include "platform.h"
#include "host_api/adapter.h"
#include "host_api/ndk.h"
#include "model/config/config.h"
#include "model/fabric/switch.h"

int sc_main(int, char*[]) {
  using namespace rnic::ndk;
  using rnic::host::Adapter;
  using rnic::host::BufferFill;

  // "Simulation stopped by user" is expected here.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  rnic::RnicConfig config;  // the `default` preset: ConnectX-5-like, 100 Gb/s
  rnic::FabricConfig fabric;
  embed::Host a("A", config, 0);
  embed::Host b("B", config, 1);
  rnic::Switch fabric_switch("switch", rnic::Switch::Config{fabric, config.port, false});
  for (embed::Host* host : {&a, &b}) {  // node-id order
    host->nic.net_isock.bind(fabric_switch.port_tsock);
    fabric_switch.port_isock.bind(host->nic.net_tsock);
  }
  Adapter drv_a(a.cpu, config, embed::kMemoryBytes, 0, 1);
  Adapter drv_b(b.cpu, config, embed::kMemoryBytes, 1, 1);

  constexpr uint32_t kLength = 256;
  constexpr uint64_t kRemoteOffset = 100;
  std::string failure = "the driver thread did not finish";
  sc_core::sc_time completed_at;

  auto require = [&failure](bool ok, const std::string& what) {
    if (!ok) failure = what;
    return ok;
  };
  sc_core::sc_spawn([&] {
    rnic::host::Buffer sink, src;
    rnic::host::PdHandle pd_a = 0, pd_b = 0;
    rnic::host::CqHandle cq_a = 0, cq_b = 0;
    rnic::host::QpHandle qp_a = 0, qp_b = 0;
    rnic::host::MrHandle mr_a = 0, mr_b = 0;
    const bool ready =
        require(drv_a.AllocBuffer(4096, 4096, false, BufferFill::Byte, 0xEE, &sink) ==
                    STATUS_SUCCESS, "alloc sink") &&
        require(drv_b.AllocBuffer(65536, 4096, true, BufferFill::Incrementing, 0, &src) ==
                    STATUS_SUCCESS, "alloc source") &&
        require(drv_a.CreatePd(&pd_a) == STATUS_SUCCESS, "CreatePd A") &&
        require(drv_b.CreatePd(&pd_b) == STATUS_SUCCESS, "CreatePd B") &&
        require(drv_a.CreateCq(64, &cq_a) == STATUS_SUCCESS, "CreateCq A") &&
        require(drv_b.CreateCq(64, &cq_b) == STATUS_SUCCESS, "CreateCq B") &&
        require(drv_a.CreateQp(pd_a, cq_a, 64, 64, 16, 16, 0xA, &qp_a) == STATUS_SUCCESS,
                "CreateQp A") &&
        require(drv_b.CreateQp(pd_b, cq_b, 64, 64, 16, 16, 0xB, &qp_b) == STATUS_SUCCESS,
                "CreateQp B") &&
        require(Adapter::Connect(drv_a, qp_a, drv_b, qp_b) == STATUS_SUCCESS, "Connect") &&
        require(drv_a.CreateMr(pd_a, false, &mr_a) == STATUS_SUCCESS, "CreateMr A") &&
        require(drv_a.RegisterMr(mr_a, sink, 0, 4096,
                                 NDK_MR_FLAG_ALLOW_LOCAL_WRITE | NDK_MR_FLAG_RDMA_READ_SINK) ==
                    STATUS_SUCCESS, "RegisterMr A") &&
        require(drv_b.CreateMr(pd_b, false, &mr_b) == STATUS_SUCCESS, "CreateMr B") &&
        require(drv_b.RegisterMr(mr_b, src, 0, 65536, NDK_MR_FLAG_ALLOW_REMOTE_READ) ==
                    STATUS_SUCCESS, "RegisterMr B");
    if (ready) {
      // A reads 256 bytes at offset 100 of B's region into the start of its sink.
      NDK_SGE sge{drv_a.ObjectBaseVa(mr_a), kLength, drv_a.GetLocalTokenFromMr(mr_a)};
      const auto posted = drv_a.NdkRead(qp_a, 42, &sge, 1, drv_b.ObjectBaseVa(mr_b) + kRemoteOffset,
                                        drv_b.GetRemoteTokenFromMr(mr_b), 0);
      const auto done = drv_a.WaitCq(cq_a, 1, sc_core::sc_time(1, sc_core::SC_MS));
      std::vector<uint8_t> got(kLength + 16);
      if (require(posted == STATUS_SUCCESS, "NdkRead: " + drv_a.last_error()) &&
          require(done.size() == 1, "no completion within 1 ms") &&
          require(done[0].Status == STATUS_SUCCESS && done[0].RequestContext == 42 &&
                      done[0].Type == NdkOperationTypeRead,
                  "completion: status " + std::to_string(done[0].Status)) &&
          require(drv_a.ReadBuffer(sink, 0, got.data(), got.size()), "ReadBuffer")) {
        completed_at = sc_core::sc_time_stamp();
        failure.clear();
        for (uint32_t i = 0; i < got.size() && failure.empty(); ++i) {
          const uint8_t want = i < kLength ? uint8_t(kRemoteOffset + i) : uint8_t(0xEE);
          if (got[i] != want) {
            char line[96];
            std::snprintf(line, sizeof line, "sink byte %u is 0x%02x, want 0x%02x", i, got[i],
                          want);
            failure = line;
          }
        }
      }
    }
    sc_core::sc_stop();
  });
  sc_core::sc_start();

  const unsigned errors = sc_core::sc_report_handler::get_count(sc_core::SC_ERROR) +
                          sc_core::sc_report_handler::get_count(sc_core::SC_WARNING);
  if (failure.empty() && errors == 0 && a.bus.decode_errors == 0 && b.bus.decode_errors == 0) {
    std::printf("embed: PASS: RDMA read of %u bytes B -> A through this platform's own "
                "memory and interconnect, completed at %s\n",
                kLength, completed_at.to_string().c_str());
    return 0;
  }
  std::printf("embed: FAIL: %s (SystemC warnings+errors %u, decode errors %llu/%llu)\n",
              failure.empty() ? "reports or decode errors" : failure.c_str(), errors,
              (unsigned long long)a.bus.decode_errors, (unsigned long long)b.bus.decode_errors);
  return 1;
}
