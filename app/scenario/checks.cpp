// SPDX-License-Identifier: Apache-2.0
// Parsers of the ops that check or wait (poll, expect_memory, save, wait) and of the
// workload ops (read_stream, write_stream, dma_bench).
#include "app/scenario/parse.h"
#include "app/scenario/text.h"
#include "host_api/ndk.h"
#include "model/rnic/abi/wqe.h"

namespace rnic::app {

using nlohmann::json;
using K = ObjectKind;

namespace {

constexpr uint64_t kDefaultPollTimeoutNs = 1000 * 1000;  // 1 ms (docs/scenario-format.md)

// A literal [offset, offset+length) must lie inside the buffer; references are checked when run.
void check_range(const Reader& r, const std::string& key, const std::string& buffer,
                 const Value& offset, uint64_t length) {
  const uint64_t size = r.symbol(buffer).size;
  if (offset.is_ref) return;
  if (offset.literal > size || length > size - offset.literal) {
    r.fail(key, "offset " + std::to_string(offset.literal) + " + length " + std::to_string(length) +
                    " is outside buffer " + quote(buffer) + " (" + std::to_string(size) +
                    " bytes)");
  }
}

// save, wait and expect_memory make no call; an `expect` there can only be success.
void no_call_expect(const Reader& r) {
  if (r.has("expect") && r.status("expect") != ndk::STATUS_SUCCESS)
    r.fail("expect", "this op makes no call: its status is always STATUS_SUCCESS");
}

void add_wait(const Reader& r, const std::string& key, uint64_t ns) {
  uint64_t& total = r.state().waited_ns;
  if (ns > kMaxTotalWaitNs - total)
    r.fail(key, "waits and poll timeouts add up to more than 10^6 s of simulated time");
  total += ns;
}

}  // namespace

void parse_poll(const Reader& r, Step& s) {
  s.cq = r.object("cq", {K::Cq});
  s.node_index = r.symbol(s.cq).node;
  s.expect_overflow = r.boolean_or("overflow", false);
  if (r.has("expect")) {
    const json& list = r.at("expect");
    if (!list.is_array()) {
      r.fail("expect",
             std::string("must be an array of expected completions, not ") + list.type_name());
    }
    for (size_t i = 0; i < list.size(); ++i) {
      const JsonPath p = r.path("expect").index(i);
      if (!list[i].is_object())
        throw_at(p, std::string("must be an object, not ") + list[i].type_name());
      const Reader e(list[i], p, r.state());
      e.only({"context", "type", "status", "bytes", "qp_context", "type_specific", "rule"});
      CompletionExpect c;
      c.context = e.optional_value("context");
      if (e.has("type")) c.type = e.operation_type("type");
      if (e.has("status")) c.status = e.status("status");
      c.bytes = e.optional_value("bytes", kU32);
      c.qp_context = e.optional_value("qp_context");
      c.type_specific = e.optional_value("type_specific");
      if (e.has("rule")) c.rule = e.rule("rule");
      s.completions.push_back(c);
    }
  }
  if (!r.has("count") && !r.has("expect")) r.fail("count", "missing required field");
  s.count = r.has("count") ? r.literal("count", 0, kMaxPollCount) : s.completions.size();
  if (s.count == 0 && !s.completions.empty())
    r.fail("expect", "count 0 asserts that no completion arrives: expect must be empty");
  if (s.completions.size() > s.count) {
    r.fail("expect", std::to_string(s.completions.size()) + " expected completions but count is " +
                         std::to_string(s.count));
  }
  s.timeout_ns = r.literal_or("timeout_ns", kDefaultPollTimeoutNs, 0, kMaxSimNs);
  add_wait(r, "timeout_ns", s.timeout_ns);
}

void parse_expect_memory(const Reader& r, Step& s) {
  no_call_expect(r);
  s.buffer = r.object("buffer", {K::Buffer});
  s.node_index = r.symbol(s.buffer).node;
  s.offset = r.value_or("offset", 0);
  const int given = int(r.has("equals")) + int(r.has("bytes")) + int(r.has("fill"));
  if (given != 1) throw_at(r.path(), "give exactly one of equals, bytes or fill");
  if (r.has("bytes")) {
    s.bytes = parse_hex_bytes(r, "bytes");
    s.length = Value::of(s.bytes.size());
    if (r.has("length") && r.literal("length", 0, kMaxAllocBytesPerNode) != s.bytes.size()) {
      r.fail("length",
             "does not match the " + std::to_string(s.bytes.size()) + " bytes given in \"bytes\"");
    }
  } else {
    s.length = Value::of(r.literal("length", 1, kMaxAllocBytesPerNode));
  }
  check_range(r, "length", s.buffer, s.offset, s.length.literal);
  if (r.has("fill")) s.fill = parse_fill(r, "fill", &s.fill_byte, false);
  if (r.has("equals")) {
    const Reader e = r.object_reader("equals");
    e.only({"buffer", "offset"});
    s.equals_buffer = e.object("buffer", {K::Buffer});
    s.equals_offset = e.value_or("offset", 0);
    check_range(e, "offset", s.equals_buffer, s.equals_offset, s.length.literal);
  }
}

void parse_fill_memory(const Reader& r, Step& s) {
  no_call_expect(r);
  s.buffer = r.object("buffer", {K::Buffer});
  s.node_index = r.symbol(s.buffer).node;
  s.offset = r.value_or("offset", 0);
  s.length = Value::of(r.literal("length", 1, kMaxAllocBytesPerNode));
  check_range(r, "length", s.buffer, s.offset, s.length.literal);
  s.fill = parse_fill(r, "fill", &s.fill_byte, false);
}

void parse_wait_async(const Reader& r, Step& s) {
  s.mr = r.object("mr", {K::Mr});
  s.node_index = r.symbol(s.mr).node;
  s.timeout_ns = r.literal_or("timeout_ns", kDefaultPollTimeoutNs, 0, kMaxSimNs);
  add_wait(r, "timeout_ns", s.timeout_ns);
  parse_expect_status(r, s);  // the final status of the asynchronous call
}

void parse_save(const Reader& r, Step& s) {
  no_call_expect(r);
  s.value = r.value("value");  // before defining the name: a save cannot read itself
  s.name = r.define(K::Saved, 0, s.index);
}

void parse_wait(const Reader& r, Step& s) {
  s.ns = r.literal("ns", 0, kMaxSimNs);
  add_wait(r, "ns", s.ns);
}

void parse_stream(const Reader& r, Step& s) {
  s.qp = r.object("qp", {K::Qp});
  s.node_index = r.symbol(s.qp).node;
  s.count = r.literal("count", 1, kMaxWorkloadCount);
  s.size = r.literal("size", 0, kU32);
  s.outstanding = r.literal_or("outstanding", 1, 1, kMaxOutstanding);
  const Reader sgl = r.object_reader("sgl");
  sgl.only({"mr", "offset"});
  SgeSpec sge;
  sge.mr = sgl.object("mr", {K::Mr});
  check_same_node(sgl, "mr", sge.mr, s.qp);
  sge.offset = sgl.value_or("offset", 0);
  sge.length = Value::of(s.size);
  s.sgl.push_back(sge);
  s.remote = parse_remote(r, true);
  // Whether a signaled request is always in flight depends on the QP's send queue too: the
  // whole file's check (stream_can_stall, preflight.h) decides.
  s.signal_every = r.literal_or("signal_every", 1, 1, s.count);
  s.flags = r.op_flags("flags");
  s.metrics = parse_metrics(r);
}

void parse_dma_bench(const Reader& r, Step& s) {
  s.node_index = r.node("node");
  s.kind = r.string_or("kind", "read");
  if (s.kind != "read") r.fail("kind", "unknown kind " + quote(s.kind) + " (only \"read\")");
  s.size = r.literal("size", 1, kMaxAllocBytesPerNode);
  s.count = r.literal("count", 1, kMaxWorkloadCount);
  s.window = r.literal_or("window", s.size, 1, kMaxAllocBytesPerNode);
  if (s.window < s.size) r.fail("window", "smaller than size");
  const std::string pattern = r.string_or("pattern", "sequential");
  if (pattern != "sequential" && pattern != "random")
    r.fail("pattern", "must be \"sequential\" or \"random\"");
  s.random_pattern = pattern == "random";
  s.outstanding = r.literal_or("outstanding", 1, 1, kMaxOutstanding);
  s.translate = r.boolean_or("translate", false);
  s.page_size = r.literal_or("page_size", 4096, 1, 1ull << 30);
  if (s.page_size != 4096 && s.page_size != 2097152) r.fail("page_size", "must be 4096 or 2097152");
  if (s.page_size != 4096 && !s.translate) r.fail("page_size", "only with \"translate\": true");
  s.metrics = parse_metrics(r);
}

namespace {

// "verb": a traffic flow's read, write or send; a ping-pong's write or send (`read` false).
Verb parse_verb(const Reader& r, bool read) {
  const std::string verb = r.string("verb");
  if (read && verb == "read") return Verb::Read;
  if (verb == "write") return Verb::Write;
  if (verb == "send") return Verb::Send;
  r.fail("verb", std::string("must be ") + (read ? "\"read\", " : "") +
                     "\"write\" or \"send\", not " + quote(verb));
}

FlowSpec parse_flow(const Reader& f, size_t step) {
  f.only({"src", "dst", "verb", "qps", "size", "outstanding", "window", "regions",
          "region_bytes", "page_size", "pattern", "region_select", "flags", "signal_every",
          "bidirectional"});
  FlowSpec flow;
  flow.src = f.node("src");
  flow.dst = f.node("dst");
  if (flow.src == flow.dst) f.fail("dst", "a flow connects two different nodes");
  flow.verb = parse_verb(f, true);
  flow.qps = f.literal("qps", 1, kMaxFlowQps);
  flow.size = f.literal("size", 1, kMaxAllocBytesPerNode);
  flow.outstanding = f.literal_or("outstanding", 1, 1, host::kMaxQueueDepth);
  flow.window = f.literal_or("window", flow.qps * flow.outstanding, 1, flow.qps * flow.outstanding);
  flow.regions = f.literal_or("regions", 1, 1, 65536);
  flow.region_bytes = f.literal_or("region_bytes", 65536, 1, kMaxAllocBytesPerNode);
  if (flow.region_bytes < flow.size) {
    f.fail("region_bytes", "smaller than size (" + std::to_string(flow.size) + ")");
  }
  flow.page_size = f.literal_or("page_size", 4096, 1, 1ull << 30);
  if (flow.page_size != 4096 && flow.page_size != 2097152)
    f.fail("page_size", "must be 4096 or 2097152");
  const std::string pattern = f.string_or("pattern", "sequential");
  if (pattern != "sequential" && pattern != "random")
    f.fail("pattern", "must be \"sequential\" or \"random\"");
  flow.random = pattern == "random";
  const std::string region_select = f.string_or("region_select", "round_robin");
  if (region_select != "round_robin" && region_select != "random")
    f.fail("region_select", "must be \"round_robin\" or \"random\"");
  flow.random_region = region_select == "random";
  flow.flags = f.op_flags("flags");
  if (flow.flags & ~uint32_t(ndk::NDK_OP_FLAG_INLINE | ndk::NDK_OP_FLAG_SILENT_SUCCESS))
    f.fail("flags", "a traffic flow takes INLINE and SILENT_SUCCESS only");
  // Unsignaled operations retire with the next signaled one of their QP, so each QP's
  // `outstanding` operations in flight must hold a signaled one: signal_every <= outstanding
  // (perftest's cq_mod is capped by the send queue depth the same way).
  const bool silent = flow.flags & ndk::NDK_OP_FLAG_SILENT_SUCCESS;
  if (f.has("signal_every") && f.literal("signal_every", 1, kMaxWorkloadCount) > flow.outstanding)
    f.fail("signal_every", "at most outstanding (" + std::to_string(flow.outstanding) +
                               "): a QP's operations in flight must include a signaled one");
  flow.signal_every = f.literal_or("signal_every", silent ? flow.outstanding : 1, 1,
                                   flow.outstanding);
  if (silent && flow.signal_every < 2)
    f.fail("flags", "SILENT_SUCCESS needs signal_every of at least 2, and so outstanding of at "
                    "least 2 (one operation in signal_every per QP asks for a completion)");
  if (flow.signal_every > 1) flow.flags |= ndk::NDK_OP_FLAG_SILENT_SUCCESS;
  flow.bidirectional = f.boolean_or("bidirectional", false);
  if (flow.flags & ndk::NDK_OP_FLAG_INLINE) {
    // The adapter's MaxInlineDataSize (R2.inline): an INLINE payload lives in the WQE, and
    // a read has no payload to carry.
    if (flow.verb == Verb::Read) f.fail("flags", "INLINE carries a payload: not for reads");
    if (flow.size > kMaxInlineBytes) {
      f.fail("size", std::to_string(flow.size) + " bytes cannot be INLINE: at most " +
                         std::to_string(kMaxInlineBytes) + " (MaxInlineDataSize)");
    }
  }
  // The buffers the op allocates: a slot per operation in flight on the source, the regions
  // (each rounded up to whole pages) on the destination.
  const uint64_t region = (flow.region_bytes + flow.page_size - 1) / flow.page_size *
                          flow.page_size;
  if (flow.regions > kMaxAllocBytesPerNode / region) {
    f.fail("regions", "regions x region_bytes above the 1 GiB a scenario may allocate per node");
  }
  if (flow.window > kMaxAllocBytesPerNode / flow.size) {
    f.fail("window", "window x size above the 1 GiB a scenario may allocate per node");
  }
  charge_allocation(f, "window", flow.src, flow.window * flow.size);
  charge_allocation(f, "regions", flow.dst, flow.regions * region);
  if (flow.bidirectional) {  // the reverse direction's slots and regions
    charge_allocation(f, "window", flow.dst, flow.window * flow.size);
    charge_allocation(f, "regions", flow.src, flow.regions * region);
  }
  (void)step;
  return flow;
}

}  // namespace

void parse_traffic(const Reader& r, Step& s) {
  const json& list = r.at("flows");
  if (!list.is_array() || list.empty() || list.size() > kMaxFlows) {
    r.fail("flows", "must be an array of 1.." + std::to_string(kMaxFlows) + " flows");
  }
  std::vector<uint64_t> qps_on_node(r.state().nodes.size(), 0);
  for (size_t i = 0; i < list.size(); ++i) {
    const JsonPath p = r.path("flows").index(i);
    if (!list[i].is_object())
      throw_at(p, std::string("must be an object, not ") + list[i].type_name());
    const FlowSpec flow = parse_flow(Reader(list[i], p, r.state()), s.index);
    // Each pair is a QP on both nodes; the adapter's table (qp.max_qps) is checked when run.
    for (uint32_t node : {flow.src, flow.dst}) {
      qps_on_node[node] += flow.qps;
      if (qps_on_node[node] > kMaxFlowQps)
        throw_at(p.key("qps"), "more than " + std::to_string(kMaxFlowQps) + " QPs on node " +
                                   r.state().nodes[node]);
    }
    s.flows.push_back(flow);
  }
  s.count = r.literal("ops", 1, kMaxWorkloadCount);
  s.warmup_ops = r.literal_or("warmup_ops", 0, 0, kMaxWorkloadCount);
  const std::string select = r.string_or("qp_select", "round_robin");
  if (select != "round_robin" && select != "random")
    r.fail("qp_select", "must be \"round_robin\" or \"random\"");
  s.random_select = select == "random";
  s.metrics = parse_metrics(r, s.flows.size());
}

void parse_pingpong(const Reader& r, Step& s) {
  s.qp = r.object("qp", {K::Qp});
  s.peer = r.object("peer", {K::Qp});
  if (s.qp == s.peer) r.fail("peer", "the peer must be another QP (the one connected to qp)");
  s.node_index = r.symbol(s.qp).node;
  s.verb = parse_verb(r, false);
  s.size = r.literal("size", 1, kMaxAllocBytesPerNode);
  s.count = r.literal("count", 1, kMaxWorkloadCount);
  s.flags = r.op_flags("flags");
  // The adapter's MaxInlineDataSize (R2.inline): an INLINE payload lives in the WQE.
  if ((s.flags & ndk::NDK_OP_FLAG_INLINE) && s.size > kMaxInlineBytes) {
    r.fail("size", std::to_string(s.size) + " bytes cannot be INLINE: at most " +
                       std::to_string(kMaxInlineBytes) + " (MaxInlineDataSize)");
  }
  // A buffer of `size` on each side: the bytes sent and, where the peer's land, the bytes
  // received.
  charge_allocation(r, "size", s.node_index, 2 * s.size);
  charge_allocation(r, "size", r.symbol(s.peer).node, 2 * s.size);
  s.metrics = parse_metrics(r);
}

}  // namespace rnic::app
