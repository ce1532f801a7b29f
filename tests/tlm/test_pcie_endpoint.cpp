// SPDX-License-Identifier: Apache-2.0
// PcieEndpoint alone: several DMA masters share its target socket; it forwards to the link.
#include <catch2/catch.hpp>

#include <vector>

#include <systemc>

#include "model/rnic/dma/pcie_endpoint.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

TEST_CASE("pcie endpoint forwards DMA from every master and counts it", "[tlm][pcie]") {
  PcieEndpoint endpoint("endpoint");
  InitiatorStub a("a"), b("b");
  MemoryStub link("link");
  a.isock.bind(endpoint.dma_tsock);
  b.isock.bind(endpoint.dma_tsock);
  endpoint.pcie_isock.bind(link.tsock);
  link.size_bytes = 0x10000;
  std::vector<uint8_t> out(100, 0x3C), in(100);
  a.script = [&] {
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    REQUIRE(a.transfer(tlm::TLM_WRITE_COMMAND, 0x400, out.data(), 100, d) == tlm::TLM_OK_RESPONSE);
  };
  b.script = [&] {
    sc_core::wait(sc_core::sc_time(10, sc_core::SC_NS));
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    REQUIRE(b.transfer(tlm::TLM_READ_COMMAND, 0x400, in.data(), 100, d) == tlm::TLM_OK_RESPONSE);
    CHECK(b.transfer(tlm::TLM_READ_COMMAND, 0x10000, in.data(), 4, d) ==
          tlm::TLM_ADDRESS_ERROR_RESPONSE);
  };
  run_simulation();
  CHECK(in == out);
  uint8_t byte = 0;
  CHECK(a.debug(tlm::TLM_READ_COMMAND, 0x463, &byte, 1) == 1);  // debug access passes through
  CHECK(byte == 0x3C);
  CHECK(counter(endpoint.stats, "dma_writes") == 1);
  CHECK(counter(endpoint.stats, "dma_write_bytes") == 100);
  CHECK(counter(endpoint.stats, "dma_reads") == 2);
  CHECK(counter(endpoint.stats, "dma_read_bytes") == 104);
  CHECK(counter(endpoint.stats, "dma_errors") == 1);
}
