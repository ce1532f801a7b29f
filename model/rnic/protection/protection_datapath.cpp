// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/protection/protection_datapath.h"

#include <cinttypes>
#include <cstdio>

#include "model/rnic/protection/protection_rules.h"

namespace rnic {

const char* datapath_op_name(DatapathOp op) {
  static const char* const names[kDatapathOpCount] = {
      "local_access",         "remote_access", "bind",          "fast_register_check",
      "fast_register_commit", "invalidate",    "release_window"};
  return names[size_t(op)];
}

Decision RulesDatapath::decide(DatapathCall& call) {
  ProtectionRequest& req = *call.req;
  MptEntry& entry = *call.entry0;
  switch (call.op) {
    case DatapathOp::LocalAccess: return check_local_access(entry, req);
    case DatapathOp::RemoteAccess: return check_remote_access(entry, call.entry1, req);
    case DatapathOp::Bind: return apply_bind(call.index0, entry, call.index1, *call.entry1, req);
    case DatapathOp::FastRegisterCheck: {
      const Decision decision = check_fast_register(entry, req, 4096);
      if (!decision.failed()) req.region = Region{entry.mtt_index, 12, 0};
      return decision;
    }
    case DatapathOp::FastRegisterCommit:
      apply_fast_register(entry, req);
      return Decision::ok(RuleId::R5_fr_success);
    case DatapathOp::Invalidate: return apply_invalidate(entry, req);
    case DatapathOp::ReleaseWindow:
      // The window no longer pins its MR (R5.dereg.busy, R5.inv.bound_windows).
      if (entry.bound_windows > 0) --entry.bound_windows;
      return Decision::ok();
  }
  return Decision::fail(CqeStatus::LocalQpOperation, RuleId::None);
}

DatapathInputs capture_inputs(const DatapathCall& call) {
  DatapathInputs in;
  in.op = call.op;
  in.req = *call.req;
  call.entry0->encode(in.line0.data());
  in.has_entry1 = call.entry1 != nullptr;
  if (call.entry1) call.entry1->encode(in.line1.data());
  in.index0 = call.index0;
  in.index1 = call.index1;
  return in;
}

DatapathAnswer capture_answer(const DatapathCall& call, const Decision& decision,
                              uint32_t cycles) {
  DatapathAnswer a;
  a.decision = decision;
  a.region = call.req->region;
  a.target_va = call.req->target_va;
  a.new_token = call.req->new_token;
  call.entry0->encode(a.line0.data());
  if (call.entry1) call.entry1->encode(a.line1.data());
  a.cycles = cycles;
  return a;
}

std::string first_difference(DatapathOp op, const DatapathAnswer& a, const DatapathAnswer& b) {
  if (a.decision.status != b.decision.status) return "status";
  if (a.decision.rule != b.decision.rule) return "rule";
  if (!a.decision.failed()) {
    const bool access = op == DatapathOp::LocalAccess || op == DatapathOp::RemoteAccess;
    if (access && a.target_va != b.target_va) return "target_va";
    if (access || op == DatapathOp::FastRegisterCheck) {
      if (a.region.mtt_index != b.region.mtt_index) return "region.mtt_index";
      if (a.region.page_shift != b.region.page_shift) return "region.page_shift";
      if (a.region.page_base_va != b.region.page_base_va) return "region.page_base_va";
    }
    if (op == DatapathOp::Bind && a.new_token != b.new_token) return "new_token";
  }
  // Entries an op may change: whatever the decision, both sides must leave them alike.
  if (a.line0 != b.line0) return "line0";
  if (op == DatapathOp::Bind && a.line1 != b.line1) return "line1";
  return {};
}

Decision LockstepDatapath::decide(DatapathCall& call) {
  // After the first divergence the unit is asked no more: its kept calls (the waveform's)
  // end with the divergent one, and the run is stopping.
  if (first_) return model_.decide(call);
  // The unit works on copies; the model on the checker's own entries and request.
  ProtectionRequest req = *call.req;
  MptEntry entry0 = *call.entry0;
  MptEntry entry1;
  if (call.entry1) entry1 = *call.entry1;
  DatapathCall copy{call.op, &req, &entry0, call.entry1 ? &entry1 : nullptr, call.index0,
                    call.index1};
  const DatapathInputs inputs = capture_inputs(call);
  const Decision unit_decision = unit_.decide(copy);
  const DatapathAnswer unit = capture_answer(copy, unit_decision, unit_.last_cycles());
  const Decision decision = model_.decide(call);
  const DatapathAnswer model = capture_answer(call, decision, model_.last_cycles());
  ++compared_;
  std::string field = first_difference(call.op, model, unit);
  if (!field.empty()) {
    ++divergences_;
    if (!first_) {
      first_ = std::make_unique<DatapathDivergence>(
          DatapathDivergence{compared_, inputs, model, unit, std::move(field)});
      if (diverged_) diverged_(*first_);
    }
  }
  return decision;
}

namespace {

const char* status_text(CqeStatus status) {
  switch (status) {
    case CqeStatus::Success: return "Success";
    case CqeStatus::LocalQpOperation: return "LocalQpOperation";
    case CqeStatus::LocalProtection: return "LocalProtection";
    case CqeStatus::MwBind: return "MwBind";
    case CqeStatus::RemoteAccess: return "RemoteAccess";
    default: return "status";
  }
}

std::string answer_text(DatapathOp op, const DatapathAnswer& a) {
  char buf[256];
  const char* rule = a.decision.rule == RuleId::None ? "none" : rule_name(a.decision.rule);
  int n = std::snprintf(buf, sizeof buf, "%s rule %s", status_text(a.decision.status), rule);
  if (!a.decision.failed() && (op == DatapathOp::LocalAccess || op == DatapathOp::RemoteAccess))
    n += std::snprintf(buf + n, sizeof buf - size_t(n), " target_va 0x%" PRIx64, a.target_va);
  if (!a.decision.failed() && op == DatapathOp::Bind)
    std::snprintf(buf + n, sizeof buf - size_t(n), " new_token 0x%08x", a.new_token);
  return buf;
}

}  // namespace

std::string describe(const DatapathDivergence& d) {
  const ProtectionRequest& r = d.inputs.req;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "check %" PRIu64 " (%s, %s side, verb %s): token 0x%08x pd %u qpn %u va 0x%" PRIx64
                " len %" PRIu64 " access 0x%x",
                d.ordinal, datapath_op_name(d.inputs.op), engine_side_name(r.side),
                request_verb_name(r.verb), r.token, r.pd, r.qpn, r.va, r.length, r.access);
  std::string s = buf;
  if (d.inputs.op == DatapathOp::Bind) {
    std::snprintf(buf, sizeof buf, " mr_token 0x%08x rights 0x%x zero_based %u", r.mr_token,
                  r.rights, unsigned(r.zero_based));
    s += buf;
  } else if (d.inputs.op == DatapathOp::FastRegisterCheck ||
             d.inputs.op == DatapathOp::FastRegisterCommit) {
    std::snprintf(buf, sizeof buf, " rights 0x%x page_count %u fbo %u", r.rights, r.page_count,
                  r.fbo);
    s += buf;
  } else if (d.inputs.op == DatapathOp::Invalidate) {
    s += r.by_object ? " by object" : " by token";
  }
  const MptEntry e = MptEntry::decode(d.inputs.line0.data());
  std::snprintf(buf, sizeof buf,
                "; entry %u: state %u kind %u tag %u pd %u access 0x%x base_va 0x%" PRIx64
                " length %" PRIu64,
                d.inputs.index0, unsigned(e.state), unsigned(e.kind), unsigned(e.tag), e.pd,
                unsigned(e.access), e.base_va, e.length);
  s += buf;
  s += ": model " + answer_text(d.inputs.op, d.model) + "; unit " +
       answer_text(d.inputs.op, d.unit) + " (first difference: " + d.field + ")";
  return s;
}

}  // namespace rnic
