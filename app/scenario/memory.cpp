// SPDX-License-Identifier: Apache-2.0
// The memory estimate behind --memory-budget (memory.h). Every size is counted from the steps
// and the config, at the per-item costs of memory_costs.h. The budget check and byte sizes as
// text are in memory_budget.cpp.
#include "app/scenario/memory.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app/scenario/memory_costs.h"
#include "app/scenario/parse.h"
#include "app/scenario/text.h"
#include "model/rnic/abi/icm.h"

namespace rnic::app {

namespace {
using namespace memory_costs;

// What the estimate knows about a named object, from the step that created it.
struct Object {
  uint32_t node = 0;
  uint64_t size = 0;            // buffers
  std::string cq;               // QPs
  uint64_t ord = 1;             // QPs: reads outstanding at once (qp.max_ord caps it)
  uint64_t send_depth = 0;      // QPs
  std::string peer;             // QPs: the connected QP
};

// A device table: the bytes of entries written, and how many writes (each may start a page).
struct Table {
  uint64_t bytes = 0;
  uint64_t writes = 0;
  void write(uint64_t n) {
    bytes = add(bytes, n);
    writes = add(writes, 1);
  }
  // Memory is kept per 4 KiB page, zero until written: the pages the entries fall in, never
  // more than the table.
  uint64_t cost(uint64_t table_bytes) const {
    return std::min(add(bytes, mul(writes, kPageBytes)), round_up(table_bytes, kPageBytes));
  }
};

struct Node {
  uint64_t allocs = 0;          // buffer bytes, rounded to their pages
  uint64_t window = 0;          // largest dma_bench window
  uint64_t queues = 0;          // send, receive and completion rings, page arrays
  Table mpt, mtt, qpc, cqc;     // device tables (ICM)
  uint64_t mpt_objects = 0;     // MRs and MWs: protection cache entries in use at most
  uint64_t pages = 0;           // registered pages: translation cache entries in use at most
  uint64_t read_served = 0;     // largest read response built here (fast mode keeps it)
  uint64_t sent = 0;            // largest write or send payload built here (fast mode)
};

struct FileEstimate {
  std::vector<MemoryPart> parts;
};

std::string step_ref(const Step& s) {
  return "steps[" + std::to_string(s.index) + "] " + op_name(s.op);
}

class Estimator {
 public:
  explicit Estimator(const Scenario& s) : s_(s), nodes_(std::max<size_t>(1, s.nodes.size())) {
    const QpConfig& qp = s.config.rnic.qp;
    max_transfer_ = qp.max_transfer_bytes;
    max_ord_ = std::max<uint64_t>(1, qp.max_ord);
    mrrs_ = std::max<uint64_t>(1, s.config.rnic.pcie.mrrs_bytes);
    fast_ = s.config.rnic.sim.fast;
  }

