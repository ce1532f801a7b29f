// SPDX-License-Identifier: Apache-2.0
// Functional coverage (app/coverage/coverage.h), without a kernel: the bins a decision, a
// completion, a refusal and a post hit; merge; JSON in and out; the reachable bins; the
// report's holes. And the generator's aim (--focus, --weights): same options, same file.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "app/coverage/coverage.h"
#include "app/generator/generator.h"
#include "host_api/ndk.h"

using namespace rnic;
using coverage::Coverage;

namespace {

coverage::UnitDecision decision(CheckList list, Decision d, bool responder = false) {
  coverage::UnitDecision u;
  u.list = list;
  u.decision = d;
  u.responder = responder;
  u.verb = list == CheckList::RemoteRead ? RequestVerb::Read : RequestVerb::Bind;
  u.kind = list == CheckList::RemoteRead ? MptKind::Mr : MptKind::Mw;
  u.state = MptState::Valid;
  return u;
}

}  // namespace

TEST_CASE("coverage: a decision at check k passed the checks before it and decided k",
          "[app][coverage]") {
  Coverage c;
  // R5.read.resp.pd is the fourth check of the responder's read list.
  c.add_decision(decision(CheckList::RemoteRead,
                          Decision::fail(CqeStatus::RemoteAccess, RuleId::R5_read_resp_pd), true));
  CHECK(c.count("rule:R5.read.resp.index:passed") == 1);
  CHECK(c.count("rule:R5.read.resp.tag:passed") == 1);
  CHECK(c.count("rule:R5.read.resp.valid:passed") == 1);
  CHECK(c.count("rule:R5.read.resp.pd:passed") == 0);
  CHECK(c.count("rule:R5.read.resp.pd:decided") == 1);
  CHECK(c.count("rule:R5.read.resp.window_qp:passed") == 0);
  CHECK(c.count("object:remote_read:mr:valid") == 1);
  CHECK(c.count("side:responder:read") == 1);
  // A success passed every check of its list and decided none.
  c.add_decision(decision(CheckList::Bind, Decision::ok(RuleId::R5_bind_token_on_return)));
  for (RuleId rule : checks_of(CheckList::Bind)) {
    INFO(rule_name(rule));
    CHECK(c.count(std::string("rule:") + rule_name(rule) + ":passed") == 1);
    CHECK(c.count(std::string("rule:") + rule_name(rule) + ":decided") == 0);
  }
  CHECK(c.count("rule:R5.bind.token_on_return:decided") == 0);  // its completion names it
  CHECK(c.count("side:requester:bind") == 1);
  // A model error (no rule of the list) decided nothing of it.
  Coverage none;
  none.add_decision(
      decision(CheckList::Bind, Decision::fail(CqeStatus::LocalQpOperation, RuleId::None)));
  CHECK(none.counts().empty());
}

TEST_CASE("coverage: completions, refusals and posts", "[app][coverage]") {
  Coverage c;
  c.add_completion(ndk::NdkOperationTypeReceiveAndInvalidate, ndk::STATUS_SUCCESS,
                   RuleId::R5_send_inv_success);
  CHECK(c.count("status:ReceiveAndInvalidate:STATUS_SUCCESS") == 1);
  CHECK(c.count("rule:R5.send_inv.success:decided") == 1);
  // A check-list rule on a completion was counted where its unit decided it: not twice.
  c.add_completion(ndk::NdkOperationTypeRead, ndk::STATUS_ACCESS_VIOLATION,
                   RuleId::R5_read_sink_pd);
  CHECK(c.count("status:Read:STATUS_ACCESS_VIOLATION") == 1);
  CHECK(c.count("rule:R5.read.sink.pd:decided") == 0);
  // An inline refusal: no unit saw it, so a check-list rule counts here.
  c.add_refusal(RuleId::R4_inline_fr_remote_access);
  c.add_refusal(RuleId::None);
  CHECK(c.count("rule:R4.inline.fr_remote_access:decided") == 1);
  // ALLOW_REMOTE_WRITE by its remote bit (0x030 holds LOCAL_WRITE, 0x010 alone is not it).
  c.add_post(RequestVerb::Bind, ndk::NDK_OP_FLAG_ALLOW_REMOTE_WRITE | ndk::NDK_OP_FLAG_DEFER);
  c.add_post(RequestVerb::FastRegister, ndk::NDK_OP_FLAG_ALLOW_LOCAL_WRITE);
  CHECK(c.count("flag:ALLOW_REMOTE_WRITE:bind") == 1);
  CHECK(c.count("flag:DEFER:bind") == 1);
  CHECK(c.count("flag:ALLOW_REMOTE_WRITE:fast_register") == 0);
  for (const auto& [bin, n] : c.counts()) {
    INFO(bin);
    CHECK(coverage::find_bin(bin) != nullptr);
  }
}

