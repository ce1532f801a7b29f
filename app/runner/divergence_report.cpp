// SPDX-License-Identifier: Apache-2.0
#include "app/runner/divergence_report.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/runner/rtl_units.h"
#include "app/scenario/text.h"

namespace rnic::app {

namespace {

using json = nlohmann::ordered_json;

std::string line_hex(const std::array<uint8_t, kMptEntryBytes>& line) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : line) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

json entry_json(const std::array<uint8_t, kMptEntryBytes>& line) {
  const MptEntry e = MptEntry::decode(line.data());
  return json{{"state", unsigned(e.state)},     {"kind", unsigned(e.kind)},
              {"access", hex(e.access)},        {"tag", e.tag},
              {"page_shift", e.page_shift},     {"zero_based", e.zero_based},
              {"pd", e.pd},                     {"mtt_index", e.mtt_index},
              {"base_va", hex(e.base_va)},      {"length", e.length},
              {"page_capacity", e.page_capacity}, {"bound_qpn", e.bound_qpn},
              {"parent_index", e.parent_index}, {"bound_windows", e.bound_windows},
              {"line", line_hex(line)}};
}

json answer_json(DatapathOp op, const DatapathAnswer& a, bool has_entry1) {
  json j{{"status", unsigned(a.decision.status)},
         {"rule", a.decision.rule == RuleId::None ? "" : rule_name(a.decision.rule)}};
  if (!a.decision.failed()) {
    j["target_va"] = hex(a.target_va);
    j["region"] = {{"mtt_index", a.region.mtt_index},
                   {"page_shift", a.region.page_shift},
                   {"page_base_va", hex(a.region.page_base_va)}};
    if (op == DatapathOp::Bind) j["new_token"] = hex(a.new_token);
  }
  j["entry0"] = entry_json(a.line0);
  if (has_entry1) j["entry1"] = entry_json(a.line1);
  return j;
}

}  // namespace

std::string divergence_line(const DivergenceReport& r) {
  char when[64];
  std::snprintf(when, sizeof when, "%.3f us", double(r.time_ps) / 1e6);
  return "lockstep: " + r.unit + " diverged at " + when + ", " + r.where + ", " +
         describe(*r.divergence);
}

std::string divergence_json(const DivergenceReport& r) {
  const DatapathDivergence& d = *r.divergence;
  const DatapathInputs& in = d.inputs;
  const ProtectionRequest& q = in.req;
  json request{{"token", hex(q.token)},
               {"pd", q.pd},
               {"qpn", q.qpn},
               {"va", hex(q.va)},
               {"length", q.length},
               {"access", hex(q.access)},
               {"checks", check_list_name(q.checks)},
               {"verb", request_verb_name(q.verb)},
               {"side", engine_side_name(q.side)},
               {"mr_token", hex(q.mr_token)},
               {"rights", hex(q.rights)},
               {"zero_based", q.zero_based},
               {"by_object", q.by_object},
               {"page_count", q.page_count},
               {"fbo", q.fbo}};
  json j{{"unit", r.unit},
         {"where", r.where},
         {"time_ps", r.time_ps},
         {"check", d.ordinal},
         {"op", datapath_op_name(in.op)},
         {"first_difference", d.field},
         {"request", request},
         {"index0", in.index0},
         {"entry0", entry_json(in.line0)}};
  if (in.has_entry1) {
    j["index1"] = in.index1;
    j["entry1"] = entry_json(in.line1);
  }
  j["model"] = answer_json(in.op, d.model, in.has_entry1);
  j["unit_answer"] = answer_json(in.op, d.unit, in.has_entry1);
  return j.dump(2) + "\n";
}

DivergenceStop::DivergenceStop(sc_core::sc_module_name name) : sc_module(name) {
  SC_HAS_PROCESS(DivergenceStop);
  SC_METHOD(stop);
  sensitive << requested_;
  dont_initialize();
}

void DivergenceStop::stop() {
  for (auto& [driver, finished] : drivers_) {
    if (!*finished && !driver.terminated()) driver.kill(sc_core::SC_INCLUDE_DESCENDANTS);
  }
  sc_core::sc_stop();
}

bool any_divergence(System& system) {
  for (size_t i = 0; i < system.node_count(); ++i)
    if (system.node(i).rnic.protection.first_divergence()) return true;
  return false;
}

namespace {

std::string write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return out ? std::string() : "cannot write " + quote(path);
}

}  // namespace

bool report_divergence(System& system,
                       const std::vector<std::unique_ptr<ProtectionDatapath>>& units,
                       const Scenario& scenario, const std::string& prefix, RunResult& result) {
  const ProtectionChecker* first = nullptr;
  size_t node = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    const ProtectionChecker& checker = system.node(i).rnic.protection;
    if (!checker.first_divergence()) continue;
    if (!first || checker.divergence_time() < first->divergence_time()) {
      first = &checker;
      node = i;
    }
  }
  if (!first) return false;
  DivergenceReport report;
  report.unit = scenario.nodes[node] + ".rnic.protection";
  // The step running when it diverged (the device may be serving an earlier step's post).
  const size_t done = result.steps.size();
  report.where = done < scenario.steps.size()
                     ? "step " + std::to_string(scenario.steps[done].index) + " (" +
                           op_name(scenario.steps[done].op) + ")"
                     : "after the last step";
  report.time_ps = first->divergence_time().value();
  report.divergence = first->first_divergence();
  std::string message = divergence_line(report);
  const std::string base = prefix + "-" + scenario.nodes[node] + "-protection";
  std::string error = write_text_file(base + ".json", divergence_json(report));
  if (error.empty()) error = rtl_units().write_protection_vcd(*units[node], base + ".vcd");
  if (error.empty()) {
    message += "\n  inputs and answers: " + base + ".json; RTL waveform of the last " +
               std::to_string(scenario.config.rnic.protection.divergence_trace_checks) +
               " checks: " + base + ".vcd";
  } else {
    message += "\n  (report files not written: " + error + ")";
  }
  result.outcome = RunOutcome::Failed;
  result.message = message;
  return true;
}

}  // namespace rnic::app
