// SPDX-License-Identifier: Apache-2.0
#include "app/runner/coverage_collector.h"

#include "host_api/ndk.h"

namespace rnic::app {

void CoverageCollector::decided(const DecisionRecord& r) {
  coverage::UnitDecision d;
  d.responder = r.side == EngineSide::Responder;
  d.list = r.list;
  d.verb = r.verb;
  d.decision = r.decision;
  d.kind = r.kind;
  d.state = r.state;
  coverage_.add_decision(d);
}

namespace {

// The verb a step posts on a send queue, or false for any other step.
bool posted_verb(const Step& step, RequestVerb* verb) {
  switch (step.op) {
    case Op::Read:
      *verb = RequestVerb::Read;
      return true;
    case Op::Write:
      *verb = RequestVerb::Write;
      return true;
    case Op::Send:
      *verb = step.invalidate_token ? RequestVerb::SendInvalidate : RequestVerb::Send;
      return true;
    case Op::Bind:
      *verb = RequestVerb::Bind;
      return true;
    case Op::FastRegister:
      *verb = RequestVerb::FastRegister;
      return true;
    case Op::Invalidate:
      *verb = RequestVerb::Invalidate;
      return true;
    default:
      return false;
  }
}

}  // namespace

void add_step_coverage(coverage::Coverage& coverage, const Scenario& scenario,
                       const RunResult& run) {
  ++coverage.runs;
  for (const StepResult& r : run.steps) {
    for (size_t i = 0; i < r.completions.size(); ++i) {
      coverage.add_completion(r.completions[i].Type, r.completions[i].Status,
                              i < r.rules.size() ? r.rules[i] : RuleId::None);
    }
    coverage.add_refusal(r.inline_rule);
    RequestVerb verb = RequestVerb::Read;
    if (r.index < scenario.steps.size() && r.status && *r.status == ndk::STATUS_SUCCESS &&
        posted_verb(scenario.steps[r.index], &verb))
      coverage.add_post(verb, scenario.steps[r.index].flags);
  }
}

}  // namespace rnic::app
