// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/protection/protection_checker.h"

#include "model/rnic/protection/protection_rules.h"
#include "model/rnic/protection/seeded_bug.h"

namespace rnic {

namespace {

TableCache<MptEntry>::Config mpt_cache_config(const MptConfig& mpt) {
  TableCache<MptEntry>::Config c;
  c.entries = mpt.cache_entries;
  c.ways = mpt.cache_entries;  // fully associative
  c.miss_registers = mpt.max_outstanding_misses;
  return c;
}

// Askers by EngineSide.
TableCacheLabels mpt_cache_labels() {
  TableCacheLabels l;
  l.askers = {engine_side_name(EngineSide::Requester), engine_side_name(EngineSide::Responder)};
  l.all_hits = {"mpt_hits", "MPT cache hits"};
  l.all_misses = {"mpt_misses", "MPT cache misses (a DMA read each)"};
  l.all_merged = {"mpt_merged", "lookups of an entry whose read was in flight: no read of their own"};
  l.hits = {"mpt_hits_{asker}", "MPT cache hits asked by the {asker}"};
  l.misses = {"mpt_misses_{asker}", "MPT cache misses asked by the {asker} (a DMA read each)"};
  l.merged = {"mpt_merged_{asker}", "MPT cache lookups by the {asker} merged into a read in flight"};
  l.stall = {"miss_register_stall_ps", "time misses waited for a free miss-status register"};
  l.fill = {"miss_fill_ns", "MPT cache miss: the DMA read of its entry"};
  l.in_flight = {"misses_outstanding", "entry reads in flight (at most mpt.max_outstanding_misses)"};
  return l;
}

}  // namespace

ProtectionChecker::ProtectionChecker(sc_core::sc_module_name name, const Config& config,
                                     const IcmLayout& icm, DeviceClock* clock)
    : sc_module(name),
      check_tsock("check_tsock", this),
      ctrl_tsock("ctrl_tsock", this),
      dma_isock("dma_isock"),
      stats(std::string(this->name())),
      icm_(icm),
      clock_(config.clock_mhz),
      one_cycle_(clock_.cycles(1)),
      check_stage_(clock_, config.mpt.check_cycles, config.mpt.check_ii_cycles),
      checks_(stats.add("checks", "requests", "protection checks and binds")),
      failures_(stats.add("failures", "requests", "checks that failed")),
      binds_(stats.add("binds", "requests", "successful window binds")),
      invalidates_(stats.add("invalidates", "requests", "successful invalidations")),
      rechecks_(stats.add("rechecks", "requests",
                          "generation compares confirming earlier checks (read data landing)")),
      rechecks_changed_(stats.add("rechecks_changed", "requests",
                                  "rechecks that found the MPT changed: checked again in full")),
      cache_(mpt_cache_config(config.mpt), stats, mpt_cache_labels()),
      device_(clock),
      implementation_(config.implementation),
      check_cycles_(config.mpt.check_cycles) {
  check_stage_.set_contention(!config.fast);
  if (implementation_ == ProtectionImplementation::Rtl) {
    unit_checks_ = &stats.add("rtl_checks", "requests",
                              "checks the RTL unit decided (a token naming no entry never "
                              "reaches it)");
    unit_cycles_total_ =
        &stats.add("rtl_cycles", "cycles",
                   "RTL unit cycles, request accepted to response (replacing mpt.check_cycles)");
    unit_bad_answers_ =
        &stats.add("rtl_bad_answers", "requests",
                   "RTL answers taken as LocalQpOperation failures: no response in 10,000 "
                   "cycles, or a status or rule the pin contract lacks");
  } else if (implementation_ == ProtectionImplementation::Lockstep) {
    lockstep_compared_ = &stats.add("lockstep_compared", "decisions",
                                    "decisions the RTL unit made beside the C++ rules, compared");
    lockstep_diverged_ = &stats.add("lockstep_diverged", "decisions",
                                    "compared decisions on which the RTL unit differed");
  }
  // A counter per rule of every check list (the page list's alignment is the MTT's), and per
  // success rule.
  decided_.assign(all_rules().size() + 1, nullptr);
  auto add_decided = [&](RuleId rule) {
    Counter*& c = decided_[size_t(rule)];
    if (c) return;
    c = &stats.add(std::string("decided.") + rule_name(rule), "requests",
                   "checks this rule decided (docs/behaviour.md)");
  };
  for (size_t l = 0; l < kCheckListCount; ++l) {
    for (RuleId rule : checks_of(CheckList(l)))
      if (rule != RuleId::R5_fr_page_align) add_decided(rule);
  }
  for (RuleId rule : {RuleId::R5_bind_token_on_return, RuleId::R5_fr_success,
                      RuleId::R5_inv_success})
    add_decided(rule);
}

void ProtectionChecker::use_unit(ProtectionDatapath* unit, std::function<void()> diverged) {
  if (!unit || implementation_ == ProtectionImplementation::Tlm) return;
  if (implementation_ == ProtectionImplementation::Rtl) {
    datapath_ = unit;
    return;
  }
  lockstep_ = std::make_unique<LockstepDatapath>(
      rules_, *unit, [this, diverged = std::move(diverged)](const DatapathDivergence&) {
        // Stop at the first divergence: the run reports it (first_divergence()) and fails.
        divergence_time_ = device_->now();
        if (diverged)
          diverged();
        else
          sc_core::sc_stop();
      });
  datapath_ = lockstep_.get();
}

MptEntry* ProtectionChecker::fetch(uint32_t index, EngineSide side, sc_core::sc_time& delay) {
  if (index == 0 || index >= icm_.mpt_entries) return nullptr;  // index 0 is never allocated
  using Outcome = TableCache<MptEntry>::Outcome;
  const uint64_t now_ps = device_->now().value();
  const auto found = cache_.lookup(index, uint32_t(side), now_ps + delay.value());
  if (found.outcome != Outcome::Miss) {
    if (found.outcome == Outcome::Merged) delay = ps(found.ready_ps - now_ps);
    return found.entry;
  }
  uint8_t raw[kMptEntryBytes];
  delay = ps(found.ready_ps - now_ps);
  const DmaAuthority table = DmaAuthority::of_table(DmaTable::Mpt, index);
  const bool ok = dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND, icm_.mpt_addr(index), raw,
                               kMptEntryBytes, DmaSource::MptTable, &table, delay);
  const uint64_t filled_ps = now_ps + delay.value();
  if (!ok) {
    cache_.end_miss(found, now_ps, filled_ps, false);
    return nullptr;
  }
  return &cache_.fill(found, now_ps, filled_ps, MptEntry::decode(raw));
}

