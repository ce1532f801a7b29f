// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/front/qp_context.h"

#include <string>

namespace rnic {

namespace {

template <typename Entry>
typename TableCache<Entry>::Config cache_config(const ContextCacheConfig& table,
                                                bool write_back) {
  typename TableCache<Entry>::Config c;
  c.entries = table.cache_entries;
  c.ways = table.cache_ways;
  c.miss_registers = table.max_outstanding_misses;
  c.write_back = write_back;
  return c;
}

// Askers by ContextRole.
TableCacheLabels context_cache_labels(const std::string& p) {
  TableCacheLabels l;
  l.askers = {"fetcher", "responder", "completion"};
  l.hits = {p + "_hits_{asker}", p + " cache hits asked by the {asker}"};
  l.misses = {p + "_misses_{asker}", p + " cache misses asked by the {asker} (a DMA read each)"};
  l.merged = {p + "_merged_{asker}",
              p + " lookups by the {asker} of an entry whose read was in flight: no read of "
                  "their own"};
  l.evictions = {p + "_evictions", p + " entries evicted to make room"};
  l.write_backs = {p + "_write_backs", p + " evicted entries whose running state was written "
                                           "back (a posted DMA write each; context.write_back)"};
  l.stall = {p + "_miss_register_stall_ps", p + " misses waiting for a free miss-status register"};
  l.fill = {p + "_miss_fill_ns", p + " cache miss: the DMA read of its entry"};
  l.in_flight = {p + "_misses_outstanding",
                 p + " entry reads in flight (at most " + p + ".max_outstanding_misses)"};
  return l;
}

}  // namespace

QpContext::QpContext(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm,
                     DeviceClock* clock)
    : sc_module(name),
      lookup_tsock("lookup_tsock", this),
      ctrl_tsock("ctrl_tsock", this),
      dma_isock("dma_isock"),
      stats(std::string(this->name())),
      icm_(icm),
      clock_(config.clock_mhz),
      lookup_latency_(clock_.cycles(config.context.lookup_cycles)),
      qpc_(cache_config<QpcEntry>(config.context.qpc, config.context.write_back), stats,
           context_cache_labels("qpc")),
      cqc_(cache_config<CqcEntry>(config.context.cqc, config.context.write_back), stats,
           context_cache_labels("cqc")),
      qpc_table_{DmaTable::Qpc, icm.qpc_base, "QPC load", "QPC write-back"},
      cqc_table_{DmaTable::Cqc, icm.cqc_base, "CQC load", "CQC write-back"},
      device_(clock) {
}

template <typename Entry, uint32_t kBytes>
void QpContext::write_back(const Entry& victim, uint64_t index, const Table& table,
                           uint64_t at_ps, uint64_t trace_id) {
  // Posted: nobody waits for it; it takes its share of the upstream link.
  const sc_core::sc_time at = ps(at_ps);
  sc_core::sc_time delay = at - device_->now();
  auto words = victim.running;
  const DmaAuthority entry = DmaAuthority::of_table(table.table, uint32_t(index));
  dma_transfer(pool_, dma_isock, tlm::TLM_WRITE_COMMAND,
               table.base + index * kBytes + Entry::kRunningOffset, words.data(),
               Entry::kRunningBytes, DmaSource::ContextTable, &entry, delay);
  if (trace_.on()) trace_.slice(table.write_back_slice, at, device_->now() + delay, trace_id);
}

template <typename Entry, uint32_t kBytes>
bool QpContext::read(TableCache<Entry>& cache, const Table& table, ContextRole role,
                     const ContextRead& req, Entry* out, sc_core::sc_time& delay) {
  const uint64_t now_ps = device_->now().value();
  delay += lookup_latency_;
  const auto found = cache.lookup(req.index, uint32_t(role), now_ps + delay.value());
  if (found.outcome != TableCache<Entry>::Outcome::Miss) {
    *out = *found.entry;
    if (found.outcome == TableCache<Entry>::Outcome::Merged) delay = ps(found.ready_ps - now_ps);
    return true;
  }
  uint8_t raw[kBytes];
  delay = ps(found.ready_ps - now_ps);
  const DmaAuthority entry = DmaAuthority::of_table(table.table, req.index);
  const bool ok =
      dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND, table.base + uint64_t(req.index) * kBytes,
                   raw, kBytes, DmaSource::ContextTable, &entry, delay);
  const uint64_t filled_ps = now_ps + delay.value();
  if (trace_.on()) trace_.slice(table.load_slice, ps(found.ready_ps), ps(filled_ps), req.trace_id);
  if (!ok) {
    cache.end_miss(found, now_ps, filled_ps, false);
    return false;
  }
  // The victim leaves when the fill takes its place.
  typename TableCache<Entry>::Victim victim;
  *out = cache.fill(found, now_ps, filled_ps, Entry::decode(raw), &victim);
  if (victim.happened)
    write_back<Entry, kBytes>(victim.entry, victim.key, table, filled_ps, req.trace_id);
  return true;
}

void QpContext::lookup(int caller, ContextRead& req, sc_core::sc_time& delay) {
  req.ok = false;
  if (uint32_t(caller) >= kContextRoles) {
    SC_REPORT_ERROR("rnicsim/qp_context", "a lookup caller beyond the three roles: a wiring bug");
    return;
  }
  const ContextRole role = ContextRole(caller);
  if (req.kind == ContextKind::Qpc && req.qpc && req.index < icm_.qpc_entries) {
    req.ok = read<QpcEntry, kQpcEntryBytes>(qpc_, qpc_table_, role, req, req.qpc, delay);
  } else if (req.kind == ContextKind::Cqc && req.cqc && req.index < icm_.cqc_entries) {
    req.ok = read<CqcEntry, kCqcEntryBytes>(cqc_, cqc_table_, role, req, req.cqc, delay);
  }
}

void QpContext::context_changed(int, ContextChange& change, sc_core::sc_time&) {
  if (change.kind == ContextKind::Qpc) qpc_.invalidate(change.index);
  if (change.kind == ContextKind::Cqc) cqc_.invalidate(change.index);
}

}  // namespace rnic
