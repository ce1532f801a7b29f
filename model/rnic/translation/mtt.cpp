// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/translation/mtt.h"

#include <algorithm>

#include "model/rnic/translation/page_walk.h"
#include "model/rnic/util/byte_order.h"

namespace rnic {

namespace {

TableCache<uint64_t>::Config mtt_cache_config(const MttConfig& mtt) {
  TableCache<uint64_t>::Config c;
  c.entries = mtt.cache_entries;
  c.ways = mtt.cache_ways;
  c.miss_registers = mtt.max_outstanding_misses;
  return c;
}

// Askers by EngineSide.
TableCacheLabels mtt_cache_labels() {
  TableCacheLabels l;
  // By caller index (model/rnic/rnic.cpp binds them in this order): the two engines, then
  // the DMA benchmark engine's translated reads (dma_bench "translate").
  l.askers = {engine_side_name(EngineSide::Requester), engine_side_name(EngineSide::Responder),
              "dma_bench"};
  l.all_hits = {"mtt_hits", "translation cache hits"};
  l.all_misses = {"mtt_misses", "translation cache misses (a DMA read or a walk each)"};
  l.all_merged = {"mtt_merged", "lookups of a line whose read was in flight: no read of their own"};
  l.hits = {"mtt_hits_{asker}", "translation cache hits asked by the {asker}"};
  l.misses = {"mtt_misses_{asker}",
              "translation cache misses asked by the {asker} (a DMA read or a walk each)"};
  l.merged = {"mtt_merged_{asker}",
              "translation cache lookups by the {asker} merged into a read in flight"};
  l.stall = {"miss_register_stall_ps", "time misses waited for a free miss-status register"};
  l.fill = {"miss_fill_ns",
            "translation cache miss: the DMA read of its entry line (or the walk, mtt.walk_ns)"};
  l.in_flight = {"misses_outstanding",
                 "line reads (or walks) in flight (at most mtt.max_outstanding_misses)"};
  return l;
}

}  // namespace

Mtt::Mtt(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm,
         DeviceClock* clock)
    : sc_module(name),
      xlate_tsock("xlate_tsock", this),
      ctrl_tsock("ctrl_tsock", this),
      dma_isock("dma_isock"),
      stats(std::string(this->name())),
      icm_(icm),
      clock_(config.clock_mhz),
      lookup_stage_(clock_, config.mtt.lookup_cycles, config.mtt.lookup_ii_cycles),
      config_(config.mtt),
      translations_(stats.add("translations", "requests", "translation requests")),
      pages_(stats.add("pages", "pages", "pages translated")),
      cache_(mtt_cache_config(config.mtt), stats, mtt_cache_labels()),
      faults_(stats.add("faults", "requests", "translations outside the table or unreadable")),
      page_align_refusals_(stats.add("decided.R5.fr.page_align", "requests",
                                     "fast-register page lists refused for an unaligned page "
                                     "address (docs/behaviour.md)")),
      device_(clock) {
  if (config_.entries_per_fetch == 0) config_.entries_per_fetch = 1;
  line_.resize(size_t(config_.entries_per_fetch) * kMttEntryBytes);
  walk_ps_ = uint64_t(config_.walk_ns) * 1000;
  lookup_stage_.set_contention(!config.fast);
}

bool Mtt::entry(uint32_t index, uint32_t asker, uint64_t now_ps, uint64_t* phys,
                uint64_t& at_ps) {
  if (index >= icm_.mtt_entries) return false;
  const auto found = cache_.lookup(index, asker, at_ps);
  if (found.outcome != TableCache<uint64_t>::Outcome::Miss) {
    *phys = *found.entry;
    at_ps = found.ready_ps;
    return true;
  }
  // Fetch the aligned line of entries holding `index` and keep all of them.
  const uint32_t per_line = config_.entries_per_fetch;
  const uint32_t first = index / per_line * per_line;
  const uint32_t count = std::min(per_line, icm_.mtt_entries - first);
  uint64_t filled_ps = 0;
  bool ok = false;
  if (walk_ps_) {
    // An IOMMU's walk (mtt.walk_ns): the root complex reads the host's page tables beside
    // memory, so the walk costs its own time and no TLP; the entries are what the driver
    // wrote, read functionally.
    ok = read_line_functional(icm_.mtt_addr(first), count * kMttEntryBytes);
    filled_ps = found.ready_ps + walk_ps_;
  } else {
    sc_core::sc_time delay = ps(found.ready_ps - now_ps);
    const DmaAuthority table = DmaAuthority::of_table(DmaTable::Mtt, first, count);
    ok = dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND, icm_.mtt_addr(first), line_.data(),
                      count * kMttEntryBytes, DmaSource::MttTable, &table, delay);
    filled_ps = now_ps + delay.value();
  }
  cache_.end_miss(found, now_ps, filled_ps, ok);
  if (!ok) return false;
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t value = get_le<uint64_t>(line_.data() + size_t(i) * kMttEntryBytes);
    if (first + i == index) {
      cache_.insert(index, value, filled_ps);
    } else {
      cache_.insert_if_absent(first + i, value, filled_ps);
    }
  }
  *phys = get_le<uint64_t>(line_.data() + size_t(index - first) * kMttEntryBytes);
  at_ps = filled_ps;
  return true;
}

