// SPDX-License-Identifier: Apache-2.0
// Payload pooling (tlm_mm_interface) and the two ways units use payloads: a typed message to
// another unit, or a DMA read/write. No heap allocation per transaction once the pool is warm.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

#include "tlm/extensions.h"
#include "tlm/sockets.h"

namespace rnic {

// A payload for messages of type T: its MessageExtension<T> attached for good (the payload
// deletes it, and `*ext` points at it), no command.
template <typename T>
std::unique_ptr<tlm::tlm_generic_payload> make_message_payload(MessageExtension<T>** ext) {
  auto gp = std::make_unique<tlm::tlm_generic_payload>();
  *ext = new MessageExtension<T>;
  gp->set_extension(*ext);
  gp->set_command(tlm::TLM_IGNORE_COMMAND);
  return gp;
}

class PayloadPool : public tlm::tlm_mm_interface {
 public:
  PayloadPool() = default;
  PayloadPool(const PayloadPool&) = delete;
  PayloadPool& operator=(const PayloadPool&) = delete;
  // A payload still in use at teardown (its thread was blocked in a call when the simulation
  // ended) may point at an extension on that thread's stack: drop such pointers, never delete
  // them (tlm_generic_payload's destructor would).
  ~PayloadPool() override {
    for (auto& gp : all_) {
      for (unsigned id = 0; id < tlm::max_num_extensions(); ++id) gp->set_extension(id, nullptr);
    }
  }

  tlm::tlm_generic_payload* acquire() {
    tlm::tlm_generic_payload* gp;
    if (free_.empty()) {
      all_.push_back(std::make_unique<tlm::tlm_generic_payload>(this));
      gp = all_.back().get();
    } else {
      gp = free_.back();
      free_.pop_back();
    }
    gp->acquire();
    return gp;
  }
  void free(tlm::tlm_generic_payload* gp) override {
    gp->reset();
    free_.push_back(gp);
  }
  size_t allocated() const { return all_.size() + messages_.size(); }

  // A payload for messages of type T, its MessageExtension<T> attached for good: a message
  // send then sets one pointer, not an extension, its removal and a reset per call (a 64 B
  // read: 21,537 -> 20,765 instructions under callgrind). No memory manager: a message lives
  // for one b_transport call, and no unit keeps or acquires it. Give it back with
  // release_message.
  template <typename T>
  struct Message {
    tlm::tlm_generic_payload* gp;
    MessageExtension<T>* ext;
  };
  template <typename T>
  Message<T> acquire_message() {
    const unsigned id = MessageExtension<T>::ID;
    if (id >= free_messages_.size()) free_messages_.resize(id + 1);
    std::vector<FreeMessage>& list = free_messages_[id];
    if (!list.empty()) {
      const FreeMessage m = list.back();
      list.pop_back();
      return {m.gp, static_cast<MessageExtension<T>*>(m.ext)};
    }
    MessageExtension<T>* ext = nullptr;
    messages_.push_back(make_message_payload<T>(&ext));
    return {messages_.back().get(), ext};
  }
  template <typename T>
  void release_message(const Message<T>& m) {
    m.ext->message = nullptr;
    free_messages_[MessageExtension<T>::ID].push_back({m.gp, m.ext});
  }

 private:
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> all_;
  std::vector<tlm::tlm_generic_payload*> free_;
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> messages_;
  struct FreeMessage {
    tlm::tlm_generic_payload* gp;
    tlm::tlm_extension_base* ext;
  };
  std::vector<std::vector<FreeMessage>> free_messages_;  // by extension ID
};

// A pooled payload held for one scope.
class ScopedPayload {
 public:
  explicit ScopedPayload(PayloadPool& pool) : gp_(pool.acquire()) {}
  ~ScopedPayload() { gp_->release(); }
  ScopedPayload(const ScopedPayload&) = delete;
  ScopedPayload& operator=(const ScopedPayload&) = delete;
  tlm::tlm_generic_payload& operator*() { return *gp_; }
  tlm::tlm_generic_payload* operator->() { return gp_; }

 private:
  tlm::tlm_generic_payload* gp_;
};

// Sends `message` to the unit behind `socket` (any socket with operator->() to a
// tlm_fw_transport_if). The message lives in the caller for the duration of the call.
template <typename T, typename Socket>
tlm::tlm_response_status send_message(PayloadPool& pool, Socket& socket, T& message,
                                      sc_core::sc_time& delay) {
  const PayloadPool::Message<T> m = pool.acquire_message<T>();
  m.ext->message = &message;
  m.gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  socket->b_transport(*m.gp, delay);
  const tlm::tlm_response_status status = m.gp->get_response_status();
  pool.release_message(m);
  return status;
}

// The same through a unit's InitiatorSocket: with the socket's own message payload.
template <typename T, typename Module>
tlm::tlm_response_status send_message(PayloadPool& pool, InitiatorSocket<Module>& socket,
                                      T& message, sc_core::sc_time& delay) {
  typename InitiatorSocket<Module>::MessageSlot& slot = socket.message_slot;
  const unsigned id = MessageExtension<T>::ID;
  if (slot.out || slot.extension_id != id || !slot.gp) {
    if (slot.gp) return send_message<T, tlm_utils::simple_initiator_socket<Module>>(
        pool, socket, message, delay);
    MessageExtension<T>* ext = nullptr;
    slot.gp = make_message_payload<T>(&ext);
    slot.ext = ext;
    slot.extension_id = id;
  }
  auto* ext = static_cast<MessageExtension<T>*>(slot.ext);
  slot.out = true;
  ext->message = &message;
  slot.gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  socket->b_transport(*slot.gp, delay);
  const tlm::tlm_response_status status = slot.gp->get_response_status();
  ext->message = nullptr;
  slot.out = false;
  return status;
}

}  // namespace rnic
