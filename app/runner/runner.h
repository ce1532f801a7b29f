// SPDX-License-Identifier: Apache-2.0
// Runs a checked scenario: builds the System, one Adapter per node, and executes the steps in
// order from one SystemC thread. Stops at the first step whose expectation fails.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/runner/bottleneck.h"
#include "app/scenario/scenario.h"
#include "host_api/host_trace.h"
#include "host_api/ndk.h"
#include "model/instruments/decision_sink.h"
#include "tlm/trace.h"

namespace rnic::app {

struct StatEntry {
  std::string owner;  // "A.rnic.mtt"
  std::string name;
  std::string unit;
  uint64_t value = 0;
};

// A figure of one unit's statistic over a window: a busy fraction, an occupancy's mean.
struct WindowFigure {
  std::string owner;  // "B.pcie"
  std::string name;   // "downstream_busy_ps"
  double value = 0;
};

struct StepResult {
  size_t index = 0;
  std::string op;
  bool passed = true;
  std::optional<uint32_t> status;               // what the call returned inline
  std::vector<ndk::NDK_RESULT_EX> completions;  // what a poll saw
  // per completion: the request changed its object (R4.cancelled.undefined), and the rule that
  // decided it (abi/rules.h)
  std::vector<bool> took_effect;
  std::vector<RuleId> rules;
  // a call that failed inline: the driver's rule for it
  RuleId inline_rule = RuleId::None;
  std::vector<std::pair<std::string, double>> metrics;
  std::string expected, got;  // a failed step: the two sides, short
  std::string message;        // a failed step: one line, without the "step N (op): " prefix
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  // Workloads: the unit counters that moved during the measured window, by how much, and
  // what the window's statistics warn of (a cache still warming).
  std::vector<StatEntry> window_stats;
  std::vector<std::string> warnings;
  // Workloads, over the measured window: every `..._busy_ps` counter as a fraction of the
  // window, every occupancy's time-weighted mean, and every bounded resource ranked by its
  // utilization (docs/user-guide.md, "Reading the bottleneck report").
  std::vector<WindowFigure> window_busy;
  std::vector<WindowFigure> window_occupancy;
  std::vector<ResourceLoad> bottlenecks;
};

// A latency histogram at the end of the run, in ns.
struct HistogramEntry {
  std::string owner;
  std::string name;
  uint64_t count = 0;
  double mean = 0;
  uint64_t p50 = 0, p90 = 0, p99 = 0, max = 0;
};

// An occupancy at the end of the run: time-weighted mean over the run, and maximum.
struct OccupancyEntry {
  std::string owner;
  std::string name;
  std::string unit;
  double mean = 0;
  uint64_t max = 0;
};

enum class RunOutcome {
  Passed,    // exit 0
  Failed,    // exit 1: an expectation did not hold
  Invalid,   // exit 2: the file asks for something impossible, found only when running
  Internal,  // exit 3: the simulator itself failed (a SystemC error, a stall)
};

struct RunResult {
  RunOutcome outcome = RunOutcome::Passed;
  std::string message;            // Invalid / Internal: the reason; Failed: the failed step's line
  JsonPath invalid_path;          // Invalid at run time: the value's path, to find its line
  std::vector<StepResult> steps;  // the steps that ran, in order
  uint64_t sim_ns = 0;
  double wall_s = 0;
  std::vector<StatEntry> stats;
  std::vector<HistogramEntry> histograms;
  std::vector<OccupancyEntry> occupancies;
  // The whole run's bounded resources ranked by utilization over [0, sim_ns] (as the steps'
  // `bottlenecks` are over their windows).
  std::vector<ResourceLoad> bottlenecks;
};

// Why `step` cannot run in this version ("op "write" is not supported by this version"), or
// an empty string. run_scenario() refuses such files before simulating anything.
std::string unsupported_reason(const Step& step);
// First unsupported step as "steps[i]: reason", or empty.
std::string check_supported(const Scenario& scenario);

// What to record besides the results.
struct RunOptions {
  TraceSink* trace = nullptr;  // timeline slices (app/observe/trace_writer.h); null: none
  host::HostTraceSink* host_trace = nullptr;  // the drivers' posts, doorbells, polls; null: none
  uint64_t trace_counter_period_ns = 100;     // counter tracks into `trace` (0: none)
  std::function<void(const Step&)> step_started;  // called as each step begins (trace window)
  std::string vcd;             // waveform file (app/observe/vcd_probe.h); empty: none
  uint64_t vcd_period_ns = 100;
  std::string vcd_error;       // out: why the VCD file could not be finished, or ""
  bool progress = false;       // a progress line on stderr once a run takes over ~2 s
  // Coverage: decisions[i] receives every unit decision of scenarios[i] (null or missing:
  // none attached, no cost).
  std::vector<DecisionSink*> decisions;
  // Lockstep (protection.implementation): where scenarios[i]'s divergence report goes,
  // divergence_prefixes[i] + "-NODE-protection.json" and ".vcd" (missing: "lockstep").
  std::vector<std::string> divergence_prefixes;
};

// Elaborates and simulates. Call once per process (SystemC elaborates once).
RunResult run_scenario(const Scenario& scenario, uint64_t seed);
RunResult run_scenario(const Scenario& scenario, uint64_t seed, RunOptions& options);
// Several scenarios in one process: each on a platform of its own (modules under "s0",
// "s1", ...), all from time 0 in one simulation, seeds[i] for scenarios[i]. Each result is
// what run_scenario() gives for that scenario alone, apart from wall_s (the whole run's).
// Call once per process; a trace or VCD (options) only with a single scenario.
std::vector<RunResult> run_scenarios(const std::vector<const Scenario*>& scenarios,
                                     const std::vector<uint64_t>& seeds, RunOptions& options);

// "step 12 (poll): expected status STATUS_SUCCESS, got STATUS_ACCESS_VIOLATION"
std::string failure_line(const StepResult& step);

}  // namespace rnic::app
