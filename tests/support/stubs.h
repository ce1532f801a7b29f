// SPDX-License-Identifier: Apache-2.0
// Reusable stubs for driving one unit alone through its TLM sockets: a memory target that
// serves bytes from a sparse map and records every transaction, a message sink that records
// the messages of one unit protocol it receives (and may answer them), and initiators (a
// generic-payload one, a protocol one) that run a script in their own SC_THREAD. A test bench
// owns the unit plus these stubs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <systemc>
#include <tlm>

#include "model/instruments/dma_bench.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/msg/context.h"
#include "model/rnic/msg/dma.h"
#include "model/rnic/msg/protocols.h"
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

// The protocol a message of type T travels on, unless a test names another (a Packet is on
// chip by default; WireProtocol off chip. A Doorbell to a receive or send queue by default;
// CompletionControlProtocol to the completion engine).
template <typename T> struct DefaultProtocol;
template <> struct DefaultProtocol<Doorbell> { using type = DoorbellProtocol; };
template <> struct DefaultProtocol<InterruptVector> { using type = CompletionControlProtocol; };
template <> struct DefaultProtocol<ContextChange> { using type = ContextChangeProtocol; };
template <> struct DefaultProtocol<ContextRead> { using type = ContextLookupProtocol; };
template <> struct DefaultProtocol<WorkRequest> { using type = WorkProtocol; };
template <> struct DefaultProtocol<SendQueueReady> { using type = ReadyProtocol; };
template <> struct DefaultProtocol<QpErrorEvent> { using type = QpEventProtocol; };
template <> struct DefaultProtocol<ProtectionRequest> { using type = ProtectionProtocol; };
template <> struct DefaultProtocol<TranslateRequest> { using type = TranslationProtocol; };
template <> struct DefaultProtocol<PageListLoad> { using type = TranslationProtocol; };
template <> struct DefaultProtocol<DmaRequest> { using type = DataMoveProtocol; };
template <> struct DefaultProtocol<CompletionRecord> { using type = CompletionProtocol; };
template <> struct DefaultProtocol<Packet> { using type = PacketProtocol; };
template <> struct DefaultProtocol<DmaBenchRequest> { using type = DmaBenchProtocol; };

// Calls the operation of `Protocol` that carries a T.
template <typename Protocol, typename T>
void call(typename Protocol::fw_if& target, T& m, sc_core::sc_time& delay) {
  if constexpr (std::is_same_v<T, Doorbell>) target.ring(m, delay);
  else if constexpr (std::is_same_v<T, InterruptVector>) target.set_interrupt_vector(m, delay);
  else if constexpr (std::is_same_v<T, ContextChange>) target.context_changed(m, delay);
  else if constexpr (std::is_same_v<T, ContextRead>) target.lookup(m, delay);
  else if constexpr (std::is_same_v<T, WorkRequest>) target.work(m, delay);
  else if constexpr (std::is_same_v<T, SendQueueReady>) target.ready(m, delay);
  else if constexpr (std::is_same_v<T, QpErrorEvent>) target.qp_error(m, delay);
  else if constexpr (std::is_same_v<T, ProtectionRequest>) target.check(m, delay);
  else if constexpr (std::is_same_v<T, TranslateRequest>) target.translate(m, delay);
  else if constexpr (std::is_same_v<T, PageListLoad>) target.load_page_list(m, delay);
  else if constexpr (std::is_same_v<T, DmaRequest>) target.move(m, delay);
  else if constexpr (std::is_same_v<T, CompletionRecord>) target.complete(m, delay);
  else if constexpr (std::is_same_v<T, DmaBenchRequest>) target.run(m, delay);
  else if constexpr (std::is_same_v<Protocol, WireProtocol>) target.frame(m, delay);
  else target.packet(m, delay);
}

// Records every message of type T it receives on `Protocol` (a copy, with its arrival time =
// simulation time + annotated delay, and the caller's index in binding order). `on_message`
// may answer in place (set a status, fill a translation) and add to the delay before the copy
// is taken. The protocol's other operations (a translation sink's page-list loads) are
// counted in `others` and left unanswered.
template <typename T, typename Protocol = typename DefaultProtocol<T>::type>
class MessageSink : public sc_core::sc_module {
 public:
  struct Received {
    T message;
    sc_core::sc_time at;
    int id;
  };

