// SPDX-License-Identifier: Apache-2.0
// Compiled, not run (ctest tlm/protocol-binding-right and tlm/protocol-binding-wrong): binding an
// initiator socket of one protocol to a target socket of the same protocol compiles; with
// RNICSIM_WRONG_BINDING it binds to a target socket of another protocol, and must not compile.
#include <systemc>

#include "tlm/protocol.h"

namespace {

struct Check {};
struct Translate {};

struct CheckProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = CheckProtocol;
    virtual void check(Check& message, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, rnic::ForwardTo<Target> {
    using rnic::ForwardTo<Target>::ForwardTo;
    void check(Check& m, sc_core::sc_time& d) override { this->target->check(this->caller, m, d); }
  };
};

struct TranslationProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = TranslationProtocol;
    virtual void translate(Translate& message, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, rnic::ForwardTo<Target> {
    using rnic::ForwardTo<Target>::ForwardTo;
    void translate(Translate& m, sc_core::sc_time& d) override {
      this->target->translate(this->caller, m, d);
    }
  };
};

struct Engine : sc_core::sc_module {
  rnic::ProtocolInitiatorSocket<CheckProtocol> check_isock;
  explicit Engine(sc_core::sc_module_name name) : sc_module(name), check_isock("check_isock") {}
};
struct Checker : sc_core::sc_module {
  rnic::ProtocolTargetSocket<CheckProtocol, Checker> check_tsock;
  explicit Checker(sc_core::sc_module_name name)
      : sc_module(name), check_tsock("check_tsock", this) {}
  void check(int, Check&, sc_core::sc_time&) {}
};
struct Mtt : sc_core::sc_module {
  rnic::ProtocolTargetSocket<TranslationProtocol, Mtt> xlate_tsock;
  explicit Mtt(sc_core::sc_module_name name) : sc_module(name), xlate_tsock("xlate_tsock", this) {}
  void translate(int, Translate&, sc_core::sc_time&) {}
};

}  // namespace

int sc_main(int, char*[]) {
  Engine engine("engine");
  Checker checker("checker");
  Mtt mtt("mtt");
#ifdef RNICSIM_WRONG_BINDING
  engine.check_isock.bind(mtt.xlate_tsock);  // a check socket on the MTT: must not compile
#else
  engine.check_isock.bind(checker.check_tsock);
#endif
  return 0;
}
