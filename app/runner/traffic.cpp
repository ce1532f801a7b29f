// SPDX-License-Identifier: Apache-2.0
// The `traffic` workload: many connections busy at once (docs/scenario-format.md, "traffic").
// Once traffic_build.cpp has built what its flows need through the host API, as a driver
// would, it keeps each flow's window of operations in flight, from this one driver thread for
// every node: posting costs no simulated time, so the nodes'
// posts do not wait for each other. round_robin posts on the next QP with room; random draws
// a QP among all of the flow's for every operation, busy or not (FaSST's rc-swarm issuers), and
// an operation drawn for a full QP waits for that QP's next completion. A bidirectional flow
// is two directions over the same QP pairs, each run as a flow of its own here.
#include <algorithm>
#include <cstring>

#include "app/runner/traffic.h"

namespace rnic::app {

namespace traffic {

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
  // Everything posted: QPs left with unsignaled operations last get their flush.
  if (posted_ >= target_ && f.signal_every > 1 && !flow.flush_scan_done) {
    flow.flush_scan_done = true;
    for (uint32_t p = 0; p < flow.pairs.size(); ++p) {
      if (!flush_if_stuck(flow, p)) return false;
    }
  }
  return true;
}

// Posts the flow's verb on `pair`: `sge` (one SGE, or none: zero bytes) to `remote` (read,
// write). A failure fails the step, naming `what` was posted.
bool Traffic::post_verb(Flow& flow, const QpPair& pair, uint64_t context, const ndk::NDK_SGE* sge,
                        uint64_t remote, uint32_t token, uint32_t flags, const char* what) {
  host::Adapter& a = *flow.src;
  const uint32_t nsge = sge ? 1 : 0;
  uint32_t status = ndk::STATUS_SUCCESS;
  switch (flow.spec->verb) {
    case Verb::Read:
      status = a.NdkRead(pair.src, context, sge, nsge, remote, token, flags);
      break;
    case Verb::Write:
      status = a.NdkWrite(pair.src, context, sge, nsge, remote, token, flags);
      break;
    case Verb::Send:
      status = a.NdkSend(pair.src, context, sge, nsge, flags);
      break;
  }
  if (status == ndk::STATUS_SUCCESS) return true;
  fail_step(result_, "STATUS_SUCCESS", ndk::status_name(status),
            "flow " + std::to_string(flow.spec_index) + ": " + what + " returned " +
                ndk::status_name(status) + ": " + a.last_error());
  return false;
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
  // signal_every: one operation in N of each QP asks for a completion, and so does the one
  // that fills the flow's window when that is below qps x outstanding: else the window could
  // fill with unsignaled operations on QPs with room, and none would ever complete.
  bool signaled = true;
  if (f.signal_every > 1) {
    signaled = ++pair.unsignaled >= f.signal_every ||
               (f.window < f.qps * f.outstanding && flow.in_flight >= f.window);
    if (signaled) pair.unsignaled = 0;
  }
  const uint32_t flags = signaled ? f.flags & ~ndk::NDK_OP_FLAG_SILENT_SUCCESS : f.flags;
  if (!post_verb(flow, pair, context, &sge, slot.remote, region.remote_token, flags, "posting"))
    return false;
  ++pair.in_flight;
  slot.next = kNoSlot;
  (pair.newest == kNoSlot ? pair.oldest : flow.slots[pair.newest].next) = slot_index;
  pair.newest = slot_index;
  if (!step_.random_select && pair.in_flight < f.outstanding) flow.ready.push_back(pair_index);
  ++flow.posted;
  return true;
}

// Once every operation of the step is posted, a QP whose last operations were unsignaled
// would never show them complete: it gets a zero-length signaled operation of the flow's
// verb (R5.read.zero_length for a read), which retires them and is not counted, as perftest
// signals each QP's last iteration. It needs a free send queue slot: a full QP holds a
// signaled operation (signal_every <= outstanding) whose completion makes one.
bool Traffic::flush_if_stuck(Flow& flow, uint32_t pair_index) {
  const FlowSpec& f = *flow.spec;
  QpPair& pair = flow.pairs[pair_index];
  if (posted_ < target_ || pair.unsignaled == 0 || pair.flushing || pair.waiting > 0 ||
      pair.in_flight >= f.outstanding)
    return true;
  const uint64_t context = (uint64_t(flow.index) << kFlowShift) | kFlushBit | pair_index;
  const Region& region = flow.regions[0];
  if (!post_verb(flow, pair, context, nullptr, region.buffer.va, region.remote_token, 0,
                 "a flush"))
    return false;
  pair.flushing = true;
  pair.unsignaled = 0;
  ++flow.flushes;
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
            "flow " + std::to_string(flow.spec_index) + ": an operation's bytes differ from its "
            "source (remote address " + std::to_string(slot.remote) + ")");
  return false;
}

// Retires the pair's oldest operation, `slot_index`: its slot is free again, its QP has room.
// Only a signaled operation's completion gives a latency sample: the host sees no other.
bool Traffic::retire(Flow& flow, uint32_t slot_index, bool signaled) {
  const FlowSpec& f = *flow.spec;
  Slot& slot = flow.slots[slot_index];
  const uint32_t pair_index = slot.pair;
  QpPair& pair = flow.pairs[pair_index];
  if (flow.completed % kCheckEvery == 0 && f.verb != Verb::Send &&
      !check_bytes(flow, slot, uint64_t(slot_index) * f.size))
    return false;
  pair.oldest = slot.next;
  if (pair.oldest == kNoSlot) pair.newest = kNoSlot;
  flow.free_slots.push_back(slot_index);
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
    if (signaled) latency_.add((sc_core::sc_time_stamp() - slot.posted).value());
  }
  if (!open_ && completed_ >= step_.warmup_ops) open_window();
  if (open_ && !mid_ && completed_ - step_.warmup_ops >= step_.count / 2)
    mid_ = ctx_.counter_window().take();
  return true;
}

