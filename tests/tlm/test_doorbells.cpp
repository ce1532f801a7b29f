// SPDX-License-Identifier: Apache-2.0
// Doorbells alone: MMIO writes from a stub host, message sinks on every output.
#include <catch2/catch.hpp>

#include <systemc>

#include "model/rnic/abi/bar.h"
#include "model/rnic/front/doorbells.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

// The completion engine takes CQ doorbells and the interrupt address: its sink takes one kind.
template <typename CompletionMessage = Doorbell>
struct DoorbellBench {
  Doorbells::Config config;
  Doorbells doorbells{"doorbells", config};
  InitiatorStub host{"host"};
  MessageSink<Doorbell> fetcher{"fetcher"};
  MessageSink<CompletionMessage, CompletionControlProtocol> completion{"completion"};
  MessageSink<Doorbell> responder{"responder"};
  MessageSink<ContextChange> ctrl_a{"ctrl_a"};
  MessageSink<ContextChange> ctrl_b{"ctrl_b"};
  MessageSink<ContextChange> ctrl_c{"ctrl_c"};

  DoorbellBench() {
    host.isock.bind(doorbells.mmio_tsock);
    doorbells.fetcher_isock.bind(fetcher.tsock);
    doorbells.completion_isock.bind(completion.tsock);
    doorbells.responder_isock.bind(responder.tsock);
    doorbells.ctrl_isock.bind(ctrl_a.tsock);
    doorbells.ctrl_isock.bind(ctrl_b.tsock);
    doorbells.ctrl_isock.bind(ctrl_c.tsock);
  }
};

}  // namespace

TEST_CASE("doorbells: a send-queue doorbell reaches the fetcher", "[tlm][doorbells]") {
  DoorbellBench<> t;
  tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  t.host.script = [&] {
    sc_core::wait(sc_core::sc_time(100, sc_core::SC_NS));
    status = t.host.write64(bar::kSqDoorbell + 5 * bar::kRegisterStride, 0x100000011ull);
  };
  run_simulation();
  CHECK(status == tlm::TLM_OK_RESPONSE);
  REQUIRE(t.fetcher.size() == 1);
  CHECK(t.fetcher[0].kind == Doorbell::Kind::SendQueue);
  CHECK(t.fetcher[0].number == 5);
  CHECK(t.fetcher[0].index == 0x11);  // the producer index is the low 32 bits
  CHECK(t.fetcher.received[0].at > sc_core::sc_time(100, sc_core::SC_NS));  // decode time
  CHECK(t.completion.size() == 0);
  CHECK(t.responder.size() == 0);
  CHECK(t.ctrl_a.size() == 0);
  CHECK(counter(t.doorbells.stats, "sq_doorbells") == 1);
}

TEST_CASE("doorbells: CQ and receive-queue doorbells reach their units", "[tlm][doorbells]") {
  DoorbellBench<> t;
  t.host.script = [&] {
    CHECK(t.host.write64(bar::kCqDoorbell + 3 * bar::kRegisterStride, 9) == tlm::TLM_OK_RESPONSE);
    CHECK(t.host.write64(bar::kRqDoorbell + 7 * bar::kRegisterStride, 4) == tlm::TLM_OK_RESPONSE);
    CHECK(t.host.write64(bar::kCqDoorbell + 3 * bar::kRegisterStride, bar::kCqArm | 10) ==
          tlm::TLM_OK_RESPONSE);
  };
  run_simulation();
  REQUIRE(t.completion.size() == 2);
  CHECK(t.completion[0].kind == Doorbell::Kind::CqConsumer);
  CHECK(t.completion[0].number == 3);
  CHECK(t.completion[0].index == 9);
  CHECK(!t.completion[0].arm);
  CHECK(t.completion[1].index == 10);  // the arm bit is not part of the index
  CHECK(t.completion[1].arm);
  REQUIRE(t.responder.size() == 1);
  CHECK(t.responder[0].kind == Doorbell::Kind::ReceiveQueue);
  CHECK(t.responder[0].number == 7);
  CHECK(t.responder[0].index == 4);
  CHECK(t.fetcher.size() == 0);
  CHECK(counter(t.doorbells.stats, "cq_doorbells") == 2);
  CHECK(counter(t.doorbells.stats, "cq_arms") == 1);
}

TEST_CASE("doorbells: a context change is broadcast to every bound unit", "[tlm][doorbells]") {
  DoorbellBench<> t;
  t.host.script = [&] {
    CHECK(t.host.write64(bar::kContextChange,
                         bar::context_change_value(ContextKind::Mtt, 0x123456, 0x30)) ==
          tlm::TLM_OK_RESPONSE);
  };
  run_simulation();
  for (MessageSink<ContextChange>* sink : {&t.ctrl_a, &t.ctrl_b, &t.ctrl_c}) {
    REQUIRE(sink->size() == 1);
    CHECK((*sink)[0].kind == ContextKind::Mtt);
    CHECK((*sink)[0].index == 0x123456u);
    CHECK((*sink)[0].count == 0x30u);
  }
  CHECK(counter(t.doorbells.stats, "context_changes") == 1);
}