  FileEstimate run(const MemoryOptions& options) {
    for (const Step& step : s_.steps) walk(step);
    FileEstimate out;
    const size_t n = nodes_.size();
    uint64_t allocs = 0, windows = 0, queues = 0, tables = 0, caches = 0, fast_copies = 0;
    const IcmLayout icm = IcmLayout::from(s_.config.rnic.qp);
    const MttConfig& mtt = s_.config.rnic.mtt;
    const MptConfig& mpt = s_.config.rnic.mpt;
    for (const Node& node : nodes_) {
      allocs = add(allocs, node.allocs);
      windows = add(windows, node.window);
      queues = add(queues, node.queues);
      tables = add(tables, node.mpt.cost(uint64_t(icm.mpt_entries) * kMptEntryBytes));
      tables = add(tables, node.mtt.cost(uint64_t(icm.mtt_entries) * kMttEntryBytes));
      tables = add(tables, node.qpc.cost(uint64_t(icm.qpc_entries) * kQpcEntryBytes));
      tables = add(tables, node.cqc.cost(uint64_t(icm.cqc_entries) * kCqcEntryBytes));
      caches = add(caches,
                   uint64_t(mtt.cache_entries) * kMttCacheEntryBytes +
                       std::min<uint64_t>(mtt.cache_entries, node.pages) * kCacheEntryInUseBytes);
      caches = add(caches, uint64_t(mpt.cache_entries) * kMptCacheEntryBytes +
                               std::min<uint64_t>(mpt.cache_entries, node.mpt_objects) *
                                   kCacheEntryInUseBytes);
      const QpContextConfig& context = s_.config.rnic.context;
      caches = add(caches, uint64_t(context.qpc.cache_entries) * kQpcCacheEntryBytes +
                               uint64_t(context.cqc.cache_entries) * kCqcCacheEntryBytes +
                               uint64_t(s_.config.rnic.wqe.cache_entries) * kWqeBufferEntryBytes);
      fast_copies = add(fast_copies, add(node.read_served, node.sent));
    }
    const std::string on_nodes = " on " + std::to_string(n) + (n == 1 ? " node" : " nodes");
    out.parts.push_back({"host buffers", with_page_overhead(add(allocs, windows)),
                         format_size(allocs) + " of alloc" +
                             (windows ? " and dma_bench windows of " + format_size(windows) : "") +
                             on_nodes + ", in 4 KiB pages"});
    out.parts.push_back({"queues and device tables", with_page_overhead(add(queues, tables)),
                         "send, receive and completion rings, fast-register page arrays, and "
                         "the MPT, MTT, QP and CQ table entries written"});
    out.parts.push_back(
        {"on-chip caches", caches,
         std::to_string(n) + (n == 1 ? " node" : " nodes") + " x (mtt.cache_entries " +
             std::to_string(mtt.cache_entries) + ", mpt.cache_entries " +
             std::to_string(mpt.cache_entries) + ", qpc.cache_entries " +
             std::to_string(s_.config.rnic.context.qpc.cache_entries) + ", cqc.cache_entries " +
             std::to_string(s_.config.rnic.context.cqc.cache_entries) + ", wqe.cache_entries " +
             std::to_string(s_.config.rnic.wqe.cache_entries) + ")"});
    // Transfers: a message carries its whole payload. In the cycle-approximate mode every
    // message on the wire is a copy of its own (the switch holds it until it arrives), so
    // what may be in flight at once counts; in fast mode there is no copy on the wire, but
    // each node's responder and requester keep the buffer of the largest message they built.
    const uint64_t messages = fast_ ? add(fast_copies, kept_peak_) : in_flight_peak_;
    std::string detail;
    if (fast_ && largest_) {
      detail = "sim.fast: each node keeps the largest read response and the largest write or "
               "send it built, the largest " + format_size(largest_) + " at " + largest_step_;
    } else if (in_flight_peak_) {
      detail = format_size(in_flight_peak_) + " of messages in flight at " + peak_step_;
      if (largest_step_ != peak_step_)
        detail += ", the largest " + format_size(largest_) + " at " + largest_step_;
    }
    // Each message's payload was read by DMA, pcie.mrrs bytes per booked request.
    const uint64_t booked = bookings(messages);
    if (booked) detail += ", and " + format_size(booked) + " of DMA read bookings";
    const uint64_t copies = add(messages, booked);
    out.parts.push_back({"transfers in flight", copies, detail});
    out.parts.push_back({"workload requests", workload_peak_, workload_step_});
    uint64_t steps = 0, results = 0;
    for (const Step& step : s_.steps) steps = add(steps, step_bytes(step));
    results = mul(s_.steps.size(), kStepResultBytes);
    if (options.results_file) {
      results = add(results, add(mul(s_.steps.size(), kResultJsonStepBytes),
                                 mul(n, kResultJsonNodeBytes)));
    }
    out.parts.push_back({"steps and results", add(steps, results),
                         std::to_string(s_.steps.size()) + " steps, parsed and their results" +
                             (options.results_file ? " (and the results JSON of --out)" : "")});
    out.parts.push_back({"nodes", mul(n, kNodeBytes),
                         std::to_string(n) + (n == 1 ? " node" : " nodes") + " of the model"});
    out.parts.push_back({"scratch buffers", add(kScratchBytes, mul(largest_page_array_, 16)),
                         "chunks of fill and compare, fast-register page arrays"});
    return out;
  }

 private:
  // The parsed step: the struct, its lists and their values' paths.
  static uint64_t step_bytes(const Step& s) {
    uint64_t b = sizeof(Step) + kStepExtraBytes + s.bytes.size();
    b = add(b, mul(s.sgl.size(), sizeof(SgeSpec) + 256));
    b = add(b, mul(s.completions.size(), sizeof(CompletionExpect) + 256));
    b = add(b, mul(s.page_list.size(), sizeof(PageSpec) + 128));
    b = add(b, mul(s.remote.targets.size(), 64));
    b = add(b, mul(s.metrics.size(), sizeof(MetricBound) + 32));
    return b;
  }

