// SPDX-License-Identifier: Apache-2.0
// Checks of a whole loaded file against its effective config (the preset, config.set and
// --set): what a run would refuse (exit 2) before it simulates anything, and workloads that
// could only stall or fail. load_scenario() makes them, so `validate` and `run` give one
// verdict; the runner's own refusals stay as a second line behind them. Plain C++.
#pragma once

#include <cstdint>

#include "app/scenario/scenario.h"

namespace rnic::app {

// Throws ScenarioError (with the step's path) at the first refusal.
void check_run_limits(const Scenario& scenario);

// read_stream / write_stream: true when the posting loop would wait for a completion that
// never comes. Only every `signal_every`-th request (and the last) completes visibly, and at
// most min(outstanding, send_depth) requests are in flight (a slot of the send queue is free
// again only once a later completion is seen): with no signaled request among them, none
// completes.
bool stream_can_stall(uint64_t count, uint64_t outstanding, uint64_t signal_every,
                      uint64_t send_depth);

// The completions one side of a traffic flow has pending at most: the requests its QPs have
// in flight (the source's, and the destination's when the flow is bidirectional) and, for
// sends, the receives posted on its QPs; in all (`depth`) and per QP (`per_qp`).
struct TrafficCqNeed {
  uint64_t depth = 1;
  uint64_t per_qp = 1;
};
TrafficCqNeed traffic_cq_need(const FlowSpec& flow, bool source_side);

// The CQs that side needs: one while `depth` fits in the largest CQ, else enough that each
// holds its QPs' share. The runner creates exactly these.
uint64_t traffic_cq_count(const FlowSpec& flow, const TrafficCqNeed& need);
// The depth of each of those CQs.
uint64_t traffic_cq_depth(const FlowSpec& flow, const TrafficCqNeed& need);

}  // namespace rnic::app
