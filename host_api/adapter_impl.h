// SPDX-License-Identifier: Apache-2.0
// Private state of the driver (Adapter): allocators and the host's view of its objects.
#pragma once

#include <map>
#include <random>
#include <unordered_map>

#include "host_api/adapter.h"
#include "model/host/host_cpu.h"
#include "model/rnic/icm.h"
#include "model/rnic/messages.h"
#include "model/rnic/wqe.h"

namespace rnic::host {

struct CqInfo {
  uint64_t ring = 0;  // physical address
  uint32_t depth = 0;
  uint32_t consumer = 0;
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
  uint32_t rq_producer = 0;  // receives posted (and rung: receives are never deferred)
  uint32_t rq_consumer = 0;  // receives known complete
};

struct MrInfo {
  PdHandle pd = 0;
  bool fast_register = false;
  bool registered = false;
  uint32_t mr_flags = 0;
  uint32_t mtt_index = 0;
  uint32_t mtt_count = 0;
  uint8_t tag = 0;              // fast-register MR: the tag the next fast-register advances
  bool fr_initialized = false;
  bool fr_remote_access = false;
  bool pending = false;  // an asynchronous registration has not completed yet
};

struct MwInfo {
  PdHandle pd = 0;
  uint8_t tag = 0;  // the tag the next bind advances (the consumer picks new tags)
  bool zero_based = false;  // last bound through the user-mode Bind (descriptor Base 0)
};

// First-fit allocator of index ranges (MTT entries).
class RangeAllocator {
 public:
  void reset(uint32_t first, uint32_t count) {
    free_.clear();
    if (count) free_[first] = count;
  }
  bool allocate(uint32_t count, uint32_t* start);
  void release(uint32_t start, uint32_t count);

 private:
  std::map<uint32_t, uint32_t> free_;  // start -> length
};

struct Adapter::Impl {
  Impl(HostCpu& cpu_, const RnicConfig& config_, uint64_t memory_bytes_, uint64_t seed)
      : cpu(cpu_), config(config_), icm(IcmLayout::from(config_.qp)),
        memory_bytes(memory_bytes_), rng(seed) {}

  HostCpu& cpu;
  RnicConfig config;
  IcmLayout icm;
  uint64_t memory_bytes;
  std::mt19937_64 rng;
  uint64_t phys_next = 0;
  uint64_t va_next = 0x00007f0000000000ull;
  uint32_t next_pd = 1;
  uint32_t next_cq = 1;
  uint32_t next_qp = 1;
  uint32_t next_mpt = 1;  // MPT index 0 is never used: token 0 is never valid
  RangeAllocator mtt;
  std::unordered_map<PdHandle, bool> pds;
  std::unordered_map<CqHandle, CqInfo> cqs;
  std::unordered_map<QpHandle, QpInfo> qps;
  std::unordered_map<MrHandle, MrInfo> mrs;
  std::unordered_map<MwHandle, MwInfo> mws;
  std::map<uint64_t, Buffer> buffers;  // the process's allocations, by base VA

  // Copies [va, va + length) of the process's memory (CPU loads, e.g. INLINE payloads);
  // false when the range is not inside one allocation.
  bool read_process(uint64_t va, uint8_t* data, uint64_t length);
  // Contiguous physical memory (queues, rings); 0 when memory is exhausted.
  uint64_t alloc_phys(uint64_t bytes, uint64_t align);
  MptEntry read_mpt(uint32_t index);
  void write_mpt(uint32_t index, const MptEntry& entry);
  // Tells the device an ICM entry changed and waits until it has seen it (a synchronous
  // command, like the firmware commands of a real driver).
  void context_changed(ContextKind kind, uint32_t index, uint32_t count = 1);
  void ring_sq(QpHandle qpn, QpInfo& qp);
};

}  // namespace rnic::host
