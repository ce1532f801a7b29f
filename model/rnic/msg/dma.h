// SPDX-License-Identifier: Apache-2.0
// DMA to host memory: plain READ/WRITE payloads with a DmaExtension naming the device unit
// that issued them (statistics, the protection monitor, traces) and the authority of the
// request the DMA serves (the protection monitor checks the DMA against exactly that).
#pragma once

#include <cstdint>

#include <tlm>

#include "model/rnic/abi/rules.h"
#include "tlm/payload_pool.h"

namespace rnic {

// Which device unit issued a DMA (statistics, protection monitor, traces).
enum class DmaSource : uint8_t {
  Unknown = 0,
  WqeFetch,
  MptTable,
  MttTable,
  ContextTable,
  ReadData,    // responder reading a source buffer
  WriteData,   // requester landing read-response data
  Completion,
  Dma,         // dma_bench probes
  Interrupt,   // MSI-X message of the completion engine, to the host's MSI window
};

// A device table in host memory (abi/icm.h).
enum class DmaTable : uint8_t { Mpt, Mtt, Qpc, Cqc };

// On whose behalf a DMA moves: what the request it serves named and was checked for. The unit
// that decided the request fills it; it rides the DMA by pointer (no copy, no allocation) and
// lives until the DMA returns. The device never reads it: it is what an independent checker
// needs to hold the DMA to that request and nothing wider (R6.no_touch).
struct DmaAuthority {
  enum class Kind : uint8_t {
    None,          // no request: dma_bench probes, interrupt messages
    Data,          // a buffer the request's token names
    SendQueue,     // WQEs of QP `qpn`
    ReceiveQueue,  // receive WQEs of QP `qpn`
    Completion,    // CQEs of CQ `number`
    PageList,      // fast-register: page array reads, then the MR's MTT entries
    Table,         // entries [number, number + count) of `table`
  };
  Kind kind = Kind::None;
  CheckList checks = CheckList::ReadSink;  // Data: the checks the request passed
  RequestVerb verb = RequestVerb::Read;    // Data, PageList: what the request is doing
  DmaTable table = DmaTable::Mpt;          // Table
  uint16_t access = 0;  // Data: MptAccess bits the direction needs
  uint32_t token = 0;   // Data: the token named (SGE or packet); PageList: the MR's
  uint32_t pd = 0;      // Data, PageList: the PD of the QP serving the request
  uint32_t qpn = 0;     // the QP serving the request (queues: the QP of the ring)
  uint32_t number = 0;  // Completion: CQ; Table: first entry; PageList: page count
  uint32_t count = 1;   // Table: entries
  uint64_t va = 0;      // Data: start the request named (zero-based window: an offset);
                        // PageList: the page array's address
  uint64_t length = 0;  // Data: bytes the request was checked for
  uint64_t trace_id = 0;

  static DmaAuthority of_table(DmaTable table, uint32_t index, uint32_t count = 1) {
    DmaAuthority a;
    a.kind = Kind::Table;
    a.table = table;
    a.number = index;
    a.count = count;
    return a;
  }
  static DmaAuthority of_queue(Kind kind, uint32_t qpn, uint64_t trace_id = 0) {
    DmaAuthority a;
    a.kind = kind;
    a.qpn = qpn;
    a.trace_id = trace_id;
    return a;
  }
  static DmaAuthority of_completion(uint32_t cqn, uint64_t trace_id = 0) {
    DmaAuthority a;
    a.kind = Kind::Completion;
    a.number = cqn;
    a.trace_id = trace_id;
    return a;
  }
};

class DmaExtension : public tlm::tlm_extension<DmaExtension> {
 public:
  DmaSource source = DmaSource::Unknown;
  const DmaAuthority* authority = nullptr;  // null: none stated
  uint64_t offset = 0;  // Data: this DMA's first byte, counted from the authority's `va`

  tlm::tlm_extension_base* clone() const override {
    auto* copy = new DmaExtension;
    copy->copy_from(*this);
    return copy;
  }
  void copy_from(const tlm::tlm_extension_base& other) override {
    const auto& o = static_cast<const DmaExtension&>(other);
    source = o.source;
    authority = o.authority;
    offset = o.offset;
  }
};

inline DmaSource dma_source_of(tlm::tlm_generic_payload& gp) {
  DmaExtension* ext = nullptr;
  gp.get_extension(ext);
  return ext ? ext->source : DmaSource::Unknown;
}

// One DMA transaction to host memory on behalf of `authority` (null: none), its bytes from
// `offset` of the authority's range. Returns false on an error response.
template <typename Socket>
bool dma_transfer(PayloadPool& pool, Socket& socket, tlm::tlm_command command, uint64_t address,
                  uint8_t* data, uint32_t length, DmaSource source,
                  const DmaAuthority* authority, sc_core::sc_time& delay, uint64_t offset = 0) {
  ScopedPayload gp(pool);
  DmaExtension ext;
  ext.source = source;
  ext.authority = authority;
  ext.offset = offset;
  gp->set_extension(&ext);
  gp->set_command(command);
  gp->set_address(address);
  gp->set_data_ptr(data);
  gp->set_data_length(length);
  gp->set_streaming_width(length);
  gp->set_byte_enable_ptr(nullptr);
  gp->set_dmi_allowed(false);
  gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  socket->b_transport(*gp, delay);
  gp->clear_extension(&ext);
  return gp->is_response_ok();
}

}  // namespace rnic
