// SPDX-License-Identifier: Apache-2.0
// The behaviour rules of docs/behaviour.md by ID (docs/spec-rules.tsv, in its order), the
// decision every check returns ({status, rule}: the first failing check of a normative order
// decides), and those orders. A completion entry carries the rule that decided its request
// (Cqe::rule, a vendor field beside the status, as an mlx5 CQE carries a syndrome), so the
// driver, the results and the reference model can name it. Plain C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/rnic/abi/wqe.h"

namespace rnic {

// X(enumerator, "ID"): every rule of docs/spec-rules.tsv (ctest rules/table keeps the two equal).
#define RNIC_RULE_IDS(X) \
  X(R1_token_tag, "R1.token.tag") \
  X(R1_token_refused, "R1.token.refused") \
  X(R1_token_reregister, "R1.token.reregister") \
  X(R1_token_wrap, "R1.token.wrap") \
  X(R1_mw_free, "R1.mw.free") \
  X(R1_mr_kind, "R1.mr.kind") \
  X(R1_cq_overflow, "R1.cq.overflow") \
  X(R2_silent_success, "R2.silent_success") \
  X(R2_silent_success_failure, "R2.silent_success.failure") \
  X(R2_read_fence, "R2.read_fence") \
  X(R2_solicit, "R2.solicit") \
  X(R2_inline, "R2.inline") \
  X(R2_remote_write_implies_local, "R2.remote_write_implies_local") \
  X(R2_fr_local_write, "R2.fr.local_write") \
  X(R2_fr_read_sink, "R2.fr.read_sink") \
  X(R2_cap_read_sink_not_required, "R2.cap.read_sink_not_required") \
  X(R2_read_local_invalidate, "R2.read_local_invalidate") \
  X(R2_read_local_invalidate_ignored, "R2.read_local_invalidate.ignored") \
  X(R2_defer, "R2.defer") \
  X(R2_defer_inline_failure, "R2.defer.inline_failure") \
  X(R2_mr_local_read, "R2.mr.local_read") \
  X(R2_mr_remote_write, "R2.mr.remote_write") \
  X(R3_map_local_protection, "R3.map.local_protection") \
  X(R3_map_mw_bind, "R3.map.mw_bind") \
  X(R3_map_remote_access, "R3.map.remote_access") \
  X(R3_map_flush, "R3.map.flush") \
  X(R3_map_local_length, "R3.map.local_length") \
  X(R3_map_remote_op, "R3.map.remote_op") \
  X(R3_map_rnr, "R3.map.rnr") \
  X(R3_map_local_qp_op, "R3.map.local_qp_op") \
  X(R3_pending, "R3.pending") \
  X(R3_remote_resources, "R3.remote_resources") \
  X(R3_connection_invalid, "R3.connection_invalid") \
  X(R3_invalid_parameter, "R3.invalid_parameter") \
  X(R3_insufficient_resources, "R3.insufficient_resources") \
  X(R3_device_busy, "R3.device_busy") \
  X(R3_implementation_limit, "R3.implementation_limit") \
  X(R4_post_one_completion, "R4.post.one_completion") \
  X(R4_inline_no_completion, "R4.inline.no_completion") \
  X(R4_inline_not_connected, "R4.inline.not_connected") \
  X(R4_inline_sq_full, "R4.inline.sq_full") \
  X(R4_inline_rq_full, "R4.inline.rq_full") \
  X(R4_inline_sge_count, "R4.inline.sge_count") \
  X(R4_inline_total_length, "R4.inline.total_length") \
  X(R4_inline_bind_remote_write, "R4.inline.bind_remote_write") \
  X(R4_inline_fr_remote_access, "R4.inline.fr_remote_access") \
  X(R4_order, "R4.order") \
  X(R4_error_flush_later, "R4.error.flush_later") \
  X(R4_error_posted_later, "R4.error.posted_later") \
  X(R4_cancelled_undefined, "R4.cancelled.undefined") \
  X(R4_refused_no_effect, "R4.refused.no_effect") \
  X(R4_error_flush_receives, "R4.error.flush_receives") \
  X(R4_ord, "R4.ord") \
  X(R4_ird, "R4.ird") \
  X(R4_cqe_type, "R4.cqe.type") \
  X(R4_cqe_bytes, "R4.cqe.bytes") \
  X(R4_cqe_qp_context, "R4.cqe.qp_context") \
  X(R4_cqe_type_specific, "R4.cqe.type_specific") \
  X(R5_reg_invalid, "R5.reg.invalid") \
  X(R5_reg_valid, "R5.reg.valid") \
  X(R5_reg_zero_based, "R5.reg.zero_based") \
  X(R5_dereg_busy, "R5.dereg.busy") \
  X(R5_dereg_token, "R5.dereg.token") \
  X(R5_frinit_limit, "R5.frinit.limit") \
  X(R5_fr_success, "R5.fr.success") \
  X(R5_fr_kind, "R5.fr.kind") \
  X(R5_fr_free, "R5.fr.free") \
  X(R5_fr_pd, "R5.fr.pd") \
  X(R5_fr_length, "R5.fr.length") \
  X(R5_fr_fbo, "R5.fr.fbo") \
  X(R5_fr_va_zero, "R5.fr.va_zero") \
  X(R5_fr_page_align, "R5.fr.page_align") \
  X(R5_fr_capacity, "R5.fr.capacity") \
  X(R5_fr_rights, "R5.fr.rights") \
  X(R5_inv_normal_mr, "R5.inv.normal_mr") \
  X(R5_inv_token, "R5.inv.token") \
  X(R5_inv_valid, "R5.inv.valid") \
  X(R5_inv_bound_windows, "R5.inv.bound_windows") \
  X(R5_inv_pd_qp, "R5.inv.pd_qp") \
  X(R5_inv_success, "R5.inv.success") \
  X(R5_inv_fence, "R5.inv.fence") \
  X(R5_bind_rebind, "R5.bind.rebind") \
  X(R5_bind_pd, "R5.bind.pd") \
  X(R5_bind_mr_valid, "R5.bind.mr_valid") \
  X(R5_bind_range, "R5.bind.range") \
  X(R5_bind_va_zero, "R5.bind.va_zero") \
  X(R5_bind_rights_required, "R5.bind.rights_required") \
  X(R5_bind_remote_write_local_write, "R5.bind.remote_write_local_write") \
  X(R5_bind_token_on_return, "R5.bind.token_on_return") \
  X(R5_bind_executes_in_order, "R5.bind.executes_in_order") \
  X(R5_bind_window_rights, "R5.bind.window_rights") \
  X(R5_bind_zero_based, "R5.bind.zero_based") \
  X(R5_read_sink_valid, "R5.read.sink.valid") \
  X(R5_read_sink_pd, "R5.read.sink.pd") \
  X(R5_read_sink_local_write, "R5.read.sink.local_write") \
  X(R5_read_sink_bounds, "R5.read.sink.bounds") \
  X(R5_read_sink_read_sink, "R5.read.sink.read_sink") \
  X(R5_read_sink_zero_length, "R5.read.sink.zero_length") \
  X(R5_read_zero_length, "R5.read.zero_length") \
  X(R5_read_resp_index, "R5.read.resp.index") \
  X(R5_read_resp_tag, "R5.read.resp.tag") \
  X(R5_read_resp_valid, "R5.read.resp.valid") \
  X(R5_read_resp_pd, "R5.read.resp.pd") \
  X(R5_read_resp_window_qp, "R5.read.resp.window_qp") \
  X(R5_read_resp_rights, "R5.read.resp.rights") \
  X(R5_read_resp_bounds, "R5.read.resp.bounds") \
  X(R5_read_error_both_qps, "R5.read.error.both_qps") \
  X(R5_read_sgl_order, "R5.read.sgl_order") \
  X(R5_write_success, "R5.write.success") \
  X(R5_write_rights, "R5.write.rights") \
  X(R5_write_bounds, "R5.write.bounds") \
  X(R5_write_stale, "R5.write.stale") \
  X(R5_write_resp_index, "R5.write.resp.index") \
  X(R5_write_resp_valid, "R5.write.resp.valid") \
  X(R5_write_resp_pd, "R5.write.resp.pd") \
  X(R5_write_resp_window_qp, "R5.write.resp.window_qp") \
  X(R5_write_source, "R5.write.source") \
  X(R5_send_success, "R5.send.success") \
  X(R5_send_no_receive, "R5.send.no_receive") \
  X(R5_send_overrun, "R5.send.overrun") \
  X(R5_recv_key, "R5.recv.key") \
  X(R5_send_inv_success, "R5.send_inv.success") \
  X(R5_send_inv_invalid, "R5.send_inv.invalid") \
  X(R5_peer_error, "R5.peer_error") \
  X(R5_flush, "R5.flush") \
  X(R6_no_touch, "R6.no_touch") \
  X(R6_exactly_once, "R6.exactly_once") \
  X(R6_stale, "R6.stale") \
  X(R6_misuse, "R6.misuse")

enum class RuleId : uint16_t {
  None = 0,  // no rule decided (a success, or a model error)
#define RNIC_RULE_ENUM(e, s) e,
  RNIC_RULE_IDS(RNIC_RULE_ENUM)
#undef RNIC_RULE_ENUM
};

// "R5.read.resp.tag"; "" for None.
const char* rule_name(RuleId rule);
// The rule of an ID; false for an unknown one.
bool rule_from_name(const std::string& name, RuleId* out);
// Every rule, in the table's order (None left out).
const std::vector<RuleId>& all_rules();

// What a check decided: its status, and the rule that decided it. A success names the rule of
// the success where the verb has one (R5.fr.success ...), else None.
struct Decision {
  CqeStatus status = CqeStatus::Success;
  RuleId rule = RuleId::None;

