// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/front/qp_context.h"

#include <string>

namespace rnic {

namespace {
const char* const kRoleNames[kContextRoles] = {"fetcher", "responder", "completion"};
}

QpContext::QpContext(sc_core::sc_module_name name, const Config& config, const IcmLayout& icm)
    : sc_module(name),
      lookup_tsock("lookup_tsock"),
      ctrl_tsock("ctrl_tsock"),
      dma_isock("dma_isock"),
      stats(std::string(this->name())),
      icm_(icm),
      write_back_(config.context.write_back),
      clock_(config.clock_mhz),
      lookup_latency_(clock_.cycles(config.context.lookup_cycles)),
      qpc_(config.context.qpc.cache_entries, config.context.qpc.cache_ways,
           config.context.qpc.max_outstanding_misses),
      cqc_(config.context.cqc.cache_entries, config.context.cqc.cache_ways,
           config.context.cqc.max_outstanding_misses),
      qpc_stats_(declare("qpc", "qpc")),
      cqc_stats_(declare("cqc", "cqc")) {
  qpc_stats_.load_slice = "QPC load";
  qpc_stats_.write_back_slice = "QPC write-back";
  cqc_stats_.load_slice = "CQC load";
  cqc_stats_.write_back_slice = "CQC write-back";
  cqc_stats_.table = DmaTable::Cqc;
  lookup_tsock.register_b_transport(this, &QpContext::lookup_b_transport);
  ctrl_tsock.register_b_transport(this, &QpContext::ctrl_b_transport);
}

QpContext::TableStats QpContext::declare(const char* table, const char* size_param) {
  TableStats t;
  const std::string p(table);
  for (uint32_t r = 0; r < kContextRoles; ++r) {
    const std::string role(kRoleNames[r]);
    t.hits[r] = &stats.add(p + "_hits_" + role, "lookups", p + " cache hits asked by the " + role);
    t.misses[r] = &stats.add(p + "_misses_" + role, "lookups",
                             p + " cache misses asked by the " + role + " (a DMA read each)");
    t.merged[r] = &stats.add(p + "_merged_" + role, "lookups",
                             p + " lookups by the " + role +
                                 " of an entry whose read was in flight: no read of their own");
  }
  t.evictions = &stats.add(p + "_evictions", "entries", p + " entries evicted to make room");
  t.write_backs = &stats.add(p + "_write_backs", "entries",
                             p + " evicted entries whose running state was written back (a posted "
                                 "DMA write each; context.write_back)");
  t.register_stall_ps = &stats.add(p + "_miss_register_stall_ps", "ps",
                                   p + " misses waiting for a free miss-status register");
  t.miss_fill =
      &stats.add_histogram(p + "_miss_fill_ns", p + " cache miss: the DMA read of its entry");
  t.in_flight = &stats.add_occupancy(
      p + "_misses_outstanding", "misses",
      p + " entry reads in flight (at most " + size_param + ".max_outstanding_misses)");
  return t;
}

template <typename Entry>
void QpContext::write_back(const Entry& victim, uint32_t index, uint64_t addr,
                           TableStats& table, sc_core::sc_time at, uint64_t trace_id) {
  ++*table.write_backs;
  // Posted: nobody waits for it; it takes its share of the upstream link.
  sc_core::sc_time delay = at - sim_time(*this);
  auto words = victim.running;
  const DmaAuthority entry = DmaAuthority::of_table(table.table, index);
  dma_transfer(pool_, dma_isock, tlm::TLM_WRITE_COMMAND, addr + Entry::kRunningOffset,
               words.data(), Entry::kRunningBytes, DmaSource::ContextTable, &entry, delay);
  if (trace_.on()) trace_.slice(table.write_back_slice, at, sim_time(*this) + delay, trace_id);
}

template <typename Entry, uint32_t kBytes>
bool QpContext::read(NonBlockingCache<Entry>& cache, TableStats& table, uint64_t base,
                     const ContextRead& req, Entry* out, sc_core::sc_time& delay) {
  const uint32_t role = uint32_t(req.role) < kContextRoles ? uint32_t(req.role) : 0;
  const sc_core::sc_time now = sim_time(*this);
  delay += lookup_latency_;
  const sc_core::sc_time asked = now + delay;
  const auto found = cache.lookup(req.index, asked.value());
  if (found.outcome == NonBlockingCache<Entry>::Outcome::Hit) {
    ++*table.hits[role];
    *out = *found.value;
    return true;
  }
  if (found.outcome == NonBlockingCache<Entry>::Outcome::Merged) {
    ++*table.merged[role];
    *out = *found.value;
    delay = ps(found.ready_ps) - now;
    return true;
  }
  ++*table.misses[role];
  uint8_t raw[kBytes];
  const sc_core::sc_time issued = ps(cache.begin_miss(asked.value()));
  *table.register_stall_ps += (issued - asked).value();
  delay = issued - now;
  const DmaAuthority entry = DmaAuthority::of_table(table.table, req.index);
  const bool ok = dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND,
                               base + uint64_t(req.index) * kBytes, raw, kBytes,
                               DmaSource::ContextTable, &entry, delay);
  const sc_core::sc_time filled = now + delay;
  cache.end_miss(filled.value());
  table.in_flight->hold(now.value(), issued.value(), filled.value());
  if (trace_.on()) trace_.slice(table.load_slice, issued, filled, req.trace_id);
  if (!ok) return false;
  table.miss_fill->add_ps((filled - asked).value());
  typename NonBlockingCache<Entry>::Eviction evicted;
  *out = cache.insert(req.index, Entry::decode(raw), filled.value(), &evicted);
  if (evicted.happened) {
    ++*table.evictions;
    // The victim leaves when the fill takes its place.
    if (write_back_) {
      write_back(evicted.value, uint32_t(evicted.key), base + evicted.key * kBytes, table,
                 filled, req.trace_id);
    }
  }
  return true;
}

void QpContext::lookup_b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  ContextRead* req = message_of<ContextRead>(gp);
  if (!req) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  req->ok = false;
  if (req->kind == ContextKind::Qpc && req->qpc && req->index < icm_.qpc_entries) {
    req->ok = read<QpcEntry, kQpcEntryBytes>(qpc_, qpc_stats_, icm_.qpc_base, *req, req->qpc,
                                             delay);
  } else if (req->kind == ContextKind::Cqc && req->cqc && req->index < icm_.cqc_entries) {
    req->ok = read<CqcEntry, kCqcEntryBytes>(cqc_, cqc_stats_, icm_.cqc_base, *req, req->cqc,
                                             delay);
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void QpContext::ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
  const ContextChange* change = message_of<ContextChange>(gp);
  if (change && change->kind == ContextKind::Qpc) qpc_.invalidate(change->index);
  if (change && change->kind == ContextKind::Cqc) cqc_.invalidate(change->index);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace rnic
