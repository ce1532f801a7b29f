// SPDX-License-Identifier: Apache-2.0
#include "app/observe/sampler.h"

#include <algorithm>
#include <cmath>

namespace rnic::app {

Sampler::Sampler(sc_core::sc_module_name name, std::vector<Consumer> consumers)
    : sc_module(name),
      consumers_(std::move(consumers)),
      next_(consumers_.size(), sc_core::SC_ZERO_TIME) {
  SC_HAS_PROCESS(Sampler);
  SC_THREAD(run);
}

void Sampler::run() {
  std::vector<sc_core::sc_time>& next = next_;
  for (;;) {
    // Asked before this sample's own signal updates are scheduled: is anything else left, and
    // how far ahead is it?
    const bool others = sc_core::sc_pending_activity();
    const sc_core::sc_time gap = sc_core::sc_time_to_pending_activity();
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    for (size_t k = 0; k < consumers_.size(); ++k) {
      if (next[k] > now) continue;
      consumers_[k].sample();
      next[k] = now + consumers_[k].period;
    }
    if (!others) return;
    // Nothing in the model runs before now + gap, so no sampled value changes: each consumer
    // skips to the last instant of its period grid at or before then (an idle `wait` of
    // 1,000 s costs one sample, not 10^10).
    const sc_core::sc_time until = now + gap;
    sc_core::sc_time wake = sc_core::sc_max_time();
    for (size_t k = 0; k < consumers_.size(); ++k) {
      const sc_core::sc_time& period = consumers_[k].period;
      if (next[k] < until) next[k] += period * std::floor((until - next[k]) / period);
      wake = std::min(wake, next[k]);
    }
    wait(wake - now);
  }
}

TraceCounters::TraceCounters(System& system, TraceSink& sink, const sc_core::sc_time& period)
    : sink_(sink) {
  for (Gauge& g : declare_gauges(system, period)) {
    if (g.kind == Gauge::Kind::Cumulative) continue;
    const uint32_t track = sink_.counter_track(g.name);
    gauges_.emplace_back(track, std::move(g));
  }
}

void TraceCounters::sample() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  for (const auto& [track, gauge] : gauges_) sink_.counter(track, now, gauge.read());
}

}  // namespace rnic::app
