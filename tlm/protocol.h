// SPDX-License-Identifier: Apache-2.0
// Typed unit protocols. A link between two device units that is not memory-mapped (a check, a
// translation, a work request) is a protocol of its own, as IEEE 1666-2011 (clause 14) asks of
// anything that is not the base protocol: its sockets are TLM-2.0 base sockets parameterised
// on the protocol's forward interface, so binding a socket of one protocol to a socket of
// another fails to compile. Calls are blocking transports: typed request in, answer written
// into it, the delay annotated (loosely timed); there is no backward path.
//
// A protocol is a struct with
// - `fw_if`: the forward interface (one pure virtual method per operation, each taking the
//   typed message and an sc_time& delay), with `using protocol_types = <the protocol>;`;
// - `template <typename Target> struct forward`: an fw_if implementation that calls
//   `target->method(caller, message, delay)` on the target module, `caller` being the index
//   of the initiator in binding order (the caller's identity comes from the socket, as in a
//   multi-passthrough target socket, not from message fields).
//
// Generic payloads stay where TLM-2.0 means them: MMIO, DMA and interrupt messages.
#pragma once

#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

namespace rnic {

// Unit protocols have no backward path: a target answers by filling in the message. (TLM-2.0
// sockets name their protocol through both interfaces, so this one is per protocol too.)
template <typename Protocol>
class NoBackward : public virtual sc_core::sc_interface {
 public:
  using protocol_types = Protocol;
};

// The initiator side of protocol P, bound to one target, or (Bindings = 0) to any number of
// them: a broadcast, `socket[i]->op(...)` for i < size().
template <typename Protocol, int Bindings = 1>
class ProtocolInitiatorSocket
    : public tlm::tlm_base_initiator_socket<
          32, typename Protocol::fw_if, NoBackward<Protocol>, Bindings,
          Bindings == 1 ? sc_core::SC_ONE_OR_MORE_BOUND : sc_core::SC_ZERO_OR_MORE_BOUND> {
  using Base = tlm::tlm_base_initiator_socket<
      32, typename Protocol::fw_if, NoBackward<Protocol>, Bindings,
      Bindings == 1 ? sc_core::SC_ONE_OR_MORE_BOUND : sc_core::SC_ZERO_OR_MORE_BOUND>;

 public:
  explicit ProtocolInitiatorSocket(const char* name) : Base(name) { Base::bind(no_backward_); }
  const char* kind() const override { return "rnic::ProtocolInitiatorSocket"; }

 private:
  struct NoBackwardImpl : NoBackward<Protocol> {};
  NoBackwardImpl no_backward_;
};

// The target side of protocol P in `Target`: any number of initiators bind to it, and each
// gets a forwarder of its own that passes its index (binding order) as the caller. An
// initiator bound hierarchically through a parent target socket reaches caller 0.
template <typename Protocol, typename Target>
class ProtocolTargetSocket
    : public tlm::tlm_base_target_socket<32, typename Protocol::fw_if, NoBackward<Protocol>, 0,
                                         sc_core::SC_ZERO_OR_MORE_BOUND> {
  using Base = tlm::tlm_base_target_socket<32, typename Protocol::fw_if, NoBackward<Protocol>, 0,
                                           sc_core::SC_ZERO_OR_MORE_BOUND>;
  using Forward = typename Protocol::template forward<Target>;

 public:
  ProtocolTargetSocket(const char* name, Target* target) : Base(name), target_(target) {
    forwards_.push_back(std::make_unique<Forward>(target_, 0));
    Base::bind(static_cast<typename Protocol::fw_if&>(*forwards_.front()));
  }
  const char* kind() const override { return "rnic::ProtocolTargetSocket"; }
  // Initiators bound so far (the callers' indices are 0..callers()-1).
  int callers() const { return int(forwards_.size()) - (first_taken_ ? 0 : 1); }

  typename Protocol::fw_if& get_base_interface() override {
    if (!first_taken_) {
      first_taken_ = true;
    } else {
      forwards_.push_back(std::make_unique<Forward>(target_, int(forwards_.size())));
    }
    return *forwards_.back();
  }
  const typename Protocol::fw_if& get_base_interface() const override {
    return *forwards_.front();
  }

 private:
  Target* target_;
  std::vector<std::unique_ptr<Forward>> forwards_;
  bool first_taken_ = false;
};

// A module's outside face for protocol P, bound through to a socket of one of its children
// (hierarchical binding: `face.bind(child.tsock)` for a target face, `child.isock.bind(face)`
// for an initiator face). A face has no target or backward path of its own.
template <typename Protocol>
using ProtocolTargetFace =
    tlm::tlm_base_target_socket<32, typename Protocol::fw_if, NoBackward<Protocol>, 0,
                                sc_core::SC_ZERO_OR_MORE_BOUND>;
template <typename Protocol>
using ProtocolInitiatorFace =
    tlm::tlm_base_initiator_socket<32, typename Protocol::fw_if, NoBackward<Protocol>, 1,
                                   sc_core::SC_ONE_OR_MORE_BOUND>;

// The forwarders' common part: the target module and the caller's index.
template <typename Target>
struct ForwardTo {
  ForwardTo(Target* target, int caller) : target(target), caller(caller) {}
  Target* const target;
  const int caller;
};

}  // namespace rnic
