// SPDX-License-Identifier: Apache-2.0
// The NDK-style consumer API of one node: a driver that keeps the device's tables in host
// memory (ICM), writes WQEs into send-queue rings, rings doorbells over MMIO and reads the
// completion rings. Verbs keep their NDK names (NdkRead, NdkBind, ...) and NDK semantics:
// an inline failure returns a status and produces no completion (R4.inline.no_completion).
//
// Every call that talks to the device must run inside a SystemC thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "host_api/host_trace.h"
#include "host_api/ndk.h"
#include "model/config/config.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/abi/rules.h"
#include "model/rnic/abi/wqe.h"
#include "tlm/histogram.h"

namespace rnic {
class HostCpu;
}

namespace rnic::host {

using ndk::NTSTATUS;

struct QpInfo;
struct TagMove;

using PdHandle = uint32_t;
using CqHandle = uint32_t;
using QpHandle = uint32_t;  // the device's QP number
using MrHandle = uint32_t;  // the MPT index of the region
using MwHandle = uint32_t;  // the MPT index of the window

// A buffer in modeled host memory: virtually contiguous, backed by physical pages.
struct Buffer {
  uint64_t va = 0;
  uint64_t size = 0;
  uint32_t page_size = 4096;
  std::vector<uint64_t> pages;  // physical address of each page, in VA order
  // Physical address of byte `offset`, or 0 when out of range.
  uint64_t phys(uint64_t offset) const;
  // 4 KiB page addresses backing [offset, offset + length), for a fast-register page array.
  std::vector<uint64_t> page_array(uint64_t offset, uint64_t length) const;
};

enum class BufferFill { Zero, Incrementing, Random, Byte };

// An asynchronous control call in flight (the NDK completion callback's state).
struct AsyncRequest {
  bool done = false;
  NTSTATUS status = ndk::STATUS_PENDING;
  sc_core::sc_event completed;  // notified when done becomes true
};

// What an adapter has open (Adapter::Usage): after closing everything, back to the start.
struct AdapterUsage {
  size_t pds = 0, cqs = 0, qps = 0, mrs = 0, mws = 0, buffers = 0;
  // The open QPs' ORD and IRD summed: how many reads they may have outstanding as requesters
  // and in service as responders (the bottleneck report's capacity for both).
  uint64_t ord_total = 0, ird_total = 0;
  uint64_t free_memory_bytes = 0;  // host memory left for queues, rings and buffers
  uint64_t free_mtt_entries = 0;
};

class Adapter {
 public:
  // `node_id` addresses this node on the fabric; `seed` drives random fills and scatter.
  Adapter(HostCpu& cpu, const RnicConfig& config, uint64_t memory_bytes, uint32_t node_id,
          uint64_t seed);
  ~Adapter();

  uint32_t node_id() const { return node_id_; }
  ndk::NDK_ADAPTER_INFO QueryAdapterInfo() const;

  // --- host memory (the process's allocations) ---
  NTSTATUS AllocBuffer(uint64_t size, uint32_t page_size, bool scatter, BufferFill fill,
                       uint8_t fill_byte, Buffer* out);
  // Gives a buffer's memory back (zeroed for its next use). An MR still registered on it
  // -> STATUS_DEVICE_BUSY; not a buffer of this adapter -> STATUS_INVALID_PARAMETER.
  NTSTATUS FreeBuffer(const Buffer& buffer);
  bool WriteBuffer(const Buffer& buffer, uint64_t offset, const void* data, uint64_t length);
  bool ReadBuffer(const Buffer& buffer, uint64_t offset, void* data, uint64_t length);

  // --- control objects ---
  NTSTATUS CreatePd(PdHandle* out);
  NTSTATUS CreateCq(uint32_t depth, CqHandle* out);
  NTSTATUS CreateQp(PdHandle pd, CqHandle cq, uint32_t send_depth, uint32_t recv_depth,
                    uint32_t ord, uint32_t ird, uint64_t qp_context, QpHandle* out);
  // Connects both directions; either adapter may be the same as `this` (loopback).
  static NTSTATUS Connect(Adapter& a, QpHandle qp_a, Adapter& b, QpHandle qp_b);

