// SPDX-License-Identifier: Apache-2.0
// Whole-file checks after loading (preflight.h): the device tables the workload ops fill,
// their connections and flags, and references whose values the file already fixes.
#include "app/scenario/preflight.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/scenario/parse.h"
#include "app/scenario/text.h"
#include "host_api/limits.h"
#include "host_api/ndk.h"
#include "model/rnic/abi/wqe.h"

namespace rnic::app {

using ndk::NDK_OP_FLAG_DEFER;
using ndk::NDK_OP_FLAG_INLINE;
using ndk::NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE;
using ndk::NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT;
using ndk::NDK_OP_FLAG_SILENT_SUCCESS;

bool stream_can_stall(uint64_t count, uint64_t outstanding, uint64_t signal_every,
                      uint64_t send_depth) {
  const uint64_t in_flight = std::min(outstanding, send_depth);
  // From any point the loop reaches (after request k x signal_every - 1 completed), the next
  // signaled request is signal_every later, or the last one.
  return signal_every > in_flight && count > in_flight;
}

TrafficCqNeed traffic_cq_need(const FlowSpec& flow, bool source_side) {
  const bool issues = source_side || flow.bidirectional;
  const bool receives = flow.verb == Verb::Send && (!source_side || flow.bidirectional);
  const uint64_t all = flow.qps * flow.outstanding;
  TrafficCqNeed need;
  need.depth = std::max<uint64_t>(
      1, (issues ? std::min(flow.window, all) : 0) + (receives ? all : 0));
  need.per_qp = std::max<uint64_t>(
      1, (issues ? flow.outstanding : 0) + (receives ? flow.outstanding : 0));
  return need;
}

uint64_t traffic_cq_count(const FlowSpec& flow, const TrafficCqNeed& need) {
  if (need.depth <= host::kMaxCqDepth) return 1;
  const uint64_t per_cq = std::max<uint64_t>(1, host::kMaxCqDepth / need.per_qp);
  return (flow.qps + per_cq - 1) / per_cq;
}

uint64_t traffic_cq_depth(const FlowSpec& flow, const TrafficCqNeed& need) {
  if (traffic_cq_count(flow, need) == 1) return need.depth;
  return std::max<uint64_t>(1, host::kMaxCqDepth / need.per_qp) * need.per_qp;
}

namespace {

JsonPath step_path(const Step& s) { return JsonPath().key("steps").index(s.index); }

// What the adapters of a run hold after each step, as far as the file decides it: objects the
// steps create (a call expected to fail creates nothing) and the workloads build.
class Tables {
 public:
  explicit Tables(const Scenario& sc) : sc_(sc), used_(sc.nodes.size()) {}

  enum Kind { kPd, kCq, kQp, kMpt };
  // Adds `n` objects of `kind` on `node` for the step at `path`; refuses the file when the
  // adapter could not hold them.
  void add(Kind kind, uint32_t node, uint64_t n, const JsonPath& path) {
    uint64_t& used = used_[node][kind];
    const uint64_t capacity = capacity_of(kind);
    if (n > capacity || used > capacity - n) {
      throw_at(path, "this step would bring node " + sc_.nodes[node] + " to " +
                         std::to_string(used + n) + " " + what(kind) +
                         ", more than its adapter holds (" + std::to_string(capacity) + ": " +
                         key(kind) + ")");
    }
    used += n;
  }

 private:
  uint64_t capacity_of(Kind kind) const {
    const QpConfig& q = sc_.config.rnic.qp;
    switch (kind) {
      case kPd: return host::kMaxPds;
      case kCq: return host::cq_capacity(q);
      case kQp: return host::qp_capacity(q);
      case kMpt: return host::mpt_capacity(q);
    }
    return 0;
  }
  static const char* what(Kind kind) {
    static const char* const names[] = {"PDs", "CQs", "QPs", "MRs and MWs"};
    return names[kind];
  }
  static const char* key(Kind kind) {
    static const char* const keys[] = {"the driver's PD limit", "qp.max_cqs - 1",
                                       "qp.max_qps - 1", "qp.max_mpt_entries - 1"};
    return keys[kind];
  }

