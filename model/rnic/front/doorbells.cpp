// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/front/doorbells.h"

#include <algorithm>

#include "model/rnic/abi/bar.h"
#include "model/rnic/util/byte_order.h"

namespace rnic {

Doorbells::Doorbells(sc_core::sc_module_name name, const Config& config, DeviceClock* clock)
    : sc_module(name),
      mmio_tsock("mmio_tsock"),
      fetcher_isock("fetcher_isock"),
      completion_isock("completion_isock"),
      responder_isock("responder_isock"),
      ctrl_isock("ctrl_isock"),
      stats(std::string(this->name())),
      clock_(config.clock_mhz),
      decode_stage_(clock_, config.decode_cycles, config.decode_ii_cycles),
      sq_doorbells_(stats.add("sq_doorbells", "writes", "send-queue doorbells")),
      cq_doorbells_(stats.add("cq_doorbells", "writes",
                              "CQ doorbells: consumer-index updates and arms (the host API "
                              "stores the index in the CQ context and rings only to arm)")),
      cq_arms_(stats.add("cq_arms", "writes",
                         "of the CQ doorbells, requests for an interrupt (bar::kCqArm)")),
      rq_doorbells_(stats.add("rq_doorbells", "writes", "receive-queue doorbells")),
      context_changes_(stats.add("context_changes", "writes", "table change notices")),
      interrupt_setups_(stats.add("interrupt_setups", "writes", "interrupt address settings")),
      unmapped_writes_(stats.add("unmapped_writes", "writes", "writes to no register")),
      blueflame_writes_(stats.add("blueflame_writes", "writes",
                                  "of the send-queue doorbells, BlueFlame writes carrying a WQE")),
      device_(clock) {
  decode_stage_.set_contention(!config.fast);
  mmio_tsock.register_b_transport(this, &Doorbells::b_transport);
}

void Doorbells::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t offset = gp.get_address();
  if (gp.is_write() && offset >= bar::kSqBlueFlame &&
      offset - bar::kSqBlueFlame < bar::kBlueFlameWindowBytes) {
    blueflame(gp, delay);
    return;
  }
  if (!gp.is_write() || gp.get_data_length() != 8 || offset % bar::kRegisterStride) {
    ++unmapped_writes_;
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  const uint64_t value = get_le<uint64_t>(gp.get_data_ptr());
  const sc_core::sc_time now = device_->now();
  delay = decode_stage_.pass(now + delay) - now;
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  const uint64_t window = offset / bar::kWindowBytes * bar::kWindowBytes;
  const uint32_t number = uint32_t((offset - window) / bar::kRegisterStride);
  if (window == bar::kSqDoorbell) {
    ++sq_doorbells_;
    Doorbell db{Doorbell::Kind::SendQueue, number, uint32_t(value)};
    fetcher_isock->ring(db, delay);
  } else if (window == bar::kRqDoorbell) {
    ++rq_doorbells_;
    Doorbell db{Doorbell::Kind::ReceiveQueue, number, uint32_t(value)};
    responder_isock->ring(db, delay);
  } else if (window == bar::kCqDoorbell) {
    ++cq_doorbells_;
    Doorbell db{Doorbell::Kind::CqConsumer, number, uint32_t(value)};
    db.arm = (value & bar::kCqArm) != 0;
    if (db.arm) ++cq_arms_;
    completion_isock->ring(db, delay);
  } else if (offset == bar::kContextChange) {
    ++context_changes_;
    ContextChange change{ContextKind(value >> 56), uint32_t(value),
                         uint32_t(value >> 32) & 0xffffff};
    for (int i = 0; i < int(ctrl_isock.size()); ++i) {
      sc_core::sc_time d = delay;
      ctrl_isock[i]->context_changed(change, d);
    }
  } else if (offset == bar::kInterruptAddress) {
    ++interrupt_setups_;
    InterruptVector vector{value};
    completion_isock->set_interrupt_vector(vector, delay);
  } else {
    ++unmapped_writes_;
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
}

void Doorbells::blueflame(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t offset = gp.get_address() - bar::kSqBlueFlame;
  if (gp.get_data_length() != 8 + kWqeBytes || offset % bar::kBlueFlameStride) {
    ++unmapped_writes_;
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  ++sq_doorbells_;
  ++blueflame_writes_;
  const sc_core::sc_time now = device_->now();
  delay = decode_stage_.pass(now + delay) - now;
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  Doorbell db{Doorbell::Kind::SendQueue, uint32_t(offset / bar::kBlueFlameStride),
              uint32_t(get_le<uint64_t>(gp.get_data_ptr()))};
  db.with_wqe = true;
  std::copy(gp.get_data_ptr() + 8, gp.get_data_ptr() + 8 + kWqeBytes, db.wqe.begin());
  fetcher_isock->ring(db, delay);
}

}  // namespace rnic