  NTSTATUS CreateMr(PdHandle pd, bool fast_register, MrHandle* out);
  // Registers [offset, offset + length) of `buffer`; the MR's addresses are the buffer's
  // virtual addresses. `zero_based` (an MR addressed from 0) is not supported: refused with
  // STATUS_INVALID_PARAMETER (R5.reg.zero_based).
  // With `async` (NDK's asynchronous form, a completion instead of a blocking call): returns
  // STATUS_PENDING once the call is checked (inline failures are returned at once, as
  // always); the device commands run in the background and `async` gets the final status.
  // The MR's tokens are valid once it completes (R3.pending, R5.reg.valid).
  NTSTATUS RegisterMr(MrHandle mr, const Buffer& buffer, uint64_t offset, uint64_t length,
                      uint32_t mr_flags, bool zero_based = false, AsyncRequest* async = nullptr);
  NTSTATUS DeregisterMr(MrHandle mr);
  NTSTATUS CreateMw(PdHandle pd, MwHandle* out);
  // Reserves `page_count` translation entries for fast registration; above the adapter's
  // FRMRPageCount -> STATUS_IMPLEMENTATION_LIMIT.
  NTSTATUS InitializeFastRegisterMr(MrHandle mr, uint32_t page_count, bool remote_access);

  // --- closing objects (NdkCloseObject) ---
  // Each returns once the object is gone (STATUS_SUCCESS), and its number, table entries and
  // memory may serve later objects; a closed object's tokens stay stale. Unknown handle ->
  // STATUS_INVALID_PARAMETER. Objects others still depend on -> STATUS_DEVICE_BUSY: a PD with
  // QPs, MRs or MWs; a CQ with QPs; an MR with bound windows or an asynchronous registration
  // in progress. CloseQp first completes every request of the QP (CANCELLED if not done: a
  // Flush), then frees the windows bound to it; the device gets 10 ms of simulated time for
  // that (else STATUS_IO_TIMEOUT, the QP stays open, flushed). Completions already in the CQ
  // keep the QP's context. CloseMr deregisters a registered MR; CloseMw frees a bound window.
  NTSTATUS CloseQp(QpHandle qp);
  NTSTATUS CloseCq(CqHandle cq);
  NTSTATUS CloseMr(MrHandle mr);
  NTSTATUS CloseMw(MwHandle mw);
  NTSTATUS ClosePd(PdHandle pd);
  AdapterUsage Usage() const;

  // Tokens: 24-bit MPT index << 8 | 8-bit tag. Zero for an object that has none yet.
  uint32_t GetRemoteTokenFromMr(MrHandle mr);
  uint32_t GetLocalTokenFromMr(MrHandle mr);
  uint32_t GetRemoteTokenFromMw(MwHandle mw);
  // Base VA and length of a registered MR or bound MW (0 when not valid).
  uint64_t ObjectBaseVa(uint32_t mpt_index);
  uint64_t ObjectLength(uint32_t mpt_index);

  // --- initiator verbs (posted to the send queue) ---
  // Bind is a posted request, like every verb here (R5.bind.token_on_return): it returns once
  // the WQE is in the send queue (and the doorbell rung, unless DEFER holds it), with the
  // window's new token already available (GetRemoteTokenFromMw). The window grants access
  // once the device has run the bind, before its completion and before any later request of
  // the send queue (R5.bind.executes_in_order); BindState() tells where it stands. If the
  // device refuses it, the token falls back to the window's previous one (R1.token.refused).
  NTSTATUS NdkBind(QpHandle qp, uint64_t request_context, MrHandle mr, MwHandle mw,
                   uint64_t virtual_address, uint64_t length, uint32_t flags);
  // The user-mode variant (INDEndpoint::Bind): the window is zero-based; `out` receives its
  // descriptor {Base 0, Length, Token} for the peer, which addresses the window by offsets.
  NTSTATUS NdBind(QpHandle qp, uint64_t request_context, MrHandle mr, MwHandle mw,
                  uint64_t virtual_address, uint64_t length, uint32_t flags,
                  ndk::ND_MW_DESCRIPTOR* out);
  // User-mode Read/Write through a window descriptor: the remote address is Base + offset.
  // A transfer known to exceed the window (offset + length > Length) is refused inline with
  // STATUS_REMOTE_RESOURCES (R3.remote_resources; ND_REMOTE_ERROR of INDEndpoint::Read).
  NTSTATUS NdRead(QpHandle qp, uint64_t request_context, const ndk::NDK_SGE* sgl, uint32_t nsge,
                  const ndk::ND_MW_DESCRIPTOR& remote, uint64_t offset, uint32_t flags);
  NTSTATUS NdWrite(QpHandle qp, uint64_t request_context, const ndk::NDK_SGE* sgl,
                   uint32_t nsge, const ndk::ND_MW_DESCRIPTOR& remote, uint64_t offset,
                   uint32_t flags);
  NTSTATUS NdkRead(QpHandle qp, uint64_t request_context, const ndk::NDK_SGE* sgl,
                   uint32_t nsge, uint64_t remote_address, uint32_t remote_token,
                   uint32_t flags);

