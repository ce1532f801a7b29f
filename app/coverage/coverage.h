// SPDX-License-Identifier: Apache-2.0
// Functional coverage (docs/validation.md, "Coverage"): named bins with hit counts, filled from
// the device's decisions and a run's completions, inline refusals and posts; JSON in and out,
// merge, the reachable bins and the report. Plain C++: the runner converts what the model
// reports into the records below.
//
// Bins (their IDs are a contract: `rnicsim gen --focus` and scripts key on them):
//   rule:<ID>:passed, rule:<ID>:decided   each rule of a check list (checks_of); decided also
//                                         for every rule a completion or refusal names
//   status:<Type>:<STATUS>                completion type (NDK name) x completion status
//   object:<list>:<kind>:<state>          check list x object kind x its state at the decision
//   flag:<FLAG>:<verb>                    a flag that changes a decision x the verb posted
//   side:<side>:<verb>                    requester/responder x the verb of a unit decision
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/rnic/abi/icm.h"
#include "model/rnic/abi/rules.h"

namespace rnic::coverage {

// One decision of a unit (the protection checker, the MTT), as coverage reads it.
struct UnitDecision {
  bool responder = false;
  CheckList list = CheckList::ReadSink;
  RequestVerb verb = RequestVerb::Read;
  Decision decision;
  MptKind kind = MptKind::None;
  MptState state = MptState::Unused;
};

class Coverage {
 public:
  // A check list decided: checks 0..k-1 passed and k decided, or (a success) all passed.
  void add_decision(const UnitDecision& d);
  // A completion: its NDK Type and Status, and its rule (None: no bin of its own).
  void add_completion(uint32_t type, uint32_t status, RuleId rule);
  // A call refused inline, by `rule` (None: nothing).
  void add_refusal(RuleId rule);
  // A post of `verb` that returned STATUS_SUCCESS with NDK op flags `flags`.
  void add_post(RequestVerb verb, uint32_t flags);

  void hit(const std::string& bin, uint64_t n = 1);
  void merge(const Coverage& other);
  uint64_t count(const std::string& bin) const;
  const std::map<std::string, uint64_t>& counts() const { return counts_; }
  uint64_t runs = 0;  // scenario runs it covers

  // {"format": "rnicsim-coverage", "version": 1, "runs": N, "bins": {BIN: count, ...}}: the
  // bins hit, in ID order; text() is that JSON written out, one bin a line.
  nlohmann::ordered_json to_json() const;
  std::string text() const;

 private:
  std::map<std::string, uint64_t> counts_;
};

// Reads what to_json() writes; false with `error` set for anything else (an unknown bin, a
// count that is not a non-negative integer).
bool from_json(const nlohmann::json& j, Coverage* out, std::string* error);

// Every bin of the cross products, in report order, with why it cannot be hit (nullptr: it
// is reachable).
struct Bin {
  std::string id;
  std::string group;        // "rule", "status", "object", "flag", "side"
  const char* unreachable;  // the reason, or nullptr
};
const std::vector<Bin>& all_bins();
const Bin* find_bin(const std::string& id);  // nullptr for an unknown ID
std::vector<std::string> reachable_bins();
const std::vector<std::string>& groups();  // in report order

// A bin or a prefix of bins ("status:ReceiveAndInvalidate:"): true when `pattern` names at
// least one bin.
bool names_bins(const std::string& pattern);
// "unknown bin "x"; did you mean ..." for a pattern that names none.
std::string unknown_bin(const std::string& pattern);

// Figures of a coverage against the bins of this version.
struct GroupTotals {
  std::string group;
  size_t bins = 0, reachable = 0, hit = 0;
  double percent() const { return reachable ? 100.0 * double(hit) / double(reachable) : 100.0; }
};
struct Summary {
  std::vector<GroupTotals> groups;           // one per group
  GroupTotals total;                         // every group
  std::vector<std::string> holes;            // reachable bins never hit, in report order
  std::vector<std::string> hit_unreachable;  // bins hit that the table calls unreachable
  std::vector<std::pair<std::string, uint64_t>> decided;  // rule ID, times it decided
};
Summary summarize(const Coverage& c);

// The report: totals per group, the percentage of reachable bins hit, the rules that decided
// and how often, and every hole; a terminal table, or Markdown.
std::string report(const Coverage& c, bool markdown);

}  // namespace rnic::coverage
