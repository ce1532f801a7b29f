// SPDX-License-Identifier: Apache-2.0
// Project TLM extensions. Between device units a generic payload carries one typed message
// (a WQE, a packet, a check request) through MessageExtension<T>; DMA requests to host memory
// are plain READ/WRITE payloads with a DmaExtension naming the unit that issued them.
#pragma once

#include <cstdint>
#include <vector>

#include <tlm>

namespace rnic {

template <typename T>
class MessageExtension : public tlm::tlm_extension<MessageExtension<T>> {
 public:
  T* message = nullptr;

  tlm::tlm_extension_base* clone() const override {
    auto* copy = new MessageExtension<T>;
    copy->message = message;
    return copy;
  }
  void copy_from(const tlm::tlm_extension_base& other) override {
    message = static_cast<const MessageExtension<T>&>(other).message;
  }
};

template <typename T>
T* message_of(tlm::tlm_generic_payload& gp) {
  MessageExtension<T>* ext = nullptr;
  gp.get_extension(ext);
  return ext ? ext->message : nullptr;
}

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

}  // namespace rnic
