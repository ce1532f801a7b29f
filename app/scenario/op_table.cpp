// SPDX-License-Identifier: Apache-2.0
// The op table (docs/scenario-format.md "Ops"): each op's name, meaning, fields with their types,
// and parser (objects.cpp, checks.cpp); the loader and the schema emitter read it.
#include "app/scenario/parse.h"

namespace rnic::app {

namespace {

using F = FieldType;
constexpr bool kRequired = true;

// read and write take the same fields, and so do read_stream and write_stream.
const std::vector<FieldDef> kReadWriteFields = {
    {"qp", F::Name, kRequired}, {"sgl", F::Sgl, kRequired}, {"remote", F::Remote, kRequired},
    {"flags", F::OpFlags},      {"context", F::Value},      {"expect", F::Status}};

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
        {"wait", F::Boolean, false,
         "true (the default): the step ends once the device has run the Bind (or completed "
         "it without effect), so later steps may use the window; false: it only posts"},
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
       kReadWriteFields,
       parse_read_write},
      {"write",
       Op::Write,
       "posts Write (sgl is the source)",
       kReadWriteFields,
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
        {"translate", F::Boolean, false,
         "each read's address goes through the device's translation cache (the IOMMU of the "
         "pcie-bench-gen3x8 preset)"},
        {"page_size", F::PageSize, false, "page size of the window's translation (translate)"},
        {"expect", F::MetricBounds}},
       parse_dma_bench},
      {"traffic",
       Op::Traffic,
       "many connections at once: builds a PD per node, CQs, `qps` connected QP pairs per flow, "
       "buffers and MRs, then keeps every QP of every flow busy until `ops` operations after "
       "the warm-up completed",
       {{"flows", F::Flows, kRequired},
        {"ops", F::Literal, kRequired},
        {"warmup_ops", F::Literal, false,
         "operations completed before the measured window opens (caches warm up)"},
        {"qp_select", F::QpSelect, false,
         "which QP with room posts next: round_robin (default) or random"},
        {"expect", F::MetricBounds}},
       parse_traffic},
      {"pingpong",
       Op::PingPong,
       "perftest ib_write_lat-style latency between two connected QPs: each side sends only "
       "once the peer's data has landed in its memory (the last byte, or the receive "
       "completion); buffers and MRs on both sides are built by the op; latency is half the "
       "round trip",
       {{"qp", F::Name, kRequired},
        {"peer", F::Name, kRequired, "the QP connected to qp, on the other side"},
        {"verb", F::PingVerb, kRequired},
        {"size", F::Literal, kRequired},
        {"count", F::Literal, kRequired, "round trips measured"},
        {"flags", F::OpFlags, false, "e.g. [\"INLINE\"]: the payload travels in the WQE"},
        {"expect", F::MetricBounds}},
       parse_pingpong},
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

std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (const OpInfo& i : op_table()) names.push_back(i.name);
  return names;
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
