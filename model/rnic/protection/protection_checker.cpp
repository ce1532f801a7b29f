// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/protection/protection_checker.h"

#include "model/rnic/protection/protection_rules.h"

namespace rnic {

ProtectionChecker::ProtectionChecker(sc_core::sc_module_name name, const Config& config,
                                     const IcmLayout& icm)
    : sc_module(name),
      check_tsock("check_tsock"),
      ctrl_tsock("ctrl_tsock"),
      dma_isock("dma_isock"),
      stats(std::string(this->name())),
      icm_(icm),
      clock_(config.clock_mhz),
      one_cycle_(clock_.cycles(1)),
      check_stage_(clock_, config.mpt.check_cycles, config.mpt.check_ii_cycles),
      cache_(config.mpt.cache_entries, config.mpt.cache_entries, config.mpt.max_outstanding_misses),
      checks_(stats.add("checks", "requests", "protection checks and binds")),
      failures_(stats.add("failures", "requests", "checks that failed")),
      binds_(stats.add("binds", "requests", "successful window binds")),
      invalidates_(stats.add("invalidates", "requests", "successful invalidations")),
      rechecks_(stats.add("rechecks", "requests",
                          "generation compares confirming earlier checks (read data landing)")),
      rechecks_changed_(stats.add("rechecks_changed", "requests",
                                  "rechecks that found the MPT changed: checked again in full")),
      hits_(stats.add("mpt_hits", "lookups", "MPT cache hits")),
      misses_(stats.add("mpt_misses", "lookups", "MPT cache misses (a DMA read each)")),
      merged_(stats.add("mpt_merged", "lookups",
                        "lookups of an entry whose read was in flight: no read of their own")),
      by_side_(stats, "mpt", "MPT cache"),
      mshr_stall_ps_(stats.add("miss_register_stall_ps", "ps",
                               "time misses waited for a free miss-status register")),
      miss_fill_(stats.add_histogram("miss_fill_ns", "MPT cache miss: the DMA read of its entry")),
      misses_in_flight_(
          stats.add_occupancy("misses_outstanding", "misses",
                              "entry reads in flight (at most mpt.max_outstanding_misses)")) {
  check_stage_.set_contention(!config.fast);
  check_tsock.register_b_transport(this, &ProtectionChecker::check_b_transport);
  ctrl_tsock.register_b_transport(this, &ProtectionChecker::ctrl_b_transport);
}

MptEntry* ProtectionChecker::fetch(uint32_t index, EngineSide side, sc_core::sc_time& delay) {
  if (index == 0 || index >= icm_.mpt_entries) return nullptr;  // index 0 is never allocated
  const sc_core::sc_time now = sim_time(*this);
  const sc_core::sc_time asked = now + delay;
  const auto found = cache_.lookup(index, asked.value());
  if (found.outcome == NonBlockingCache<MptEntry>::Outcome::Hit) {
    ++hits_;
    ++by_side_.hits(side);
    return found.value;
  }
  if (found.outcome == NonBlockingCache<MptEntry>::Outcome::Merged) {
    ++merged_;
    ++by_side_.merged(side);
    delay = ps(found.ready_ps) - now;
    return found.value;
  }
  ++misses_;
  ++by_side_.misses(side);
  uint8_t raw[kMptEntryBytes];
  const sc_core::sc_time issued = ps(cache_.begin_miss(asked.value()));
  mshr_stall_ps_ += (issued - asked).value();
  delay = issued - now;
  const bool ok = dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND, icm_.mpt_addr(index), raw,
                               kMptEntryBytes, DmaSource::MptTable, delay);
  const sc_core::sc_time filled = now + delay;
  cache_.end_miss(filled.value());
  misses_in_flight_.hold(now.value(), issued.value(), filled.value());
  if (!ok) return nullptr;
  miss_fill_.add_ps((filled - asked).value());
  return &cache_.insert(index, MptEntry::decode(raw), filled.value());
}

bool ProtectionChecker::write_back(uint32_t index, const MptEntry& entry, sc_core::sc_time& delay) {
  uint8_t raw[kMptEntryBytes];
  entry.encode(raw);
  return dma_transfer(pool_, dma_isock, tlm::TLM_WRITE_COMMAND, icm_.mpt_addr(index), raw,
                      kMptEntryBytes, DmaSource::MptTable, delay);
}

