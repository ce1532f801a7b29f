// SPDX-License-Identifier: Apache-2.0
// Generic-payload sockets, for what TLM-2.0's base protocol means: MMIO, DMA and interrupt
// messages (the PCIe side). Links between device units are typed protocols (tlm/protocol.h).
// Units own their sockets as members named for what they connect (`dma_isock`,
// `doorbell_tsock`); the Rnic top is the only place binding units.
//
// The two target sockets are standard TLM-2.0 target sockets (tlm::tlm_base_target_socket:
// they bind to any initiator socket, hierarchically too) that call the unit's registered
// function directly: one virtual call and one member-function call per transaction. The
// tlm_utils sockets they replace add a check and a thunk (simple_target_socket) or a binder,
// a functor and a static trampoline (multi_passthrough_target_socket) to every call: 2,500
// of the 19,400 instructions of a 64 B read went to socket code; these save 800 of them.
// They offer the blocking and debug transports and DMI, which is all the model uses;
// nb_transport_fw is refused with an error report, as the model never issues it (no b/nb
// conversion).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

namespace rnic {

namespace socket_detail {

// What a target socket answers for DMI when its unit registered no function, as
// tlm_utils::simple_target_socket does: false, with the whole address range, for reads and
// writes, as the region where DMI is denied (the initiator need not ask again).
inline bool no_dmi(tlm::tlm_dmi& dmi) {
  dmi.allow_read_write();
  dmi.set_start_address(0);
  dmi.set_end_address(~sc_dt::uint64(0));
  return false;
}

// A call to a socket whose unit registered no b_transport: a wiring bug of the platform.
inline void unregistered(const char* socket, tlm::tlm_generic_payload& gp) {
  SC_REPORT_ERROR("rnicsim/socket", (std::string(socket) + ": no b_transport registered").c_str());
  gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
}

inline tlm::tlm_sync_enum refuse_nb(const char* socket) {
  SC_REPORT_ERROR("rnicsim/socket",
                  (std::string(socket) + ": nb_transport_fw is not supported").c_str());
  return tlm::TLM_COMPLETED;
}

}  // namespace socket_detail

// A target socket of one unit, bound to one initiator.
template <typename Module>
class TargetSocket : public tlm::tlm_target_socket<> {
 public:
  using BTransport = void (Module::*)(tlm::tlm_generic_payload&, sc_core::sc_time&);
  using TransportDbg = unsigned (Module::*)(tlm::tlm_generic_payload&);
  using GetDirectMemPtr = bool (Module::*)(tlm::tlm_generic_payload&, tlm::tlm_dmi&);

  explicit TargetSocket(const char* name = sc_core::sc_gen_unique_name("target_socket"))
      : tlm::tlm_target_socket<>(name), fw_(*this) {
    tlm::tlm_target_socket<>::bind(static_cast<tlm::tlm_fw_transport_if<>&>(fw_));
  }
  const char* kind() const override { return "rnic::TargetSocket"; }

  void register_b_transport(Module* module, BTransport f) {
    fw_.module = module;
    fw_.b = f;
  }
  void register_transport_dbg(Module* module, TransportDbg f) {
    fw_.module = module;
    fw_.dbg = f;
  }
  void register_get_direct_mem_ptr(Module* module, GetDirectMemPtr f) {
    fw_.module = module;
    fw_.dmi = f;
  }

 private:
  struct Fw : tlm::tlm_fw_transport_if<> {
    explicit Fw(const TargetSocket& socket) : socket(socket) {}
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override {
      if (b) {
        (module->*b)(gp, delay);
      } else {
        socket_detail::unregistered(socket.name(), gp);
      }
    }
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&,
                                       sc_core::sc_time&) override {
      return socket_detail::refuse_nb(socket.name());
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& region) override {
      return dmi ? (module->*dmi)(gp, region) : socket_detail::no_dmi(region);
    }
    unsigned transport_dbg(tlm::tlm_generic_payload& gp) override {
      return dbg ? (module->*dbg)(gp) : 0;
    }
    const TargetSocket& socket;
    Module* module = nullptr;
    BTransport b = nullptr;
    TransportDbg dbg = nullptr;
    GetDirectMemPtr dmi = nullptr;
  };
  Fw fw_;
};

