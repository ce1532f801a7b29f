// SPDX-License-Identifier: Apache-2.0
// The driver's control path: host memory, PDs, CQs, QPs, MRs, MWs and tokens.
#include "host_api/adapter.h"

#include <algorithm>
#include <vector>

#include "host_api/adapter_impl.h"
#include "host_api/limits.h"
#include "model/host/msi.h"
#include "model/rnic/abi/bar.h"

namespace rnic::host {

using namespace ndk;

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace

uint64_t Buffer::phys(uint64_t offset) const {
  if (offset >= size || pages.empty()) return 0;
  return pages[offset / page_size] + offset % page_size;
}

std::vector<uint64_t> Buffer::page_array(uint64_t offset, uint64_t length) const {
  std::vector<uint64_t> out;
  if (offset >= size || pages.empty()) return out;
  const uint64_t first = offset / 4096 * 4096;
  const uint64_t end = length > size - offset ? size : offset + length;
  for (uint64_t o = first; o < end || o == first; o += 4096) out.push_back(phys(o) / 4096 * 4096);
  return out;
}

bool RangeAllocator::allocate(uint64_t count, uint64_t* start, uint64_t align) {
  if (count == 0 || align == 0) return false;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const uint64_t first = it->first;
    const uint64_t length = it->second;
    const uint64_t at = align_up(first, align);
    if (at - first >= length || length - (at - first) < count) continue;
    free_.erase(it);
    if (at > first) free_[first] = at - first;  // the part skipped for alignment stays free
    const uint64_t rest = length - (at - first) - count;
    if (rest) free_[at + count] = rest;
    *start = at;
    return true;
  }
  return false;
}

void RangeAllocator::release(uint64_t start, uint64_t count) {
  if (!count) return;
  auto next = free_.lower_bound(start);
  if (next != free_.end() && start + count == next->first) {
    count += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      prev->second += count;
      return;
    }
  }
  free_[start] = count;
}

uint64_t Adapter::Impl::alloc_phys(uint64_t bytes, uint64_t align) {
  uint64_t start = 0;
  if (bytes == 0 || bytes > memory_bytes) return 0;
  // Whole pages: what is freed later is then page-aligned too.
  if (!phys.allocate(align_up(bytes, 4096), &start, std::max<uint64_t>(align, 4096))) return 0;
  return start;
}

void Adapter::Impl::free_phys(uint64_t start, uint64_t bytes) {
  bytes = align_up(bytes, 4096);
  // Memory reads as zero until written: zero only the pages that were (host memory keeps
  // no page it never wrote, so a large untouched buffer costs nothing here).
  std::vector<uint8_t> page(4096);
  static const std::vector<uint8_t> zeros(4096, 0);
  for (uint64_t at = start; at < start + bytes; at += 4096) {
    if (!cpu.mem_read(at, page.data(), 4096)) continue;
    if (page != zeros) cpu.mem_write(at, zeros.data(), 4096);
  }
  phys.release(start, bytes);
}

MptEntry Adapter::Impl::read_mpt(uint32_t index) {
  uint8_t raw[kMptEntryBytes];
  cpu.mem_read(icm.mpt_addr(index), raw, kMptEntryBytes);
  return MptEntry::decode(raw);
}

void Adapter::Impl::write_mpt(uint32_t index, const MptEntry& entry) {
  uint8_t raw[kMptEntryBytes];
  entry.encode(raw);
  cpu.mem_write(icm.mpt_addr(index), raw, kMptEntryBytes);
}

bool Adapter::Impl::read_process(uint64_t va, uint8_t* data, uint64_t length) {
  auto it = buffers.upper_bound(va);
  if (it == buffers.begin()) return false;
  const Buffer& b = (--it)->second.buffer;
  const uint64_t offset = va - b.va;
  if (offset > b.size || length > b.size - offset) return false;
  while (length > 0) {
    const uint64_t o = va - b.va;
    const uint64_t n = std::min<uint64_t>(length, b.page_size - o % b.page_size);
    if (!cpu.mem_read(b.phys(o), data, n)) return false;
    data += n;
    va += n;
    length -= n;
  }
  return true;
}

void Adapter::Impl::context_changed(ContextKind kind, uint32_t index, uint32_t count) {
  // Large MTT ranges are announced in pieces: the count field is 24 bits.
  do {
    const uint32_t n = std::min<uint32_t>(count, 0xffffff);
    const sc_core::sc_time delay =
        cpu.mmio_write64(bar::kContextChange, bar::context_change_value(kind, index, n));
    if (sc_core::sc_get_current_process_handle().proc_kind() == sc_core::SC_THREAD_PROC_)
      sc_core::wait(delay);
    index += n;
    count -= n;
  } while (count > 0);
}

