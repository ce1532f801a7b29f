// SPDX-License-Identifier: Apache-2.0
// The QP-context unit: the one on-chip cache of QP and CQ contexts (QPC, CQC) that the WQE
// fetcher, the responder and the completion engine ask through a socket (the requester gets
// the context with each WQE from the fetcher).
// Each table has a table cache (util/table_cache.h: bounded, set-associative LRU, miss-status
// registers, hits under misses, merged misses); a miss reads the entry from its table in host
// memory (ICM) by DMA. A context change from the driver drops the entry.
//
// Every unit that asks goes on to change the running state of what it asked for (a fetch
// index, a PSN, a producer index), so every line is dirty by the time it is evicted: an
// eviction writes the entry's running-state words back by a posted DMA write
// (context.write_back). The live values stay in the engines, so the write carries the words
// as the fill read them: its cost is modelled, its values are not (docs/limits.md).
#pragma once

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/device_clock.h"
#include "model/rnic/msg/context.h"
#include "model/rnic/msg/dma.h"
#include "model/rnic/msg/messages.h"
#include "model/rnic/msg/protocols.h"
#include "model/rnic/util/table_cache.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"
#include "tlm/trace.h"

namespace rnic {

class QpContext : public sc_core::sc_module {
 public:
  // Context lookups from the fetcher, the responder and the completion engine, bound in that
  // order (ContextRole): the caller's index is its role, which the statistics count by.
  ProtocolTargetSocket<ContextLookupProtocol, QpContext> lookup_tsock;
  ProtocolTargetSocket<ContextChangeProtocol, QpContext> ctrl_tsock;  // context changes
  InitiatorSocket<QpContext> dma_isock;        // QPC and CQC tables in host memory

  struct Config {
    QpContextConfig context;                     // qpc.*, cqc.*, context.lookup_cycles
    double clock_mhz = DeviceTiming{}.clock_mhz;  // device.clock_mhz
  };
  // `clock`: the device's (null: one of its own, for a bench of this unit alone).
  QpContext(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm,
            DeviceClock* clock = nullptr);
  StatGroup stats;
  // Context loads (misses) as named slices on this unit's track.
  void attach_trace(TraceSink* sink) { trace_.attach(sink, name(), &*device_); }

 private:
  // What the DMAs and the trace of one table (QPC or CQC) name.
  struct Table {
    DmaTable table = DmaTable::Qpc;
    uint64_t base = 0;  // its first entry in host memory
    const char* load_slice = nullptr;
    const char* write_back_slice = nullptr;
  };
  // Protocol targets (msg/protocols.h).
  void lookup(int caller, ContextRead& req, sc_core::sc_time& delay);
  void context_changed(int caller, ContextChange& change, sc_core::sc_time& delay);
  template <typename> friend struct ContextLookupProtocol::forward;
  template <typename> friend struct ContextChangeProtocol::forward;
  // The entry `req.index` of `table`, as seen at now + `delay`; `delay` grows to when it is
  // on chip. False if the table read failed.
  template <typename Entry, uint32_t kBytes>
  bool read(TableCache<Entry>& cache, const Table& table, ContextRole role, const ContextRead& req,
            Entry* out, sc_core::sc_time& delay);
  // Posts the running state of `victim`, evicted at `at_ps`, back to its table entry `index`.
  template <typename Entry, uint32_t kBytes>
  void write_back(const Entry& victim, uint64_t index, const Table& table, uint64_t at_ps,
                  uint64_t trace_id);

  IcmLayout icm_;
  Clock clock_;
  sc_core::sc_time lookup_latency_;
  PayloadPool pool_;
  TableCache<QpcEntry> qpc_;
  TableCache<CqcEntry> cqc_;
  Table qpc_table_;
  Table cqc_table_;
  TraceTrack trace_;
  ClockRef device_;  // the device's time (device_clock.h)
};

}  // namespace rnic
