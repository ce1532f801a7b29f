// SPDX-License-Identifier: Apache-2.0
// The MPT unit: keys, windows and regions. Reads MPT entries from the table in host memory
// through an on-chip table cache (util/table_cache.h; mpt.cache_entries, fully associative LRU,
// non-blocking: up to mpt.max_outstanding_misses entry reads in flight, hits under misses,
// merged misses), applies
// the rules of protection_rules.h, and writes entries back through the cache when a bind,
// fast-register or invalidate changes them. A generation register counts MPT changes (the
// driver's, through the context-change register, and its own), so a check made earlier can be
// confirmed by comparing generations instead of being made again (ProtectionOp::Recheck).
#pragma once

#include <functional>
#include <memory>
#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/instruments/decision_sink.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/device_clock.h"
#include "model/rnic/msg/engine_side.h"
#include "model/rnic/msg/messages.h"
#include "model/rnic/msg/protocols.h"
#include "model/rnic/protection/protection_datapath.h"
#include "model/rnic/util/table_cache.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"
#include "tlm/trace.h"

namespace rnic {

class ProtectionChecker : public sc_core::sc_module {
 public:
  // From the Requester and the Responder.
  ProtocolTargetSocket<ProtectionProtocol, ProtectionChecker> check_tsock;
  ProtocolTargetSocket<ContextChangeProtocol, ProtectionChecker> ctrl_tsock;  // context changes
  InitiatorSocket<ProtectionChecker> dma_isock;       // MPT table in host memory

  struct Config {
    MptConfig mpt;                                // mpt.*
    // protection.implementation: Rtl and Lockstep need use_unit() before the run.
    ProtectionImplementation implementation = ProtectionImplementation::Tlm;
    double clock_mhz = DeviceTiming{}.clock_mhz;  // device.clock_mhz
    bool fast = false;  // sim.fast: the check pipeline models no contention
  };
  // `clock`: the device's (null: one of its own, for a bench of this unit alone).
  ProtectionChecker(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm,
                    DeviceClock* clock = nullptr);
  StatGroup stats;
  void attach_trace(TraceSink* sink) { trace_.attach(sink, name(), &*device_); }
  // The RTL unit (a transactor, rtl_protection_datapath.h) that decides the checks in place of
  // the C++ rules (Rtl: its cycles replace mpt.check_cycles), or beside them (Lockstep: the
  // rules' answers and timing stand; the first divergence calls `diverged`, by default
  // sc_stop(): a platform that must wind its own threads down first passes its own).
  void use_unit(ProtectionDatapath* unit, std::function<void()> diverged = nullptr);
  // Lockstep: the first divergence (null: none), and when it happened.
  const DatapathDivergence* first_divergence() const {
    return lockstep_ ? lockstep_->first() : nullptr;
  }
  sc_core::sc_time divergence_time() const { return divergence_time_; }
  // Every check it decides goes to `sink` (coverage; null: off).
  void attach_decisions(DecisionSink* sink, uint32_t node) {
    decisions_ = sink;
    decision_node_ = node;
  }

 private:
  // Protocol targets (msg/protocols.h).
  void check(int caller, ProtectionRequest& req, sc_core::sc_time& delay);
  void context_changed(int caller, ContextChange& change, sc_core::sc_time& delay);
  template <typename> friend struct ProtectionProtocol::forward;
  template <typename> friend struct ContextChangeProtocol::forward;
  // The entry at `index` (from the cache, or read from host memory); null if unreadable.
  MptEntry* fetch(uint32_t index, EngineSide side, sc_core::sc_time& delay);
  bool write_back(uint32_t index, const MptEntry& entry, sc_core::sc_time& delay);
  Decision handle(ProtectionRequest& req, sc_core::sc_time& delay);
  Decision decide(DatapathCall& call) {
    if (datapath_ == &rules_) return rules_.decide(call);  // the default: a direct call
    const Decision decision = datapath_->decide(call);
    unit_cycles_ += datapath_->last_cycles();
    ++unit_calls_;
    return decision;
  }
  void recheck(ProtectionRequest& req, sc_core::sc_time& delay);

  IcmLayout icm_;
  Clock clock_;
  sc_core::sc_time one_cycle_;
  PipelineStage check_stage_;
  PayloadPool pool_;
  // One register for the whole table: any change makes every earlier check due again (a
  // per-entry stamp would spare unrelated regions; timing only, docs/limits.md).
  uint64_t generation_ = 1;
  TraceTrack trace_;
  Counter& checks_;
  Counter& failures_;
  Counter& binds_;
  Counter& invalidates_;
  Counter& rechecks_;
  Counter& rechecks_changed_;
  TableCache<MptEntry> cache_;  // after the counters above: its statistics come next
  // Decisions by the rule that decided them (by RuleId; null for rules this unit never
  // decides): "decided.R5.read.resp.tag".
  std::vector<Counter*> decided_;
  DecisionSink* decisions_ = nullptr;
  uint32_t decision_node_ = 0;
  // The entries the current check read, kept only while a sink is attached (DecisionRecord).
  MptEntry seen_object_;
  MptEntry seen_parent_;
  bool seen_has_parent_ = false;
  void note_object(ProtectionRequest& req, const MptEntry& entry);
  void note_parent(const MptEntry& parent) {
    if (!decisions_) return;
    seen_parent_ = parent;
    seen_has_parent_ = true;
  }
  void report(const ProtectionRequest& req, const Decision& decision);
  ClockRef device_;  // the device's time (device_clock.h)
  // What decides (protection_datapath.h): the rules, the RTL unit, or both in lockstep.
  ProtectionImplementation implementation_;
  uint32_t check_cycles_;
  RulesDatapath rules_;
  ProtectionDatapath* datapath_ = &rules_;
  std::unique_ptr<LockstepDatapath> lockstep_;
  sc_core::sc_time divergence_time_;
  uint32_t unit_cycles_ = 0;  // the unit's cycles in the current check
  uint32_t unit_calls_ = 0;   // and its passes through the unit
  Counter* unit_checks_ = nullptr;     // Rtl: checks the RTL decided
  Counter* unit_cycles_total_ = nullptr;
  Counter* unit_bad_answers_ = nullptr;
  Counter* lockstep_compared_ = nullptr;  // Lockstep
  Counter* lockstep_diverged_ = nullptr;
};

}  // namespace rnic
