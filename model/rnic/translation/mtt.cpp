// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/translation/mtt.h"

#include <algorithm>

#include "model/rnic/util/byte_order.h"

namespace rnic {

Mtt::Mtt(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm)
    : sc_module(name),
      xlate_tsock("xlate_tsock"),
      ctrl_tsock("ctrl_tsock"),
      dma_isock("dma_isock"),
      stats(std::string(this->name())),
      icm_(icm),
      clock_(config.clock_mhz),
      lookup_stage_(clock_, config.mtt.lookup_cycles, config.mtt.lookup_ii_cycles),
      config_(config.mtt),
      cache_(config.mtt.cache_entries, config.mtt.cache_ways, config.mtt.max_outstanding_misses),
      translations_(stats.add("translations", "requests", "translation requests")),
      pages_(stats.add("pages", "pages", "pages translated")),
      hits_(stats.add("mtt_hits", "lookups", "translation cache hits")),
      misses_(stats.add("mtt_misses", "lookups", "translation cache misses (a DMA read each)")),
      merged_(stats.add("mtt_merged", "lookups",
                        "lookups of a line whose read was in flight: no read of their own")),
      by_side_(stats, "mtt", "translation cache"),
      mshr_stall_ps_(stats.add("miss_register_stall_ps", "ps",
                               "time misses waited for a free miss-status register")),
      faults_(stats.add("faults", "requests", "translations outside the table or unreadable")),
      page_align_refusals_(stats.add("decided.R5.fr.page_align", "requests",
                                     "fast-register page lists refused for an unaligned page "
                                     "address (docs/behaviour.md)")),
      miss_fill_(stats.add_histogram("miss_fill_ns",
                                     "translation cache miss: the DMA read of its entry line")),
      misses_in_flight_(
          stats.add_occupancy("misses_outstanding", "misses",
                              "line reads in flight (at most mtt.max_outstanding_misses)")) {
  if (config_.entries_per_fetch == 0) config_.entries_per_fetch = 1;
  line_.resize(size_t(config_.entries_per_fetch) * kMttEntryBytes);
  lookup_stage_.set_contention(!config.fast);
  xlate_tsock.register_b_transport(this, &Mtt::xlate_b_transport);
  ctrl_tsock.register_b_transport(this, &Mtt::ctrl_b_transport);
}

bool Mtt::entry(uint32_t index, EngineSide side, uint64_t* phys, sc_core::sc_time& delay) {
  if (index >= icm_.mtt_entries) return false;
  const sc_core::sc_time now = sim_time(*this);
  const sc_core::sc_time asked = now + delay;
  const auto found = cache_.lookup(index, asked.value());
  if (found.outcome == NonBlockingCache<uint64_t>::Outcome::Hit) {
    ++hits_;
    ++by_side_.hits(side);
    *phys = *found.value;
    return true;
  }
  if (found.outcome == NonBlockingCache<uint64_t>::Outcome::Merged) {
    ++merged_;
    ++by_side_.merged(side);
    *phys = *found.value;
    delay = ps(found.ready_ps) - now;
    return true;
  }
  ++misses_;
  ++by_side_.misses(side);
  // Fetch the aligned line of entries holding `index` and keep all of them.
  const uint32_t per_line = config_.entries_per_fetch;
  const uint32_t first = index / per_line * per_line;
  const uint32_t count = std::min(per_line, icm_.mtt_entries - first);
  const sc_core::sc_time issued = ps(cache_.begin_miss(asked.value()));
  mshr_stall_ps_ += (issued - asked).value();
  delay = issued - now;
  const DmaAuthority table = DmaAuthority::of_table(DmaTable::Mtt, first, count);
  const bool ok = dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND, icm_.mtt_addr(first),
                               line_.data(), count * kMttEntryBytes, DmaSource::MttTable, &table,
                               delay);
  const sc_core::sc_time filled = now + delay;
  cache_.end_miss(filled.value());
  misses_in_flight_.hold(now.value(), issued.value(), filled.value());
  if (!ok) return false;
  miss_fill_.add_ps((filled - asked).value());
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t value = get_le<uint64_t>(line_.data() + size_t(i) * kMttEntryBytes);
    if (first + i == index) {
      cache_.insert(index, value, filled.value());
    } else {
      cache_.insert_if_absent(first + i, value, filled.value());
    }
  }
  *phys = get_le<uint64_t>(line_.data() + size_t(index - first) * kMttEntryBytes);
  return true;
}