TEST_CASE("coverage: every bin a record can hit is one of the bins", "[app][coverage]") {
  Coverage c;
  for (size_t l = 0; l < kCheckListCount; ++l) {
    const CheckList list = CheckList(l);
    for (size_t k = 0; k <= checks_of(list).size(); ++k) {
      for (size_t kind = 0; kind < 4; ++kind) {
        for (size_t state = 0; state < 3; ++state) {
          coverage::UnitDecision d;
          d.list = list;
          d.kind = MptKind(kind);
          d.state = MptState(state);
          d.verb = RequestVerb(k % kRequestVerbCount);
          d.responder = k % 2;
          d.decision = k < checks_of(list).size()
                           ? Decision::fail(CqeStatus::LocalProtection, checks_of(list)[k])
                           : Decision::ok();
          c.add_decision(d);
        }
      }
    }
  }
  for (RuleId rule : all_rules()) c.add_refusal(rule);
  for (size_t v = 0; v < kRequestVerbCount; ++v) c.add_post(RequestVerb(v), 0xffff);
  for (const auto& [bin, n] : c.counts()) {
    INFO(bin);
    CHECK(coverage::find_bin(bin) != nullptr);
  }
  std::set<std::string> ids;
  for (const coverage::Bin& b : coverage::all_bins()) {
    INFO(b.id);
    CHECK(ids.insert(b.id).second);                               // no bin twice
    CHECK((b.unreachable == nullptr || *b.unreachable != '\0'));  // a reason, not empty
  }
}

TEST_CASE("coverage: reachable bins leave out what the rules make impossible", "[app][coverage]") {
  const std::vector<std::string> reachable = coverage::reachable_bins();
  const auto has = [&](const std::string& id) {
    return std::find(reachable.begin(), reachable.end(), id) != reachable.end();
  };
  CHECK(has("rule:R5.read.sink.pd:decided"));
  CHECK(has("rule:R2.remote_write_implies_local:passed"));
  CHECK_FALSE(has("rule:R2.remote_write_implies_local:decided"));
  CHECK(coverage::find_bin("rule:R2.remote_write_implies_local:decided")->unreachable != nullptr);
  CHECK(has("status:ReceiveAndInvalidate:STATUS_SUCCESS"));
  CHECK_FALSE(has("status:ReceiveAndInvalidate:STATUS_CANCELLED"));
  CHECK_FALSE(has("object:read_sink:mw:valid"));  // a window is never a local key's object
  CHECK(has("object:remote_read:mw:valid"));
  CHECK_FALSE(has("flag:ALLOW_REMOTE_READ:read"));
  CHECK(has("flag:ALLOW_REMOTE_READ:bind"));
  CHECK_FALSE(has("side:responder:bind"));
  CHECK(has("side:responder:send_invalidate"));
  CHECK_FALSE(has("rule:R1.token.tag:decided"));  // describes, never decides
  CHECK(coverage::names_bins("status:ReceiveAndInvalidate:"));
  CHECK(coverage::names_bins("rule:R5.bind."));
  CHECK_FALSE(coverage::names_bins("status:Nope:"));
  CHECK(coverage::unknown_bin("status:ReceiveAndInvalidate:STATUS_SUCCES")
            .find("did you mean \"status:ReceiveAndInvalidate:STATUS_SUCCESS\"") !=
        std::string::npos);
}