  const Scenario& sc_;
  std::vector<std::map<Kind, uint64_t>> used_;
};

// traffic: the read limits of both adapters, and the tables the op fills.
void check_traffic(const Scenario& sc, const Step& s, Tables& tables) {
  const QpConfig& q = sc.config.rnic.qp;
  std::set<uint32_t> pd_nodes;
  for (size_t i = 0; i < s.flows.size(); ++i) {
    const FlowSpec& f = s.flows[i];
    const JsonPath p = step_path(s).key("flows").index(i);
    if (f.verb == Verb::Read && (f.outstanding > q.max_ord || f.outstanding > q.max_ird)) {
      throw_at(p.key("outstanding"),
               std::to_string(f.outstanding) + " reads per QP is above the adapters' limits (" +
                   "qp.max_ord = " + std::to_string(q.max_ord) +
                   ", qp.max_ird = " + std::to_string(q.max_ird) + ")");
    }
    for (uint32_t node : {f.src, f.dst}) {
      if (pd_nodes.insert(node).second) tables.add(Tables::kPd, node, 1, p);
    }
    tables.add(Tables::kCq, f.src, traffic_cq_count(f, traffic_cq_need(f, true)), p.key("qps"));
    tables.add(Tables::kCq, f.dst, traffic_cq_count(f, traffic_cq_need(f, false)), p.key("qps"));
    // The source's slots and the destination's regions; both again, swapped, when
    // bidirectional.
    const uint64_t slots_mr = 1, both = f.bidirectional ? 1 : 0;
    tables.add(Tables::kMpt, f.src, slots_mr + both * f.regions, p.key("window"));
    tables.add(Tables::kMpt, f.dst, f.regions + both * slots_mr, p.key("regions"));
    tables.add(Tables::kQp, f.src, f.qps, p.key("qps"));
    tables.add(Tables::kQp, f.dst, f.qps, p.key("qps"));
  }
}

// A flag the step's requests cannot carry: the step could only stall or fail.
struct RefusedFlag {
  uint32_t flag;
  const char* name;
  bool applies;
  const char* why;
};

void refuse_flags(const Step& s, std::initializer_list<RefusedFlag> refused) {
  for (const RefusedFlag& r : refused) {
    if ((s.flags & r.flag) && r.applies)
      throw_at(step_path(s).key("flags"), std::string(r.name) + ": " + r.why);
  }
}

// read_stream / write_stream: flags that can only stall or fail every request, and signaling
// that leaves no visible completion in flight.
void check_stream(const Step& s, const std::map<std::string, uint64_t>& send_depth) {
  const JsonPath p = step_path(s);
  const bool read = s.op == Op::ReadStream;
  refuse_flags(
      s, {{NDK_OP_FLAG_SILENT_SUCCESS, "SILENT_SUCCESS", true,
           "no request would complete visibly (signal_every chooses the signaled ones)"},
          {NDK_OP_FLAG_DEFER, "DEFER", true,
           "nothing would ring the doorbell for the deferred requests"},
          {NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT, "SEND_AND_SOLICIT_EVENT", true,
           "it is for send verbs only: every request would fail (R2.solicit)"},
          {NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE, "RDMA_READ_LOCAL_INVALIDATE", read,
           "the first read would invalidate the sink MR, and every later one fail"},
          {NDK_OP_FLAG_INLINE, "INLINE", read,
           "it is for send and write only: every read would fail (R2.inline)"}});
  if ((s.flags & NDK_OP_FLAG_INLINE) && s.size > kMaxInlineBytes) {
    throw_at(p.key("size"), std::to_string(s.size) + " bytes cannot be INLINE: at most " +
                                std::to_string(kMaxInlineBytes) + " (MaxInlineDataSize)");
  }
  auto depth = send_depth.find(s.qp);
  const uint64_t sq = depth == send_depth.end() ? 0 : depth->second;
  if (stream_can_stall(s.count, s.outstanding, s.signal_every, sq)) {
    const uint64_t in_flight = std::min(s.outstanding, sq);
    throw_at(p.key("signal_every"),
             "with signal_every " + std::to_string(s.signal_every) + ", at most " +
                 std::to_string(in_flight) + " requests in flight (outstanding " +
                 std::to_string(s.outstanding) + ", send_depth " + std::to_string(sq) +
                 " of " + s.qp + ") and count " + std::to_string(s.count) +
                 ", no signaled request would ever be in flight: the step could only stall");
  }
}

// pingpong: its QPs connected to each other, and flags under which every message is sent at
// once and completes visibly.
void check_pingpong(const Step& s, const std::map<std::string, std::string>& peer_of) {
  const JsonPath p = step_path(s);
  auto it = peer_of.find(s.qp);
  if (it == peer_of.end()) {
    throw_at(p.key("qp"),
             s.qp + " is not connected before this step (no connect step expected to succeed)");
  }
  if (it->second != s.peer) {
    throw_at(p.key("peer"),
             s.peer + " is not the QP " + s.qp + " is connected to (" + it->second + ")");
  }
  refuse_flags(
      s, {{NDK_OP_FLAG_SILENT_SUCCESS, "SILENT_SUCCESS", true,
           "the sender's queue would fill with requests never seen complete, and stall"},
          {NDK_OP_FLAG_DEFER, "DEFER", true,
           "nothing would ring the doorbell: no message would leave"},
          {NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT, "SEND_AND_SOLICIT_EVENT", s.verb != Verb::Send,
           "it is for send verbs only: every write would fail (R2.solicit)"}});
}

// A reference whose base the file fixes (a buffer's length, a value saved from one) that
// leaves the 64-bit range is refused now, not when the step runs.
class KnownValues {
 public:
  void step_done(const Step& s) {
    if (s.op == Op::Alloc && s.expect_status == ndk::STATUS_SUCCESS) lengths_[s.name] = s.size;
    if (s.op == Op::Save) {
      std::optional<uint64_t> v = value(s.value);
      if (v) saved_[s.name] = *v; else saved_.erase(s.name);
    }
  }
  void check(const Value& v) const {
    std::optional<uint64_t> base = base_of(v);
    uint64_t out = 0;
    if (base && !v.adjusted(*base, &out)) throw_at(v.path, wrap_message(v, *base));
  }

