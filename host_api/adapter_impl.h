// SPDX-License-Identifier: Apache-2.0
// Private state of the driver (Adapter): allocators and the host's view of its objects.
#pragma once

#include <deque>
#include <map>
#include <random>
#include <unordered_map>

#include "host_api/adapter.h"
#include "host_api/limits.h"
#include "model/host/host_cpu.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/abi/bar.h"
#include "model/rnic/abi/wqe.h"

namespace rnic::host {

struct CqInfo {
  uint64_t ring = 0;  // physical address
  uint32_t depth = 0;
  uint32_t consumer = 0;
  // Armed (NotifyCq) and no entry taken since: the device still owes the interrupt, so a
  // second NotifyCq need not ring again (the device disarms when it interrupts, which it does
  // before any entry past the armed consumer index can be taken).
  bool armed = false;
  // Entries of closed QPs not consumed yet, by ring position: their QP context (the QP's
  // number may already name another QP).
  std::map<uint32_t, uint64_t> orphans;
};

struct QpInfo {
  PdHandle pd = 0;
  CqHandle cq = 0;
  uint64_t qp_context = 0;
  QpcEntry qpc;
  uint32_t sq_producer = 0;  // WQEs written
  uint32_t sq_consumer = 0;  // WQEs known complete
  uint32_t sq_doorbell = 0;  // producer index last rung
  uint64_t page_lists = 0;   // fast-register page arrays, one slot per send-queue entry
  uint64_t page_lists_bytes = 0;
  uint32_t rq_producer = 0;  // receives posted (and rung: receives are never deferred)
  uint32_t rq_consumer = 0;  // receives known complete
  uint64_t sends_posted = 0;     // Send and SendAndInvalidate WQEs, since creation
  uint64_t receives_posted = 0;  // since creation (rq_producer wraps)
  bool error_seen = false;       // an error completion was taken, or the QP was flushed
};

// The last Bind or FastRegister posted on an MR or MW, until the driver knows its outcome:
// the object's tag moves to `tag` only if the device accepts it (R1.token.refused).
struct TagMove {
  bool active = false;
  QpHandle qpn = 0;
  uint32_t wqe_index = 0;
  uint8_t tag = 0;
};

struct MrInfo {
  PdHandle pd = 0;
  bool fast_register = false;
  bool registered = false;
  uint32_t mr_flags = 0;
  uint32_t mtt_index = 0;
  uint32_t mtt_count = 0;
  uint8_t tag = 0;  // fast-register MR: its current tag, or that of the posted FastRegister
  TagMove move;     // fast-register MR: a FastRegister whose outcome is not known yet
  bool fr_initialized = false;
  bool fr_remote_access = false;
  bool pending = false;  // an asynchronous registration has not completed yet
  uint64_t buffer_va = 0;  // registered: the buffer it maps (a buffer is not freed under it)
};

struct MwInfo {
  PdHandle pd = 0;
  uint8_t tag = 0;  // its current tag, or that of the posted Bind (the consumer picks new tags)
  bool zero_based = false;  // last bound through the user-mode Bind (descriptor Base 0)
  TagMove move;             // a Bind whose outcome is not known yet
};

// First-fit allocator of ranges: MTT entries, physical memory.
class RangeAllocator {
 public:
  void reset(uint64_t first, uint64_t count) {
    free_.clear();
    if (count) free_[first] = count;
  }
  // A free range of `count` starting at a multiple of `align`; false when none is left.
  bool allocate(uint64_t count, uint64_t* start, uint64_t align = 1);
  bool allocate(uint32_t count, uint32_t* start) {
    uint64_t at = 0;
    if (!allocate(uint64_t(count), &at)) return false;
    *start = uint32_t(at);
    return true;
  }
  void release(uint64_t start, uint64_t count);
  uint64_t free_total() const {
    uint64_t n = 0;
    for (const auto& [start, length] : free_) n += length;
    return n;
  }