Adapter::Adapter(HostCpu& cpu, const RnicConfig& config, uint64_t memory_bytes, uint32_t node_id,
                 uint64_t seed)
    : impl_(std::make_unique<Impl>(cpu, config, memory_bytes, seed)), node_id_(node_id) {
  // The driver's allocations live above the tables, and never in the MSI window: the root
  // complex sends device writes there to the CPU, not to memory.
  const uint64_t base = std::min(impl_->icm.end, memory_bytes);
  const uint64_t hole = std::max(base, std::min(kMsiWindowBase, memory_bytes));
  const uint64_t hole_end =
      std::max(hole, std::min(kMsiWindowBase + kMsiWindowBytes, memory_bytes));
  impl_->phys.reset(base, hole - base);
  if (memory_bytes > hole_end) impl_->phys.release(hole_end, memory_bytes - hole_end);
  impl_->mtt.reset(0, impl_->icm.mtt_entries);
}

Adapter::~Adapter() = default;

void Adapter::attach_trace(HostTraceSink* sink) {
  impl_->trace = sink;
  impl_->node = node_id_;
}

NDK_ADAPTER_INFO Adapter::QueryAdapterInfo() const {
  const RnicConfig& c = impl_->config;
  NDK_ADAPTER_INFO info;
  info.MaxRegistrationSize = uint64_t(c.qp.max_mtt_entries) * 4096;
  info.MaxWindowSize = info.MaxRegistrationSize;
  info.FRMRPageCount = c.qp.max_fr_pages;
  info.MaxInitiatorSge = std::min<uint32_t>(c.qp.max_sge, kMaxSge);
  info.MaxReceiveSge = info.MaxInitiatorSge;
  info.MaxReadSge = info.MaxInitiatorSge;
  info.MaxTransferLength = uint32_t(std::min<uint64_t>(c.qp.max_transfer_bytes, 0xffffffffu));
  info.MaxInboundReadLimit = c.qp.max_ird;
  info.MaxOutboundReadLimit = c.qp.max_ord;
  info.MaxReceiveQueueDepth = kMaxQueueDepth;
  info.MaxInitiatorQueueDepth = kMaxQueueDepth;
  info.MaxCqDepth = kMaxCqDepth;
  info.LargeRequestThreshold = c.port.mtu_bytes;
  info.MaxInlineDataSize = kMaxInlineBytes;
  info.AdapterFlags = c.adapter_flags;
  return info;
}

