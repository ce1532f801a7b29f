// SPDX-License-Identifier: Apache-2.0
// The `traffic` workload: many connections busy at once (docs/scenario-format.md, "traffic").
// It builds what its flows need through the host API, a driver would (a PD per node, CQs,
// connected QP pairs, buffers and MRs), then keeps each flow's window of operations in flight,
// from this one driver thread for every node: posting costs no simulated time, so the nodes'
// posts do not wait for each other. round_robin posts on the next QP with room; random draws
// a QP among all of the flow's for every operation, busy or not (FaSST's rc-swarm issuers), and
// an operation drawn for a full QP waits for that QP's next completion.
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "app/runner/context.h"
#include "app/scenario/preflight.h"
#include "host_api/limits.h"

namespace rnic::app {

namespace {

// A request's context: its flow above bit 40, below it the source slot (Read, Write, Send) or
// the receive's index, pair x outstanding + k (Receive).
constexpr int kFlowShift = 40;
constexpr uint64_t kIndexMask = (uint64_t(1) << kFlowShift) - 1;
// One operation in this many has its bytes compared with their source when it completes.
constexpr uint64_t kCheckEvery = 16;

struct QpPair {
  host::QpHandle src = 0, dst = 0;
  uint32_t in_flight = 0;
  uint32_t waiting = 0;   // random: operations drawn for this QP while it was full
  uint64_t measured = 0;  // operations completed in the measured window
};

struct Slot {
  uint32_t pair = 0;
  sc_core::sc_time posted;
  uint64_t remote = 0;  // the remote address (read, write)
  uint32_t region = 0;
};

struct Region {
  host::Buffer buffer;
  uint32_t remote_token = 0;  // read, write
  uint32_t local_token = 0;   // send: the receives land here
};

struct Flow {
  const FlowSpec* spec = nullptr;
  uint32_t index = 0;
  host::Adapter* src = nullptr;
  host::Adapter* dst = nullptr;
  std::vector<QpPair> pairs;
  host::Buffer local;  // one slot of `size` bytes per operation in flight
  uint32_t local_token = 0;
  std::vector<Region> regions;
  uint64_t slots_per_region = 1;
  std::deque<uint32_t> ready;  // round_robin: pairs with room, in posting order
  std::vector<uint32_t> free_slots;
  std::vector<Slot> slots;
  // in_flight: operations of the window, posted or waiting for their QP (random); posted:
  // operations handed to the adapter (operation j's region and slot follow from j).
  uint64_t in_flight = 0, posted = 0, completed = 0;
  uint64_t measured = 0;  // completed in the measured window
};

// One CQ to poll: whose flow, and whether it gets the source's or the receives' completions.
struct Cq {
  uint32_t flow = 0;
  host::CqHandle cq = 0;
  bool receives = false;
};

// Every source slot of a write or send flow holds the same bytes, so any operation of the
// flow leaves exactly these where it lands, whichever lands last: a check needs no ordering.
// Computed a chunk at a time, never held whole: a flow's size may be a gigabyte.
constexpr uint64_t kChunkBytes = 1 << 20;
void fill_pattern(uint32_t flow, uint64_t offset, uint64_t n, std::vector<uint8_t>& out) {
  out.resize(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = uint8_t((offset + i) * 7 + flow * 13 + 1);
}

class Traffic {
 public:
  Traffic(RunContext& ctx, const Step& step, StepResult& result)
      : ctx_(ctx), step_(step), result_(result),
        rng_(ctx.seed() ^ (step.index * 0x9E3779B97F4A7C15ull)) {}

  void run();

 private:
  JsonPath flow_path(uint32_t flow, const char* key) const {
    return JsonPath().key("steps").index(step_.index).key("flows").index(flow).key(key);
  }
  [[noreturn]] void refuse(uint32_t flow, const char* key, const std::string& why) const {
    throw StepInvalid(flow_path(flow, key), why);
  }
  host::PdHandle pd(uint32_t node);
  bool build(Flow& flow);
  std::vector<host::CqHandle> make_cqs(Flow& flow, uint32_t node, uint64_t depth_needed);
  bool post_receive(Flow& flow, uint32_t pair, uint32_t k);
  bool post(Flow& flow);
  bool post_on(Flow& flow, uint32_t pair_index);
  bool take(Flow& flow, const ndk::NDK_RESULT_EX& r, bool receive);
  bool check_bytes(Flow& flow, const Slot& slot, uint64_t local_offset);
  bool poll_node(uint32_t node, bool* any);
  void open_window();
  void finish();

  RunContext& ctx_;
  const Step& step_;
  StepResult& result_;
  std::mt19937_64 rng_;
  std::map<uint32_t, host::PdHandle> pds_;
  std::vector<Flow> flows_;
  std::vector<std::vector<Cq>> cqs_by_node_;
  uint64_t target_ = 0;  // warmup_ops + ops
  uint64_t posted_ = 0, completed_ = 0;
  // The measured window: opened when warmup_ops operations have completed.
  bool open_ = false;
  sc_core::sc_time window_start_;
  CounterWindow::Snapshot before_;
  std::optional<CounterWindow::Snapshot> mid_;
  uint64_t deltas_before_ = 0;
  WholeStep whole_;  // the counters when posting began (fast mode's line-rate bound)
  sc_core::sc_time step_start_;
  LatencyHistogram latency_;
  uint64_t bytes_ = 0;
  std::vector<uint8_t> got_, want_;  // a chunk of landed and expected bytes
};

host::PdHandle Traffic::pd(uint32_t node) {
  auto it = pds_.find(node);
  if (it != pds_.end()) return it->second;
  host::PdHandle pd = 0;
  host::Adapter& a = ctx_.adapter(node);
  const uint32_t status = a.CreatePd(&pd);
  if (status != ndk::STATUS_SUCCESS)
    throw StepInvalid(JsonPath().key("steps").index(step_.index),
                      "cannot create a PD on node " + ctx_.scenario.nodes[node] + ": " +
                          a.last_error());
  pds_[node] = pd;
  return pd;
}

// CQs for `pairs` QPs of `flow` on `node`, each QP with up to `outstanding` completions
// pending: as few as hold them all within the adapter's CQ depth. QP i uses CQ i % count.
std::vector<host::CqHandle> Traffic::make_cqs(Flow& flow, uint32_t node, uint64_t depth_needed) {
  const FlowSpec& f = *flow.spec;
  // The loader counted these against qp.max_cqs (check_run_limits): the same functions.
  const uint64_t count = traffic_cq_count(f, depth_needed);
  const uint64_t depth = traffic_cq_depth(f, depth_needed);
  std::vector<host::CqHandle> cqs;
  host::Adapter& a = ctx_.adapter(node);
  for (uint64_t i = 0; i < count; ++i) {
    host::CqHandle cq = 0;
    if (a.CreateCq(uint32_t(depth), &cq) != ndk::STATUS_SUCCESS)
      refuse(flow.index, "qps",
             "cannot create a CQ on node " + ctx_.scenario.nodes[node] + ": " + a.last_error() +
                 " (qp.max_cqs)");
    cqs.push_back(cq);
  }
  return cqs;
}

bool Traffic::build(Flow& flow) {
  const FlowSpec& f = *flow.spec;
  host::Adapter& src = *flow.src;
  host::Adapter& dst = *flow.dst;
  const bool read = f.verb == Verb::Read, send = f.verb == Verb::Send;
  if (read && (f.outstanding > src.QueryAdapterInfo().MaxOutboundReadLimit ||
               f.outstanding > dst.QueryAdapterInfo().MaxInboundReadLimit)) {
    refuse(flow.index, "outstanding",
           std::to_string(f.outstanding) + " reads per QP is above the adapters' limits "
           "(qp.max_ord, qp.max_ird)");
  }
  // Completions: every operation in flight on the source; receives posted on the destination.
  const uint64_t pending = std::min(f.window, f.qps * f.outstanding);
  const std::vector<host::CqHandle> src_cqs = make_cqs(flow, f.src, pending);
  const std::vector<host::CqHandle> dst_cqs =
      send ? make_cqs(flow, f.dst, f.qps * f.outstanding) : make_cqs(flow, f.dst, 1);
  for (host::CqHandle cq : src_cqs) cqs_by_node_[f.src].push_back({flow.index, cq, false});
  if (send) {
    for (host::CqHandle cq : dst_cqs) cqs_by_node_[f.dst].push_back({flow.index, cq, true});
  }

  // Buffers and MRs: the source's slots, the destination's regions.
  const uint32_t fill_status =
      src.AllocBuffer(f.window * f.size, 4096, false, host::BufferFill::Zero, 0, &flow.local);
  if (fill_status != ndk::STATUS_SUCCESS)
    refuse(flow.index, "window", "cannot allocate the flow's buffer: " + src.last_error());
  host::MrHandle mr = 0;
  if (src.CreateMr(pd(f.src), false, &mr) != ndk::STATUS_SUCCESS ||
      src.RegisterMr(mr, flow.local, 0, flow.local.size,
                     ndk::NDK_MR_FLAG_ALLOW_LOCAL_WRITE | ndk::NDK_MR_FLAG_RDMA_READ_SINK, false,
                     nullptr) != ndk::STATUS_SUCCESS)
    refuse(flow.index, "window", "cannot register the flow's buffer: " + src.last_error());
  flow.local_token = src.GetLocalTokenFromMr(mr);
  if (!read) {
    for (uint64_t s = 0; s < f.window; ++s) {
      for (uint64_t at = 0; at < f.size; at += kChunkBytes) {
        const uint64_t n = std::min(kChunkBytes, f.size - at);
        fill_pattern(flow.index, at, n, want_);
        src.WriteBuffer(flow.local, s * f.size + at, want_.data(), n);
      }
    }
  }
  const uint32_t region_flags =
      read ? ndk::NDK_MR_FLAG_ALLOW_REMOTE_READ
           : send ? ndk::NDK_MR_FLAG_ALLOW_LOCAL_WRITE : ndk::NDK_MR_FLAG_ALLOW_REMOTE_WRITE;
  flow.slots_per_region = f.region_bytes / f.size;
  for (uint64_t r = 0; r < f.regions; ++r) {
    Region region;
    if (dst.AllocBuffer(f.region_bytes, uint32_t(f.page_size), false,
                        read ? host::BufferFill::Incrementing : host::BufferFill::Zero, 0,
                        &region.buffer) != ndk::STATUS_SUCCESS)
      refuse(flow.index, "regions", "cannot allocate region " + std::to_string(r) + ": " +
                                        dst.last_error());
    host::MrHandle region_mr = 0;
    if (dst.CreateMr(pd(f.dst), false, &region_mr) != ndk::STATUS_SUCCESS ||
        dst.RegisterMr(region_mr, region.buffer, 0, f.region_bytes, region_flags, false,
                       nullptr) != ndk::STATUS_SUCCESS)
      refuse(flow.index, "regions", "cannot register region " + std::to_string(r) + ": " +
                                        dst.last_error() + " (qp.max_mpt_entries)");
    region.remote_token = dst.GetRemoteTokenFromMr(region_mr);
    region.local_token = dst.GetLocalTokenFromMr(region_mr);
    flow.regions.push_back(std::move(region));
  }

  // The QP pairs, connected; a send's destination has its receives posted from the start.
  flow.pairs.resize(f.qps);
  const uint32_t ord = read ? uint32_t(f.outstanding) : 0;
  for (uint32_t i = 0; i < f.qps; ++i) {
    QpPair& p = flow.pairs[i];
    if (src.CreateQp(pd(f.src), src_cqs[i % src_cqs.size()], uint32_t(f.outstanding), 0, ord, 0,
                     0, &p.src) != ndk::STATUS_SUCCESS)
      refuse(flow.index, "qps",
             "QP " + std::to_string(i) + " on node " + ctx_.scenario.nodes[f.src] + ": " +
                 src.last_error() + " (qp.max_qps = " +
                 std::to_string(ctx_.system.config().rnic.qp.max_qps) + ")");
    if (dst.CreateQp(pd(f.dst), dst_cqs[i % dst_cqs.size()], 1,
                     send ? uint32_t(f.outstanding) : 0, 0, ord, 0, &p.dst) != ndk::STATUS_SUCCESS)
      refuse(flow.index, "qps",
             "QP " + std::to_string(i) + " on node " + ctx_.scenario.nodes[f.dst] + ": " +
                 dst.last_error() + " (qp.max_qps = " +
                 std::to_string(ctx_.system.config().rnic.qp.max_qps) + ")");
    if (host::Adapter::Connect(src, p.src, dst, p.dst) != ndk::STATUS_SUCCESS)
      refuse(flow.index, "qps", "cannot connect QP pair " + std::to_string(i) + ": " +
                                    src.last_error());
    if (send) {
      for (uint32_t k = 0; k < f.outstanding; ++k) {
        if (!post_receive(flow, i, k)) return false;
      }
    }
    flow.ready.push_back(i);
  }
  flow.slots.resize(f.window);
  flow.free_slots.resize(f.window);
  for (uint64_t s = 0; s < f.window; ++s) flow.free_slots[s] = uint32_t(f.window - 1 - s);
  return true;
}

// Receive k of pair `pair`: into region pair % regions, at a slot of its own while there are
// enough (else shared: every sender's bytes are the same pattern).
bool Traffic::post_receive(Flow& flow, uint32_t pair, uint32_t k) {
  const FlowSpec& f = *flow.spec;
  const uint64_t index = uint64_t(pair) * f.outstanding + k;
  const Region& region = flow.regions[pair % flow.regions.size()];
  ndk::NDK_SGE sge;
  sge.Buffer = region.buffer.va + (index % flow.slots_per_region) * f.size;
  sge.BufferLength = uint32_t(f.size);
  sge.MemoryRegionToken = region.local_token;
  const uint32_t status =
      flow.dst->NdkReceive(flow.pairs[pair].dst, (uint64_t(flow.index) << kFlowShift) | index,
                           &sge, 1);
  if (status == ndk::STATUS_SUCCESS) return true;
  fail_step(result_, "STATUS_SUCCESS", ndk::status_name(status),
            "flow " + std::to_string(flow.index) + ": a receive returned " +
                ndk::status_name(status) + ": " + flow.dst->last_error());
  return false;
}

// Fills the flow's window while the step allows. round_robin: the next pair with room.
// random: a pair drawn uniformly among all the flow's pairs for every operation, as FaSST's
// rc-swarm issuers pick a QP per request (Kalia et al., "FaSST", OSDI 2016, Section 3): a pair
// with room takes it at once, a full one keeps it waiting until its next completion.
bool Traffic::post(Flow& flow) {
  const FlowSpec& f = *flow.spec;
  while (posted_ < target_ && flow.in_flight < f.window) {
    uint32_t pair_index = 0;
    if (step_.random_select) {
      pair_index = uint32_t(rng_() % flow.pairs.size());
      QpPair& pair = flow.pairs[pair_index];
      if (pair.in_flight >= f.outstanding) {
        ++pair.waiting;
        ++flow.in_flight;
        ++posted_;
        continue;
      }
    } else {
      if (flow.ready.empty()) break;
      pair_index = flow.ready.front();
      flow.ready.pop_front();
    }
    ++flow.in_flight;
    ++posted_;
    if (!post_on(flow, pair_index)) return false;
  }
  return true;
}

// Posts the flow's next operation on `pair_index`, which has room.
bool Traffic::post_on(Flow& flow, uint32_t pair_index) {
  const FlowSpec& f = *flow.spec;
  QpPair& pair = flow.pairs[pair_index];
  const uint32_t slot_index = flow.free_slots.back();
  flow.free_slots.pop_back();
  Slot& slot = flow.slots[slot_index];
  slot.pair = pair_index;
  slot.posted = sc_core::sc_time_stamp();
  // Operations go round-robin over the regions (or to one drawn at random: region_select),
  // walking each (or at random inside it).
  slot.region = f.random_region ? uint32_t(rng_() % flow.regions.size())
                                : uint32_t(flow.posted % flow.regions.size());
  const uint64_t walked = flow.posted / flow.regions.size();
  const uint64_t offset =
      (f.random ? rng_() % flow.slots_per_region : walked % flow.slots_per_region) * f.size;
  const Region& region = flow.regions[slot.region];
  slot.remote = region.buffer.va + offset;
  ndk::NDK_SGE sge;
  sge.Buffer = flow.local.va + uint64_t(slot_index) * f.size;
  sge.BufferLength = uint32_t(f.size);
  sge.MemoryRegionToken = flow.local_token;
  const uint64_t context = (uint64_t(flow.index) << kFlowShift) | slot_index;
  host::Adapter& a = *flow.src;
  uint32_t status = ndk::STATUS_SUCCESS;
  switch (f.verb) {
    case Verb::Read:
      status = a.NdkRead(pair.src, context, &sge, 1, slot.remote, region.remote_token, 0);
      break;
    case Verb::Write:
      status = a.NdkWrite(pair.src, context, &sge, 1, slot.remote, region.remote_token, f.flags);
      break;
    case Verb::Send:
      status = a.NdkSend(pair.src, context, &sge, 1, f.flags);
      break;
  }
  if (status != ndk::STATUS_SUCCESS) {
    fail_step(result_, "STATUS_SUCCESS", ndk::status_name(status),
              "flow " + std::to_string(flow.index) + ": posting returned " +
                  ndk::status_name(status) + ": " + a.last_error());
    return false;
  }
  ++pair.in_flight;
  if (!step_.random_select && pair.in_flight < f.outstanding) flow.ready.push_back(pair_index);
  ++flow.posted;
  return true;
}

// The bytes an operation moved, where it put them, against their source, a chunk at a time.
bool Traffic::check_bytes(Flow& flow, const Slot& slot, uint64_t local_offset) {
  const FlowSpec& f = *flow.spec;
  const Region& region = flow.regions[slot.region];
  const uint64_t remote = slot.remote - region.buffer.va;
  bool ok = true;
  for (uint64_t at = 0; ok && at < f.size; at += kChunkBytes) {
    const uint64_t n = std::min(kChunkBytes, f.size - at);
    got_.resize(n);
    if (f.verb == Verb::Read) {  // the source's bytes, in the local slot
      want_.resize(n);
      ok = flow.src->ReadBuffer(flow.local, local_offset + at, got_.data(), n) &&
           flow.dst->ReadBuffer(region.buffer, remote + at, want_.data(), n);
    } else {  // the pattern, at the remote address or in a receive's slot (`local_offset`)
      fill_pattern(flow.index, at, n, want_);
      ok = flow.dst->ReadBuffer(region.buffer, (f.verb == Verb::Write ? remote : local_offset) + at,
                                got_.data(), n);
    }
    ok = ok && got_ == want_;
  }
  if (ok) return true;
  fail_step(result_, "the source's bytes", "other bytes",
            "flow " + std::to_string(flow.index) + ": an operation's bytes differ from its "
            "source (remote address " + std::to_string(slot.remote) + ")");
  return false;
}

bool Traffic::take(Flow& flow, const ndk::NDK_RESULT_EX& r, bool receive) {
  const FlowSpec& f = *flow.spec;
  if (r.Status != ndk::STATUS_SUCCESS) {
    fail_step(result_, "STATUS_SUCCESS", ndk::status_name(r.Status),
              "flow " + std::to_string(flow.index) + ": a " + (receive ? "receive" : "request") +
                  " completed with " + ndk::status_name(r.Status));
    return false;
  }
  const uint64_t index = r.RequestContext & kIndexMask;
  if (receive) {  // a send landed: check a sample, post the receive again
    const uint32_t pair = uint32_t(index / f.outstanding);
    const uint32_t k = uint32_t(index % f.outstanding);
    if (index % kCheckEvery == 0) {
      Slot landing;
      landing.region = uint32_t(pair % flow.regions.size());
      if (!check_bytes(flow, landing, (index % flow.slots_per_region) * f.size)) return false;
    }
    return post_receive(flow, pair, k);
  }
  Slot& slot = flow.slots[index];
  QpPair& pair = flow.pairs[slot.pair];
  if (flow.completed % kCheckEvery == 0 && f.verb != Verb::Send &&
      !check_bytes(flow, slot, index * f.size))
    return false;
  const uint32_t pair_index = slot.pair;
  flow.free_slots.push_back(uint32_t(index));
  if (step_.random_select) {
    --pair.in_flight;
  } else if (pair.in_flight-- == f.outstanding) {
    flow.ready.push_back(pair_index);
  }
  --flow.in_flight;
  ++flow.completed;
  ++completed_;
  whole_.bytes += f.size;
  if (open_) {
    ++pair.measured;
    ++flow.measured;
    bytes_ += f.size;
    latency_.add((sc_core::sc_time_stamp() - slot.posted).value());
  }
  if (!open_ && completed_ >= step_.warmup_ops) open_window();
  if (open_ && !mid_ && completed_ - step_.warmup_ops >= step_.count / 2)
    mid_ = ctx_.counter_window().take();
  // An operation waiting for this pair (random) goes now: it already counts in the window.
  if (flow.pairs[pair_index].waiting > 0) {
    --flow.pairs[pair_index].waiting;
    return post_on(flow, pair_index);
  }
  return true;
}

void Traffic::open_window() {
  open_ = true;
  window_start_ = sc_core::sc_time_stamp();
  before_ = ctx_.counter_window().take();
  deltas_before_ = workload_deltas();
}

// Takes every completion waiting on the node's CQs; `any` tells whether there was one.
bool Traffic::poll_node(uint32_t node, bool* any) {
  host::Adapter& a = ctx_.adapter(node);
  ndk::NDK_RESULT_EX batch[64];
  for (const Cq& cq : cqs_by_node_[node]) {
    for (;;) {
      const size_t got = a.GetCqResults(cq.cq, batch, 64);
      for (size_t i = 0; i < got; ++i) {
        Flow& flow = flows_[size_t(batch[i].RequestContext >> kFlowShift)];
        if (!take(flow, batch[i], cq.receives)) return false;
        if (completed_ >= target_) return true;
      }
      if (got) *any = true;
      if (got < 64) break;
    }
  }
  return true;
}

void Traffic::run() {
  const size_t nodes = ctx_.scenario.nodes.size();
  cqs_by_node_.assign(nodes, {});
  flows_.resize(step_.flows.size());
  for (uint32_t i = 0; i < flows_.size(); ++i) {
    Flow& flow = flows_[i];
    flow.spec = &step_.flows[i];
    flow.index = i;
    flow.src = &ctx_.adapter(flow.spec->src);
    flow.dst = &ctx_.adapter(flow.spec->dst);
    if (!build(flow)) return;
  }
  target_ = step_.warmup_ops + step_.count;
  whole_.start = ctx_.counter_window().take();
  step_start_ = sc_core::sc_time_stamp();
  if (step_.warmup_ops == 0) open_window();

  std::vector<uint32_t> involved;  // nodes with a CQ to poll
  for (uint32_t n = 0; n < nodes; ++n) {
    if (!cqs_by_node_[n].empty()) involved.push_back(n);
  }
  sc_core::sc_event_or_list wake;
  sc_core::sc_event patience;  // re-armed while completions keep coming
  wake |= patience;
  for (uint32_t n : involved) wake |= ctx_.system.node(n).cpu.interrupt_event();
  uint64_t in_flight_bytes = 0;
  for (const Flow& flow : flows_) {
    const FlowSpec& f = *flow.spec;
    in_flight_bytes += std::min(f.window, f.qps * f.outstanding) * f.size;
  }
  StallWatch watch(ctx_, in_flight_bytes);
  sc_core::sc_time deadline = sc_core::sc_time_stamp() + watch.limit();
  patience.notify(watch.limit());
  uint64_t completed_at_deadline = completed_;

  while (completed_ < target_) {
    for (Flow& flow : flows_) {
      if (!post(flow)) return;
    }
    bool any = false;
    for (uint32_t n : involved) {
      if (!poll_node(n, &any)) return;
      if (completed_ >= target_) break;
    }
    if (any || completed_ >= target_) continue;
    // Every ring empty: arm each CQ (a CQ still armed rings nothing), then sleep until one
    // interrupts.
    for (uint32_t n : involved) {
      for (const Cq& cq : cqs_by_node_[n]) ctx_.adapter(n).NotifyCq(cq.cq);
    }
    sc_core::wait(wake);
    // Act once everything due at this instant has happened: which node's interrupt the
    // kernel delivers first among simultaneous ones is its choice, and must not decide
    // what is posted next.
    wait_until_instant_settled();
    if (sc_core::sc_time_stamp() >= deadline) {
      if (completed_ == completed_at_deadline && !watch.moved()) {
        patience.cancel();
        fail_step(result_, "a completion", "none",
                  "no completion and no device activity for " + watch.limit_text() +
                      " after " + std::to_string(completed_) + " of " + std::to_string(target_) +
                      " operations");
        return;
      }
      completed_at_deadline = completed_;
      deadline = sc_core::sc_time_stamp() + watch.limit();
      patience.notify(watch.limit());
    }
  }
  patience.cancel();
  finish();
}

void Traffic::finish() {
  const double sim_ns =
      double((sc_core::sc_time_stamp() - window_start_).value()) / 1000.0;
  // Per flow, and Jain's fairness index over every QP pair's measured operations.
  Metrics extra;
  double sum = 0, squares = 0, pairs = 0;
  for (const Flow& flow : flows_) {
    const std::string name = "flow" + std::to_string(flow.index);
    extra.emplace_back(name + ".ops", double(flow.measured));
    extra.emplace_back(name + ".mops", sim_ns > 0 ? double(flow.measured) / sim_ns * 1e3 : 0.0);
    extra.emplace_back(
        name + ".gbps", sim_ns > 0 ? double(flow.measured * flow.spec->size) * 8.0 / sim_ns : 0.0);
    for (const QpPair& p : flow.pairs) {
      sum += double(p.measured);
      squares += double(p.measured) * double(p.measured);
      pairs += 1;
    }
  }
  extra.emplace_back("fairness", squares > 0 ? sum * sum / (pairs * squares) : 1.0);
  whole_.sim_ns = double((sc_core::sc_time_stamp() - step_start_).value()) / 1000.0;
  report_workload(ctx_, step_, result_, step_.count, bytes_, sim_ns, latency_, before_,
                  mid_ ? &*mid_ : nullptr, deltas_before_, extra, &whole_);
  // A window that holds fewer than two rounds of the operations in flight measures mostly
  // completions of operations issued before it opened: its rate is not yet the steady one.
  uint64_t in_flight = 0;
  for (const Flow& flow : flows_) {
    const FlowSpec& f = *flow.spec;
    in_flight += std::min(f.window, f.qps * f.outstanding);
  }
  if (step_.count < 2 * in_flight) {
    result_.warnings.push_back(
        "the measured window (" + std::to_string(step_.count) +
        " operations) is shorter than two rounds of the operations in flight (" +
        std::to_string(in_flight) +
        " at once): most of its completions are of operations issued before it opened; "
        "raise ops to at least " + std::to_string(2 * in_flight));
  }
}

}  // namespace

void exec_traffic(RunContext& ctx, const Step& step, StepResult& result) {
  Traffic(ctx, step, result).run();
}

}  // namespace rnic::app