  static Decision ok(RuleId rule = RuleId::None) { return {CqeStatus::Success, rule}; }
  static Decision fail(CqeStatus status, RuleId rule) { return {status, rule}; }
  bool failed() const { return status != CqeStatus::Success; }
  bool operator==(const Decision& o) const { return status == o.status && rule == o.rule; }
};

// The ordered checks of each decision a unit makes (docs/behaviour.md, "in this order"): the
// first that fails decides, and every check before it passed. Coverage reads them so, and the
// unit tests prove the order pair by pair.
enum class CheckList : uint8_t {
  ReadSink,       // a read's sink SGE at the requester (R5.read.sink.*)
  Source,         // a write's or send's source SGE (R5.write.source)
  ReceiveSge,     // a receive SGE a send's data reaches (R5.recv.key)
  RemoteRead,     // the read responder (R5.read.resp.*)
  RemoteWrite,    // the write responder (R5.write.*)
  Bind,           // R5.bind.*, after the inline check at post
  FastRegister,   // R5.fr.*, after the inline check at post
  Invalidate,     // R5.inv.*: Invalidate, SendAndInvalidate, RDMA_READ_LOCAL_INVALIDATE
};
constexpr size_t kCheckListCount = 8;

// What a request that a check decides was doing (coverage: rule x verb).
enum class RequestVerb : uint8_t {
  Read,
  Write,
  Send,
  SendInvalidate,
  Receive,
  Bind,
  FastRegister,
  Invalidate,
  ReadLocalInvalidate,  // a read's RDMA_READ_LOCAL_INVALIDATE
};
constexpr size_t kRequestVerbCount = 9;
const char* request_verb_name(RequestVerb verb);  // "read", "send_invalidate", ...
const std::vector<RuleId>& checks_of(CheckList list);
const char* check_list_name(CheckList list);  // "read_sink", ...

// Why the device cannot execute `wqe`: a flag its opcode does not define (R2.solicit,
// R2.inline), inline data that does not fit (R2.inline); None for a well-formed WQE.
RuleId wqe_malformed_rule(const Wqe& wqe);

}  // namespace rnic
