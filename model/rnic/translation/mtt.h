// SPDX-License-Identifier: Apache-2.0
// Memory translation table: virtual pages of a region -> physical pages. The table lives in
// host memory (8-byte entries); a set-associative LRU table cache (util/table_cache.h;
// mtt.cache_entries x ways) sits in front, and a miss reads one aligned line of entries
// (mtt.entries_per_fetch) by DMA, or, with mtt.walk_ns, is an IOMMU's page walk of that
// time beside host memory. The cache is non-blocking: up to mtt.max_outstanding_misses
// line reads in flight, hits under misses, and a lookup of a line already being read waits
// for that read (merged). The address arithmetic is the page walk's (page_walk.h).
// Fast-register loads a page array from host memory into the table (write-through).
#pragma once

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/instruments/decision_sink.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/device_clock.h"
#include "model/rnic/msg/engine_side.h"
#include "model/rnic/msg/messages.h"
#include "model/rnic/msg/protocols.h"
#include "model/rnic/util/table_cache.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"
#include "tlm/trace.h"

namespace rnic {

class Mtt : public sc_core::sc_module {
 public:
  // From the Requester, the Responder and the DmaBench (translated benchmark reads).
  ProtocolTargetSocket<TranslationProtocol, Mtt> xlate_tsock;
  // Context changes (MTT ranges rewritten).
  ProtocolTargetSocket<ContextChangeProtocol, Mtt> ctrl_tsock;
  InitiatorSocket<Mtt> dma_isock;       // MTT table in host memory

  struct Config {
    MttConfig mtt;                                // mtt.*
    double clock_mhz = DeviceTiming{}.clock_mhz;  // device.clock_mhz
    bool fast = false;  // sim.fast: the lookup pipeline models no contention
  };
  // `clock`: the device's (null: one of its own, for a bench of this unit alone).
  Mtt(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm,
      DeviceClock* clock = nullptr);
  StatGroup stats;
  void attach_trace(TraceSink* sink) { trace_.attach(sink, name(), &*device_); }
  // A fast-register's last check, the page list's alignment, goes to `sink` (coverage).
  void attach_decisions(DecisionSink* sink, uint32_t node) {
    decisions_ = sink;
    decision_node_ = node;
  }

 private:
  // Protocol targets (msg/protocols.h).
  void translate(int caller, TranslateRequest& req, sc_core::sc_time& delay);
  void load_page_list(int caller, PageListLoad& load, sc_core::sc_time& delay);
  void context_changed(int caller, ContextChange& change, sc_core::sc_time& delay);
  template <typename> friend struct TranslationProtocol::forward;
  template <typename> friend struct ContextChangeProtocol::forward;
  // `asker`: the caller's index, whose cache statistics count the lookups.
  bool translate_range(TranslateRequest& req, uint32_t asker, sc_core::sc_time& delay);
  bool load_pages(PageListLoad& req, sc_core::sc_time& delay);
  // Entry `index` for a lookup leaving the pipeline at `at_ps` (the unit's time being
  // `now_ps`); `at_ps` grows to when the entry is on chip (a miss or a merged miss).
  bool entry(uint32_t index, uint32_t asker, uint64_t now_ps, uint64_t* phys, uint64_t& at_ps);
  // The bytes of a walk (mtt.walk_ns), through the debug path: no time, no TLP.
  bool read_line_functional(uint64_t addr, uint32_t length);

  IcmLayout icm_;
  Clock clock_;
  PipelineStage lookup_stage_;
  MttConfig config_;
  uint64_t walk_ps_ = 0;  // mtt.walk_ns; 0: misses read their line by DMA
  PayloadPool pool_;
  std::vector<uint8_t> line_;
  TraceTrack trace_;
  Counter& translations_;
  Counter& pages_;
  TableCache<uint64_t> cache_;  // physical page addresses; its statistics come here
  Counter& faults_;
  Counter& page_align_refusals_;  // decided.R5.fr.page_align
  DecisionSink* decisions_ = nullptr;
  uint32_t decision_node_ = 0;
  ClockRef device_;  // the device's time (device_clock.h)
};

}  // namespace rnic