bool Traffic::take(Flow& flow, const ndk::NDK_RESULT_EX& r) {
  const FlowSpec& f = *flow.spec;
  const bool receive = r.Type == ndk::NdkOperationTypeReceive;
  if (r.Status != ndk::STATUS_SUCCESS) {
    fail_step(result_, "STATUS_SUCCESS", ndk::status_name(r.Status),
              "flow " + std::to_string(flow.spec_index) + ": a " +
                  (receive ? "receive" : "request") + " completed with " +
                  ndk::status_name(r.Status));
    return false;
  }
  const uint64_t index = r.RequestContext & kIndexMask;
  if (receive) {  // a send landed: check a sample (a flush lands no bytes), post it again
    const uint32_t pair = uint32_t(index / f.outstanding);
    const uint32_t k = uint32_t(index % f.outstanding);
    if (index % kCheckEvery == 0 && r.BytesTransferred > 0) {
      Slot landing;
      landing.region = uint32_t(pair % flow.regions.size());
      if (!check_bytes(flow, landing, (index % flow.slots_per_region) * f.size)) return false;
    }
    return post_receive(flow, pair, k);
  }
  // A signaled completion retires its operation and every earlier one of its QP; a flush's,
  // all the QP's operations.
  const bool flush = index & kFlushBit;
  const uint32_t pair_index = flush ? uint32_t(index & ~kFlushBit) : flow.slots[index].pair;
  QpPair& pair = flow.pairs[pair_index];
  const uint32_t last = flush ? pair.newest : uint32_t(index);
  if (flush) pair.flushing = false;
  while (last != kNoSlot) {
    const uint32_t oldest = pair.oldest;
    if (oldest == kNoSlot) {  // the completion of an operation not in flight on its QP
      fail_step(result_, "a completion of an operation in flight", "another",
                "flow " + std::to_string(flow.spec_index) + ": completion " +
                    std::to_string(r.RequestContext) + " is of no operation in flight");
      return false;
    }
    if (!retire(flow, oldest, oldest == index && !flush)) return false;
    if (oldest == last) break;
  }
  // Operations waiting for this pair (random) go now: they already count in the window.
  while (pair.waiting > 0 && pair.in_flight < f.outstanding) {
    --pair.waiting;
    if (!post_on(flow, pair_index)) return false;
  }
  return flush_if_stuck(flow, pair_index);
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
  for (host::CqHandle cq : cqs_by_node_[node]) {
    for (;;) {
      const size_t got = a.GetCqResults(cq, batch, 64);
      for (size_t i = 0; i < got; ++i) {
        Flow& flow = flows_[size_t(batch[i].RequestContext >> kFlowShift)];
        if (!take(flow, batch[i])) return false;
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
  // One flow per direction: a bidirectional flow's reverse follows its forward one.
  size_t directions = 0;
  for (const FlowSpec& f : step_.flows) directions += f.bidirectional ? 2 : 1;
  flows_.resize(directions);
  uint32_t next = 0;
  for (uint32_t i = 0; i < step_.flows.size(); ++i) {
    const FlowSpec& spec = step_.flows[i];
    for (bool reverse : {false, true}) {
      if (reverse && !spec.bidirectional) break;
      Flow& flow = flows_[next];
      flow.spec = reverse ? &reverse_specs_.emplace_back(reversed(spec)) : &spec;
      flow.index = next++;
      flow.spec_index = i;
      flow.reverse = reverse;
      flow.src = &ctx_.adapter(flow.spec->src);
      flow.dst = &ctx_.adapter(flow.spec->dst);
      if (!build(flow, reverse ? &flows_[flow.index - 1] : nullptr)) return;
    }
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
      for (host::CqHandle cq : cqs_by_node_[n]) ctx_.adapter(n).NotifyCq(cq);
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
  // Per flow (both directions of a bidirectional one, and its reverse alone), and Jain's
  // fairness index over every QP pair's measured operations in each direction.
  Metrics extra;
  auto rates = [&](const std::string& name, uint64_t ops, uint64_t size) {
    extra.emplace_back(name + ".ops", double(ops));
    extra.emplace_back(name + ".mops", sim_ns > 0 ? double(ops) / sim_ns * 1e3 : 0.0);
    extra.emplace_back(name + ".gbps", sim_ns > 0 ? double(ops * size) * 8.0 / sim_ns : 0.0);
  };
  double sum = 0, squares = 0, pairs = 0;
  uint64_t flushes = 0;
  bool unsignaled = false;
  for (const Flow& flow : flows_) {
    const std::string name = "flow" + std::to_string(flow.spec_index);
    if (flow.reverse) {
      rates(name + ".reverse", flow.measured, flow.spec->size);
    } else {
      const bool both = flow.spec->bidirectional;
      rates(name, flow.measured + (both ? flows_[flow.index + 1].measured : 0), flow.spec->size);
    }
    for (const QpPair& p : flow.pairs) {
      sum += double(p.measured);
      squares += double(p.measured) * double(p.measured);
      pairs += 1;
    }
    flushes += flow.flushes;
    unsignaled = unsignaled || flow.spec->signal_every > 1;
  }
  if (unsignaled) extra.emplace_back("flushes", double(flushes));
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

}  // namespace traffic

void exec_traffic(RunContext& ctx, const Step& step, StepResult& result) {
  traffic::Traffic(ctx, step, result).run();
}

}  // namespace rnic::app
