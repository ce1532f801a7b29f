// SPDX-License-Identifier: Apache-2.0
// Project TLM extension: between device units a generic payload carries one typed message
// (a WQE, a packet, a check request) through MessageExtension<T>. Device words (which unit
// issued a DMA) live in the model: model/rnic/msg/dma.h.
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

}  // namespace rnic