bool Mtt::translate(TranslateRequest& req, sc_core::sc_time& delay) {
  req.segments.clear();
  const Region& r = req.region;
  if (r.page_shift < 12 || r.page_shift > 30 || req.va < r.page_base_va) return false;
  if (req.length == 0) return true;
  if (req.length > UINT64_MAX - req.va) return false;
  const uint64_t page_bytes = uint64_t(1) << r.page_shift;
  const uint64_t first_page = (req.va - r.page_base_va) >> r.page_shift;
  const uint64_t last_page = (req.va + req.length - 1 - r.page_base_va) >> r.page_shift;
  if (last_page > UINT32_MAX - r.mtt_index) return false;
  const uint64_t pages = last_page - first_page + 1;
  // Pipelined lookups: the first page pays the full latency, each further one an interval.
  // The pipeline is taken at arrival: a miss waits in its miss-status register, not in the
  // pipeline, so later lookups hit under it.
  const sc_core::sc_time now = sim_time(*this);
  const sc_core::sc_time looked_up = lookup_stage_.pass(now + delay, pages);
  sc_core::sc_time ready = looked_up;
  uint64_t va = req.va;
  uint64_t remaining = req.length;
  for (uint64_t page = first_page; page <= last_page; ++page) {
    uint64_t phys = 0;
    // The pages' misses are issued together: each starts when the lookups are done.
    sc_core::sc_time d = looked_up - now;
    if (!entry(uint32_t(r.mtt_index + page), req.side, &phys, d)) return false;
    if (now + d > ready) ready = now + d;
    const uint64_t in_page = va & (page_bytes - 1);
    const uint64_t n = std::min(remaining, page_bytes - in_page);
    req.segments.push_back({phys + in_page, uint32_t(n)});
    va += n;
    remaining -= n;
  }
  pages_ += pages;
  delay = ready - now;
  return true;
}

bool Mtt::load_page_list(PageListLoad& req, sc_core::sc_time& delay) {
  if (req.count == 0 || req.mtt_index >= icm_.mtt_entries ||
      req.count > icm_.mtt_entries - req.mtt_index)
    return false;
  const uint64_t page_mask = (uint64_t(1) << req.page_shift) - 1;
  // The page array is read in lines of entries_per_fetch, checked, then written to the table.
  for (uint32_t done = 0; done < req.count;) {
    const uint32_t n = std::min(config_.entries_per_fetch, req.count - done);
    const uint32_t bytes = n * kMttEntryBytes;
    if (!dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND,
                      req.page_list + uint64_t(done) * kMttEntryBytes, line_.data(), bytes,
                      DmaSource::MttTable, req.authority, delay))
      return false;
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t phys = get_le<uint64_t>(line_.data() + size_t(i) * kMttEntryBytes);
      if (phys & page_mask) {  // page addresses must be page aligned (R5.fr.page_align)
        req.rule = RuleId::R5_fr_page_align;
        return false;
      }
    }
    if (!dma_transfer(pool_, dma_isock, tlm::TLM_WRITE_COMMAND, icm_.mtt_addr(req.mtt_index + done),
                      line_.data(), bytes, DmaSource::MttTable, req.authority, delay))
      return false;
    for (uint32_t i = 0; i < n; ++i) {
      cache_.invalidate(req.mtt_index + done + i);
    }
    done += n;
  }
  delay += clock_.cycles(config_.lookup_cycles);
  return true;
}

void Mtt::xlate_b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (PageListLoad* load = message_of<PageListLoad>(gp)) {
    const TraceScope slice(trace_, "page list load", load->trace_id, delay);
    load->rule = RuleId::None;
    load->ok = load_page_list(*load, delay);
    if (!load->ok) ++faults_;
    if (load->rule == RuleId::R5_fr_page_align) ++page_align_refusals_;
    if (decisions_ && (load->ok || load->rule != RuleId::None)) {
      // The whole fast-register list has passed, or its last check refused.
      DecisionRecord r;
      r.node = decision_node_;
      r.side = load->side;
      r.list = CheckList::FastRegister;
      r.verb = RequestVerb::FastRegister;
      r.decision = load->ok ? Decision::ok(RuleId::R5_fr_success)
                            : Decision::fail(CqeStatus::LocalProtection, load->rule);
      r.kind = MptKind::FastMr;
      r.state = MptState::Free;
      decisions_->decided(r);
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  TranslateRequest* req = message_of<TranslateRequest>(gp);
  if (!req) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  ++translations_;
  const TraceScope slice(trace_, "translate", req->trace_id, delay);
  req->ok = translate(*req, delay);
  if (!req->ok) ++faults_;
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void Mtt::ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
  const ContextChange* change = message_of<ContextChange>(gp);
  if (change && change->kind == ContextKind::Mtt) {
    for (uint32_t i = 0; i < change->count; ++i) cache_.invalidate(change->index + i);
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace rnic
