// SPDX-License-Identifier: Apache-2.0
// DMA to host memory: plain READ/WRITE payloads with a DmaExtension naming the device unit
// that issued them (statistics, the protection monitor, traces).
#pragma once

#include <cstdint>

#include <tlm>

#include "tlm/payload_pool.h"

namespace rnic {

// Which device unit issued a DMA (statistics, protection monitor, traces).
enum class DmaSource : uint8_t {
  Unknown = 0,
  WqeFetch,
  MptTable,
  MttTable,
  ContextTable,
  ReadData,    // responder reading a source buffer
  WriteData,   // requester landing read-response data
  Completion,
  Dma,         // dma_bench probes
  Interrupt,   // MSI-X message of the completion engine, to the host's MSI window
};

class DmaExtension : public tlm::tlm_extension<DmaExtension> {
 public:
  DmaSource source = DmaSource::Unknown;

  tlm::tlm_extension_base* clone() const override {
    auto* copy = new DmaExtension;
    copy->source = source;
    return copy;
  }
  void copy_from(const tlm::tlm_extension_base& other) override {
    source = static_cast<const DmaExtension&>(other).source;
  }
};

inline DmaSource dma_source_of(tlm::tlm_generic_payload& gp) {
  DmaExtension* ext = nullptr;
  gp.get_extension(ext);
  return ext ? ext->source : DmaSource::Unknown;
}

// One DMA transaction to host memory. Returns false on an error response.
template <typename Socket>
bool dma_transfer(PayloadPool& pool, Socket& socket, tlm::tlm_command command, uint64_t address,
                  uint8_t* data, uint32_t length, DmaSource source, sc_core::sc_time& delay) {
  ScopedPayload gp(pool);
  DmaExtension ext;
  ext.source = source;
  gp->set_extension(&ext);
  gp->set_command(command);
  gp->set_address(address);
  gp->set_data_ptr(data);
  gp->set_data_length(length);
  gp->set_streaming_width(length);
  gp->set_byte_enable_ptr(nullptr);
  gp->set_dmi_allowed(false);
  gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  socket->b_transport(*gp, delay);
  gp->clear_extension(&ext);
  return gp->is_response_ok();
}

}  // namespace rnic