  NTSTATUS NdkWrite(QpHandle qp, uint64_t request_context, const ndk::NDK_SGE* sgl,
                    uint32_t nsge, uint64_t remote_address, uint32_t remote_token,
                    uint32_t flags);
  NTSTATUS NdkSend(QpHandle qp, uint64_t request_context, const ndk::NDK_SGE* sgl, uint32_t nsge,
                   uint32_t flags);
  // The receiver invalidates `remote_token` and completes ReceiveAndInvalidate.
  NTSTATUS NdkSendAndInvalidate(QpHandle qp, uint64_t request_context, const ndk::NDK_SGE* sgl,
                                uint32_t nsge, uint32_t remote_token, uint32_t flags);
  // Posts a receive (may be posted before Connect).
  NTSTATUS NdkReceive(QpHandle qp, uint64_t request_context, const ndk::NDK_SGE* sgl,
                      uint32_t nsge);
  // `page_array`: 4 KiB-aligned physical addresses; the driver copies it into host memory
  // for the device to read.
  NTSTATUS NdkFastRegister(QpHandle qp, uint64_t request_context, MrHandle mr,
                           uint32_t page_count, const uint64_t* page_array, uint32_t fbo,
                           uint64_t length, uint64_t base_va, uint32_t flags);
  // `object`: a fast-register MR or an MW (a normal MR fails on the device).
  NTSTATUS NdkInvalidate(QpHandle qp, uint64_t request_context, uint32_t object, uint32_t flags);
  // Every pending request of the QP completes CANCELLED; the QP is in the error state.
  NTSTATUS NdkFlush(QpHandle qp);

  // --- posted requests, as the driver sees them in host memory ---
  // Where the last Bind posted on `mw` stands (not NDK calls: what a driver can read off its
  // rings and tables, for a consumer that waits for a Bind to take effect).
  enum class BindProgress {
    None,       // no Bind of the window is outstanding
    Held,       // posted with DEFER, and no doorbell has announced it yet
    Posted,     // announced to the device, not run yet
    Executed,   // run: the window's table entry shows the Bind's tag
    Completed,  // completed without taking effect (refused or flushed): its completion is
                // in the CQ ring
    Lost,       // its CQ overflowed before it completed: its completion may be gone
  };
  BindProgress BindState(MwHandle mw);
  // Rings the send queue's doorbell for the requests DEFER holds, as the next post without
  // DEFER on the queue would.
  void SubmitDeferred(QpHandle qp);
  // Host memory the device writes when a Bind of `mw` is decided: the window's table entry,
  // the CQ ring of its QP and that CQ's overflow flag. Empty when no Bind is outstanding.
  struct MemoryRange {
    uint64_t address = 0;
    uint64_t length = 0;
  };
  std::vector<MemoryRange> BindSignals(MwHandle mw);
  // Sends (and SendAndInvalidates) posted on a QP's send queue, and receives posted on its
  // receive queue, since it was created.
  uint64_t SendsPosted(QpHandle qp) const;
  uint64_t ReceivesPosted(QpHandle qp) const;
  // True when the driver knows the QP is in the error state: a completion of it that was not
  // a success was taken from its CQ or is waiting there, or it was flushed.
  bool QpErrorKnown(QpHandle qp);
  // The first completion of `qp` waiting in its CQ ring (not taken yet) that is not a
  // success; false when there is none.
  bool QueuedError(QpHandle qp, ndk::NDK_RESULT_EX* out);

  // The CQ a QP completes on (0 for an unknown QP).
  CqHandle QpCq(QpHandle qp) const;
  // The PD a QP belongs to (0 for an unknown QP).
  PdHandle QpPd(QpHandle qp) const;
  // The node and QP number a QP is connected to; false when it is not connected.
  bool QpPeer(QpHandle qp, uint32_t* node, uint32_t* qpn) const;