bool ProtectionChecker::write_back(uint32_t index, const MptEntry& entry, sc_core::sc_time& delay) {
  uint8_t raw[kMptEntryBytes];
  entry.encode(raw);
  const DmaAuthority table = DmaAuthority::of_table(DmaTable::Mpt, index);
  return dma_transfer(pool_, dma_isock, tlm::TLM_WRITE_COMMAND, icm_.mpt_addr(index), raw,
                      kMptEntryBytes, DmaSource::MptTable, &table, delay);
}

Decision ProtectionChecker::handle(ProtectionRequest& req, sc_core::sc_time& delay) {
  const uint32_t index = token_index(req.token);
  // Read before any fetch: a change made while an entry is read makes the answer's
  // generation stale, so a later recheck checks again.
  req.generation = generation_;
  if (decisions_) {
    seen_object_ = MptEntry{};
    seen_has_parent_ = false;
  }
  // A token whose index names no entry fails the first check of its list (or the DMA of the
  // entry failed: a model error, reported the same way).
  auto first_of = [](CheckList list, CqeStatus status) {
    return Decision::fail(status, checks_of(list).front());
  };
  switch (req.op) {
    case ProtectionOp::LocalAccess: {
      const MptEntry* entry = fetch(index, req.side, delay);
      if (!entry) return first_of(req.checks, CqeStatus::LocalProtection);
      note_object(req, *entry);
      // A check changes no entry, whatever a unit says: a unit gets a copy (the rules
      // read the cached entry in place).
      MptEntry copy;
      MptEntry* checked = const_cast<MptEntry*>(entry);
      if (datapath_ != &rules_) {
        copy = *entry;
        checked = &copy;
      }
      DatapathCall call{DatapathOp::LocalAccess, &req, checked, nullptr, index, 0};
      return decide(call);
    }
    case ProtectionOp::RemoteAccess: {
      const MptEntry* entry = fetch(index, req.side, delay);
      if (!entry) {
        return first_of(req.access & kAccessRemoteWrite ? CheckList::RemoteWrite
                                                        : CheckList::RemoteRead,
                        CqeStatus::RemoteAccess);
      }
      MptEntry copy = *entry;  // fetching the parent may evict the window's line
      note_object(req, copy);
      const MptEntry* parent = nullptr;
      MptEntry parent_copy;
      if (copy.kind == MptKind::Mw && copy.state == MptState::Valid) {
        if (const MptEntry* p = fetch(copy.parent_index, req.side, delay)) {
          parent_copy = *p;
          parent = &parent_copy;
          note_parent(parent_copy);
        }
      }
      DatapathCall call{DatapathOp::RemoteAccess, &req, &copy,
                        parent ? &parent_copy : nullptr, index, copy.parent_index};
      const Decision decision = decide(call);
      if (RNICSIM_SEEDED_BUG(WrongRegion) && !decision.failed()) {
        // Seeded bug: the MTT base taken from the next MPT entry, a region the token never named.
        const MptEntry* next = fetch(index + 1, req.side, delay);
        if (next && (next->kind == MptKind::Mr || next->kind == MptKind::FastMr))
          req.region.mtt_index = next->mtt_index;
      }
      return decision;
    }
    case ProtectionOp::Bind: {
      // An MW or MR index that names no entry reads as an entry of no kind: the checks decide.
      const uint32_t mr_index = token_index(req.mr_token);
      MptEntry mw, mr;
      if (const MptEntry* e = fetch(index, req.side, delay)) mw = *e;
      if (const MptEntry* e = mr_index != index ? fetch(mr_index, req.side, delay) : nullptr)
        mr = *e;
      note_object(req, mw);
      note_parent(mr);
      DatapathCall call{DatapathOp::Bind, &req, &mw, &mr, index, mr_index};
      const Decision decision = decide(call);
      if (decision.failed()) return decision;
      cache_.insert(index, mw);
      cache_.insert(mr_index, mr);
      ++generation_;
      if (!write_back(index, mw, delay) || !write_back(mr_index, mr, delay))
        return Decision::fail(CqeStatus::LocalQpOperation, RuleId::None);
      ++binds_;
      return decision;
    }
    case ProtectionOp::FastRegisterCheck: {
      MptEntry mr;  // an index that names no entry: an MR of no kind, R5.fr.kind decides
      if (const MptEntry* e = fetch(index, req.side, delay)) mr = *e;
      note_object(req, mr);
      DatapathCall call{DatapathOp::FastRegisterCheck, &req, &mr, nullptr, index, 0};
      return decide(call);
    }
    case ProtectionOp::FastRegisterCommit: {
      MptEntry* mr = fetch(index, req.side, delay);
      if (!mr) return Decision::fail(CqeStatus::LocalQpOperation, RuleId::None);
      DatapathCall call{DatapathOp::FastRegisterCommit, &req, mr, nullptr, index, 0};
      decide(call);
      ++generation_;
      return write_back(index, *mr, delay)
                 ? Decision::ok(RuleId::R5_fr_success)
                 : Decision::fail(CqeStatus::LocalQpOperation, RuleId::None);
    }
    case ProtectionOp::Invalidate: {
      MptEntry object;  // an index that names no entry: an object of no kind
      if (const MptEntry* e = fetch(index, req.side, delay)) object = *e;
      note_object(req, object);
      DatapathCall call{DatapathOp::Invalidate, &req, &object, nullptr, index, 0};
      const Decision decision = decide(call);
      if (decision.failed()) return decision;
      cache_.insert(index, object);
      ++generation_;
      if (!write_back(index, object, delay))
        return Decision::fail(CqeStatus::LocalQpOperation, RuleId::None);
      if (object.kind == MptKind::Mw) {
        // The window no longer pins its MR (R5.dereg.busy, R5.inv.bound_windows).
        if (MptEntry* parent = fetch(object.parent_index, req.side, delay)) {
          DatapathCall release{DatapathOp::ReleaseWindow, &req, parent, nullptr,
                               object.parent_index, 0};
          decide(release);
          const MptEntry copy = *parent;
          write_back(object.parent_index, copy, delay);
        }
      }
      ++invalidates_;
      return decision;
    }
    case ProtectionOp::Recheck: break;  // answered by recheck(), never here
  }
  return Decision::fail(CqeStatus::LocalQpOperation, RuleId::None);
}

