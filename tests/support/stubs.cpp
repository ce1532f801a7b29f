// SPDX-License-Identifier: Apache-2.0
#include "support/stubs.h"

#include <catch2/catch.hpp>

#include "model/rnic/util/byte_order.h"
#include "support/report_handler.h"

namespace rnic::test {

uint64_t counter(const StatGroup& group, const std::string& name) {
  for (const Counter& c : group.counters()) {
    if (c.name == name) return c.value;
  }
  return UINT64_MAX;
}

MemoryStub::MemoryStub(sc_core::sc_module_name name) : sc_module(name), tsock("tsock") {
  tsock.register_b_transport(this, &MemoryStub::b_transport);
  tsock.register_transport_dbg(this, &MemoryStub::transport_dbg);
}

void MemoryStub::write(uint64_t address, const void* data, size_t length) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < length; ++i) bytes_[address + i] = p[i];
}

uint8_t MemoryStub::byte(uint64_t address) const {
  auto it = bytes_.find(address);
  if (it != bytes_.end()) return it->second;
  return pattern ? pattern(address) : 0;
}

std::vector<uint8_t> MemoryStub::read(uint64_t address, size_t length) const {
  std::vector<uint8_t> out(length);
  for (size_t i = 0; i < length; ++i) out[i] = byte(address + i);
  return out;
}

std::vector<MemoryStub::Access> MemoryStub::accesses(tlm::tlm_command command) const {
  std::vector<Access> out;
  for (const Access& a : log) {
    if (a.command == command) out.push_back(a);
  }
  return out;
}

bool MemoryStub::in_range(const tlm::tlm_generic_payload& gp) const {
  return gp.get_address() < size_bytes && gp.get_data_length() <= size_bytes - gp.get_address();
}

void MemoryStub::move(tlm::tlm_generic_payload& gp) {
  uint8_t* data = gp.get_data_ptr();
  if (gp.is_write()) {
    write(gp.get_address(), data, gp.get_data_length());
  } else if (gp.is_read()) {
    for (unsigned i = 0; i < gp.get_data_length(); ++i) data[i] = byte(gp.get_address() + i);
  }
}

void MemoryStub::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  log.push_back({gp.get_command(), gp.get_address(), gp.get_data_length(), dma_source_of(gp),
                 sc_core::sc_time_stamp() + delay});
  if (!in_range(gp)) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  move(gp);
  if (gp.is_read()) delay += read_latency;
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned MemoryStub::transport_dbg(int, tlm::tlm_generic_payload& gp) {
  if (!in_range(gp)) return 0;
  move(gp);
  return gp.get_data_length();
}

InitiatorStub::InitiatorStub(sc_core::sc_module_name name) : sc_module(name), isock("isock") {
  SC_HAS_PROCESS(InitiatorStub);
  SC_THREAD(run);
}

void InitiatorStub::run() {
  if (script) script();
  sc_core::wait(parked_);  // never returns: stubs.h says why
}

tlm::tlm_response_status InitiatorStub::transfer(tlm::tlm_command command, uint64_t address,
                                                 uint8_t* data, uint32_t length,
                                                 sc_core::sc_time& delay) {
  ScopedPayload gp(pool_);
  gp->set_command(command);
  gp->set_address(address);
  gp->set_data_ptr(data);
  gp->set_data_length(length);
  gp->set_streaming_width(length);
  gp->set_byte_enable_ptr(nullptr);
  gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  isock->b_transport(*gp, delay);
  return gp->get_response_status();
}

tlm::tlm_response_status InitiatorStub::write64(uint64_t address, uint64_t value,
                                                sc_core::sc_time& delay) {
  uint8_t bytes[8];
  put_le<uint64_t>(bytes, value);
  return transfer(tlm::TLM_WRITE_COMMAND, address, bytes, 8, delay);
}

unsigned InitiatorStub::debug(tlm::tlm_command command, uint64_t address, uint8_t* data,
                              uint32_t length) {
  ScopedPayload gp(pool_);
  gp->set_command(command);
  gp->set_address(address);
  gp->set_data_ptr(data);
  gp->set_data_length(length);
  gp->set_streaming_width(length);
  gp->set_byte_enable_ptr(nullptr);
  return isock->transport_dbg(*gp);
}

void run_simulation(const sc_core::sc_time& limit) {
  if (limit == sc_core::SC_ZERO_TIME) {
    sc_core::sc_start();
  } else {
    sc_core::sc_start(limit);
  }
  const std::vector<std::string> reports = take_reports();
  CHECK(reports.empty());
}

ContextStub::ContextStub(sc_core::sc_module_name name, const MemoryStub& memory,
                         const IcmLayout& icm)
    : sc_module(name), tsock("tsock", this), memory_(memory), icm_(icm) {}

void ContextStub::lookup(int, ContextRead& req, sc_core::sc_time&) {
  req.ok = false;
  if (req.kind == ContextKind::Qpc && req.qpc && req.index < icm_.qpc_entries) {
    *req.qpc = memory_.get<QpcEntry>(icm_.qpc_addr(req.index), kQpcEntryBytes);
    req.ok = true;
  } else if (req.kind == ContextKind::Cqc && req.cqc && req.index < icm_.cqc_entries) {
    *req.cqc = memory_.get<CqcEntry>(icm_.cqc_addr(req.index), kCqcEntryBytes);
    req.ok = true;
  }
  asked.push_back(req);
}

}  // namespace rnic::test
