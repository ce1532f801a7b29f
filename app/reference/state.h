// SPDX-License-Identifier: Apache-2.0
// The tables of the reference model (app/reference/model.h): what docs/behaviour.md says the
// adapter and the device keep, as plain structs. No timing, no host memory layout beyond what a
// consumer can observe (buffer virtual addresses, tokens, bytes).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/scenario/scenario.h"
#include "model/rnic/abi/rules.h"

namespace rnic::app::refm {

// Rights of a region or window, one bit each (docs/behaviour.md, Flags, gives them three spellings:
// MR flags, FastRegister op flags, Bind op flags; all are normalised to these).
constexpr uint32_t kLocalWrite = 1;
constexpr uint32_t kRemoteRead = 2;
constexpr uint32_t kRemoteWrite = 4;
constexpr uint32_t kReadSink = 8;

constexpr uint32_t kPageSize = 4096;  // PAGE_SIZE of FastRegister (R5.fr.length, R5.fr.fbo)

inline uint32_t make_token(uint32_t index, uint8_t tag) {
  return index << 8 | tag;
}

// The remote half of NDK's ALLOW_REMOTE_WRITE (0x030 also sets LOCAL_WRITE): a region or
// window given remote write.
constexpr uint32_t kRemoteWriteBit = 0x020;

// [addr, addr + length) inside [base, base + size).
inline bool inside(uint64_t addr, uint64_t length, uint64_t base, uint64_t size) {
  return addr >= base && length <= size && addr - base <= size - length;
}

// A host buffer: its virtual range and its bytes (rounded up to whole pages: a fast-register
// page array may name the tail of the last page).
struct Buffer {
  uint32_t node = 0;
  uint64_t va = 0;
  uint64_t size = 0;
  uint32_t page_size = kPageSize;
  std::vector<uint8_t> bytes;
};

// One 4 KiB page of a fast-register page array: a buffer and the byte offset in it where the
// page starts (not a multiple of 4096 for a misaligned page address).
struct Page {
  std::string buffer;
  uint64_t offset = 0;
};

enum class MptKind { Mr, FastMr, Mw };

// An MPT entry: a region (normal or fast-register) or a window (docs/behaviour.md, Objects).
struct Mpt {
  std::string name;
  bool exists = false;  // false when its creation failed (a handle that names nothing)
  uint32_t node = 0;
  uint32_t index = 0;  // the 24-bit table index of its tokens
  MptKind kind = MptKind::Mr;
  std::string pd;
  bool valid = false;        // VALID, else FREE
  uint8_t tag = 0;           // the object's current tag: a token must carry it
  uint8_t consumer_tag = 0;  // fast-register MRs and windows: the tag of the token it reports
  // A Bind, FastRegister or Invalidate of it completed CANCELLED: its state and token are
  // undefined (R4.cancelled.undefined); the model predicts nothing that names it from then on.
  bool undefined = false;
  uint32_t rights = 0;
  uint64_t base_va = 0;
  uint64_t length = 0;
  // normal registration: [base_va, +length) is [buffer_offset, +length) of `buffer`
  std::string buffer;
  uint64_t buffer_offset = 0;
  bool registered = false;
  uint32_t registered_flags = 0;  // the NDK_MR_FLAG_* of the last registration
  bool async_pending = false;     // registered asynchronously, not yet waited for
  bool async_called = false;      // an asynchronous registration was started (wait_async)
  // fast registration (R5.frinit.limit, R5.fr.*)
  bool fr_initialized = false;
  bool fr_remote_access = false;
  uint32_t fr_capacity = 0;
  uint64_t fbo = 0;
  std::vector<Page> pages;
  uint32_t bound_windows = 0;  // regions: windows bound to it (R5.inv.bound_windows, R5.dereg.busy)
  // windows
  std::string bound_qp;
  std::string region;
  bool zero_based = false;  // bound through the user-mode Bind: addressed from 0
};

// The token the consumer holds for an object (`$NAME.token`): a normal region's carries the
// tag its registration gave it; for fast-register regions and windows the consumer picks the
// next tag when it posts, and keeps the old one if the device refuses it (R1.token.refused).
inline uint32_t token_of(const Mpt& m) {
  if (!m.exists) return 0;
  return make_token(m.index, m.kind == MptKind::Mr ? m.tag : m.consumer_tag);
}

// The base VA the host API reports (`$NAME.va`): 0 unless VALID, 0 for a zero-based window.
inline uint64_t base_va_of(const Mpt& m) {
  if (!m.exists || !m.valid) return 0;
  return m.kind == MptKind::Mw && m.zero_based ? 0 : m.base_va;
}

struct Sge {
  uint64_t addr = 0;
  uint32_t length = 0;
  uint32_t token = 0;
};

inline uint64_t total_of(const std::vector<Sge>& sgl) {
  uint64_t total = 0;
  for (const Sge& sge : sgl) total += sge.length;
  return total;
}

// A request on a send queue, as posted (values resolved at post time, as the consumer passes
// them).
struct Request {
  Op op = Op::Read;
  uint32_t index = 0;  // position in the send queue (completions retire up to it)
  uint64_t context = 0;
  uint32_t flags = 0;
  std::vector<Sge> sgl;
  uint64_t remote_addr = 0;
  uint32_t remote_token = 0;
  std::optional<uint32_t> invalidate_token;  // SendAndInvalidate
  std::vector<uint8_t> inline_data;          // INLINE: copied when posted
  // Bind
  std::string mr, mw;
  uint32_t mr_token = 0;  // the region as the consumer names it (its local token)
  uint64_t length = 0;
  bool zero_based = false;
  uint8_t new_tag = 0;  // Bind / FastRegister: the tag the consumer chose
  // FastRegister
  std::vector<Page> pages;
  uint64_t fbo = 0;
  uint64_t base_va = 0;
  // Invalidate
  uint32_t target_token = 0;
};

struct Receive {
  uint32_t index = 0;
  uint64_t context = 0;
  std::vector<Sge> sgl;
};

struct Qp {
  bool exists = false;
  uint32_t node = 0;
  std::string pd, cq;
  uint64_t context = 0;  // QPContext
  uint32_t send_depth = 0, recv_depth = 0;
  bool connected = false;
  std::string peer;
  bool error = false;
  uint32_t sq_posted = 0, sq_retired = 0;  // the consumer's view of the send ring
  uint32_t rq_posted = 0, rq_retired = 0;
  std::deque<Receive> receives;  // posted, not consumed yet
  std::vector<Request> held;     // DEFER: posted, doorbell not rung yet
};

// What a check or a request came to: an NTSTATUS and the rule that decided it (abi/rules.h;
// None for a success without a rule of its own).
struct Verdict {
  uint32_t status = 0;
  RuleId rule = RuleId::None;
  bool ok() const { return status == 0; }
};

struct Completion {
  uint32_t status = 0;
  uint32_t type = 0;
  uint64_t context = 0;
  uint64_t qp_context = 0;
  uint32_t bytes = 0;
  uint64_t type_specific = 0;
  std::string qp;  // the QP of the queue it completes
  bool send_queue = true;
  uint32_t index = 0;  // the request's position in its queue
  RuleId rule = RuleId::None;  // the rule that decided it (Cqe::rule on the device)
};

struct Cq {
  bool exists = false;
  uint32_t node = 0;
  uint32_t depth = 0;
  std::deque<Completion> pending;  // arrived, not polled yet
};

// Byte ranges a request reads and writes, for the ordering hazards of the race check.
struct Footprint {
  std::string buffer;
  uint64_t offset = 0, length = 0;
  bool write = false;
  bool at_post = false;  // read by the CPU when posting (INLINE): no fence orders it
};

// What the race check (timing independence) knows about the current batch: consecutive
// posts on one QP's send queue between settling points (see ReferenceModel::race).
struct Batch {
  std::string qp;            // empty: no batch open
  bool closed = false;       // a barrier was posted: the next step must settle first
  bool failed = false;       // a request of the batch failed (not CANCELLED)
  bool quiet = false;        // a request that completes silently may still be running
  uint32_t quiet_index = 0;  // the last such request's position in the send queue
  std::vector<std::vector<Footprint>> reads;  // footprints of the batch's RDMA reads
};

struct State {
  std::map<std::string, Buffer> buffers;
  std::map<std::string, uint32_t> pds;  // name -> node
  std::map<std::string, Cq> cqs;
  std::map<std::string, Qp> qps;
  std::map<std::string, Mpt> mpts;                        // MRs and MWs by name
  std::vector<std::map<uint32_t, std::string>> by_index;  // per node: MPT index -> name
  std::map<std::string, uint64_t> saved;
  std::vector<uint64_t> va_next;     // per node: next virtual address of an allocation
  std::vector<uint32_t> next_index;  // per node: next MPT index
  Batch batch;
};

}  // namespace rnic::app::refm