  Object* find(const std::string& name) {
    auto it = objects_.find(name);
    return it == objects_.end() ? nullptr : &it->second;
  }
  Node& node(uint32_t index) { return nodes_.at(std::min<size_t>(index, nodes_.size() - 1)); }

  // Bytes a request moves: its SGEs' total. A request above qp.max_transfer_bytes is refused
  // when posted (nothing moves); a length given by reference is bounded by that key.
  uint64_t transfer(const Step& s) const {
    uint64_t total = 0;
    for (const SgeSpec& sge : s.sgl) {
      if (sge.length.is_ref) return max_transfer_;
      total = add(total, sge.length.literal);
    }
    return total > max_transfer_ ? 0 : total;
  }

  // The node a QP's requests go to: its peer's, or the remote object's.
  uint32_t responder_node(const Step& s) {
    if (Object* qp = find(s.qp)) {
      if (Object* peer = find(qp->peer)) return peer->node;
    }
    if (Object* target = find(s.remote.target)) return target->node;
    return s.node_index;
  }

  // A request posted on `qp` that completes on its CQ: `wire` bytes of payload in its
  // message, `kept` more that the requester keeps until it completes (a send's copy for
  // RNR retries).
  void post(const Step& s, uint64_t wire, uint64_t kept = 0) {
    Object* qp = find(s.qp);
    const std::string cq = qp ? qp->cq : s.qp;
    pending_[cq].insert({add(wire, kept), kept});
    in_flight_ = add(in_flight_, add(wire, kept));
    kept_ = add(kept_, kept);
    kept_peak_ = std::max(kept_peak_, kept_);
    note_peak(s);
  }

  void note_peak(const Step& s) {
    if (in_flight_ > in_flight_peak_) {
      in_flight_peak_ = in_flight_;
      peak_step_ = step_ref(s);
    }
  }

  void note_largest(const Step& s, uint64_t bytes) {
    if (bytes > largest_) {
      largest_ = bytes;
      largest_step_ = step_ref(s);
    }
  }