  // Runs the device's DMA benchmark engine over `window` (a contiguous buffer: allocated
  // without scatter); waits until it has finished. Latencies in ps go to `latency_ps`.
  // `translate`: the window's pages are entered in the translation table for the run (as a
  // driver maps a buffer in the IOMMU) and every read is translated from its address in the
  // window, at the window's page size.
  NTSTATUS RunDmaBench(const Buffer& window, uint32_t size, uint64_t count, uint32_t outstanding,
                       bool random, uint64_t seed, LatencyHistogram* latency_ps,
                       bool translate = false);

  // --- completions ---
  // Non-blocking: copies up to `max` new completions out of the CQ ring.
  // `took_effect` (optional, `max` entries): per result, whether a Bind, FastRegister or
  // Invalidate changed its object (R4.cancelled.undefined); `rules` (optional, `max` entries):
  // the rule that decided each request (Cqe::rule). Neither is a field of NDK_RESULT_EX.
  size_t GetCqResults(CqHandle cq, ndk::NDK_RESULT_EX* results, size_t max,
                      bool* took_effect = nullptr, RuleId* rules = nullptr);
  // Asks the device for one interrupt at the CQ's next completion, or at once if the ring
  // already holds entries this driver has not taken (NDK INDCompletionQueue::Notify, one-shot).
  // A driver that only polls never arms, and its CQs send no interrupt messages.
  NTSTATUS NotifyCq(CqHandle cq);
  // Blocks (simulated time) until `count` completions are available or `timeout` passes;
  // returns what arrived (possibly fewer than count). count == 0 waits the whole timeout and
  // returns everything that arrived meanwhile. It arms the CQ (NotifyCq) before it sleeps.
  std::vector<ndk::NDK_RESULT_EX> WaitCq(CqHandle cq, size_t count,
                                         const sc_core::sc_time& timeout,
                                         std::vector<bool>* took_effect = nullptr,
                                         std::vector<RuleId>* rules = nullptr);

  // True once the device found this CQ's ring full and had to drop a completion.
  bool CqOverflowed(CqHandle cq);

  // Posts, doorbells and completions seen go to `sink` (host_trace.h; null: off).
  void attach_trace(HostTraceSink* sink);

  // Why the last call that returned a failure status failed (for error messages), and the rule
  // of docs/behaviour.md it failed (the inline checks of posting, R4.inline.*, and the like;
  // None where no rule names it).
  const std::string& last_error() const { return last_error_; }
  RuleId last_rule() const { return last_rule_; }

  struct Impl;  // the driver's private state (adapter_impl.h)

 private:
  // Runs `commit` (device commands) in a new SystemC thread for an asynchronous call on MR
  // `mr`; returns STATUS_PENDING.
  NTSTATUS start_async(MrHandle mr, std::function<void()> commit, AsyncRequest* async);
  uint32_t create_mpt_entry(PdHandle pd, MptKind kind, NTSTATUS* status);
  QpInfo* begin_post(QpHandle qp, NTSTATUS* status);
  NTSTATUS fail_post(QpHandle qp, NTSTATUS status, RuleId rule, const std::string& why);
  NTSTATUS post(QpHandle qpn, QpInfo& qp, const Wqe& wqe);
  NTSTATUS post_bind(QpHandle qp, uint64_t request_context, MrHandle mr, MwHandle mw,
                     uint64_t virtual_address, uint64_t length, uint32_t flags, bool zero_based);
  bool completion_queued(CqHandle cq, QpHandle qpn, uint32_t wqe_index);
  // The first entry of `cq`'s ring not taken yet that `match` accepts, into `out`.
  bool find_queued(CqHandle cq, const std::function<bool(const Cqe&)>& match, Cqe* out);
  // Settles `tag` once the device has executed `move`: its MPT entry shows the new tag, or
  // the request has completed without it (refused, or flushed before it ran): the tag is the
  // device's (R1.token.refused: a refused FastRegister or Bind keeps the object's tag).
  void settle_tag(uint32_t index, uint8_t* tag, TagMove* move);
  bool wait_qp_closed(QpHandle qpn);
  NTSTATUS post_rdma(WqeOpcode opcode, QpHandle qp, uint64_t request_context,
                     const ndk::NDK_SGE* sgl, uint32_t nsge, uint64_t remote_address,
                     uint32_t remote_token, uint32_t flags);

  std::unique_ptr<Impl> impl_;
  uint32_t node_id_;
  void set_error(const std::string& why, RuleId rule = RuleId::None) {
    last_error_ = why;
    last_rule_ = rule;
  }
  std::string last_error_;
  RuleId last_rule_ = RuleId::None;
};

}  // namespace rnic::host
