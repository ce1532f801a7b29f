// SPDX-License-Identifier: Apache-2.0
// The sockets of tlm/sockets.h: each call reaches the unit's function, a shared socket
// numbers its initiators in binding order and reaches each one back, binding through a parent
// socket works, and an unregistered function answers as TLM-2.0 says. (Unit protocols:
// test_protocol.cpp.)
#include <catch2/catch.hpp>

#include <vector>

#include <systemc>
#include <tlm>

#include "support/report_handler.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"

using namespace rnic;

namespace {

struct Initiator : sc_core::sc_module {
  InitiatorSocket<Initiator> isock;
  int invalidations = 0;
  sc_dt::uint64 invalidated_start = 0;

  explicit Initiator(sc_core::sc_module_name name) : sc_module(name), isock("isock") {
    isock.register_invalidate_direct_mem_ptr(this, &Initiator::invalidate);
  }
  void invalidate(sc_dt::uint64 start, sc_dt::uint64) {
    ++invalidations;
    invalidated_start = start;
  }
  // One blocking call; returns the delay the target annotated.
  sc_core::sc_time call(tlm::tlm_generic_payload& gp) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    isock->b_transport(gp, delay);
    return delay;
  }
};

struct SharedUnit : sc_core::sc_module {
  SharedTargetSocket<SharedUnit> tsock;
  std::vector<int> callers;

  explicit SharedUnit(sc_core::sc_module_name name) : sc_module(name), tsock("tsock") {
    tsock.register_b_transport(this, &SharedUnit::b_transport);
    tsock.register_transport_dbg(this, &SharedUnit::transport_dbg);
    tsock.register_get_direct_mem_ptr(this, &SharedUnit::get_direct_mem_ptr);
  }
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    callers.push_back(id);
    delay += sc_core::sc_time(double(id + 1), sc_core::SC_NS);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  unsigned transport_dbg(int id, tlm::tlm_generic_payload&) { return 100u + unsigned(id); }
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    dmi.set_start_address(sc_dt::uint64(id) << 12);
    dmi.set_end_address((sc_dt::uint64(id) << 12) + 0xFFF);
    dmi.allow_read();
    return true;
  }
};

// Registers b_transport only.
struct PlainUnit : sc_core::sc_module {
  TargetSocket<PlainUnit> tsock;
  int calls = 0;

  explicit PlainUnit(sc_core::sc_module_name name) : sc_module(name), tsock("tsock") {
    tsock.register_b_transport(this, &PlainUnit::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++calls;
    delay += sc_core::sc_time(5, sc_core::SC_NS);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// A parent whose face binds the unit inside it, as the Rnic binds its units.
struct Parent : sc_core::sc_module {
  tlm::tlm_target_socket<> tsock;
  PlainUnit unit;

  explicit Parent(sc_core::sc_module_name name) : sc_module(name), tsock("tsock"), unit("unit") {
    tsock.bind(unit.tsock);
  }
};

// A parent whose face binds a shared socket inside it: its callers are initiator 0.
struct SharedParent : sc_core::sc_module {
  tlm::tlm_target_socket<> tsock;
  SharedUnit unit;

  explicit SharedParent(sc_core::sc_module_name name)
      : sc_module(name), tsock("tsock"), unit("unit") {
    tsock.bind(unit.tsock);
  }
};

// Registers nothing.
struct SilentUnit : sc_core::sc_module {
  TargetSocket<SilentUnit> tsock;
  explicit SilentUnit(sc_core::sc_module_name name) : sc_module(name), tsock("tsock") {}
};

}  // namespace

TEST_CASE("a shared socket numbers its initiators in binding order and reaches each back",
          "[tlm][sockets]") {
  Initiator a("a"), b("b"), c("c");
  SharedUnit unit("unit");
  a.isock.bind(unit.tsock);
  b.isock.bind(unit.tsock);
  c.isock.bind(unit.tsock);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate

  REQUIRE(unit.tsock.size() == 3);
  tlm::tlm_generic_payload gp;
  CHECK(c.call(gp) == sc_core::sc_time(3, sc_core::SC_NS));
  CHECK(a.call(gp) == sc_core::sc_time(1, sc_core::SC_NS));
  CHECK(b.call(gp) == sc_core::sc_time(2, sc_core::SC_NS));
  CHECK(unit.callers == std::vector<int>{2, 0, 1});
  CHECK(gp.is_response_ok());

  CHECK(b.isock->transport_dbg(gp) == 101u);
  tlm::tlm_dmi dmi;
  CHECK(c.isock->get_direct_mem_ptr(gp, dmi));
  CHECK(dmi.get_start_address() == 0x2000);
  CHECK(dmi.is_read_allowed());
  CHECK_FALSE(dmi.is_write_allowed());

  // The backward path: index 1 is b, and only b hears.
  unit.tsock[1]->invalidate_direct_mem_ptr(0x40, 0x7F);
  CHECK(b.invalidations == 1);
  CHECK(b.invalidated_start == 0x40);
  CHECK(a.invalidations == 0);
  CHECK(c.invalidations == 0);
}

TEST_CASE("a target socket calls its unit, also through a parent's socket", "[tlm][sockets]") {
  Initiator direct("direct"), outside("outside");
  PlainUnit unit("unit");
  Parent parent("parent");
  direct.isock.bind(unit.tsock);
  outside.isock.bind(parent.tsock);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  tlm::tlm_generic_payload gp;
  CHECK(direct.call(gp) == sc_core::sc_time(5, sc_core::SC_NS));
  CHECK(unit.calls == 1);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  CHECK(outside.call(gp) == sc_core::sc_time(5, sc_core::SC_NS));
  CHECK(parent.unit.calls == 1);
  CHECK(gp.is_response_ok());

  // No debug transport or DMI registered: zero bytes, and DMI denied over the whole range.
  CHECK(direct.isock->transport_dbg(gp) == 0u);
  tlm::tlm_dmi dmi;
  CHECK_FALSE(outside.isock->get_direct_mem_ptr(gp, dmi));
  CHECK(dmi.get_start_address() == 0);
  CHECK(dmi.get_end_address() == ~sc_dt::uint64(0));
  CHECK(dmi.is_read_write_allowed());
}

TEST_CASE("a shared socket bound through a parent's socket serves its caller as initiator 0",
          "[tlm][sockets]") {
  Initiator outside("outside");
  SharedParent parent("parent");
  outside.isock.bind(parent.tsock);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  tlm::tlm_generic_payload gp;
  CHECK(outside.call(gp) == sc_core::sc_time(1, sc_core::SC_NS));
  CHECK(parent.unit.callers == std::vector<int>{0});
  parent.unit.tsock[0]->invalidate_direct_mem_ptr(0x80, 0xFF);
  CHECK(outside.invalidations == 1);
}

TEST_CASE("a socket refuses nb_transport and a call no function was registered for",
          "[tlm][sockets]") {
  test::expect_reports("rnicsim/socket");
  Initiator initiator("initiator");
  SilentUnit unit("unit");
  initiator.isock.bind(unit.tsock);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  tlm::tlm_generic_payload gp;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  CHECK(initiator.isock->nb_transport_fw(gp, phase, delay) == tlm::TLM_COMPLETED);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  initiator.call(gp);
  CHECK(gp.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);

  const std::vector<std::string> reports = test::take_reports();
  REQUIRE(reports.size() == 2);
  CHECK(reports[0].find("unit.tsock: nb_transport_fw is not supported") != std::string::npos);
  CHECK(reports[1].find("unit.tsock: no b_transport registered") != std::string::npos);
}
