// SPDX-License-Identifier: Apache-2.0
#include "app/coverage/coverage.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <unordered_map>

#include "app/scenario/suggest.h"
#include "host_api/ndk.h"

namespace rnic::coverage {

namespace {

using R = RuleId;

const char* const kKinds[] = {"none", "mr", "fast_mr", "mw"};  // MptKind order
const char* const kStates[] = {"unused", "free", "valid"};     // MptState order
const char* const kSides[] = {"requester", "responder"};

struct Named {
  const char* name;
  uint32_t value;
};
// Completion types, in the order of NdkOperationType's names (R4.cqe.type).
const Named kTypes[] = {
    {"Read", ndk::NdkOperationTypeRead},
    {"Write", ndk::NdkOperationTypeWrite},
    {"Send", ndk::NdkOperationTypeSend},
    {"Bind", ndk::NdkOperationTypeBind},
    {"FastRegister", ndk::NdkOperationTypeFastRegister},
    {"Invalidate", ndk::NdkOperationTypeInvalidate},
    {"Receive", ndk::NdkOperationTypeReceive},
    {"ReceiveAndInvalidate", ndk::NdkOperationTypeReceiveAndInvalidate},
};
// Every status a completion can carry (R3.map.*).
const Named kStatuses[] = {
    {"STATUS_SUCCESS", ndk::STATUS_SUCCESS},
    {"STATUS_CANCELLED", ndk::STATUS_CANCELLED},
    {"STATUS_ACCESS_VIOLATION", ndk::STATUS_ACCESS_VIOLATION},
    {"STATUS_DATA_OVERRUN", ndk::STATUS_DATA_OVERRUN},
    {"STATUS_DATA_ERROR", ndk::STATUS_DATA_ERROR},
    {"STATUS_IO_TIMEOUT", ndk::STATUS_IO_TIMEOUT},
    {"STATUS_INTERNAL_ERROR", ndk::STATUS_INTERNAL_ERROR},
};
// The flags that change a decision; ALLOW_REMOTE_WRITE by its remote bit (0x020: the flag
// 0x030 contains LOCAL_WRITE).
const Named kFlags[] = {
    {"SILENT_SUCCESS", ndk::NDK_OP_FLAG_SILENT_SUCCESS},
    {"READ_FENCE", ndk::NDK_OP_FLAG_READ_FENCE},
    {"DEFER", ndk::NDK_OP_FLAG_DEFER},
    {"INLINE", ndk::NDK_OP_FLAG_INLINE},
    {"ALLOW_REMOTE_READ", ndk::NDK_OP_FLAG_ALLOW_REMOTE_READ},
    {"ALLOW_REMOTE_WRITE", 0x020},
    {"RDMA_READ_LOCAL_INVALIDATE", ndk::NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE},
};
// The verbs a post names (a receive takes no flags; a read's local invalidation is no post).
const RequestVerb kPostedVerbs[] = {RequestVerb::Read,      RequestVerb::Write,
                                    RequestVerb::Send,      RequestVerb::SendInvalidate,
                                    RequestVerb::Bind,      RequestVerb::FastRegister,
                                    RequestVerb::Invalidate};

// Rules that a completion or an inline refusal names besides those of the check lists.
const RuleId kOutcomeRules[] = {
    // the driver's inline checks and refusals of control calls
    R::R3_insufficient_resources,
    R::R3_invalid_parameter,
    R::R3_remote_resources,
    R::R4_inline_not_connected,
    R::R4_inline_sq_full,
    R::R4_inline_rq_full,
    R::R4_inline_sge_count,
    R::R4_inline_total_length,
    R::R4_inline_bind_remote_write,
    R::R5_reg_invalid,
    R::R5_reg_zero_based,
    R::R5_dereg_busy,
    R::R5_frinit_limit,
    // a malformed WQE (INTERNAL_ERROR completion) or inline data too long (refused inline)
    R::R2_inline,
    R::R2_solicit,
    // successes that name their rule
    R::R5_write_success,
    R::R5_send_success,
    R::R5_send_inv_success,
    R::R5_fr_success,
    R::R5_inv_success,
    R::R5_bind_token_on_return,
    // flushes, and what the peer answers
    R::R4_error_flush_later,
    R::R4_error_flush_receives,
    R::R5_flush,
    R::R5_send_no_receive,
    R::R5_send_overrun,
    R::R5_peer_error,
};

bool local_list(CheckList list) {
  return list == CheckList::ReadSink || list == CheckList::Source || list == CheckList::ReceiveSge;
}

// Why a check-list rule can never decide (nullptr: it can).
const char* decided_unreachable(RuleId rule) {
  if (rule == R::R2_remote_write_implies_local)
    return "ALLOW_REMOTE_WRITE (0x030) contains LOCAL_WRITE: no NDK call asks remote write "
           "without local write";
  return nullptr;
}

const char* status_unreachable(const std::string& type, const std::string& status) {
  const bool success = status == "STATUS_SUCCESS";
  if (type == "ReceiveAndInvalidate" && !success)
    return "a receive completes as ReceiveAndInvalidate only when its invalidation succeeded";
  if ((type == "Bind" || type == "FastRegister" || type == "Invalidate") &&
      (status == "STATUS_DATA_OVERRUN" || status == "STATUS_DATA_ERROR" ||
       status == "STATUS_IO_TIMEOUT"))
    return "it moves no data and never reaches the peer";
  if (type == "Receive" && (status == "STATUS_DATA_ERROR" || status == "STATUS_IO_TIMEOUT"))
    return "the peer's answers (DATA_ERROR, IO_TIMEOUT) go to the sender, not the receive";
  if (type == "Receive" && status == "STATUS_INTERNAL_ERROR")
    return "the driver refuses a receive above the SGE limit inline (R4.inline.sge_count)";
  if (status == "STATUS_DATA_OVERRUN" && (type == "Read" || type == "Write"))
    return "the driver refuses a transfer above MaxTransferLength inline "
           "(R4.inline.total_length)";
  if (status == "STATUS_DATA_OVERRUN" && type == "Send")
    return "a receive too small (R5.send.overrun) reaches the sender as DATA_ERROR";
  if (status == "STATUS_DATA_ERROR" && (type == "Read" || type == "Write"))
    return "a responder answers a read or write with DATA_ERROR only for a model error "
           "(a QP it does not know; no rule)";
  if (status == "STATUS_INTERNAL_ERROR" && type == "Send")
    return "every flag the API has is a send's own or ignored by it, and its sizes are "
           "checked inline: a send WQE is never malformed";
  return nullptr;
}

const char* object_unreachable(CheckList list, MptKind kind, MptState state) {
  if (kind == MptKind::None && state != MptState::Unused)
    return "an index that names no object reads as kind none, unused";
  if (kind != MptKind::None && state == MptState::Unused)
    return "only closing an MR or MW retires its entry to unused (keeping its kind), and no "
           "scenario op closes one";
  if (local_list(list) && kind == MptKind::Mw)
    return "a window has no local token (GetLocalTokenFromMr names MRs only)";
  if (list == CheckList::Bind && kind != MptKind::Mw)
    return "Bind names its window by handle: the driver refuses any other handle inline";
  if (list == CheckList::FastRegister && (kind == MptKind::None || kind == MptKind::Mw))
    return "FastRegister names an MR by handle: the driver refuses any other handle inline";
  return nullptr;
}

const char* flag_unreachable(const std::string& flag, RequestVerb verb) {
  const bool rights = verb == RequestVerb::Bind || verb == RequestVerb::FastRegister;
  if ((flag == "ALLOW_REMOTE_READ" || flag == "ALLOW_REMOTE_WRITE") && !rights)
    return "rights flags mean something to a Bind or a FastRegister only";
  if (flag == "RDMA_READ_LOCAL_INVALIDATE" && verb != RequestVerb::Read)
    return "only a read invalidates its sink";
  return nullptr;
}

const char* side_unreachable(bool responder, RequestVerb verb) {
  if (!responder && verb == RequestVerb::Receive)
    return "receive SGEs are checked where the data lands: at the responder";
  if (responder && verb == RequestVerb::Send)
    return "the responder checks a send's data as its receive's SGEs (verb receive)";
  if (responder && (verb == RequestVerb::Bind || verb == RequestVerb::FastRegister ||
                    verb == RequestVerb::Invalidate || verb == RequestVerb::ReadLocalInvalidate))
    return "work on the poster's own objects is checked at the requester";
  return nullptr;
}

std::vector<Bin> build_bins() {
  std::vector<Bin> bins;
  std::set<RuleId> in_lists;
  for (size_t l = 0; l < kCheckListCount; ++l) {
    for (RuleId rule : checks_of(CheckList(l))) {
      in_lists.insert(rule);
      const std::string id = std::string("rule:") + rule_name(rule);
      bins.push_back({id + ":passed", "rule", nullptr});
      bins.push_back({id + ":decided", "rule", decided_unreachable(rule)});
    }
  }
  const std::set<RuleId> outcomes(std::begin(kOutcomeRules), std::end(kOutcomeRules));
  for (RuleId rule : all_rules()) {
    if (in_lists.count(rule)) continue;
    bins.push_back({std::string("rule:") + rule_name(rule) + ":decided", "rule",
                    outcomes.count(rule) ? nullptr
                                         : "no check, completion or refusal names it: the "
                                           "rule describes what the others decide"});
  }
  for (const Named& type : kTypes) {
    for (const Named& status : kStatuses) {
      bins.push_back({std::string("status:") + type.name + ":" + status.name, "status",
                      status_unreachable(type.name, status.name)});
    }
  }
  for (size_t l = 0; l < kCheckListCount; ++l) {
    for (size_t k = 0; k < 4; ++k) {
      for (size_t s = 0; s < 3; ++s) {
        bins.push_back({std::string("object:") + check_list_name(CheckList(l)) + ":" + kKinds[k] +
                            ":" + kStates[s],
                        "object", object_unreachable(CheckList(l), MptKind(k), MptState(s))});
      }
    }
  }
  for (const Named& flag : kFlags) {
    for (RequestVerb verb : kPostedVerbs) {
      bins.push_back({std::string("flag:") + flag.name + ":" + request_verb_name(verb), "flag",
                      flag_unreachable(flag.name, verb)});
    }
  }
  for (size_t s = 0; s < 2; ++s) {
    for (size_t v = 0; v < kRequestVerbCount; ++v) {
      bins.push_back({std::string("side:") + kSides[s] + ":" + request_verb_name(RequestVerb(v)),
                      "side", side_unreachable(s == 1, RequestVerb(v))});
    }
  }
  return bins;
}

const std::unordered_map<std::string, size_t>& bin_index() {
  static const std::unordered_map<std::string, size_t> index = [] {
    std::unordered_map<std::string, size_t> m;
    for (size_t i = 0; i < all_bins().size(); ++i) m.emplace(all_bins()[i].id, i);
    return m;
  }();
  return index;
}

std::string rule_bin(RuleId rule, const char* what) {
  return std::string("rule:") + rule_name(rule) + ":" + what;
}

std::string percent(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", p);
  return buf;
}

std::string pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string lpad(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

}  // namespace

const std::vector<Bin>& all_bins() {
  static const std::vector<Bin> bins = build_bins();
  return bins;
}

const Bin* find_bin(const std::string& id) {
  auto it = bin_index().find(id);
  return it == bin_index().end() ? nullptr : &all_bins()[it->second];
}

std::vector<std::string> reachable_bins() {
  std::vector<std::string> out;
  for (const Bin& b : all_bins()) {
    if (!b.unreachable) out.push_back(b.id);
  }
  return out;
}

const std::vector<std::string>& groups() {
  static const std::vector<std::string> g = {"rule", "status", "object", "flag", "side"};
  return g;
}

bool names_bins(const std::string& pattern) {
  if (pattern.empty()) return false;
  for (const Bin& b : all_bins()) {
    if (b.id.compare(0, pattern.size(), pattern) == 0) return true;
  }
  return false;
}

std::string unknown_bin(const std::string& pattern) {
  std::vector<std::string> ids;
  for (const Bin& b : all_bins()) ids.push_back(b.id);
  return app::unknown_name(
      "bin", pattern, ids,
      " (a bin ID or the start of one: rule:, status:, object:, flag:, side:)");
}

void Coverage::hit(const std::string& bin, uint64_t n) {
  if (n) counts_[bin] += n;
}

uint64_t Coverage::count(const std::string& bin) const {
  auto it = counts_.find(bin);
  return it == counts_.end() ? 0 : it->second;
}

void Coverage::merge(const Coverage& other) {
  for (const auto& [bin, n] : other.counts_) counts_[bin] += n;
  runs += other.runs;
}

void Coverage::add_decision(const UnitDecision& d) {
  const std::vector<RuleId>& rules = checks_of(d.list);
  size_t passed = rules.size();
  if (d.decision.failed()) {
    auto it = std::find(rules.begin(), rules.end(), d.decision.rule);
    // A failure outside the list is a model error (no rule): nothing of the list decided.
    if (it == rules.end()) return;
    passed = size_t(it - rules.begin());
    hit(rule_bin(*it, "decided"));
  }
  for (size_t k = 0; k < passed; ++k) hit(rule_bin(rules[k], "passed"));
  hit(std::string("object:") + check_list_name(d.list) + ":" + kKinds[size_t(d.kind) & 3] + ":" +
      kStates[std::min<size_t>(size_t(d.state), 2)]);
  hit(std::string("side:") + kSides[d.responder ? 1 : 0] + ":" + request_verb_name(d.verb));
}

void Coverage::add_completion(uint32_t type, uint32_t status, RuleId rule) {
  const char* type_name = nullptr;
  const char* status_name = nullptr;
  for (const Named& t : kTypes)
    if (t.value == type) type_name = t.name;
  for (const Named& s : kStatuses)
    if (s.value == status) status_name = s.name;
  if (type_name && status_name) hit(std::string("status:") + type_name + ":" + status_name);
  // A check-list rule is counted where its unit decided it (add_decision), once.
  if (rule == R::None) return;
  for (size_t l = 0; l < kCheckListCount; ++l) {
    const std::vector<RuleId>& rules = checks_of(CheckList(l));
    if (std::find(rules.begin(), rules.end(), rule) != rules.end()) return;
  }
  hit(rule_bin(rule, "decided"));
}

void Coverage::add_refusal(RuleId rule) {
  // No unit saw a refusal: every rule it names counts here, a check list's too.
  if (rule != R::None) hit(rule_bin(rule, "decided"));
}

void Coverage::add_post(RequestVerb verb, uint32_t flags) {
  if (std::find(std::begin(kPostedVerbs), std::end(kPostedVerbs), verb) == std::end(kPostedVerbs))
    return;  // not a post
  for (const Named& f : kFlags) {
    if (flags & f.value) hit(std::string("flag:") + f.name + ":" + request_verb_name(verb));
  }
}

nlohmann::ordered_json Coverage::to_json() const {
  nlohmann::ordered_json j;
  j["format"] = "rnicsim-coverage";
  j["version"] = 1;
  j["runs"] = runs;
  j["bins"] = nlohmann::ordered_json::object();
  for (const auto& [bin, n] : counts_) j["bins"][bin] = n;
  return j;
}

std::string Coverage::text() const {
  return to_json().dump(1) + "\n";
}

bool from_json(const nlohmann::json& j, Coverage* out, std::string* error) {
  *out = Coverage{};
  if (!j.is_object() || !j.contains("format") || j["format"] != "rnicsim-coverage") {
    *error = "not a coverage file (no \"format\": \"rnicsim-coverage\")";
    return false;
  }
  if (!j.contains("version") || j["version"] != 1) {
    *error = "coverage format version " + (j.contains("version") ? j["version"].dump() : "none") +
             ", this rnicsim reads version 1";
    return false;
  }
  for (const auto& [key, value] : j.items()) {
    if (key != "format" && key != "version" && key != "runs" && key != "bins") {
      *error = "unknown key \"" + key + "\"";
      return false;
    }
  }
  if (!j.contains("runs") || !j["runs"].is_number_unsigned()) {
    *error = "\"runs\" must be a non-negative integer";
    return false;
  }
  out->runs = j["runs"].get<uint64_t>();
  if (!j.contains("bins") || !j["bins"].is_object()) {
    *error = "\"bins\" must be an object of bin IDs and counts";
    return false;
  }
  for (const auto& [bin, n] : j["bins"].items()) {
    if (!find_bin(bin)) {
      *error = "bins: " + unknown_bin(bin);
      return false;
    }
    if (!n.is_number_unsigned()) {
      *error = "bins: \"" + bin + "\" must count with a non-negative integer, got " + n.dump();
      return false;
    }
    out->hit(bin, n.get<uint64_t>());
  }
  return true;
}

Summary summarize(const Coverage& c) {
  Summary s;
  s.total.group = "total";
  for (const std::string& g : groups()) s.groups.push_back(GroupTotals{g});
  for (const Bin& b : all_bins()) {
    GroupTotals& g = *std::find_if(s.groups.begin(), s.groups.end(),
                                   [&](const GroupTotals& t) { return t.group == b.group; });
    const bool hit = c.count(b.id) > 0;
    ++g.bins;
    ++s.total.bins;
    if (b.unreachable) {
      if (hit) s.hit_unreachable.push_back(b.id);
      continue;
    }
    ++g.reachable;
    ++s.total.reachable;
    if (hit) {
      ++g.hit;
      ++s.total.hit;
    } else {
      s.holes.push_back(b.id);
    }
  }
  for (RuleId rule : all_rules()) {
    const uint64_t n = c.count(rule_bin(rule, "decided"));
    if (n) s.decided.emplace_back(rule_name(rule), n);
  }
  return s;
}

std::string report(const Coverage& c, bool markdown) {
  const Summary s = summarize(c);
  std::string out;
  const std::string headline =
      std::to_string(s.total.hit) + " of " + std::to_string(s.total.reachable) +
      " reachable bins hit (" + percent(s.total.percent()) + ") over " + std::to_string(c.runs) +
      " run" + (c.runs == 1 ? "" : "s") + "; " + std::to_string(s.total.bins - s.total.reachable) +
      " bins unreachable";
  std::vector<GroupTotals> rows = s.groups;
  rows.push_back(s.total);
  if (markdown) {
    out += "Coverage: " + headline + ".\n\n";
    out += "| group | bins | reachable | hit | covered |\n|---|---:|---:|---:|---:|\n";
    for (const GroupTotals& g : rows) {
      const std::string name = g.group == "total" ? "**total**" : "`" + g.group + ":`";
      out += "| " + name + " | " + std::to_string(g.bins) + " | " + std::to_string(g.reachable) +
             " | " + std::to_string(g.hit) + " | " + percent(g.percent()) + " |\n";
    }
    out += "\n**Rules that decided** (" + std::to_string(s.decided.size()) + "; times):\n\n";
    out += "| rule | decided |\n|---|---:|\n";
    for (const auto& [rule, n] : s.decided)
      out += "| `" + rule + "` | " + std::to_string(n) + " |\n";
    out += "\n**Holes** (reachable bins never hit): " + std::to_string(s.holes.size()) +
           (s.holes.empty() ? ".\n" : "\n\n");
    for (const std::string& h : s.holes) out += "- `" + h + "`\n";
    if (!s.hit_unreachable.empty()) {
      out += "\n**Hit, though the table calls them unreachable** (the table is wrong): " +
             std::to_string(s.hit_unreachable.size()) + "\n\n";
      for (const std::string& h : s.hit_unreachable) out += "- `" + h + "`\n";
    }
    return out;
  }
  out += "coverage: " + headline + "\n\n";
  out += "group     bins  reachable    hit  covered\n";
  for (const GroupTotals& g : rows) {
    out += pad(g.group, 8) + lpad(std::to_string(g.bins), 6) +
           lpad(std::to_string(g.reachable), 11) + lpad(std::to_string(g.hit), 7) +
           lpad(percent(g.percent()), 9) + "\n";
  }
  size_t width = 4;
  for (const auto& d : s.decided) width = std::max(width, d.first.size());
  out += "\nrules that decided (" + std::to_string(s.decided.size()) + "), times:\n";
  for (const auto& [rule, n] : s.decided)
    out += "  " + pad(rule, width) + lpad(std::to_string(n), 10) + "\n";
  out += "\nholes (reachable bins never hit): " + std::to_string(s.holes.size()) + "\n";
  for (const std::string& h : s.holes) out += "  " + h + "\n";
  if (!s.hit_unreachable.empty()) {
    out += "\nhit, though the table calls them unreachable (the table is wrong): " +
           std::to_string(s.hit_unreachable.size()) + "\n";
    for (const std::string& h : s.hit_unreachable) out += "  " + h + "\n";
  }
  return out;
}

}  // namespace rnic::coverage
