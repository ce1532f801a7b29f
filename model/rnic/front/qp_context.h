// SPDX-License-Identifier: Apache-2.0
// The QP-context unit: the one on-chip cache of QP and CQ contexts (QPC, CQC) that the WQE
// fetcher, the responder and the completion engine ask through a socket (the requester gets
// the context with each WQE from the fetcher).
// Each table has a bounded, set-associative LRU cache that is non-blocking (miss-status
// registers, hits under misses, merged misses); a miss reads the entry from its table in host
// memory (ICM) by DMA. A context change from the driver drops the entry.
//
// Every unit that asks goes on to change the running state of what it asked for (a fetch
// index, a PSN, a producer index), so every line is dirty by the time it is evicted: an
// eviction writes the entry's running-state words back by a posted DMA write
// (context.write_back). The live values stay in the engines, so the write carries the words
// as the fill read them: its cost is modelled, its values are not (docs/limits.md).
#pragma once

#include <array>
#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/msg/context.h"
#include "model/rnic/msg/dma.h"
#include "model/rnic/msg/messages.h"
#include "model/rnic/util/non_blocking_cache.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"
#include "tlm/trace.h"

namespace rnic {

class QpContext : public sc_core::sc_module {
 public:
  SharedTargetSocket<QpContext> lookup_tsock;  // ContextRead from the four engines
  TargetSocket<QpContext> ctrl_tsock;          // context changes
  InitiatorSocket<QpContext> dma_isock;        // QPC and CQC tables in host memory

  struct Config {
    QpContextConfig context;                     // qpc.*, cqc.*, context.lookup_cycles
    double clock_mhz = DeviceTiming{}.clock_mhz;  // device.clock_mhz
  };
  QpContext(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm);
  StatGroup stats;
  // Context loads (misses) as named slices on this unit's track.
  void attach_trace(TraceSink* sink) { trace_.attach(sink, name()); }

 private:
  // The statistics of one table (QPC or CQC), and the names of its slices on the trace.
  struct TableStats {
    const char* load_slice = nullptr;
    const char* write_back_slice = nullptr;
    DmaTable table = DmaTable::Qpc;  // which table its DMAs touch
    std::array<Counter*, kContextRoles> hits{};
    std::array<Counter*, kContextRoles> misses{};
    std::array<Counter*, kContextRoles> merged{};
    Counter* evictions = nullptr;
    Counter* write_backs = nullptr;
    Counter* register_stall_ps = nullptr;
    Histogram* miss_fill = nullptr;
    Occupancy* in_flight = nullptr;
  };
  void lookup_b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  // The entry `req.index` of the table at `base` in host memory, as seen at now + `delay`;
  // `delay` grows to when it is on chip. False if the table read failed.
  template <typename Entry, uint32_t kBytes>
  bool read(NonBlockingCache<Entry>& cache, TableStats& table, uint64_t base,
            const ContextRead& req, Entry* out, sc_core::sc_time& delay);
  TableStats declare(const char* table, const char* size_param);

  // Posts the running state of `victim`, evicted at `at`, back to its table entry `index`
  // at `addr`.
  template <typename Entry>
  void write_back(const Entry& victim, uint32_t index, uint64_t addr, TableStats& table,
                  sc_core::sc_time at, uint64_t trace_id);

  IcmLayout icm_;
  bool write_back_;
  Clock clock_;
  sc_core::sc_time lookup_latency_;
  PayloadPool pool_;
  NonBlockingCache<QpcEntry> qpc_;
  NonBlockingCache<CqcEntry> cqc_;
  TraceTrack trace_;
  TableStats qpc_stats_;
  TableStats cqc_stats_;
};

}  // namespace rnic
