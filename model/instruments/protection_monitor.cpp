// SPDX-License-Identifier: Apache-2.0
#include "model/instruments/protection_monitor.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "model/host/msi.h"
#include "model/rnic/util/byte_order.h"

namespace rnic {

ProtectionMonitor::ProtectionMonitor(sc_core::sc_module_name name, const IcmLayout& icm)
    : sc_module(name),
      device_tsock("device_tsock"),
      link_isock("link_isock"),
      stats(std::string(this->name())),
      icm_(icm),
      checked_(stats.add("checked", "transactions", "device DMAs checked")),
      violations_(stats.add("violations", "transactions",
                            "DMAs outside every range the device was given")) {
  device_tsock.register_b_transport(this, &ProtectionMonitor::b_transport);
  device_tsock.register_transport_dbg(this, &ProtectionMonitor::transport_dbg);
  link_isock.register_invalidate_direct_mem_ptr(this, &ProtectionMonitor::invalidate_dmi);
}

bool ProtectionMonitor::read(uint64_t addr, void* data, uint32_t length) {
  if (dmi_.copy(link_isock, false, addr, data, length)) return true;
  tlm::tlm_generic_payload& gp = read_gp_;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(static_cast<unsigned char*>(data));
  gp.set_data_length(length);
  gp.set_streaming_width(length);
  return link_isock->transport_dbg(gp) == length;
}

const uint8_t* ProtectionMonitor::view(uint64_t addr, uint8_t* buffer, uint32_t length) {
  if (const uint8_t* bytes = dmi_.view(link_isock, addr, length)) return bytes;
  return read(addr, buffer, length) ? buffer : nullptr;
}

namespace {

bool in_ring(uint64_t addr, uint64_t length, uint64_t base, uint64_t entries, uint64_t bytes) {
  return addr >= base && addr + length <= base + entries * bytes;
}

bool qp_rings_hold(const QpcEntry& qpc, uint64_t addr, uint64_t length) {
  return qpc.valid && (in_ring(addr, length, qpc.sq_base, qpc.sq_depth, kWqeBytes) ||
                       in_ring(addr, length, qpc.rq_base, qpc.rq_depth, kWqeBytes));
}

bool cq_ring_holds(const CqcEntry& cqc, uint64_t addr, uint64_t length) {
  return cqc.valid && in_ring(addr, length, cqc.ring_base, cqc.depth, kCqeBytes);
}

}  // namespace

bool ProtectionMonitor::in_recent_queue_ring(uint64_t addr, uint64_t length) {
  if (recent_qpn_ == 0) return false;
  uint8_t raw[kQpcEntryBytes];
  const uint8_t* entry = view(icm_.qpc_addr(recent_qpn_), raw, kQpcEntryBytes);
  return entry && qp_rings_hold(recent_qpc_.from(entry), addr, length);
}

bool ProtectionMonitor::scan_queue_rings(uint32_t first, uint64_t addr, uint64_t length) {
  uint8_t raw[kQpcEntryBytes];
  for (uint32_t qpn = first; qpn < icm_.qpc_entries; ++qpn) {
    if (!read(icm_.qpc_addr(qpn), raw, kQpcEntryBytes)) return false;
    const QpcEntry qpc = QpcEntry::decode(raw);
    // QP numbers are handed out in order, closed ones again later: the first never-used
    // entry ends the scan.
    if (!qpc.valid && !qpc.retired) break;
    scanned_qpns_ = std::max(scanned_qpns_, qpn + 1);
    if (qpc.valid) {
      if (qpc.sq_depth) ring_owner_[qpc.sq_base] = qpn;
      if (qpc.rq_depth) ring_owner_[qpc.rq_base] = qpn;
    }
    if (qp_rings_hold(qpc, addr, length)) {
      recent_qpn_ = qpn;
      recent_qpc_.from(raw);
      return true;
    }
  }
  return false;
}

bool ProtectionMonitor::in_queue_ring(uint64_t addr, uint64_t length) {
  if (in_recent_queue_ring(addr, length)) return true;
  // The QP whose ring starts nearest below the address, as last seen: read again.
  auto owner = ring_owner_.upper_bound(addr);
  if (owner != ring_owner_.begin()) {
    const uint32_t qpn = std::prev(owner)->second;
    uint8_t raw[kQpcEntryBytes];
    if (read(icm_.qpc_addr(qpn), raw, kQpcEntryBytes) &&
        qp_rings_hold(QpcEntry::decode(raw), addr, length)) {
      recent_qpn_ = qpn;
      recent_qpc_.from(raw);
      return true;
    }
  }
  // QPs created since the last scan, then (a number used again, or a refused DMA) all of them.
  if (scan_queue_rings(scanned_qpns_, addr, length)) return true;
  ring_owner_.clear();
  scanned_qpns_ = 1;
  return scan_queue_rings(1, addr, length);
}

bool ProtectionMonitor::in_recent_cq_ring(uint64_t addr, uint64_t length) {
  if (recent_cqn_ == 0) return false;
  uint8_t raw[kCqcEntryBytes];
  const uint8_t* entry = view(icm_.cqc_addr(recent_cqn_), raw, kCqcEntryBytes);
  return entry && cq_ring_holds(recent_cqc_.from(entry), addr, length);
}

bool ProtectionMonitor::in_cq_ring(uint64_t addr, uint64_t length) {
  if (in_recent_cq_ring(addr, length)) return true;
  uint8_t raw[kCqcEntryBytes];
  for (uint32_t cqn = 1; cqn < icm_.cqc_entries; ++cqn) {
    if (!read(icm_.cqc_addr(cqn), raw, kCqcEntryBytes)) return false;
    const CqcEntry cqc = CqcEntry::decode(raw);
    if (!cqc.valid && !cqc.retired) break;  // as for QPs
    if (cq_ring_holds(cqc, addr, length)) {
      recent_cqn_ = cqn;
      recent_cqc_.from(raw);
      return true;
    }
  }
  return false;
}

bool ProtectionMonitor::page_covers(const MptEntry& mr, uint64_t page, uint64_t addr,
                                    uint64_t length) {
  if (mr.state != MptState::Valid || (mr.kind != MptKind::Mr && mr.kind != MptKind::FastMr))
    return false;
  const uint64_t page_bytes = uint64_t(1) << mr.page_shift;
  const uint64_t page_base_va = mr.base_va & ~(page_bytes - 1);
  const uint64_t pages = (mr.base_va + mr.length - page_base_va + page_bytes - 1) / page_bytes;
  if (page >= pages || page >= mr.page_capacity) return false;
  uint8_t raw[kMttEntryBytes];
  const uint8_t* entry = view(icm_.mtt_addr(mr.mtt_index + uint32_t(page)), raw, kMttEntryBytes);
  if (!entry) return false;
  const uint64_t phys = get_le<uint64_t>(entry);
  // The registered bytes of this page, as physical addresses [first, last).
  const uint64_t page_va = page_base_va + page * page_bytes;
  const uint64_t lo_va = std::max(page_va, mr.base_va);
  const uint64_t hi_va = std::min(page_va + page_bytes, mr.base_va + mr.length);
  return addr >= phys + (lo_va - page_va) && addr + length <= phys + (hi_va - page_va);
}

bool ProtectionMonitor::in_valid_region(uint64_t addr, uint64_t length) {
  // Recent matches first (streams touch the same pages again), each re-read from host memory.
  uint8_t raw[kMptEntryBytes];
  for (size_t i = 0; i < recent_.size(); ++i) {
    Match& m = recent_[i];
    const uint8_t* entry = view(icm_.mpt_addr(m.index), raw, kMptEntryBytes);
    if (!entry) continue;
    const MptEntry& mr = m.mpt.from(entry);
    for (uint64_t page : {m.page, m.page + 1}) {
      if (page_covers(mr, page, addr, length)) {
        m.page = page;
        if (i > 0) std::rotate(recent_.begin(), recent_.begin() + long(i),
                               recent_.begin() + long(i) + 1);  // to the front
        return true;
      }
    }
  }
  // Then every region, straight from the MPT in host memory. The driver hands out MPT
  // indices in order, closed ones again later (a closed entry keeps its kind), so the first
  // never-created entry ends the scan.
  constexpr uint32_t kChunk = 64;
  table_.resize(size_t(kChunk) * kMptEntryBytes);
  for (uint32_t first = 1; first < icm_.mpt_entries; first += kChunk) {
    const uint32_t n = std::min(kChunk, icm_.mpt_entries - first);
    if (!read(icm_.mpt_addr(first), table_.data(), n * kMptEntryBytes)) return false;
    for (uint32_t k = 0; k < n; ++k) {
      const uint8_t* entry = table_.data() + size_t(k) * kMptEntryBytes;
      if (entry[1] == uint8_t(MptKind::None)) return false;
      if (entry[0] != uint8_t(MptState::Valid)) continue;
      const MptEntry mr = MptEntry::decode(entry);
      if (mr.kind != MptKind::Mr && mr.kind != MptKind::FastMr) continue;
      const uint64_t page_bytes = uint64_t(1) << mr.page_shift;
      const uint64_t page_base_va = mr.base_va & ~(page_bytes - 1);
      const uint64_t pages = (mr.base_va + mr.length - page_base_va + page_bytes - 1) / page_bytes;
      for (uint64_t page = 0; page < pages && page < mr.page_capacity; ++page) {
        if (!page_covers(mr, page, addr, length)) continue;
        Match match{first + k, page, {}};
        match.mpt.from(entry);
        recent_.insert(recent_.begin(), match);
        if (recent_.size() > 8) recent_.pop_back();
        return true;
      }
    }
  }
  return false;
}

bool ProtectionMonitor::allowed(uint64_t addr, uint64_t length, DmaSource source) {
  if (addr >= icm_.mpt_base && addr + length <= icm_.end) return true;  // device tables
  switch (source) {
    case DmaSource::WqeFetch: return in_queue_ring(addr, length);
    case DmaSource::Completion: return in_cq_ring(addr, length);
    case DmaSource::ReadData:
    case DmaSource::WriteData: return in_valid_region(addr, length);
    case DmaSource::MttTable:  // fast-register page arrays: named by a WQE the driver posted
    case DmaSource::Dma:       // dma_bench probes: no verbs, the bench owns the buffer
      return true;
    case DmaSource::Interrupt:  // a message to the CPU, never to memory
      return addr >= kMsiWindowBase && addr - kMsiWindowBase < kMsiWindowBytes &&
             length <= kMsiWindowBytes - (addr - kMsiWindowBase);
    case DmaSource::MptTable:
    case DmaSource::ContextTable:
    case DmaSource::Unknown: return false;  // tables live in ICM only
  }
  return false;
}

void ProtectionMonitor::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  ++checked_;
  const uint64_t addr = gp.get_address();
  const uint64_t length = gp.get_data_length();
  const DmaSource source = dma_source_of(gp);
  if (!allowed(addr, length, source)) {
    ++violations_;
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s of %llu bytes at 0x%llx (source %u) at %s is outside every "
                  "range the device was given",
                  gp.is_write() ? "write" : "read", (unsigned long long)length,
                  (unsigned long long)addr, unsigned(source),
                  sc_core::sc_time_stamp().to_string().c_str());
    log_.push_back(msg);
    SC_REPORT_WARNING("rnicsim/protection_monitor", msg);
  }
  link_isock->b_transport(gp, delay);
}

unsigned ProtectionMonitor::transport_dbg(tlm::tlm_generic_payload& gp) {
  return link_isock->transport_dbg(gp);
}

}  // namespace rnic
