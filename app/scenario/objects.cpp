// SPDX-License-Identifier: Apache-2.0
// Parsers of the control ops (host buffers, PDs, CQs, QPs, MRs, MWs) and of the verbs
// (docs/scenario-format.md "Ops"); op_table.cpp names each op and its fields.
#include "app/scenario/parse.h"
#include "app/scenario/text.h"
#include "host_api/ndk.h"

namespace rnic::app {

namespace {

using K = ObjectKind;

void parse_qp(const Reader& r, Step& s) {
  s.qp = r.object("qp", {K::Qp});
  s.node_index = r.symbol(s.qp).node;
}

}  // namespace

// --- control ops ---

void parse_alloc(const Reader& r, Step& s) {
  s.node_index = r.node("node");
  s.size = r.literal("size", 1, kMaxAllocBytesPerNode);
  s.page_size = r.literal_or("page_size", 4096, 1, 1ull << 30);
  if (s.page_size != 4096 && s.page_size != 2097152) r.fail("page_size", "must be 4096 or 2097152");
  s.scatter = r.boolean_or("scatter", false);
  s.fill = r.has("fill") ? parse_fill(r, "fill", &s.fill_byte, true) : Fill::Zero;
  charge_allocation(r, "size", s.node_index, s.size);
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
  s.wait = r.boolean_or("wait", true);
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

}  // namespace rnic::app