  void walk(const Step& s) {
    Node& here = node(s.node_index);
    switch (s.op) {
      case Op::Alloc:
        // A 2 MiB-page buffer is aligned to 2 MiB: up to one page skipped before it.
        here.allocs = add(here.allocs, add(round_up(s.size, s.page_size),
                                           s.page_size > kPageBytes ? s.page_size : 0));
        objects_[s.name] = Object{s.node_index, s.size, {}, 1, 0, {}};
        break;
      case Op::CreatePd:
      case Op::CreateMw:
        objects_[s.name] = Object{s.node_index, 0, {}, 1, 0, {}};
        if (s.op == Op::CreateMw) here.mpt.write(kMptEntryBytes);
        break;
      case Op::CreateCq:
        objects_[s.name] = Object{s.node_index, 0, {}, 1, 0, {}};
        here.queues = add(here.queues, round_up(mul(s.depth, kCqeBytes), kPageBytes));
        here.cqc.write(kCqcEntryBytes);
        break;
      case Op::CreateQp: {
        Object qp{s.node_index, 0, s.cq, std::min(s.ord.value_or(max_ord_), max_ord_),
                  s.send_depth, {}};
        qp.ord = std::max<uint64_t>(qp.ord, 1);
        objects_[s.name] = qp;
        here.queues = add(here.queues, add(round_up(mul(s.send_depth, kWqeBytes), kPageBytes),
                                           round_up(mul(s.recv_depth, kWqeBytes), kPageBytes)));
        here.qpc.write(kQpcEntryBytes);
        break;
      }
      case Op::Connect:
        if (Object* qp = find(s.qp)) qp->peer = s.peer;
        if (Object* peer = find(s.peer)) peer->peer = s.qp;
        break;
      case Op::CreateMr:
        objects_[s.name] = Object{s.node_index, 0, {}, 1, 0, {}};
        here.mpt.write(kMptEntryBytes);
        here.mpt_objects = add(here.mpt_objects, 1);
        if (s.pages) here.mtt.write(mul(s.pages, kMttEntryBytes));
        break;
      case Op::RegisterMr: {
        // One MTT entry per 4 KiB page of the range (a length by reference: the buffer).
        const Object* buffer = find(s.buffer);
        const uint64_t length = s.length.is_ref || s.offset.is_ref
                                    ? (buffer ? buffer->size : 0)
                                    : add(s.length.literal, s.offset.literal % kPageBytes);
        const uint64_t pages = add(length / kPageBytes, 2);
        here.pages = add(here.pages, pages);
        here.mtt.write(mul(pages, kMttEntryBytes));
        here.mpt_objects = add(here.mpt_objects, 1);
        break;
      }
      case Op::FastRegister: {
        // The page array goes to the QP's staging slot, then the device writes it into the MTT.
        uint64_t count = s.page_list.size();
        if (s.page_count) {
          count = s.page_count->is_ref ? kMaxFrPagesField : s.page_count->literal;
        } else if (count == 0) {
          const Object* buffer = find(s.buffer);
          count = s.length.is_ref ? (buffer ? buffer->size / kPageBytes + 1 : kMaxFrPagesField)
                                  : s.length.literal / kPageBytes + 2;
        }
        count = std::min<uint64_t>(count, kMaxFrPagesField);
        largest_page_array_ = std::max(largest_page_array_, count);
        here.queues = add(here.queues, round_up(mul(count, 8), kPageBytes));
        here.mtt.write(mul(count, kMttEntryBytes));
        here.pages = add(here.pages, count);
        post(s, 0);
        break;
      }
      case Op::Bind:
      case Op::Invalidate:
        here.mpt.write(kMptEntryBytes);
        post(s, 0);
        break;
      case Op::Receive:
        post(s, 0);
        break;
      case Op::Read:
      case Op::Write:
      case Op::Send: {
        probe_literal_tokens(s);
        const uint64_t bytes = transfer(s);
        note_largest(s, bytes);
        if (s.op == Op::Read) {
          Node& responder = node(responder_node(s));
          responder.read_served = std::max(responder.read_served, bytes);
        } else {
          here.sent = std::max(here.sent, bytes);
        }
        // A send is kept for RNR retries until it completes: a second copy.
        post(s, bytes, s.op == Op::Send ? bytes : 0);
        break;
      }
      case Op::Flush:
        break;
      case Op::Poll:
        reap(s);
        break;
      case Op::ReadStream:
      case Op::WriteStream:
        stream(s);
        break;
      case Op::Traffic:
        traffic(s);
        break;
      case Op::PingPong: {
        // Each side's buffers (the one it sends from, the one the peer's messages land in),
        // both written whole. One message each way at a time, but the answer may leave
        // before the message it answers is released (a send's copy, kept for its retries,
        // too): two at once.
        for (const std::string& name : {s.qp, s.peer}) {
          if (const Object* qp = find(name)) {
            Node& side = node(qp->node);
            side.allocs = add(side.allocs, mul(2, round_up(s.size, kPageBytes)));
            side.sent = std::max(side.sent, s.size);
          }
        }
        note_largest(s, s.size);
        during_step(s, mul(s.size, s.verb == Verb::Send ? 4 : 2),
                    s.verb == Verb::Send ? mul(2, s.size) : 0);
        workload(s, 2);
        break;
      }
      case Op::DmaBench: {
        here.window = std::max(here.window, round_up(s.window, kPageBytes));
        // The engine's landing buffer (`size`), and the bookings of the requests in flight
        // plus those issued since time last caught up.
        const uint64_t at_once = std::min(s.outstanding, s.count);
        const uint64_t unsynced = std::min(
            s.count, std::max<uint64_t>(1, std::min(kBenchSyncRequests, kBenchSyncBytes / s.size)));
        const uint64_t booked = mul(add(at_once, unsynced), s.size);
        workload(s, at_once,
                 add(s.size, add(bookings(booked), mul(add(at_once, unsynced), kBookingBytes))));
        break;
      }
      default:
        break;
    }
  }

  // A literal token names any table entry: the protection monitor's read of it keeps a page
  // of each table.
  void probe_literal_tokens(const Step& s) {
    bool literal = s.op != Op::Send && s.remote.target.empty() && !s.remote.descriptor;
    for (const SgeSpec& sge : s.sgl) literal = literal || sge.mr.empty();
    if (literal) {
      Node& n = node(s.node_index);
      n.mpt.write(0);
      n.mtt.write(0);
    }
  }

