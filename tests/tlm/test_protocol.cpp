// SPDX-License-Identifier: Apache-2.0
// Typed unit protocols (tlm/protocol.h): a call reaches the target's method with the caller's
// index in binding order, two operations of one protocol stay apart, a broadcast reaches every
// target, binding through a parent socket works, and the sockets report their protocol type.
// That a socket of one protocol cannot bind to another's is checked by compiling
// protocol_binding.cpp (ctest tlm/protocol-binding-*).
#include <catch2/catch.hpp>

#include <string>
#include <typeinfo>
#include <vector>

#include <systemc>

#include "support/report_handler.h"
#include "tlm/protocol.h"

using namespace rnic;

namespace {

struct Ping {
  int value = 0;
  int answer = 0;
};
struct Pong {
  std::string text;
};

// A toy protocol of two operations.
struct ToyProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = ToyProtocol;
    virtual void ping(Ping& message, sc_core::sc_time& delay) = 0;
    virtual void pong(Pong& message, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void ping(Ping& m, sc_core::sc_time& d) override { this->target->ping(this->caller, m, d); }
    void pong(Pong& m, sc_core::sc_time& d) override { this->target->pong(this->caller, m, d); }
  };
};

struct Caller : sc_core::sc_module {
  ProtocolInitiatorSocket<ToyProtocol> isock;
  explicit Caller(sc_core::sc_module_name name) : sc_module(name), isock("isock") {}
};

struct Unit : sc_core::sc_module {
  ProtocolTargetSocket<ToyProtocol, Unit> tsock;
  std::vector<int> ping_callers;
  std::vector<std::string> pongs;

  explicit Unit(sc_core::sc_module_name name) : sc_module(name), tsock("tsock", this) {}
  void ping(int caller, Ping& m, sc_core::sc_time& delay) {
    ping_callers.push_back(caller);
    m.answer = m.value * 10 + caller;
    delay += sc_core::sc_time(double(caller + 1), sc_core::SC_NS);
  }
  void pong(int caller, Pong& m, sc_core::sc_time&) {
    pongs.push_back(m.text + "@" + std::to_string(caller));
  }
};

// A parent module whose faces are bound through to its children's sockets.
struct Wrapper : sc_core::sc_module {
  ProtocolTargetFace<ToyProtocol> tsock;
  ProtocolInitiatorFace<ToyProtocol> isock;
  Unit inner;
  Caller inner_caller;
  explicit Wrapper(sc_core::sc_module_name name)
      : sc_module(name), tsock("tsock"), isock("isock"), inner("inner"),
        inner_caller("inner_caller") {
    tsock.bind(inner.tsock);
    inner_caller.isock.bind(isock);
  }
};

struct Broadcaster : sc_core::sc_module {
  ProtocolInitiatorSocket<ToyProtocol, 0> isock;
  explicit Broadcaster(sc_core::sc_module_name name) : sc_module(name), isock("isock") {}
};

}  // namespace

TEST_CASE("a typed call reaches its method with the caller's index", "[tlm][protocol]") {
  Caller a("a"), b("b"), c("c");
  Unit unit("unit");
  a.isock.bind(unit.tsock);
  b.isock.bind(unit.tsock);
  c.isock.bind(unit.tsock);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  CHECK(unit.tsock.callers() == 3);

  Ping p;
  p.value = 4;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  b.isock->ping(p, delay);
  CHECK(p.answer == 41);
  CHECK(delay == sc_core::sc_time(2, sc_core::SC_NS));
  c.isock->ping(p, delay);
  a.isock->ping(p, delay);
  CHECK(unit.ping_callers == std::vector<int>{1, 2, 0});
  CHECK(delay == sc_core::sc_time(6, sc_core::SC_NS));

  Pong q{"x"};
  c.isock->pong(q, delay);
  CHECK(unit.pongs == std::vector<std::string>{"x@2"});
  CHECK(unit.ping_callers.size() == 3);  // the other operation was not called
  CHECK(test::take_reports().empty());
}

TEST_CASE("typed calls pass through a parent's faces", "[tlm][protocol]") {
  Caller a("a");
  Wrapper wrapper("wrapper");
  Unit outside("outside");
  a.isock.bind(wrapper.tsock);       // into the parent, through to its child
  wrapper.isock.bind(outside.tsock);  // out of the child, through the parent
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  Ping p;
  p.value = 7;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  a.isock->ping(p, delay);
  CHECK(p.answer == 70);
  CHECK(wrapper.inner.ping_callers == std::vector<int>{0});
  wrapper.inner_caller.isock->ping(p, delay);
  CHECK(p.answer == 70);
  CHECK(outside.ping_callers == std::vector<int>{0});
  CHECK(test::take_reports().empty());
}

TEST_CASE("a broadcast socket reaches every target in binding order", "[tlm][protocol]") {
  Broadcaster source("source");
  Unit first("first"), second("second");
  source.isock.bind(first.tsock);
  source.isock.bind(second.tsock);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  REQUIRE(source.isock.size() == 2);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  for (int i = 0; i < source.isock.size(); ++i) {
    Pong q{"all"};
    source.isock[i]->pong(q, delay);
  }
  CHECK(first.pongs == std::vector<std::string>{"all@0"});
  CHECK(second.pongs == std::vector<std::string>{"all@0"});
  CHECK(test::take_reports().empty());
}

TEST_CASE("typed sockets name their protocol", "[tlm][protocol]") {
  Caller a("a");
  Unit unit("unit");
  a.isock.bind(unit.tsock);
  CHECK(a.isock.get_protocol_types() == typeid(ToyProtocol));
  CHECK(unit.tsock.get_protocol_types() == typeid(ToyProtocol));
  CHECK(std::string(a.isock.kind()) == "rnic::ProtocolInitiatorSocket");
  CHECK(std::string(unit.tsock.kind()) == "rnic::ProtocolTargetSocket");
}