// A target socket shared by several initiators (the DMA port of the PCIe endpoint, the
// MTT...): the unit's functions take the index of the initiator that calls, in binding
// order, and operator[] reaches that initiator's backward interface.
template <typename Module>
class SharedTargetSocket
    : public tlm::tlm_base_target_socket<32, tlm::tlm_fw_transport_if<>,
                                         tlm::tlm_bw_transport_if<>, 0,
                                         sc_core::SC_ONE_OR_MORE_BOUND> {
  using Base = tlm::tlm_base_target_socket<32, tlm::tlm_fw_transport_if<>,
                                           tlm::tlm_bw_transport_if<>, 0,
                                           sc_core::SC_ONE_OR_MORE_BOUND>;

 public:
  using BTransport = void (Module::*)(int, tlm::tlm_generic_payload&, sc_core::sc_time&);
  using TransportDbg = unsigned (Module::*)(int, tlm::tlm_generic_payload&);
  using GetDirectMemPtr = bool (Module::*)(int, tlm::tlm_generic_payload&, tlm::tlm_dmi&);

  explicit SharedTargetSocket(const char* name = sc_core::sc_gen_unique_name("shared_socket"))
      : Base(name) {
    // The export is bound to front 0, which the first initiator to bind takes; a caller bound
    // hierarchically through a parent socket's export reaches front 0 too (as with
    // tlm_utils::multi_passthrough_target_socket).
    fronts_.push_back(std::make_unique<Front>(*this, 0));
    Base::bind(static_cast<tlm::tlm_fw_transport_if<>&>(*fronts_.front()));
  }
  const char* kind() const override { return "rnic::SharedTargetSocket"; }

  void register_b_transport(Module* module, BTransport f) {
    module_ = module;
    b_ = f;
  }
  void register_transport_dbg(Module* module, TransportDbg f) {
    module_ = module;
    dbg_ = f;
  }
  void register_get_direct_mem_ptr(Module* module, GetDirectMemPtr f) {
    module_ = module;
    dmi_ = f;
  }

  // Each initiator that binds gets a front of its own, numbered in binding order; this
  // socket's port is bound to that initiator's backward interface in the same call, so
  // operator[](i) is front i's initiator.
  tlm::tlm_fw_transport_if<>& get_base_interface() override {
    if (!front0_taken_) {
      front0_taken_ = true;
    } else {
      fronts_.push_back(std::make_unique<Front>(*this, int(fronts_.size())));
    }
    return *fronts_.back();
  }
  const tlm::tlm_fw_transport_if<>& get_base_interface() const override {
    return *fronts_.front();
  }

 private:
  struct Front : tlm::tlm_fw_transport_if<> {
    Front(SharedTargetSocket& socket, int id) : socket(socket), id(id) {}
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override {
      if (socket.b_) {
        (socket.module_->*socket.b_)(id, gp, delay);
      } else {
        socket_detail::unregistered(socket.name(), gp);
      }
    }
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&,
                                       sc_core::sc_time&) override {
      return socket_detail::refuse_nb(socket.name());
    }
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) override {
      return socket.dmi_ ? (socket.module_->*socket.dmi_)(id, gp, dmi)
                         : socket_detail::no_dmi(dmi);
    }
    unsigned transport_dbg(tlm::tlm_generic_payload& gp) override {
      return socket.dbg_ ? (socket.module_->*socket.dbg_)(id, gp) : 0;
    }
    SharedTargetSocket& socket;
    const int id;
  };
  std::vector<std::unique_ptr<Front>> fronts_;
  bool front0_taken_ = false;
  Module* module_ = nullptr;
  BTransport b_ = nullptr;
  TransportDbg dbg_ = nullptr;
  GetDirectMemPtr dmi_ = nullptr;
};

// An initiator socket of one unit, for generic payloads (DMA, MMIO, interrupt messages).
template <typename Module>
using InitiatorSocket = tlm_utils::simple_initiator_socket<Module>;

}  // namespace rnic
