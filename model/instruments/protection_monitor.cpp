// SPDX-License-Identifier: Apache-2.0
#include "model/instruments/protection_monitor.h"

#include <algorithm>
#include <cstdio>

#include "model/host/msi.h"
#include "model/rnic/abi/caps.h"
#include "model/rnic/util/byte_order.h"

namespace rnic {

ProtectionMonitor::ProtectionMonitor(sc_core::sc_module_name name, const IcmLayout& icm,
                                     uint32_t adapter_flags)
    : sc_module(name),
      device_tsock("device_tsock"),
      link_isock("link_isock"),
      stats(std::string(this->name())),
      icm_(icm),
      read_sink_required_(!(adapter_flags & caps::kRdmaReadSinkNotRequired)),
      checked_(stats.add("checked", "transactions", "device DMAs checked")),
      violations_(stats.add("violations", "transactions",
                            "DMAs the request they serve does not allow (the log says why)")) {
  const sc_core::sc_object* parent = get_parent_object();
  node_ = parent ? parent->basename() : "device";
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

void ProtectionMonitor::invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end) {
  dmi_.invalidate(start, end);
  for (auto& d : mpt_) d.at = nullptr;
  for (auto& d : qpc_) d.at = nullptr;
  for (auto& d : cqc_) d.at = nullptr;
}

template <typename Entry, size_t Bytes, size_t Slots>
const Entry* ProtectionMonitor::entry(std::array<Decoded<Entry, Bytes>, Slots>& slots,
                                      uint64_t base, uint32_t index) {
  Decoded<Entry, Bytes>& slot = slots[index % Slots];
  const uint64_t addr = base + uint64_t(index) * Bytes;
  // The entry's place in host memory, kept while the grant holds: no DMI lookup per check.
  if (slot.index != index || !slot.at) slot.at = dmi_.view(link_isock, addr, Bytes);
  const uint8_t* bytes = slot.at;
  uint8_t raw[Bytes];
  if (!bytes) {
    if (!read(addr, raw, Bytes)) return nullptr;
    bytes = raw;
  }
  return &slot.from(index, bytes);
}

const MptEntry* ProtectionMonitor::mpt(uint32_t index) {
  if (index == 0 || index >= icm_.mpt_entries) return nullptr;  // index 0 is never handed out
  return entry(mpt_, icm_.mpt_base, index);
}

const QpcEntry* ProtectionMonitor::qpc(uint32_t qpn) {
  return qpn < icm_.qpc_entries ? entry(qpc_, icm_.qpc_base, qpn) : nullptr;
}

const CqcEntry* ProtectionMonitor::cqc(uint32_t cqn) {
  return cqn < icm_.cqc_entries ? entry(cqc_, icm_.cqc_base, cqn) : nullptr;
}

namespace {

// [addr, +length) inside [base, +size)? Overflow-safe. (The monitor's own, not the device's
// protection_rules: a broken device rule must not break the check.)
bool inside(uint64_t addr, uint64_t length, uint64_t base, uint64_t size) {
  return addr >= base && addr - base <= size && length <= size - (addr - base);
}

bool is_region(const MptEntry& e) { return e.kind == MptKind::Mr || e.kind == MptKind::FastMr; }

// The k-th check of `list` (abi/rules.h): the rule a DMA breaks when it fails there.
RuleId rule_of(CheckList list, size_t k) {
  const std::vector<RuleId>& rules = checks_of(list);
  return rules[std::min(k, rules.size() - 1)];
}

bool remote(CheckList list) {
  return list == CheckList::RemoteRead || list == CheckList::RemoteWrite;
}

// The rights a data DMA's direction needs, whatever the device asked for: a remote read needs
// remote read (R5.read.resp.rights), a remote write remote write (R5.write.rights), a read's
// sink local write and RDMA_READ_SINK unless not required (R5.read.sink.*), a receive SGE local
// write (R5.recv.key); a source only local read, always granted (R2.mr.local_read).
uint16_t rights_for(CheckList list, bool read_sink_required) {
  switch (list) {
    case CheckList::RemoteRead: return kAccessRemoteRead;
    case CheckList::RemoteWrite: return kAccessRemoteWrite;
    case CheckList::ReadSink:
      return uint16_t(kAccessLocalWrite | (read_sink_required ? kAccessReadSink : 0));
    case CheckList::ReceiveSge: return kAccessLocalWrite;
    default: return 0;
  }
}

// Does the list's data move into host memory (a write DMA) or out of it (a read DMA)?
bool lands(CheckList list) {
  return list == CheckList::RemoteWrite || list == CheckList::ReadSink ||
         list == CheckList::ReceiveSge;
}

const char* source_name(DmaSource source) {
  switch (source) {
    case DmaSource::WqeFetch: return "WQE fetch";
    case DmaSource::MptTable: return "MPT";
    case DmaSource::MttTable: return "MTT";
    case DmaSource::ContextTable: return "context";
    case DmaSource::ReadData: return "data read";
    case DmaSource::WriteData: return "data write";
    case DmaSource::Completion: return "completion";
    case DmaSource::Dma: return "DMA bench";
    case DmaSource::Interrupt: return "interrupt";
    case DmaSource::Unknown: break;
  }
  return "unknown";
}

const char* table_name(DmaTable table) {
  switch (table) {
    case DmaTable::Mpt: return "MPT";
    case DmaTable::Mtt: return "MTT";
    case DmaTable::Qpc: return "QPC";
    case DmaTable::Cqc: return "CQC";
  }
  return "?";
}

}  // namespace

ProtectionMonitor::Verdict ProtectionMonitor::check_translation(const MptEntry& region,
                                                                uint64_t va, uint64_t addr,
                                                                uint64_t length) {
  const Verdict stray{RuleId::R6_no_touch, "bytes outside the translation of the request's VAs"};
  if (region.page_shift < 12 || region.page_shift > 30) return stray;
  if (!inside(va, length, region.base_va, region.length))
    return {RuleId::R6_no_touch, "VAs outside the region that translates them"};
  const uint64_t page_bytes = uint64_t(1) << region.page_shift;
  const uint64_t page_base_va = region.base_va & ~(page_bytes - 1);
  while (length > 0) {
    const uint64_t page = (va - page_base_va) >> region.page_shift;
    if (page >= region.page_capacity) return stray;
    uint8_t raw[kMttEntryBytes];
    const uint8_t* mtt = view(icm_.mtt_addr(region.mtt_index + uint32_t(page)), raw,
                              kMttEntryBytes);
    const uint64_t in_page = va & (page_bytes - 1);
    if (!mtt || addr != get_le<uint64_t>(mtt) + in_page) return stray;
    const uint64_t n = std::min(length, page_bytes - in_page);
    va += n;
    addr += n;
    length -= n;
  }
  return {};
}

ProtectionMonitor::Verdict ProtectionMonitor::check_data(uint64_t addr, uint64_t length,
                                                         bool write, const DmaAuthority& a,
                                                         uint64_t offset) {
  const CheckList list = a.checks;
  if (write != lands(list)) {
    return {RuleId::R6_no_touch, write ? "a write for a request that only reads memory"
                                       : "a read for a request that only writes memory"};
  }
  const uint16_t needed = uint16_t(rights_for(list, read_sink_required_) | a.access);
  const MptEntry* found = mpt(token_index(a.token));
  if (!found) return {rule_of(list, 0), "the token names no table entry"};
  // Copied: reading the parent below may reuse the slot.
  const MptEntry object = *found;
  const MptEntry* region = &object;
  MptEntry parent;
  uint64_t va = a.va;
  if (remote(list)) {
    // The responder's checks, in the order of R5.read.resp.* / R5.write.*.
    if (object.state == MptState::Unused || object.kind == MptKind::None)
      return {rule_of(list, 0), "the token names no object"};
    if (object.tag != token_tag(a.token)) return {rule_of(list, 1), "a stale tag"};
    if (object.state != MptState::Valid) return {rule_of(list, 2), "the object is not VALID"};
    if (object.pd != a.pd) return {rule_of(list, 3), "the object is in another PD"};
    const bool window = object.kind == MptKind::Mw;
    if (window && object.bound_qpn != a.qpn)
      return {rule_of(list, 4), "the window is bound to another QP"};
    if ((object.access & needed) != needed) {
      const bool read = list == CheckList::RemoteRead;
      return {rule_of(list, 5), read ? "the object grants no remote read"
                                     : "the object grants no remote write"};
    }
    if (window && object.zero_based) {
      if (va > UINT64_MAX - object.base_va) return {rule_of(list, 6), "past the object's end"};
      va += object.base_va;
    }
    if (!inside(va, a.length, object.base_va, object.length))
      return {rule_of(list, 6), "the request's range is not inside the object's"};
    if (window) {
      const MptEntry* p = mpt(object.parent_index);
      if (!p || !is_region(*p) || p->state != MptState::Valid)
        return {rule_of(list, 2), "the window's parent region is not VALID"};
      parent = *p;
      region = &parent;
    }
  } else {
    // The requester's (and a receive's) checks, in the order of R5.read.sink.*.
    if (!is_region(object) || object.tag != token_tag(a.token) ||
        object.state != MptState::Valid)
      return {rule_of(list, 0), "the token names no VALID region"};
    if (object.pd != a.pd) return {rule_of(list, 1), "the region is in another PD"};
    if ((object.access & needed & kAccessLocalWrite) != (needed & kAccessLocalWrite))
      return {rule_of(list, 2), "the region grants no local write"};
    if (!inside(va, a.length, object.base_va, object.length))
      return {rule_of(list, 3), "the request's range is not inside the region's"};
    if ((object.access & needed & kAccessReadSink) != (needed & kAccessReadSink))
      return {rule_of(list, 4), "the region is no RDMA read sink"};
  }
  // This DMA's bytes: a piece of the request's range, translated through the named region.
  if (offset > a.length || length > a.length - offset)
    return {rule_of(list, remote(list) ? 6 : 3), "bytes past the request's range"};
  return check_translation(*region, va + offset, addr, length);
}

ProtectionMonitor::Verdict ProtectionMonitor::check_page_list(uint64_t addr, uint64_t length,
                                                              bool write,
                                                              const DmaAuthority& a) {
  // Fast-register: the device reads the page array the WQE names and writes the MR's MTT
  // entries, nothing else (R5.fr.*).
  if (!write) {
    if (!inside(addr, length, a.va, uint64_t(a.number) * kMttEntryBytes))
      return {RuleId::R6_no_touch, "outside the WQE's page list"};
    return {};
  }
  const MptEntry* mr = mpt(token_index(a.token));
  if (!mr || mr->kind != MptKind::FastMr)
    return {RuleId::R5_fr_kind, "the token names no fast-register MR"};
  if (mr->pd != a.pd) return {RuleId::R5_fr_pd, "the MR is in another PD"};
  if (a.number > mr->page_capacity) return {RuleId::R5_fr_capacity, "more pages than reserved"};
  if (!inside(addr, length, icm_.mtt_addr(mr->mtt_index), uint64_t(a.number) * kMttEntryBytes))
    return {RuleId::R6_no_touch, "outside the MR's MTT entries"};
  return {};
}

ProtectionMonitor::Verdict ProtectionMonitor::check_table(uint64_t addr, uint64_t length,
                                                          const DmaAuthority& a) const {
  struct Table {
    uint64_t base, entries, bytes;
  };
  Table t{icm_.cqc_base, icm_.cqc_entries, kCqcEntryBytes};
  if (a.table == DmaTable::Mpt) t = {icm_.mpt_base, icm_.mpt_entries, kMptEntryBytes};
  if (a.table == DmaTable::Mtt) t = {icm_.mtt_base, icm_.mtt_entries, kMttEntryBytes};
  if (a.table == DmaTable::Qpc) t = {icm_.qpc_base, icm_.qpc_entries, kQpcEntryBytes};
  if (uint64_t(a.number) + a.count > t.entries ||
      !inside(addr, length, t.base + a.number * t.bytes, a.count * t.bytes))
    return {RuleId::R6_no_touch, "outside the named table entries"};
  return {};
}

ProtectionMonitor::Verdict ProtectionMonitor::check(const tlm::tlm_generic_payload& gp,
                                                    DmaSource source, const DmaAuthority* a,
                                                    uint64_t offset) {
  const uint64_t addr = gp.get_address();
  const uint64_t length = gp.get_data_length();
  const Verdict stray{RuleId::R6_no_touch, "outside what the request was given"};
  if (source == DmaSource::Interrupt) {  // a message to the CPU, never to memory
    const bool in_window = addr >= kMsiWindowBase && addr - kMsiWindowBase < kMsiWindowBytes &&
                           length <= kMsiWindowBytes - (addr - kMsiWindowBase);
    if (!in_window) return {RuleId::R6_no_touch, "an interrupt outside the MSI window"};
    return {};
  }
  if (source == DmaSource::Dma) return {};  // dma_bench probes: no verbs, it owns the buffer
  if (!a || a->kind == DmaAuthority::Kind::None)
    return {RuleId::R6_no_touch, "a DMA that serves no request"};
  switch (a->kind) {
    case DmaAuthority::Kind::Data: return check_data(addr, length, gp.is_write(), *a, offset);
    case DmaAuthority::Kind::SendQueue:
    case DmaAuthority::Kind::ReceiveQueue: {
      const QpcEntry* q = qpc(a->qpn);
      const bool send = a->kind == DmaAuthority::Kind::SendQueue;
      if (!q || !q->valid) return {RuleId::R6_no_touch, "the QP is not valid"};
      const uint64_t base = send ? q->sq_base : q->rq_base;
      const uint64_t depth = send ? q->sq_depth : q->rq_depth;
      if (gp.is_write() || !inside(addr, length, base, depth * kWqeBytes))
        return {RuleId::R6_no_touch, send ? "outside the QP's send queue"
                                          : "outside the QP's receive queue"};
      return {};
    }
    case DmaAuthority::Kind::Completion: {
      const CqcEntry* c = cqc(a->number);
      if (!c || !c->valid) return {RuleId::R6_no_touch, "the CQ is not valid"};
      if (!inside(addr, length, c->ring_base, uint64_t(c->depth) * kCqeBytes))
        return {RuleId::R6_no_touch, "outside the CQ's ring"};
      return {};
    }
    case DmaAuthority::Kind::PageList: return check_page_list(addr, length, gp.is_write(), *a);
    case DmaAuthority::Kind::Table: return check_table(addr, length, *a);
    case DmaAuthority::Kind::None: break;
  }
  return stray;
}

void ProtectionMonitor::report(const tlm::tlm_generic_payload& gp, DmaSource source,
                               const DmaAuthority* a, uint64_t offset, const Verdict& verdict) {
  ++violations_;
  char request[200] = "no request";
  if (a) {
    char trace[40] = "untraced";
    if (a->trace_id)
      std::snprintf(trace, sizeof trace, "trace 0x%llx", (unsigned long long)a->trace_id);
    switch (a->kind) {
      case DmaAuthority::Kind::Data:
        std::snprintf(request, sizeof request,
                      "QP %u's %s (%s checks, %s): token 0x%x, VA 0x%llx + %llu, this DMA at "
                      "offset %llu",
                      a->qpn, request_verb_name(a->verb), check_list_name(a->checks), trace,
                      a->token, (unsigned long long)a->va, (unsigned long long)a->length,
                      (unsigned long long)offset);
        break;
      case DmaAuthority::Kind::SendQueue:
      case DmaAuthority::Kind::ReceiveQueue:
        std::snprintf(request, sizeof request, "QP %u's %s queue", a->qpn,
                      a->kind == DmaAuthority::Kind::SendQueue ? "send" : "receive");
        break;
      case DmaAuthority::Kind::Completion:
        std::snprintf(request, sizeof request, "CQ %u (%s)", a->number, trace);
        break;
      case DmaAuthority::Kind::PageList:
        std::snprintf(request, sizeof request,
                      "QP %u's fast_register (%s): MR token 0x%x, page list 0x%llx x %u", a->qpn,
                      trace, a->token, (unsigned long long)a->va, a->number);
        break;
      case DmaAuthority::Kind::Table:
        std::snprintf(request, sizeof request, "%s entries %u + %u", table_name(a->table),
                      a->number, a->count);
        break;
      case DmaAuthority::Kind::None: break;
    }
  }
  char msg[512];
  std::snprintf(msg, sizeof msg,
                "node %s: %s of %u B at 0x%llx (%s) at %s, serving %s, breaks %s: %s",
                node_.c_str(), gp.is_write() ? "write" : "read", unsigned(gp.get_data_length()),
                (unsigned long long)gp.get_address(), source_name(source),
                sc_core::sc_time_stamp().to_string().c_str(), request, rule_name(verdict.rule),
                verdict.why);
  log_.push_back(msg);
  SC_REPORT_WARNING("rnicsim/protection_monitor", msg);
}

void ProtectionMonitor::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  ++checked_;
  DmaExtension* ext = nullptr;
  gp.get_extension(ext);
  const DmaSource source = ext ? ext->source : DmaSource::Unknown;
  const DmaAuthority* authority = ext ? ext->authority : nullptr;
  const uint64_t offset = ext ? ext->offset : 0;
  const Verdict verdict = check(gp, source, authority, offset);
  if (!verdict.allowed()) report(gp, source, authority, offset, verdict);
  link_isock->b_transport(gp, delay);
}

unsigned ProtectionMonitor::transport_dbg(tlm::tlm_generic_payload& gp) {
  return link_isock->transport_dbg(gp);
}

}  // namespace rnic