  // A poll that passes saw `count` completions: at least that many posted requests (or
  // receives) of its CQ are done. Which ones is not known: the smallest are taken as done.
  void reap(const Step& s) {
    auto it = pending_.find(s.cq);
    if (it == pending_.end()) return;
    std::multiset<std::pair<uint64_t, uint64_t>>& list = it->second;
    for (uint64_t i = 0; i < s.count && !list.empty(); ++i) {
      // A saturated sum stays saturated (the peak already is as large as it can be).
      if (in_flight_ != UINT64_MAX) in_flight_ -= list.begin()->first;
      if (kept_ != UINT64_MAX) kept_ -= list.begin()->second;
      list.erase(list.begin());
    }
  }

  void stream(const Step& s) {
    const Object* qp = find(s.qp);
    const bool read = s.op == Op::ReadStream;
    const uint64_t size = s.size > max_transfer_ ? 0 : s.size;
    // Requests in flight: outstanding, as far as the send queue (and for reads ORD) allows.
    uint64_t at_once = std::min(s.outstanding, s.count);
    if (qp) at_once = std::min(at_once, std::max<uint64_t>(qp->send_depth, 1));
    if (read && qp) at_once = std::min(at_once, qp->ord);
    note_largest(s, size);
    if (read) {
      Node& responder = node(responder_node(s));
      responder.read_served = std::max(responder.read_served, size);
    } else {
      Node& here = node(s.node_index);
      here.sent = std::max(here.sent, size);
    }
    // The step ends when every request has completed: in flight during the step only.
    during_step(s, mul(at_once, size));
    workload(s, at_once);
  }

  // A traffic step: per flow, the source's slots and the destination's regions, the rings and
  // records of each QP pair, a CQ of the flow's window on each side. A bidirectional flow's
  // reverse direction adds its own slots, regions, rings and completions over the same QPs.
  void traffic(const Step& s) {
    uint64_t at_once = 0, wire = 0, kept = 0;
    for (const FlowSpec& flow : s.flows) {
      std::vector<FlowSpec> directions{flow};
      if (flow.bidirectional) directions.push_back(reversed(flow));
      for (size_t d = 0; d < directions.size(); ++d) {
        const FlowSpec& f = directions[d];
        const bool new_qps = d == 0;
        Node& src = node(f.src);
        Node& dst = node(f.dst);
        src.allocs = add(src.allocs, round_up(mul(f.window, f.size), kPageBytes));
        dst.allocs = add(dst.allocs,
                         mul(f.regions, add(round_up(f.region_bytes, f.page_size),
                                            f.page_size > kPageBytes ? f.page_size : 0)));
        const uint64_t ring = round_up(mul(f.outstanding, kWqeBytes), kPageBytes);
        const uint64_t records = new_qps ? add(kTrafficQpBytes, kTrafficBusyQpBytes) : 0;
        src.queues = add(src.queues, mul(f.qps, add(ring, records)));
        // The destination posts nothing: its send ring is never written (no page); a send's
        // receive ring is.
        dst.queues = add(dst.queues, mul(f.qps, add(f.verb == Verb::Send ? ring : 0, records)));
        for (Node* n : {&src, &dst}) {
          n->queues = add(n->queues, round_up(mul(f.window, kCqeBytes), kPageBytes));
          if (new_qps) {
            n->qpc.write(mul(f.qps, kQpcEntryBytes));
            n->cqc.write(kCqcEntryBytes);
          }
        }
        src.mpt.write(kMptEntryBytes);
        src.mpt_objects = add(src.mpt_objects, 1);
        if (new_qps) {
          dst.mpt.write(kMptEntryBytes);
          dst.mpt_objects = add(dst.mpt_objects, 1);
        }
        dst.mpt_objects = add(dst.mpt_objects, f.regions);
        dst.pages = add(dst.pages, mul(f.regions, f.region_bytes / kPageBytes + 1));
        dst.mtt.write(mul(mul(f.regions, f.region_bytes / kPageBytes + 1), kMttEntryBytes));
        note_largest(s, f.size);
        // Its operations in flight carry their payloads (a send's kept for its retries too);
        // in fast mode each node keeps the largest message it built.
        const uint64_t in_flight = mul(std::min(f.window, mul(f.qps, f.outstanding)), f.size);
        wire = add(wire, mul(in_flight, f.verb == Verb::Send ? 2 : 1));
        if (f.verb == Verb::Send) kept = add(kept, in_flight);
        Node& builder = f.verb == Verb::Read ? dst : src;
        (f.verb == Verb::Read ? builder.read_served : builder.sent) =
            std::max(f.verb == Verb::Read ? builder.read_served : builder.sent, f.size);
        at_once = add(at_once, f.window);
      }
    }
    during_step(s, wire, kept);
    workload(s, at_once);
  }

