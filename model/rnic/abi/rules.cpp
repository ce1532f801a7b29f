// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/abi/rules.h"

#include <unordered_map>

namespace rnic {

namespace {

const char* const kNames[] = {
    "",
#define RNIC_RULE_NAME(e, s) s,
    RNIC_RULE_IDS(RNIC_RULE_NAME)
#undef RNIC_RULE_NAME
};
constexpr size_t kRuleCount = sizeof(kNames) / sizeof(kNames[0]);

using R = RuleId;

}  // namespace

const char* rule_name(RuleId rule) {
  const size_t i = size_t(rule);
  return i < kRuleCount ? kNames[i] : "";
}

bool rule_from_name(const std::string& name, RuleId* out) {
  static const std::unordered_map<std::string, RuleId> by_name = [] {
    std::unordered_map<std::string, RuleId> m;
    for (size_t i = 1; i < kRuleCount; ++i) m.emplace(kNames[i], RuleId(i));
    return m;
  }();
  auto it = by_name.find(name);
  if (it == by_name.end()) return false;
  *out = it->second;
  return true;
}

const std::vector<RuleId>& all_rules() {
  static const std::vector<RuleId> rules = [] {
    std::vector<RuleId> v;
    for (size_t i = 1; i < kRuleCount; ++i) v.push_back(RuleId(i));
    return v;
  }();
  return rules;
}

const std::vector<RuleId>& checks_of(CheckList list) {
  // docs/behaviour.md lists each in this order.
  static const std::vector<RuleId> lists[kCheckListCount] = {
      // ReadSink: a VALID MR, of the PD, with local write, the range inside it, RDMA_READ_SINK
      {R::R5_read_sink_valid, R::R5_read_sink_pd, R::R5_read_sink_local_write,
       R::R5_read_sink_bounds, R::R5_read_sink_read_sink},
      // Source: one rule for a VALID MR of the PD holding the range (local read is granted)
      {R::R5_write_source},
      // ReceiveSge: local write on a VALID MR of the PD, the range inside it
      {R::R5_recv_key},
      // RemoteRead
      {R::R5_read_resp_index, R::R5_read_resp_tag, R::R5_read_resp_valid, R::R5_read_resp_pd,
       R::R5_read_resp_window_qp, R::R5_read_resp_rights, R::R5_read_resp_bounds},
      // RemoteWrite: the same checks with remote write
      {R::R5_write_resp_index, R::R5_write_stale, R::R5_write_resp_valid, R::R5_write_resp_pd,
       R::R5_write_resp_window_qp, R::R5_write_rights, R::R5_write_bounds},
      // Bind: the inline check repeated (an MR's rights may change after the post), then the
      // device's own
      {R::R5_bind_remote_write_local_write, R::R5_bind_rebind, R::R5_bind_mr_valid,
       R::R5_bind_pd, R::R5_bind_va_zero, R::R5_bind_range, R::R5_bind_rights_required},
      // FastRegister: the inline check repeated, the checks on the MR, and last the page list
      // (read only once its count has passed)
      {R::R4_inline_fr_remote_access, R::R5_fr_kind, R::R5_fr_free, R::R5_fr_pd,
       R::R5_fr_capacity, R::R5_fr_fbo, R::R5_fr_length, R::R2_remote_write_implies_local,
       R::R5_fr_page_align},
      // Invalidate
      {R::R5_inv_normal_mr, R::R5_inv_valid, R::R5_inv_token, R::R5_inv_bound_windows,
       R::R5_inv_pd_qp},
  };
  return lists[size_t(list)];
}

RuleId wqe_malformed_rule(const Wqe& wqe) {
  const bool send = wqe.opcode == WqeOpcode::Send || wqe.opcode == WqeOpcode::SendInvalidate;
  if ((wqe.flags & kWqeFlagSolicit) && !send) return R::R2_solicit;
  if ((wqe.flags & kWqeFlagInline) && (!wqe.is_inline() || wqe.length > kMaxInlineBytes))
    return R::R2_inline;
  return R::None;
}

const char* request_verb_name(RequestVerb verb) {
  static const char* const names[kRequestVerbCount] = {
      "read", "write",      "send",          "send_invalidate",      "receive",
      "bind", "fast_register", "invalidate", "read_local_invalidate"};
  return names[size_t(verb)];
}

const char* check_list_name(CheckList list) {
  static const char* const names[kCheckListCount] = {
      "read_sink", "source", "receive_sge", "remote_read",
      "remote_write", "bind", "fast_register", "invalidate"};
  return names[size_t(list)];
}

}  // namespace rnic
