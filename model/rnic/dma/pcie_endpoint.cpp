// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/dma/pcie_endpoint.h"

namespace rnic {

PcieEndpoint::PcieEndpoint(sc_core::sc_module_name name, DeviceClock* clock)
    : sc_module(name),
      dma_tsock("dma_tsock"),
      pcie_isock("pcie_isock"),
      stats(std::string(this->name())),
      dma_reads_(stats.add("dma_reads", "transactions", "DMA reads issued to host memory")),
      dma_read_bytes_(stats.add("dma_read_bytes", "bytes", "bytes read from host memory")),
      dma_writes_(stats.add("dma_writes", "transactions", "DMA writes issued to host memory")),
      dma_write_bytes_(stats.add("dma_write_bytes", "bytes", "bytes written to host memory")),
      dma_errors_(stats.add("dma_errors", "transactions", "DMA requests answered with an error")),
      device_(clock) {
  dma_tsock.register_b_transport(this, &PcieEndpoint::b_transport);
  dma_tsock.register_transport_dbg(this, &PcieEndpoint::transport_dbg);
}

void PcieEndpoint::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (gp.is_read()) {
    ++dma_reads_;
    dma_read_bytes_ += gp.get_data_length();
  } else if (gp.is_write()) {
    ++dma_writes_;
    dma_write_bytes_ += gp.get_data_length();
  }
  if (device_->ahead()) {
    transport_ahead(gp, delay);
  } else {
    pcie_isock->b_transport(gp, delay);
  }
  if (!gp.is_response_ok()) ++dma_errors_;
}

void PcieEndpoint::transport_ahead(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  // An entry running ahead of the kernel (device_clock.h): the link measures delays from the
  // kernel's time, the device from its own.
  const sc_core::sc_time ahead = device_->ahead_by();
  delay += ahead;
  pcie_isock->b_transport(gp, delay);
  delay -= ahead;
}

unsigned PcieEndpoint::transport_dbg(int, tlm::tlm_generic_payload& gp) {
  return pcie_isock->transport_dbg(gp);
}

}  // namespace rnic
