// SPDX-License-Identifier: Apache-2.0
// What a traffic step builds through the host API, as a driver would (docs/scenario-format.md,
// "traffic", "What it builds"): a PD per node, each flow's CQs, connected QP pairs, its slots
// and regions registered as MRs, and a send flow's receives.
#include <algorithm>

#include "app/runner/traffic.h"
#include "app/scenario/preflight.h"

namespace rnic::app::traffic {

void fill_pattern(uint32_t flow, uint64_t offset, uint64_t n, std::vector<uint8_t>& out) {
  out.resize(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = uint8_t((offset + i) * 7 + flow * 13 + 1);
}

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

// CQs for the QPs of `flow` on one side: as few as hold all their pending completions within
// the adapter's CQ depth. QP i uses CQ i % count.
std::vector<host::CqHandle> Traffic::make_cqs(Flow& flow, uint32_t node, bool source_side) {
  const FlowSpec& f = *flow.spec;
  // The loader counted these against qp.max_cqs (check_run_limits): the same functions.
  const TrafficCqNeed need = traffic_cq_need(f, source_side);
  const uint64_t count = traffic_cq_count(f, need);
  const uint64_t depth = traffic_cq_depth(f, need);
  std::vector<host::CqHandle> cqs;
  host::Adapter& a = ctx_.adapter(node);
  for (uint64_t i = 0; i < count; ++i) {
    host::CqHandle cq = 0;
    if (a.CreateCq(uint32_t(depth), &cq) != ndk::STATUS_SUCCESS)
      refuse(flow.spec_index, "qps",
             "cannot create a CQ on node " + ctx_.scenario.nodes[node] + ": " + a.last_error() +
                 " (qp.max_cqs)");
    cqs.push_back(cq);
  }
  return cqs;
}

// Builds `flow`'s buffers and MRs, and its QP pairs with their CQs, or, for a bidirectional
// flow's reverse direction (`forward` given), takes the forward direction's pairs swapped.
bool Traffic::build(Flow& flow, const Flow* forward) {
  const FlowSpec& f = *flow.spec;
  host::Adapter& src = *flow.src;
  host::Adapter& dst = *flow.dst;
  const bool read = f.verb == Verb::Read, send = f.verb == Verb::Send;
  if (read && (f.outstanding > src.QueryAdapterInfo().MaxOutboundReadLimit ||
               f.outstanding > dst.QueryAdapterInfo().MaxInboundReadLimit)) {
    refuse(flow.spec_index, "outstanding",
           std::to_string(f.outstanding) + " reads per QP is above the adapters' limits "
           "(qp.max_ord, qp.max_ird)");
  }
  // Completions: every operation in flight on a side that issues, receives posted on a side
  // that takes sends (both sides of a bidirectional flow, on the same CQs).
  std::vector<host::CqHandle> src_cqs, dst_cqs;
  if (!forward) {
    src_cqs = make_cqs(flow, f.src, true);
    dst_cqs = make_cqs(flow, f.dst, false);
    cqs_by_node_[f.src].insert(cqs_by_node_[f.src].end(), src_cqs.begin(), src_cqs.end());
    if (send || f.bidirectional)
      cqs_by_node_[f.dst].insert(cqs_by_node_[f.dst].end(), dst_cqs.begin(), dst_cqs.end());
  }

  // Buffers and MRs: the source's slots, the destination's regions.
  const uint32_t fill_status =
      src.AllocBuffer(f.window * f.size, 4096, false, host::BufferFill::Zero, 0, &flow.local);
  if (fill_status != ndk::STATUS_SUCCESS)
    refuse(flow.spec_index, "window", "cannot allocate the flow's buffer: " + src.last_error());
  host::MrHandle mr = 0;
  if (src.CreateMr(pd(f.src), false, &mr) != ndk::STATUS_SUCCESS ||
      src.RegisterMr(mr, flow.local, 0, flow.local.size,
                     ndk::NDK_MR_FLAG_ALLOW_LOCAL_WRITE | ndk::NDK_MR_FLAG_RDMA_READ_SINK, false,
                     nullptr) != ndk::STATUS_SUCCESS)
    refuse(flow.spec_index, "window", "cannot register the flow's buffer: " + src.last_error());
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
      refuse(flow.spec_index, "regions",
             "cannot allocate region " + std::to_string(r) + ": " + dst.last_error());
    host::MrHandle region_mr = 0;
    if (dst.CreateMr(pd(f.dst), false, &region_mr) != ndk::STATUS_SUCCESS ||
        dst.RegisterMr(region_mr, region.buffer, 0, f.region_bytes, region_flags, false,
                       nullptr) != ndk::STATUS_SUCCESS)
      refuse(flow.spec_index, "regions", "cannot register region " + std::to_string(r) + ": " +
                                             dst.last_error() + " (qp.max_mpt_entries)");
    region.remote_token = dst.GetRemoteTokenFromMr(region_mr);
    region.local_token = dst.GetLocalTokenFromMr(region_mr);
    flow.regions.push_back(std::move(region));
  }

  // The QP pairs, connected; a send's destination has its receives posted from the start.
  // Both sides of a bidirectional pair issue: send queues, receives, ORD and IRD on both.
  flow.pairs.resize(f.qps);
  const uint32_t depth = uint32_t(f.outstanding);
  const uint32_t reads = read ? depth : 0, receives = send ? depth : 0;
  const uint32_t both = f.bidirectional ? 1 : 0;
  for (uint32_t i = 0; i < f.qps; ++i) {
    QpPair& p = flow.pairs[i];
    if (forward) {
      p.src = forward->pairs[i].dst;
      p.dst = forward->pairs[i].src;
    } else {
      if (src.CreateQp(pd(f.src), src_cqs[i % src_cqs.size()], depth, both * receives, reads,
                       both * reads, 0, &p.src) != ndk::STATUS_SUCCESS)
        refuse(flow.spec_index, "qps",
               "QP " + std::to_string(i) + " on node " + ctx_.scenario.nodes[f.src] + ": " +
                   src.last_error() + " (qp.max_qps = " +
                   std::to_string(ctx_.system.config().rnic.qp.max_qps) + ")");
      if (dst.CreateQp(pd(f.dst), dst_cqs[i % dst_cqs.size()], both ? depth : 1, receives,
                       both * reads, reads, 0, &p.dst) != ndk::STATUS_SUCCESS)
        refuse(flow.spec_index, "qps",
               "QP " + std::to_string(i) + " on node " + ctx_.scenario.nodes[f.dst] + ": " +
                   dst.last_error() + " (qp.max_qps = " +
                   std::to_string(ctx_.system.config().rnic.qp.max_qps) + ")");
      if (host::Adapter::Connect(src, p.src, dst, p.dst) != ndk::STATUS_SUCCESS)
        refuse(flow.spec_index, "qps",
               "cannot connect QP pair " + std::to_string(i) + ": " + src.last_error());
    }
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
            "flow " + std::to_string(flow.spec_index) + ": a receive returned " +
                ndk::status_name(status) + ": " + flow.dst->last_error());
  return false;
}

}  // namespace rnic::app::traffic