void ProtectionChecker::recheck(ProtectionRequest& req, sc_core::sc_time& delay) {
  ++rechecks_;
  req.mpt_changed = req.generation != generation_;
  if (req.mpt_changed) ++rechecks_changed_;
  req.generation = generation_;
  req.status = CqeStatus::Success;
  req.rule = RuleId::None;
  delay += one_cycle_;  // a register compare, beside the check pipeline
}

void ProtectionChecker::check(int caller, ProtectionRequest& request, sc_core::sc_time& delay) {
  ProtectionRequest* req = &request;
  req->side = side_of(caller);
  if (req->op == ProtectionOp::Recheck) {
    recheck(*req, delay);
    return;
  }
  ++checks_;
  const sc_core::sc_time now = device_->now();
  const sc_core::sc_time started = now + delay;
  delay = check_stage_.pass(now + delay) - now;
  unit_cycles_ = 0;
  unit_calls_ = 0;
  const Decision decision = handle(*req, delay);
  if (unit_checks_ && unit_calls_ > 0) {
    // The RTL's own latency replaces mpt.check_cycles (the pipeline's initiation interval
    // stays the stage's): equal when the unit's LATENCY equals mpt.check_cycles and the check
    // takes one pass (an invalidated window's MR release is a second). A check the unit never
    // saw (its token names no entry) keeps mpt.check_cycles.
    ++*unit_checks_;
    *unit_cycles_total_ += unit_cycles_;
    unit_bad_answers_->value = datapath_->bad_answers();
    if (unit_cycles_ >= check_cycles_)
      delay += clock_.cycles(unit_cycles_ - check_cycles_);
    else
      delay -= clock_.cycles(check_cycles_ - unit_cycles_);
  }
  if (lockstep_) {
    lockstep_compared_->value = lockstep_->compared();
    lockstep_diverged_->value = lockstep_->divergences();
  }
  req->status = decision.status;
  req->rule = decision.rule;
  if (decision.failed()) ++failures_;
  if (Counter* c = decided_[size_t(decision.rule)]) ++*c;
  if (trace_.on()) {
    trace_.decision_slice("protection check", started, device_->now() + delay, req->trace_id,
                          rule_name(decision.rule), decision.failed());
  }
  if (decisions_) report(*req, decision);
}

