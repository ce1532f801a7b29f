// SPDX-License-Identifier: Apache-2.0
// One parser per op (SCENARIOS.md "Ops"), and the table that names each op and its fields.
#include <algorithm>

#include "app/scenario/parse.h"
#include "app/scenario/text.h"
#include "host_api/ndk.h"

namespace rnic::app {

namespace {

using K = ObjectKind;
constexpr uint64_t kU32 = UINT32_MAX;

// --- control ops ---

void parse_alloc(const Reader& r, Step& s) {
  s.node_index = r.node("node");
  s.size = r.literal("size", 1, kMaxAllocBytesPerNode);
  s.page_size = r.literal_or("page_size", 4096, 1, 1ull << 30);
  if (s.page_size != 4096 && s.page_size != 2097152) r.fail("page_size", "must be 4096 or 2097152");
  s.scatter = r.boolean_or("scatter", false);
  s.fill = r.has("fill") ? parse_fill(r, "fill", &s.fill_byte, true) : Fill::Zero;
  uint64_t& total = r.state().allocated[s.node_index];
  if (s.size > kMaxAllocBytesPerNode - total) {
    r.fail("size", "buffers on node " + r.state().nodes[s.node_index] +
                       " would total more than the 1 GiB a scenario may allocate per node");
  }
  uint64_t all = 0;
  for (uint64_t n : r.state().allocated) all += n;
  if (s.size > kMaxAllocBytesTotal - all) {
    r.fail("size", "buffers on all nodes would total more than the 2 GiB a scenario may allocate");
  }
  total += s.size;
  parse_expect_status(r, s);
  s.name = r.define(K::Buffer, s.node_index, s.index, s.size);
}

void parse_create_pd(const Reader& r, Step& s) {
  s.node_index = r.node("node");
  parse_expect_status(r, s);
  s.name = r.define(K::Pd, s.node_index, s.index);
}

void parse_create_cq(const Reader& r, Step& s) {
  s.node_index = r.node("node");
  s.depth = r.literal_or("depth", 64, 0, kMaxCqDepthField);
  parse_expect_status(r, s);
  s.name = r.define(K::Cq, s.node_index, s.index);
}

void parse_create_qp(const Reader& r, Step& s) {
  s.pd = r.object("pd", {K::Pd});
  s.cq = r.object("cq", {K::Cq});
  check_same_node(r, "cq", s.cq, s.pd);
  s.node_index = r.symbol(s.pd).node;
  s.send_depth = r.literal_or("send_depth", 64, 0, kMaxQueueDepthField);
  s.recv_depth = r.literal_or("recv_depth", 64, 0, kMaxQueueDepthField);
  if (r.has("ord")) s.ord = r.literal("ord", 0, kMaxReadsField);
  if (r.has("ird")) s.ird = r.literal("ird", 0, kMaxReadsField);
  s.context = r.value_or("context", 0);
  parse_expect_status(r, s);
  s.name = r.define(K::Qp, s.node_index, s.index);
}

void parse_connect(const Reader& r, Step& s) {
  s.qp = r.object("qp", {K::Qp});
  s.peer = r.object("peer", {K::Qp});
  if (s.qp == s.peer) r.fail("peer", "a QP cannot be connected to itself");
  s.node_index = r.symbol(s.qp).node;
  parse_expect_status(r, s);
}

void parse_create_mr(const Reader& r, Step& s) {
  s.pd = r.object("pd", {K::Pd});
  s.node_index = r.symbol(s.pd).node;
  s.fast_register = r.boolean_or("fast_register", false);
  s.pages = r.literal_or("pages", 0, 0, kMaxFrPagesField);
  s.remote_access = r.boolean_or("remote_access", false);
  parse_expect_status(r, s);
  s.name = r.define(K::Mr, s.node_index, s.index);
  r.state().symbols.at(s.name).fast_register = s.fast_register;
}

void parse_register_mr(const Reader& r, Step& s) {
  s.mr = r.object("mr", {K::Mr});
  s.buffer = r.object("buffer", {K::Buffer});
  check_same_node(r, "buffer", s.buffer, s.mr);
  s.node_index = r.symbol(s.mr).node;
  s.offset = r.value_or("offset", 0);
  const uint64_t size = r.symbol(s.buffer).size;
  // Default: the rest of the buffer (only computable for a literal offset).
  if (!r.has("length") && (s.offset.is_ref || s.offset.literal > size)) {
    r.fail("length", "missing required field (no default with this offset)");
  }
  s.length = r.value_or("length", size - s.offset.literal);
  s.flags = r.mr_flags("flags");
  s.zero_based = r.boolean_or("zero_based", false);
  s.async = r.boolean_or("async", false);
  parse_expect_status(r, s);
}

void parse_deregister_mr(const Reader& r, Step& s) {
  s.mr = r.object("mr", {K::Mr});
  s.node_index = r.symbol(s.mr).node;
  parse_expect_status(r, s);
}

void parse_create_mw(const Reader& r, Step& s) {
  s.pd = r.object("pd", {K::Pd});
  s.node_index = r.symbol(s.pd).node;
  parse_expect_status(r, s);
  s.name = r.define(K::Mw, s.node_index, s.index);
}

// --- verbs ---

void parse_qp(const Reader& r, Step& s) {
  s.qp = r.object("qp", {K::Qp});
  s.node_index = r.symbol(s.qp).node;
}

void parse_fast_register(const Reader& r, Step& s) {
  parse_qp(r, s);
  s.mr = r.object("mr", {K::Mr});
  check_same_node(r, "mr", s.mr, s.qp);
  s.buffer = r.object("buffer", {K::Buffer});
  check_same_node(r, "buffer", s.buffer, s.qp);
  s.offset = r.value_or("offset", 0);
  s.length = r.value("length");
  s.flags = r.op_flags("flags");
  s.context = r.value_or("context", 0);
  s.base_va = r.optional_value("base_va");
  s.page_count = r.optional_value("page_count", kMaxFrPagesField);
  if (r.has("pages")) s.page_list = parse_pages(r, s);
  parse_expect_status(r, s);
}

void parse_bind(const Reader& r, Step& s) {
  parse_qp(r, s);
  s.mr = r.object("mr", {K::Mr});
  check_same_node(r, "mr", s.mr, s.qp);
  s.mw = r.object("mw", {K::Mw});
  check_same_node(r, "mw", s.mw, s.qp);
  if (r.has("va") && r.has("offset")) r.fail("va", "give offset or va, not both");
  s.offset = r.value_or("offset", 0);
  s.va = r.optional_value("va");
  s.length = r.value("length");
  s.flags = r.op_flags("flags");
  s.context = r.value_or("context", 0);
  s.zero_based = r.boolean_or("zero_based", false);
  parse_expect_status(r, s);
}

void parse_invalidate(const Reader& r, Step& s) {
  parse_qp(r, s);
  s.target = r.object("target", {K::Mr, K::Mw});
  check_same_node(r, "target", s.target, s.qp);
  s.flags = r.op_flags("flags");
  s.context = r.value_or("context", 0);
  parse_expect_status(r, s);
}

void parse_read_write(const Reader& r, Step& s) {
  parse_qp(r, s);
  s.sgl = parse_sgl(r, s);
  s.remote = parse_remote(r, false);
  s.flags = r.op_flags("flags");
  s.context = r.value_or("context", 0);
  parse_expect_status(r, s);
}

void parse_send(const Reader& r, Step& s) {
  parse_qp(r, s);
  s.sgl = parse_sgl(r, s);
  s.flags = r.op_flags("flags");
  s.context = r.value_or("context", 0);
  s.invalidate_token = r.optional_value("invalidate", kU32);
  parse_expect_status(r, s);
}

void parse_receive(const Reader& r, Step& s) {
  parse_qp(r, s);
  s.sgl = parse_sgl(r, s);
  s.context = r.value_or("context", 0);
  parse_expect_status(r, s);
}

void parse_flush(const Reader& r, Step& s) {
  parse_qp(r, s);
  parse_expect_status(r, s);
}

}  // namespace

namespace {

using F = FieldType;
constexpr bool kRequired = true;

// read_stream and write_stream take the same fields.
const std::vector<FieldDef> kStreamFields = {
    {"qp", F::Name, kRequired},       {"count", F::Literal, kRequired},
    {"size", F::Literal, kRequired},  {"outstanding", F::Literal},
    {"sgl", F::StreamSgl, kRequired}, {"remote", F::StreamRemote, kRequired},
    {"signal_every", F::Literal},     {"flags", F::OpFlags},
    {"expect", F::MetricBounds}};

}  // namespace

const std::vector<OpInfo>& op_table() {
  static const std::vector<OpInfo> table = {
      {"alloc",
       Op::Alloc,
       "host buffer in modeled host memory",
       {{"node", F::Node, kRequired},
        {"name", F::Name, kRequired},
        {"size", F::Literal, kRequired},
        {"fill", F::Fill},
        {"page_size", F::PageSize},
        {"scatter", F::Boolean},
        {"expect", F::Status}},
       parse_alloc},
      {"create_pd",
       Op::CreatePd,
       "protection domain",
       {{"node", F::Node, kRequired}, {"name", F::Name, kRequired}, {"expect", F::Status}},
       parse_create_pd},
      {"create_cq",
       Op::CreateCq,
       "completion queue",
       {{"node", F::Node, kRequired},
        {"name", F::Name, kRequired},
        {"depth", F::Literal},
        {"expect", F::Status}},
       parse_create_cq},
      {"create_qp",
       Op::CreateQp,
       "queue pair (pd and cq on one node)",
       {{"name", F::Name, kRequired},
        {"pd", F::Name, kRequired},
        {"cq", F::Name, kRequired},
        {"send_depth", F::Literal},
        {"recv_depth", F::Literal},
        {"ord", F::Literal},
        {"ird", F::Literal},
        {"context", F::Value},
        {"expect", F::Status}},
       parse_create_qp},
      {"connect",
       Op::Connect,
       "connects two QPs (both directions)",
       {{"qp", F::Name, kRequired}, {"peer", F::Name, kRequired}, {"expect", F::Status}},
       parse_connect},
      {"create_mr",
       Op::CreateMr,
       "memory region object",
       {{"name", F::Name, kRequired},
        {"pd", F::Name, kRequired},
        {"fast_register", F::Boolean},
        {"pages", F::Literal},
        {"remote_access", F::Boolean},
        {"expect", F::Status}},
       parse_create_mr},
      {"register_mr",
       Op::RegisterMr,
       "normal registration of a buffer range",
       {{"mr", F::Name, kRequired},
        {"buffer", F::Name, kRequired},
        {"offset", F::Value},
        {"length", F::Value},
        {"flags", F::MrFlags},
        {"zero_based", F::Boolean, false,
         "ask for a zero-based MR: not supported, refused STATUS_INVALID_PARAMETER"},
        {"async", F::Boolean, false,
         "the asynchronous call: returns STATUS_PENDING, wait_async waits for its completion"},
        {"expect", F::Status}},
       parse_register_mr},
      {"deregister_mr",
       Op::DeregisterMr,
       "deregisters the MR",
       {{"mr", F::Name, kRequired}, {"expect", F::Status}},
       parse_deregister_mr},
      {"create_mw",
       Op::CreateMw,
       "memory window",
       {{"name", F::Name, kRequired}, {"pd", F::Name, kRequired}, {"expect", F::Status}},
       parse_create_mw},
      {"fast_register",
       Op::FastRegister,
       "posts FastRegister",
       {{"qp", F::Name, kRequired},
        {"mr", F::Name, kRequired},
        {"buffer", F::Name, kRequired},
        {"offset", F::Value},
        {"length", F::Value, kRequired},
        {"flags", F::OpFlags},
        {"context", F::Value},
        {"base_va", F::Value},
        {"page_count", F::Value},
        {"pages", F::Pages, false,
         "explicit page array: each entry the index-th 4 KiB page of a buffer plus offset bytes"},
        {"expect", F::Status}},
       parse_fast_register},
      {"bind",
       Op::Bind,
       "posts Bind; offset from the MR's base va, or absolute va",
       {{"qp", F::Name, kRequired},
        {"mr", F::Name, kRequired},
        {"mw", F::Name, kRequired},
        {"offset", F::Value},
        {"length", F::Value, kRequired},
        {"flags", F::OpFlags},
        {"context", F::Value},
        {"va", F::Value},
        {"zero_based", F::Boolean, false,
         "the user-mode Bind: a zero-based window; its descriptor is used by remote "
         "{descriptor, offset}"},
        {"expect", F::Status}},
       parse_bind},
      {"invalidate",
       Op::Invalidate,
       "posts Invalidate",
       {{"qp", F::Name, kRequired},
        {"target", F::Name, kRequired},
        {"flags", F::OpFlags},
        {"context", F::Value},
        {"expect", F::Status}},
       parse_invalidate},
      {"read",
       Op::Read,
       "posts Read",
       {{"qp", F::Name, kRequired},
        {"sgl", F::Sgl, kRequired},
        {"remote", F::Remote, kRequired},
        {"flags", F::OpFlags},
        {"context", F::Value},
        {"expect", F::Status}},
       parse_read_write},
      {"write",
       Op::Write,
       "posts Write (sgl is the source)",
       {{"qp", F::Name, kRequired},
        {"sgl", F::Sgl, kRequired},
        {"remote", F::Remote, kRequired},
        {"flags", F::OpFlags},
        {"context", F::Value},
        {"expect", F::Status}},
       parse_read_write},
      {"send",
       Op::Send,
       "posts Send / SendAndInvalidate",
       {{"qp", F::Name, kRequired},
        {"sgl", F::Sgl, kRequired},
        {"flags", F::OpFlags},
        {"context", F::Value},
        {"invalidate", F::Value},
        {"expect", F::Status}},
       parse_send},
      {"receive",
       Op::Receive,
       "posts Receive",
       {{"qp", F::Name, kRequired},
        {"sgl", F::Sgl, kRequired},
        {"context", F::Value},
        {"expect", F::Status}},
       parse_receive},
      {"flush",
       Op::Flush,
       "flushes the QP",
       {{"qp", F::Name, kRequired}, {"expect", F::Status}},
       parse_flush},
      {"poll",
       Op::Poll,
       "waits for count completions (count 0: asserts none within timeout_ns) and checks them "
       "in order",
       {{"cq", F::Name, kRequired},
        {"count", F::Literal},
        {"timeout_ns", F::Literal},
        {"expect", F::Completions},
        {"overflow", F::Boolean}},
       parse_poll},
      {"expect_memory",
       Op::ExpectMemory,
       "compares modeled host memory with one of equals, bytes or fill",
       {{"buffer", F::Name, kRequired},
        {"offset", F::Value},
        {"length", F::Literal},
        {"equals", F::Equals},
        {"bytes", F::HexBytes},
        {"fill", F::CheckFill},
        {"expect", F::SuccessOnly}},
       parse_expect_memory,
       {"equals", "bytes", "fill"},
       {"length", "bytes"}},
      {"fill_memory",
       Op::FillMemory,
       "the host CPU writes a fill into a buffer range now",
       {{"buffer", F::Name, kRequired},
        {"offset", F::Value},
        {"length", F::Literal, kRequired},
        {"fill", F::CheckFill, kRequired},
        {"expect", F::SuccessOnly}},
       parse_fill_memory},
      {"wait_async",
       Op::WaitAsync,
       "waits until the asynchronous call on an MR completes; expect is its final status",
       {{"mr", F::Name, kRequired}, {"timeout_ns", F::Literal}, {"expect", F::Status}},
       parse_wait_async},
      {"save",
       Op::Save,
       "keeps a value for later $NAME",
       {{"name", F::Name, kRequired}, {"value", F::Value, kRequired}, {"expect", F::SuccessOnly}},
       parse_save},
      {"wait",
       Op::Wait,
       "advances simulated time",
       {{"ns", F::Literal, kRequired}, {"expect", F::SuccessOnly}},
       parse_wait},
      {"read_stream", Op::ReadStream, "workload of reads", kStreamFields, parse_stream},
      {"write_stream", Op::WriteStream, "workload of writes", kStreamFields, parse_stream},
      {"dma_bench",
       Op::DmaBench,
       "device DMA reads of host memory (pcie-bench style)",
       {{"node", F::Node, kRequired},
        {"kind", F::DmaKind},
        {"size", F::Literal, kRequired},
        {"count", F::Literal, kRequired},
        {"window", F::Literal},
        {"pattern", F::Pattern},
        {"outstanding", F::Literal},
        {"expect", F::MetricBounds}},
       parse_dma_bench},
  };
  return table;
}

namespace {

const OpInfo& info(Op op) {
  for (const OpInfo& i : op_table()) {
    if (i.op == op) return i;
  }
  return op_table().front();  // unreachable: every Op has a row
}

}  // namespace

const char* op_name(Op op) {
  return info(op).name;
}

bool op_from_name(const std::string& name, Op* out) {
  for (const OpInfo& i : op_table()) {
    if (name == i.name) {
      *out = i.op;
      return true;
    }
  }
  return false;
}

std::string known_ops() {
  std::string list;
  for (const OpInfo& i : op_table()) list += std::string(list.empty() ? "" : ", ") + i.name;
  return list;
}

std::vector<std::string> op_fields(Op op) {
  std::vector<std::string> names;
  for (const FieldDef& f : info(op).fields) names.push_back(f.name);
  return names;
}

std::vector<Op> all_ops() {
  std::vector<Op> ops;
  for (const OpInfo& i : op_table()) ops.push_back(i.op);
  return ops;
}

void parse_step_fields(const Reader& reader, Step& step) {
  const OpInfo& op = info(step.op);
  std::vector<const char*> allowed = {"op", "description", "comment"};
  for (const FieldDef& f : op.fields) allowed.push_back(f.name);
  reader.only(allowed);
  op.parse(reader, step);
}

}  // namespace rnic::app