 private:
  std::map<uint64_t, uint64_t> free_;  // start -> length
};

// A buffer of the process and the physical block behind it.
struct BufferInfo {
  Buffer buffer;
  uint64_t phys = 0;
  uint64_t phys_bytes = 0;
  uint32_t registrations = 0;  // MRs registered on it
};

// Table indices (QP, CQ, MPT numbers): never-used ones first, then closed ones, oldest
// first, so a closed number comes back as late as possible.
class IndexAllocator {
 public:
  IndexAllocator(uint32_t first, uint32_t end) : first_(first), next_(first), end_(end) {}
  uint32_t take() {  // 0 when the table is full
    if (next_ < end_) return next_++;
    if (free_.empty()) return 0;
    const uint32_t index = free_.front();
    free_.pop_front();
    return index;
  }
  void give_back(uint32_t index) { free_.push_back(index); }
  uint32_t in_use() const { return next_ - first_ - uint32_t(free_.size()); }

 private:
  uint32_t first_;
  uint32_t next_;
  uint32_t end_;
  std::deque<uint32_t> free_;
};

struct Adapter::Impl {
  Impl(HostCpu& cpu_, const RnicConfig& config_, uint64_t memory_bytes_, uint64_t seed)
      : cpu(cpu_), config(config_), icm(IcmLayout::from(config_.qp)),
        memory_bytes(memory_bytes_), rng(seed), qp_numbers(1, 1 + qp_capacity(config_.qp)),
        cq_numbers(1, 1 + cq_capacity(config_.qp)),
        mpt_indices(1, 1 + mpt_capacity(config_.qp)) {}

  HostCpu& cpu;
  RnicConfig config;
  IcmLayout icm;
  uint64_t memory_bytes;
  std::mt19937_64 rng;
  RangeAllocator phys;  // host memory above the tables (queues, rings, buffers)
  bool interrupt_set = false;  // the device has the interrupt address (set before the first CQ)
  uint64_t va_next = 0x00007f0000000000ull;
  uint32_t next_pd = 1;
  // Index 0 of every table is never used: token 0 is never valid, nor QP or CQ number 0.
  IndexAllocator qp_numbers;
  IndexAllocator cq_numbers;
  IndexAllocator mpt_indices;
  RangeAllocator mtt;
  std::unordered_map<PdHandle, bool> pds;
  std::unordered_map<CqHandle, CqInfo> cqs;
  std::unordered_map<QpHandle, QpInfo> qps;
  std::unordered_map<MrHandle, MrInfo> mrs;
  std::unordered_map<MwHandle, MwInfo> mws;
  std::map<uint64_t, BufferInfo> buffers;  // the process's allocations, by base VA
  HostTraceSink* trace = nullptr;  // the host track of a timeline (Adapter::attach_trace)
  uint32_t node = 0;               // this adapter's node, for `trace`

  // Copies [va, va + length) of the process's memory (CPU loads, e.g. INLINE payloads);
  // false when the range is not inside one allocation.
  bool read_process(uint64_t va, uint8_t* data, uint64_t length);
  // Contiguous physical memory (queues, rings), zero-filled; 0 when memory is exhausted.
  uint64_t alloc_phys(uint64_t bytes, uint64_t align);
  // Gives memory from alloc_phys back, zeroing what was written (the next user expects zeros).
  void free_phys(uint64_t start, uint64_t bytes);
  MptEntry read_mpt(uint32_t index);
  void write_mpt(uint32_t index, const MptEntry& entry);
  // Tells the device an ICM entry changed and waits until it has seen it (a synchronous
  // command, like the firmware commands of a real driver).
  void context_changed(ContextKind kind, uint32_t index, uint32_t count = 1);
  void ring_sq(QpHandle qpn, QpInfo& qp);
  // A bound window back to FREE, its MR no longer pinned by it (closing the QP or the MW).
  void release_window(uint32_t mw);
  // A closed MR's or MW's entry: Unused with its last tag; the index goes back for reuse.
  void retire_mpt(uint32_t index, uint8_t tag);
};

}  // namespace rnic::host
