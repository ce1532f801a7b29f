// SPDX-License-Identifier: Apache-2.0
// `rnicsim run --coverage`: the device's decisions (model/instruments/decision_sink.h) and a
// finished run's steps into the plain coverage model (app/coverage/coverage.h). Without
// --coverage no sink is attached and nothing here runs.
#pragma once

#include "app/coverage/coverage.h"
#include "app/runner/runner.h"
#include "model/instruments/decision_sink.h"

namespace rnic::app {

class CoverageCollector : public DecisionSink {
 public:
  explicit CoverageCollector(coverage::Coverage& coverage) : coverage_(coverage) {}
  void decided(const DecisionRecord& record) override;

 private:
  coverage::Coverage& coverage_;
};

// What the steps that ran show: every completion with its rule, every inline refusal, and
// the flags of every post that returned STATUS_SUCCESS. Counts the run.
void add_step_coverage(coverage::Coverage& coverage, const Scenario& scenario,
                       const RunResult& run);

}  // namespace rnic::app
