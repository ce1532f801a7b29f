// SPDX-License-Identifier: Apache-2.0
// Reusable stubs for driving one unit alone through its TLM sockets: a memory target that
// serves bytes from a sparse map and records every transaction, a message sink that records
// the MessageExtension<T> messages it receives (and may answer them), and an initiator that
// runs a script in its own SC_THREAD. A test bench owns the unit plus these stubs.
#pragma once

#include "model/rnic/abi/icm.h"
#include "model/rnic/msg/context.h"
#include "model/rnic/msg/dma.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "tlm/extensions.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"

namespace rnic::test {

// Value of the counter `name` in `group`; UINT64_MAX (which no test expects) if absent.
uint64_t counter(const StatGroup& group, const std::string& name);

// Host memory as seen by a DMA master: bytes in a sparse map (never-written bytes come from
// `pattern`, zero by default), every transaction recorded. A multi-passthrough target, so
// several initiators may share it.
class MemoryStub : public sc_core::sc_module {
 public:
  struct Access {
    tlm::tlm_command command;
    uint64_t address;
    uint32_t length;
    DmaSource source;
    sc_core::sc_time at;  // simulation time + annotated delay when the request arrived
  };

  SharedTargetSocket<MemoryStub> tsock;
  std::vector<Access> log;
  uint64_t size_bytes = UINT64_MAX;  // accesses reaching this address get an address error
  sc_core::sc_time read_latency = sc_core::SC_ZERO_TIME;  // added to every read's delay
  std::function<uint8_t(uint64_t)> pattern;               // bytes never written

  explicit MemoryStub(sc_core::sc_module_name name);

  void write(uint64_t address, const void* data, size_t length);
  std::vector<uint8_t> read(uint64_t address, size_t length) const;
  uint8_t byte(uint64_t address) const;
  // Encodes a table entry / WQE / CQE (anything with encode(uint8_t*)) of `bytes` bytes.
  template <typename Entry>
  void put(uint64_t address, const Entry& entry, size_t bytes) {
    std::vector<uint8_t> raw(bytes);
    entry.encode(raw.data());
    write(address, raw.data(), bytes);
  }
  template <typename Entry>
  Entry get(uint64_t address, size_t bytes) const {
    const std::vector<uint8_t> raw = read(address, bytes);
    return Entry::decode(raw.data());
  }
  // Recorded transactions of one command (and optionally one source).
  std::vector<Access> accesses(tlm::tlm_command command) const;
  size_t count(tlm::tlm_command command) const { return accesses(command).size(); }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
  bool in_range(const tlm::tlm_generic_payload& gp) const;
  void move(tlm::tlm_generic_payload& gp);

  std::map<uint64_t, uint8_t> bytes_;
};

// Records every message of type T it receives (a copy, with its arrival time = simulation
// time + annotated delay, and the index of the binding it came through). `on_message` may
// answer in place (set a status, fill a translation) and add to the delay before the copy is
// taken. Payloads without a T get TLM_GENERIC_ERROR_RESPONSE.
template <typename T>
class MessageSink : public sc_core::sc_module {
 public:
  struct Received {
    T message;
    sc_core::sc_time at;
    int id;
  };

  SharedTargetSocket<MessageSink> tsock;
  std::vector<Received> received;
  std::function<void(T&, sc_core::sc_time&)> on_message;
  tlm::tlm_response_status response = tlm::TLM_OK_RESPONSE;

  explicit MessageSink(sc_core::sc_module_name name) : sc_module(name), tsock("tsock") {
    tsock.register_b_transport(this, &MessageSink::b_transport);
  }
  size_t size() const { return received.size(); }
  const T& operator[](size_t i) const { return received.at(i).message; }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    T* message = message_of<T>(gp);
    if (!message) {
      gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
    if (on_message) on_message(*message, delay);
    received.push_back({*message, at, id});
    gp.set_response_status(response);
  }
};

// An initiator whose SC_THREAD runs `script` (if set) from time zero. The helpers may only be
// called from that script (or another SystemC thread): the unit behind may call wait().
class InitiatorStub : public sc_core::sc_module {
 public:
  InitiatorSocket<InitiatorStub> isock;
  std::function<void()> script;

  explicit InitiatorStub(sc_core::sc_module_name name);

  // Sends `message` in a MessageExtension; returns the response status.
  template <typename T>
  tlm::tlm_response_status send(T& message, sc_core::sc_time& delay) {
    return send_message(pool_, isock, message, delay);
  }
  template <typename T>
  tlm::tlm_response_status send(T& message) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    return send(message, delay);
  }
  // A plain READ/WRITE transaction; returns its response status.
  tlm::tlm_response_status transfer(tlm::tlm_command command, uint64_t address, uint8_t* data,
                                    uint32_t length, sc_core::sc_time& delay);
  // A 64-bit little-endian register write (MMIO).
  tlm::tlm_response_status write64(uint64_t address, uint64_t value, sc_core::sc_time& delay);
  tlm::tlm_response_status write64(uint64_t address, uint64_t value) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    return write64(address, value, delay);
  }
  // transport_dbg of a READ/WRITE; returns the bytes moved.
  unsigned debug(tlm::tlm_command command, uint64_t address, uint8_t* data, uint32_t length);

 private:
  void run();
  PayloadPool pool_;
};

// Runs the simulation until no activity is left (or `limit`) and fails the running test on
// any SystemC warning or error reported meanwhile.
void run_simulation(const sc_core::sc_time& limit = sc_core::SC_ZERO_TIME);

// The device tables of a unit test bench: small, so a stub memory holds them cheaply.
// The QP-context unit's place for a unit under test: answers every ContextRead from the
// table in `memory` at once, without caching (a test changes an entry by writing memory).
class ContextStub : public sc_core::sc_module {
 public:
  SharedTargetSocket<ContextStub> tsock;
  std::vector<ContextRead> asked;  // every lookup, in order

  ContextStub(sc_core::sc_module_name name, const MemoryStub& memory, const IcmLayout& icm);

 private:
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  const MemoryStub& memory_;
  IcmLayout icm_;
};

inline IcmLayout small_icm() {
  QpConfig limits;
  limits.max_mpt_entries = 16;
  limits.max_mtt_entries = 64;
  limits.max_qps = 8;
  limits.max_cqs = 8;
  return IcmLayout::from(limits);
}

}  // namespace rnic::test