CqeStatus ProtectionChecker::handle(ProtectionRequest& req, sc_core::sc_time& delay) {
  const uint32_t index = token_index(req.token);
  // Read before any fetch: a change made while an entry is read makes the answer's
  // generation stale, so a later recheck checks again.
  req.generation = generation_;
  switch (req.op) {
    case ProtectionOp::LocalAccess: {
      const MptEntry* entry = fetch(index, req.side, delay);
      return entry ? check_local_access(*entry, req) : CqeStatus::LocalProtection;
    }
    case ProtectionOp::RemoteAccess: {
      const MptEntry* entry = fetch(index, req.side, delay);
      if (!entry) return CqeStatus::RemoteAccess;
      MptEntry copy = *entry;  // fetching the parent may evict the window's line
      const MptEntry* parent = nullptr;
      MptEntry parent_copy;
      if (copy.kind == MptKind::Mw && copy.state == MptState::Valid) {
        if (const MptEntry* p = fetch(copy.parent_index, req.side, delay)) {
          parent_copy = *p;
          parent = &parent_copy;
        }
      }
      return check_remote_access(copy, parent, req);
    }
    case ProtectionOp::Bind: {
      const uint32_t mr_index = token_index(req.mr_token);
      MptEntry* mw_entry = fetch(index, req.side, delay);
      if (!mw_entry) return CqeStatus::MwBind;
      MptEntry mw = *mw_entry;
      MptEntry* mr_entry = mr_index != index ? fetch(mr_index, req.side, delay) : nullptr;
      if (!mr_entry) return CqeStatus::MwBind;
      MptEntry mr = *mr_entry;
      const CqeStatus status = apply_bind(index, mw, mr_index, mr, req);
      if (status != CqeStatus::Success) return status;
      cache_.insert(index, mw);
      cache_.insert(mr_index, mr);
      ++generation_;
      if (!write_back(index, mw, delay) || !write_back(mr_index, mr, delay))
        return CqeStatus::LocalQpOperation;
      ++binds_;
      return CqeStatus::Success;
    }
    case ProtectionOp::FastRegisterCheck: {
      const MptEntry* mr = fetch(index, req.side, delay);
      if (!mr) return CqeStatus::LocalProtection;
      const CqeStatus status = check_fast_register(*mr, req, 4096);
      if (status == CqeStatus::Success) req.region = Region{mr->mtt_index, 12, 0};
      return status;
    }
    case ProtectionOp::FastRegisterCommit: {
      MptEntry* mr = fetch(index, req.side, delay);
      if (!mr) return CqeStatus::LocalProtection;
      apply_fast_register(*mr, req);
      ++generation_;
      return write_back(index, *mr, delay) ? CqeStatus::Success : CqeStatus::LocalQpOperation;
    }
    case ProtectionOp::Invalidate: {
      MptEntry* entry = fetch(index, req.side, delay);
      if (!entry) return CqeStatus::LocalProtection;
      MptEntry object = *entry;
      const CqeStatus status = apply_invalidate(object, req);
      if (status != CqeStatus::Success) return status;
      cache_.insert(index, object);
      ++generation_;
      if (!write_back(index, object, delay)) return CqeStatus::LocalQpOperation;
      if (object.kind == MptKind::Mw) {
        // The window no longer pins its MR (R5.dereg.busy, R5.inv.bound_windows).
        if (MptEntry* parent = fetch(object.parent_index, req.side, delay)) {
          if (parent->bound_windows > 0) --parent->bound_windows;
          const MptEntry copy = *parent;
          write_back(object.parent_index, copy, delay);
        }
      }
      ++invalidates_;
      return CqeStatus::Success;
    }
    case ProtectionOp::Recheck: break;  // answered by recheck(), never here
  }
  return CqeStatus::LocalQpOperation;
}

void ProtectionChecker::recheck(ProtectionRequest& req, sc_core::sc_time& delay) {
  ++rechecks_;
  req.mpt_changed = req.generation != generation_;
  if (req.mpt_changed) ++rechecks_changed_;
  req.generation = generation_;
  req.status = CqeStatus::Success;
  delay += one_cycle_;  // a register compare, beside the check pipeline
}

void ProtectionChecker::check_b_transport(int, tlm::tlm_generic_payload& gp,
                                          sc_core::sc_time& delay) {
  ProtectionRequest* req = message_of<ProtectionRequest>(gp);
  if (!req) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  if (req->op == ProtectionOp::Recheck) {
    recheck(*req, delay);
    return;
  }
  ++checks_;
  const TraceScope slice(trace_, "protection check", req->trace_id, delay);
  const sc_core::sc_time now = sim_time(*this);
  delay = check_stage_.pass(now + delay) - now;
  req->status = handle(*req, delay);
  if (req->status != CqeStatus::Success) ++failures_;
}

void ProtectionChecker::ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
  const ContextChange* change = message_of<ContextChange>(gp);
  if (change && change->kind == ContextKind::Mpt) {
    ++generation_;
    for (uint32_t i = 0; i < change->count; ++i) cache_.invalidate(change->index + i);
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace rnic