NTSTATUS Adapter::AllocBuffer(uint64_t size, uint32_t page_size, bool scatter, BufferFill fill,
                              uint8_t fill_byte, Buffer* out) {
  if (!out || size == 0 || (page_size != 4096 && page_size != 2097152)) {
    set_error("buffer size must be positive and page_size 4096 or 2097152");
    return STATUS_INVALID_PARAMETER;
  }
  Impl& s = *impl_;
  const uint64_t pages = (size + page_size - 1) / page_size;
  if (pages > s.memory_bytes / page_size) {
    set_error("buffer larger than host memory");
    return STATUS_INSUFFICIENT_RESOURCES;
  }
  const uint64_t base = s.alloc_phys(pages * page_size, page_size);
  if (!base) {
    set_error("host memory exhausted");
    return STATUS_INSUFFICIENT_RESOURCES;
  }
  Buffer b;
  b.size = size;
  b.page_size = page_size;
  b.va = align_up(s.va_next, page_size);
  s.va_next = b.va + pages * page_size + page_size;  // a guard page between buffers
  for (uint64_t i = 0; i < pages; ++i) b.pages.push_back(base + i * page_size);
  if (scatter) std::shuffle(b.pages.begin(), b.pages.end(), s.rng);
  // Fill page by page so huge buffers never need a second copy on the host.
  std::vector<uint8_t> chunk(std::min<uint64_t>(size, 1u << 20));
  for (uint64_t off = 0; off < size && fill != BufferFill::Zero; off += chunk.size()) {
    const uint64_t n = std::min<uint64_t>(chunk.size(), size - off);
    for (uint64_t i = 0; i < n; ++i) {
      switch (fill) {
        case BufferFill::Incrementing: chunk[i] = uint8_t(off + i); break;
        case BufferFill::Random: chunk[i] = uint8_t(s.rng()); break;
        default: chunk[i] = fill_byte; break;
      }
    }
    WriteBuffer(b, off, chunk.data(), n);
  }
  s.buffers[b.va] = BufferInfo{b, base, pages * page_size, 0};
  *out = std::move(b);
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::FreeBuffer(const Buffer& buffer) {
  Impl& s = *impl_;
  auto it = s.buffers.find(buffer.va);
  if (it == s.buffers.end()) {
    set_error("unknown buffer");
    return STATUS_INVALID_PARAMETER;
  }
  if (it->second.registrations > 0) {
    set_error("an MR is registered on the buffer");
    return STATUS_DEVICE_BUSY;
  }
  s.free_phys(it->second.phys, it->second.phys_bytes);
  s.buffers.erase(it);
  return STATUS_SUCCESS;
}

bool Adapter::WriteBuffer(const Buffer& buffer, uint64_t offset, const void* data,
                          uint64_t length) {
  if (offset > buffer.size || length > buffer.size - offset) return false;
  const uint8_t* p = static_cast<const uint8_t*>(data);
  while (length > 0) {
    const uint64_t in_page = offset % buffer.page_size;
    const uint64_t n = std::min<uint64_t>(length, buffer.page_size - in_page);
    if (!impl_->cpu.mem_write(buffer.phys(offset), p, n)) return false;
    p += n;
    offset += n;
    length -= n;
  }
  return true;
}

bool Adapter::ReadBuffer(const Buffer& buffer, uint64_t offset, void* data, uint64_t length) {
  if (offset > buffer.size || length > buffer.size - offset) return false;
  uint8_t* p = static_cast<uint8_t*>(data);
  while (length > 0) {
    const uint64_t in_page = offset % buffer.page_size;
    const uint64_t n = std::min<uint64_t>(length, buffer.page_size - in_page);
    if (!impl_->cpu.mem_read(buffer.phys(offset), p, n)) return false;
    p += n;
    offset += n;
    length -= n;
  }
  return true;
}

NTSTATUS Adapter::CreatePd(PdHandle* out) {
  if (!out) return STATUS_INVALID_PARAMETER;
  if (impl_->pds.size() >= kMaxPds) {
    set_error("PD limit (" + std::to_string(kMaxPds) + ") reached");
    return STATUS_INSUFFICIENT_RESOURCES;
  }
  // PD numbers only name a domain (no table entry): skip 0 and numbers still in use.
  do {
    *out = impl_->next_pd++;
  } while (*out == 0 || impl_->pds.count(*out));
  impl_->pds[*out] = true;
  return STATUS_SUCCESS;
}

NTSTATUS Adapter::CreateCq(uint32_t depth, CqHandle* out) {
  Impl& s = *impl_;
  if (!out || depth == 0 || depth > kMaxCqDepth) {
    set_error("CQ depth must be 1.." + std::to_string(kMaxCqDepth));
    return STATUS_INVALID_PARAMETER;
  }
  const uint64_t ring = s.alloc_phys(uint64_t(depth) * kCqeBytes, 4096);
  if (!ring) {
    set_error("host memory exhausted");
    return STATUS_INSUFFICIENT_RESOURCES;
  }
  const CqHandle cqn = s.cq_numbers.take();
  if (!cqn) {
    s.free_phys(ring, uint64_t(depth) * kCqeBytes);
    set_error("CQ table full");
    return STATUS_INSUFFICIENT_RESOURCES;
  }
  CqInfo& info = s.cqs[cqn];  // fresh: consumer 0, not armed
  info.ring = ring;
  info.depth = depth;
  if (!s.interrupt_set) {
    // Before the first CQ, as a driver enables its interrupt vector when it opens: the address
    // in the MSI window that the device's completion messages go to.
    s.cpu.mmio_write64(bar::kInterruptAddress, kMsiWindowBase);
    s.interrupt_set = true;
  }
  CqcEntry cqc;
  cqc.valid = 1;
  cqc.ring_base = ring;
  cqc.depth = depth;
  uint8_t raw[kCqcEntryBytes];
  cqc.encode(raw);
  s.cpu.mem_write(s.icm.cqc_addr(cqn), raw, kCqcEntryBytes);
  s.context_changed(ContextKind::Cqc, cqn);
  *out = cqn;
  return STATUS_SUCCESS;
}

bool Adapter::CqOverflowed(CqHandle cq) {
  if (!impl_->cqs.count(cq)) return false;
  uint8_t raw[kCqcEntryBytes];
  impl_->cpu.mem_read(impl_->icm.cqc_addr(cq), raw, kCqcEntryBytes);
  return CqcEntry::decode(raw).overflow != 0;
}

}  // namespace rnic::host