TEST_CASE("coverage: merge adds counts and runs, JSON round trip, bad files refused",
          "[app][coverage]") {
  Coverage a, b;
  a.runs = 1;
  a.hit("status:Read:STATUS_SUCCESS", 2);
  b.runs = 2;
  b.hit("status:Read:STATUS_SUCCESS");
  b.hit("side:requester:read");
  a.merge(b);
  CHECK(a.runs == 3);
  CHECK(a.count("status:Read:STATUS_SUCCESS") == 3);
  CHECK(a.count("side:requester:read") == 1);
  Coverage back;
  std::string error;
  REQUIRE(coverage::from_json(nlohmann::json::parse(a.text()), &back, &error));
  CHECK(back.counts() == a.counts());
  CHECK(back.runs == 3);
  const auto refused = [&](const std::string& text) {
    Coverage c;
    error.clear();
    return !coverage::from_json(nlohmann::json::parse(text), &c, &error) && !error.empty();
  };
  CHECK(refused(R"({"format": "other", "version": 1, "runs": 0, "bins": {}})"));
  CHECK(refused(R"({"format": "rnicsim-coverage", "version": 2, "runs": 0, "bins": {}})"));
  CHECK(refused(R"({"format": "rnicsim-coverage", "version": 1, "runs": -1, "bins": {}})"));
  CHECK(refused(R"({"format": "rnicsim-coverage", "version": 1, "runs": 0, "bins": [],
                    "extra": 1})"));
  CHECK(refused(R"({"format": "rnicsim-coverage", "version": 1, "runs": 0,
                    "bins": {"status:Read:STATUS_SUCCESS": -3}})"));
  CHECK(refused(R"({"format": "rnicsim-coverage", "version": 1, "runs": 0,
                    "bins": {"status:Read:STATUS_SUCESS": 1}})"));
  CHECK(error.find("did you mean \"status:Read:STATUS_SUCCESS\"") != std::string::npos);
}

TEST_CASE("coverage: the report counts reachable bins and names every hole", "[app][coverage]") {
  Coverage c;
  c.runs = 1;
  c.hit("status:Read:STATUS_SUCCESS");
  c.hit("rule:R5.read.sink.pd:decided", 4);
  c.hit("status:Bind:STATUS_IO_TIMEOUT");  // unreachable: the table would be wrong
  const coverage::Summary s = coverage::summarize(c);
  CHECK(s.total.bins == coverage::all_bins().size());
  CHECK(s.total.reachable == coverage::reachable_bins().size());
  CHECK(s.total.hit == 2);
  CHECK(s.holes.size() == s.total.reachable - 2);
  CHECK(std::find(s.holes.begin(), s.holes.end(), "status:Read:STATUS_SUCCESS") == s.holes.end());
  CHECK(std::find(s.holes.begin(), s.holes.end(), "rule:R5.read.sink.valid:decided") !=
        s.holes.end());
  CHECK(s.hit_unreachable == std::vector<std::string>{"status:Bind:STATUS_IO_TIMEOUT"});
  REQUIRE(s.decided.size() == 1);
  CHECK(s.decided[0] == std::make_pair(std::string("R5.read.sink.pd"), uint64_t(4)));
  const std::string text = coverage::report(c, false);
  CHECK(text.find("holes (reachable bins never hit): " + std::to_string(s.holes.size())) !=
        std::string::npos);
  CHECK(text.find("\n  rule:R5.read.sink.valid:decided\n") != std::string::npos);
  CHECK(text.find("R5.read.sink.pd") != std::string::npos);
  CHECK(text.find("status:Bind:STATUS_IO_TIMEOUT") != std::string::npos);
  const std::string md = coverage::report(c, true);
  CHECK(md.find("| group | bins | reachable | hit | covered |") != std::string::npos);
  CHECK(md.find("- `rule:R5.read.sink.valid:decided`") != std::string::npos);
}

TEST_CASE("gen: aimed choices keep the file a function of seed and options",
          "[app][coverage][gen]") {
  using rnic::app::GenOptions;
  GenOptions plain;
  plain.seed = 5;
  plain.steps = 25;
  GenOptions aimed = plain;
  aimed.weights = {{"status:ReceiveAndInvalidate:STATUS_SUCCESS", rnic::app::kFocusWeight}};
  const std::string a = rnic::app::generate_scenario(aimed).dump();
  CHECK(rnic::app::generate_scenario(aimed).dump() == a);
  CHECK(rnic::app::generate_scenario(plain).dump() != a);
  CHECK(a.find("aimed at status:ReceiveAndInvalidate:STATUS_SUCCESS x") != std::string::npos);
  std::vector<std::pair<std::string, double>> w;
  std::string error;
  CHECK(rnic::app::parse_weights(nlohmann::json::parse(R"({"rule:R5.bind.": 3, "flag:": 0})"), &w,
                                 &error));
  CHECK(w.size() == 2);
  CHECK_FALSE(rnic::app::parse_weights(nlohmann::json::parse(R"({"rule:R9.": 3})"), &w, &error));
  CHECK_FALSE(rnic::app::parse_weights(nlohmann::json::parse(R"({"flag:": -1})"), &w, &error));
  CHECK_FALSE(rnic::app::parse_weights(nlohmann::json::parse(R"([1, 2])"), &w, &error));
}