bool Mtt::read_line_functional(uint64_t addr, uint32_t length) {
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(line_.data());
  gp.set_data_length(length);
  gp.set_streaming_width(length);
  return dma_isock->transport_dbg(gp) == length;
}

bool Mtt::translate_range(TranslateRequest& req, uint32_t asker, sc_core::sc_time& delay) {
  req.segments.clear();
  const Region& r = req.region;
  PageWalk walk;
  if (!walk.begin(r.mtt_index, r.page_shift, r.page_base_va, req.va, req.length)) return false;
  const uint64_t pages = walk.pages();
  if (pages == 0) return true;
  // Pipelined lookups: the first page pays the full latency, each further one an interval.
  // The pipeline is taken at arrival: a miss waits in its miss-status register, not in the
  // pipeline, so later lookups hit under it.
  const sc_core::sc_time& now = device_->now();
  const uint64_t now_ps = now.value();
  const uint64_t looked_up_ps = lookup_stage_.pass(now + delay, pages).value();
  uint64_t ready_ps = looked_up_ps;
  for (uint64_t page = 0; page < pages; ++page) {
    uint64_t phys = 0;
    // The pages' misses are issued together: each starts when the lookups are done.
    uint64_t at_ps = looked_up_ps;
    if (!entry(walk.entry(), asker, now_ps, &phys, at_ps)) return false;
    ready_ps = std::max(ready_ps, at_ps);
    const PageWalk::Segment s = walk.next(phys);
    req.segments.push_back({s.addr, s.length});
  }
  pages_ += pages;
  delay = ps(ready_ps - now_ps);
  return true;
}

bool Mtt::load_pages(PageListLoad& req, sc_core::sc_time& delay) {
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

void Mtt::load_page_list(int caller, PageListLoad& load, sc_core::sc_time& delay) {
  load.side = side_of(caller);
  const TraceScope slice(trace_, "page list load", load.trace_id, delay);
  load.rule = RuleId::None;
  load.ok = load_pages(load, delay);
  if (!load.ok) ++faults_;
  if (load.rule == RuleId::R5_fr_page_align) ++page_align_refusals_;
  if (decisions_ && (load.ok || load.rule != RuleId::None)) {
    // The whole fast-register list has passed, or its last check refused.
    DecisionRecord r;
    r.node = decision_node_;
    r.side = load.side;
    r.list = CheckList::FastRegister;
    r.verb = RequestVerb::FastRegister;
    r.decision = load.ok ? Decision::ok(RuleId::R5_fr_success)
                         : Decision::fail(CqeStatus::LocalProtection, load.rule);
    r.kind = MptKind::FastMr;
    r.state = MptState::Free;
    decisions_->decided(r);
  }
}

void Mtt::translate(int caller, TranslateRequest& req, sc_core::sc_time& delay) {
  req.side = side_of(caller);
  ++translations_;
  const TraceScope slice(trace_, "translate", req.trace_id, delay);
  req.ok = translate_range(req, uint32_t(caller), delay);
  if (!req.ok) ++faults_;
}

void Mtt::context_changed(int, ContextChange& change, sc_core::sc_time&) {
  if (change.kind != ContextKind::Mtt) return;
  for (uint32_t i = 0; i < change.count; ++i) cache_.invalidate(change.index + i);
}

}  // namespace rnic