 private:
  std::optional<uint64_t> base_of(const Value& v) const {
    if (!v.is_ref) return std::nullopt;
    if (v.field == Value::Field::None) {
      auto it = saved_.find(v.name);
      if (it != saved_.end()) return it->second;
    } else if (v.field == Value::Field::Length) {
      auto it = lengths_.find(v.name);
      if (it != lengths_.end()) return it->second;
    }
    return std::nullopt;
  }
  std::optional<uint64_t> value(const Value& v) const {
    if (!v.is_ref) return v.literal;
    std::optional<uint64_t> base = base_of(v);
    uint64_t out = 0;
    if (base && v.adjusted(*base, &out)) return out;
    return std::nullopt;
  }
  std::map<std::string, uint64_t> lengths_;  // buffers: their size
  std::map<std::string, uint64_t> saved_;
};

}  // namespace

void check_run_limits(const Scenario& sc) {
  Tables tables(sc);
  KnownValues known;
  std::map<std::string, std::string> peer_of;    // connected QPs
  std::map<std::string, uint64_t> send_depth;   // QPs created
  std::map<std::string, uint32_t> node_of;       // of each QP created
  for (const Step& s : sc.steps) {
    visit_values(s, [&](const Value& v) { known.check(v); });
    const bool succeeds = s.expect_status == ndk::STATUS_SUCCESS;
    switch (s.op) {
      case Op::CreatePd:
        if (succeeds) tables.add(Tables::kPd, s.node_index, 1, step_path(s));
        break;
      case Op::CreateCq:
        if (succeeds) tables.add(Tables::kCq, s.node_index, 1, step_path(s));
        break;
      case Op::CreateQp:
        if (succeeds) {
          tables.add(Tables::kQp, s.node_index, 1, step_path(s));
          send_depth[s.name] = s.send_depth;
          node_of[s.name] = s.node_index;
        }
        break;
      case Op::CreateMr:
      case Op::CreateMw:
        if (succeeds) tables.add(Tables::kMpt, s.node_index, 1, step_path(s));
        break;
      case Op::Connect:
        if (succeeds) {
          peer_of[s.qp] = s.peer;
          peer_of[s.peer] = s.qp;
        }
        break;
      case Op::ReadStream:
      case Op::WriteStream:
        check_stream(s, send_depth);
        break;
      case Op::Traffic:
        check_traffic(sc, s, tables);
        break;
      case Op::PingPong:
        check_pingpong(s, peer_of);
        // Two MRs on each side: the buffer it sends from and the one it receives into.
        for (const std::string& qp : {s.qp, s.peer}) {
          auto node = node_of.find(qp);
          if (node != node_of.end()) tables.add(Tables::kMpt, node->second, 2, step_path(s));
        }
        break;
      default:
        break;
    }
    known.step_done(s);
  }
}

}  // namespace rnic::app