TEST_CASE("doorbells: unmapped or malformed accesses get error responses", "[tlm][doorbells]") {
  DoorbellBench<> t;
  std::vector<tlm::tlm_response_status> statuses;
  t.host.script = [&] {
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    statuses.push_back(t.host.write64(bar::kSqBlueFlame + bar::kBlueFlameWindowBytes, 1));  // none
    statuses.push_back(t.host.write64(bar::kInterruptAddress + 8, 1));     // beside the registers
    statuses.push_back(t.host.write64(bar::kSqDoorbell + 4, 1));           // misaligned
    uint8_t bytes[8] = {};
    statuses.push_back(t.host.transfer(tlm::TLM_READ_COMMAND, 0, bytes, 8, d));  // a read
    statuses.push_back(t.host.transfer(tlm::TLM_WRITE_COMMAND, 0, bytes, 4, d)); // 32-bit
  };
  run_simulation();
  REQUIRE(statuses.size() == 5);
  CHECK(statuses[0] == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(statuses[1] == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(statuses[2] == tlm::TLM_COMMAND_ERROR_RESPONSE);
  CHECK(statuses[3] == tlm::TLM_COMMAND_ERROR_RESPONSE);
  CHECK(statuses[4] == tlm::TLM_COMMAND_ERROR_RESPONSE);
  CHECK(counter(t.doorbells.stats, "unmapped_writes") == 5);
  CHECK(t.fetcher.size() == 0);
  CHECK(t.ctrl_a.size() == 0);
}

TEST_CASE("doorbells: the interrupt address register reaches the completion engine",
          "[tlm][doorbells]") {
  DoorbellBench<InterruptVector> t;
  tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  t.host.script = [&] { status = t.host.write64(bar::kInterruptAddress, 0xFEE00040ull); };
  run_simulation();
  CHECK(status == tlm::TLM_OK_RESPONSE);
  REQUIRE(t.completion.size() == 1);
  CHECK(t.completion[0].address == 0xFEE00040ull);  // all 64 bits
  CHECK(t.ctrl_a.size() == 0);  // not a context change
  CHECK(counter(t.doorbells.stats, "interrupt_setups") == 1);
  CHECK(counter(t.doorbells.stats, "unmapped_writes") == 0);
}

TEST_CASE("doorbells: a BlueFlame write reaches the fetcher as a doorbell with its WQE",
          "[tlm][doorbells]") {
  DoorbellBench<> t;
  std::vector<tlm::tlm_response_status> statuses;
  t.host.script = [&] {
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    uint8_t bf[8 + kWqeBytes];
    for (size_t i = 0; i < sizeof bf; ++i) bf[i] = uint8_t(i);
    bf[0] = 0x07;  // producer index 7 (little-endian)
    const uint64_t qp9 = bar::kSqBlueFlame + 9 * bar::kBlueFlameStride;
    statuses.push_back(t.host.transfer(tlm::TLM_WRITE_COMMAND, qp9, bf, sizeof bf, d));
    d = sc_core::SC_ZERO_TIME;
    statuses.push_back(t.host.transfer(tlm::TLM_WRITE_COMMAND, qp9, bf, 8, d));  // no WQE
    d = sc_core::SC_ZERO_TIME;
    statuses.push_back(t.host.transfer(tlm::TLM_WRITE_COMMAND, qp9 + 8, bf, sizeof bf, d));
  };
  run_simulation();
  REQUIRE(statuses.size() == 3);
  CHECK(statuses[0] == tlm::TLM_OK_RESPONSE);
  CHECK(statuses[1] == tlm::TLM_COMMAND_ERROR_RESPONSE);
  CHECK(statuses[2] == tlm::TLM_COMMAND_ERROR_RESPONSE);  // not at a buffer's start
  REQUIRE(t.fetcher.size() == 1);
  CHECK(t.fetcher[0].number == 9);
  CHECK(t.fetcher[0].index == 0x03020107u);  // the low 32 bits of bytes 07 01 02 03 ...
  CHECK(t.fetcher[0].with_wqe);
  CHECK(t.fetcher[0].wqe[0] == 8);  // the WQE starts after the 8-byte index
  CHECK(t.fetcher[0].wqe[kWqeBytes - 1] == uint8_t(8 + kWqeBytes - 1));
  CHECK(counter(t.doorbells.stats, "blueflame_writes") == 1);
  CHECK(counter(t.doorbells.stats, "sq_doorbells") == 1);
}