  // Transfers a workload step keeps in flight while it runs (it ends with none): `bytes` in
  // all, of which `kept` the senders keep for their retries.
  void during_step(const Step& s, uint64_t bytes, uint64_t kept = 0) {
    const uint64_t during = add(in_flight_, bytes);
    if (during > in_flight_peak_) {
      in_flight_peak_ = during;
      peak_step_ = step_ref(s);
    }
    kept_peak_ = std::max(kept_peak_, add(kept_, kept));
  }

  // The read bookings of `bytes` read by DMA.
  uint64_t bookings(uint64_t bytes) const { return mul(bytes / mrrs_, kBookingBytes); }

  // A workload step: its statistics and, per request in flight, the requester's record;
  // `extra` what else the step holds while it runs.
  void workload(const Step& s, uint64_t at_once, uint64_t extra = 0) {
    const uint64_t bytes =
        add(add(kWorkloadStepBytes, mul(at_once, kRequestRecordBytes)), extra);
    if (bytes > workload_peak_) {
      workload_peak_ = bytes;
      workload_step_ = step_ref(s) + ", " + std::to_string(at_once) + " requests at once";
    }
  }

  const Scenario& s_;
  std::vector<Node> nodes_;
  std::map<std::string, Object> objects_;
  // By CQ, each request not known to be done: (bytes it holds, of which kept by the sender).
  std::map<std::string, std::multiset<std::pair<uint64_t, uint64_t>>> pending_;
  uint64_t max_transfer_ = 0, max_ord_ = 1, mrrs_ = 512;
  bool fast_ = false;
  uint64_t in_flight_ = 0, in_flight_peak_ = 0;
  std::string peak_step_;
  uint64_t largest_ = 0;
  std::string largest_step_;
  uint64_t kept_ = 0, kept_peak_ = 0;
  uint64_t workload_peak_ = 0;
  std::string workload_step_;
  uint64_t largest_page_array_ = 0;
};

}  // namespace

MemoryEstimate estimate_memory(const std::vector<const Scenario*>& scenarios,
                               const MemoryOptions& options,
                               const std::vector<std::string>& labels) {
  // Parts of the same name add up over the files; the detail is the largest file's.
  std::vector<MemoryPart> parts;
  std::vector<uint64_t> largest;  // bytes of the file whose detail a part shows
  for (size_t i = 0; i < scenarios.size(); ++i) {
    MemoryOptions file_options = options;
    if (i > 0) file_options.trace_events = 0;  // --trace takes a single file
    const FileEstimate file = Estimator(*scenarios[i]).run(file_options);
    const std::string label = scenarios.size() > 1 && i < labels.size() ? labels[i] + ": " : "";
    for (const MemoryPart& part : file.parts) {
      auto it = std::find_if(parts.begin(), parts.end(),
                             [&](const MemoryPart& p) { return p.name == part.name; });
      if (it == parts.end()) {
        parts.push_back({part.name, part.bytes, label + part.detail});
        largest.push_back(part.bytes);
        continue;
      }
      const size_t k = size_t(it - parts.begin());
      it->bytes = add(it->bytes, part.bytes);
      if (part.bytes > largest[k]) {
        largest[k] = part.bytes;
        it->detail = label + part.detail;
      }
    }
  }
  parts.push_back({"process", kProcessBytes, "the executable and the SystemC kernel"});
  if (options.trace_events) {
    parts.push_back({"trace", mul(options.trace_events, kTraceEventBytes),
                     std::to_string(options.trace_events) + " events at most (--trace-limit)"});
  }
  MemoryEstimate estimate;
  for (const MemoryPart& part : parts) {
    if (part.bytes == 0) continue;
    estimate.total = add(estimate.total, part.bytes);
    estimate.parts.push_back(part);
  }
  std::stable_sort(estimate.parts.begin(), estimate.parts.end(),
                   [](const MemoryPart& a, const MemoryPart& b) { return a.bytes > b.bytes; });
  return estimate;
}

MemoryEstimate estimate_memory(const Scenario& scenario, const MemoryOptions& options) {
  return estimate_memory(std::vector<const Scenario*>{&scenario}, options);
}

}  // namespace rnic::app