  ProtocolTargetSocket<Protocol, MessageSink> tsock;
  std::vector<Received> received;
  size_t others = 0;
  std::function<void(T&, sc_core::sc_time&)> on_message;

  explicit MessageSink(sc_core::sc_module_name name) : sc_module(name), tsock("tsock", this) {}
  size_t size() const { return received.size(); }
  const T& operator[](size_t i) const { return received.at(i).message; }

  // Every operation name of the unit protocols (msg/protocols.h): the protocol's forwarder
  // calls those it has.
  template <typename M> void ring(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void set_interrupt_vector(int id, M& m, sc_core::sc_time& d) {
    take(id, m, d);
  }
  template <typename M> void context_changed(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void lookup(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void work(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void ready(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void qp_error(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void check(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void translate(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void load_page_list(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void move(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void complete(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void packet(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void frame(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }
  template <typename M> void run(int id, M& m, sc_core::sc_time& d) { take(id, m, d); }

 private:
  template <typename M>
  void take(int id, M& message, sc_core::sc_time& delay) {
    if constexpr (std::is_same_v<M, T>) {
      const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
      if (on_message) on_message(message, delay);
      received.push_back({message, at, id});
    } else {
      ++others;
    }
  }
};

// An initiator of generic payloads (MMIO, memory) whose SC_THREAD runs `script` (if set) from
// time zero. The helpers may only be called from that script (or another SystemC thread): the
// unit behind may call wait(). After the script the thread waits for good on an event nobody
// notifies instead of returning: a SystemC thread that returns can leave AddressSanitizer's
// idea of the main stack on its freed coroutine stack (SystemC's fiber annotations), and the
// sanitizer pass's leak check then dies scanning it ("Tracer caught signal 11").
class InitiatorStub : public sc_core::sc_module {
 public:
  InitiatorSocket<InitiatorStub> isock;
  std::function<void()> script;

  explicit InitiatorStub(sc_core::sc_module_name name);

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
  sc_core::sc_event parked_;
};

// A test's own thread: sc_spawn of `body`, which then waits for good on `parked` instead of
// returning (InitiatorStub says why). `parked` must outlive the simulation run.
inline void spawn_parked(sc_core::sc_event& parked, std::function<void()> body) {
  sc_core::sc_spawn([&parked, body] {
    body();
    sc_core::wait(parked);
  });
}

// An initiator of one unit protocol whose SC_THREAD runs `script` (if set) from time zero;
// send() calls the protocol's operation for the message's type.
template <typename Protocol>
class SenderStub : public sc_core::sc_module {
 public:
  ProtocolInitiatorSocket<Protocol> isock;
  std::function<void()> script;

  explicit SenderStub(sc_core::sc_module_name name) : sc_module(name), isock("isock") {
    SC_HAS_PROCESS(SenderStub);
    SC_THREAD(run);
  }
  template <typename T>
  void send(T& message, sc_core::sc_time& delay) {
    call<Protocol>(*isock.operator->(), message, delay);
  }
  template <typename T>
  void send(T& message) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    send(message, delay);
  }

 private:
  void run() {
    if (script) script();
    sc_core::wait(parked_);  // never returns (InitiatorStub says why)
  }
  sc_core::sc_event parked_;
};

// Runs the simulation until no activity is left (or `limit`) and fails the running test on
// any SystemC warning or error reported meanwhile.
void run_simulation(const sc_core::sc_time& limit = sc_core::SC_ZERO_TIME);

// The device tables of a unit test bench: small, so a stub memory holds them cheaply.
// The QP-context unit's place for a unit under test: answers every ContextRead from the
// table in `memory` at once, without caching (a test changes an entry by writing memory).
class ContextStub : public sc_core::sc_module {
 public:
  ProtocolTargetSocket<ContextLookupProtocol, ContextStub> tsock;
  std::vector<ContextRead> asked;  // every lookup, in order

  ContextStub(sc_core::sc_module_name name, const MemoryStub& memory, const IcmLayout& icm);
  void lookup(int caller, ContextRead& req, sc_core::sc_time& delay);

 private:
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