void ProtectionChecker::note_object(ProtectionRequest& req, const MptEntry& entry) {
  req.object_kind = entry.kind;
  req.object_state = entry.state;
  if (decisions_) seen_object_ = entry;
}

void ProtectionChecker::report(const ProtectionRequest& req, const Decision& decision) {
  DecisionRecord r;
  r.node = decision_node_;
  r.side = req.side;
  r.verb = req.verb;
  r.decision = decision;
  r.kind = req.object_kind;
  r.state = req.object_state;
  r.request = &req;
  r.object = seen_object_;
  r.parent = seen_parent_;
  r.has_parent = seen_has_parent_;
  switch (req.op) {
    case ProtectionOp::LocalAccess: r.list = req.checks; break;
    case ProtectionOp::RemoteAccess:
      r.list = req.access & kAccessRemoteWrite ? CheckList::RemoteWrite : CheckList::RemoteRead;
      break;
    case ProtectionOp::Bind: r.list = CheckList::Bind; break;
    case ProtectionOp::FastRegisterCheck:
      // A pass is not the end: the MTT decides the page list's check, and reports then.
      if (!decision.failed()) return;
      r.list = CheckList::FastRegister;
      break;
    case ProtectionOp::Invalidate: r.list = CheckList::Invalidate; break;
    default: return;  // a commit or a recheck decides nothing of its own
  }
  decisions_->decided(r);
}

void ProtectionChecker::context_changed(int, ContextChange& change, sc_core::sc_time&) {
  if (change.kind != ContextKind::Mpt) return;
  ++generation_;
  for (uint32_t i = 0; i < change.count; ++i) cache_.invalidate(change.index + i);
}

}  // namespace rnic
