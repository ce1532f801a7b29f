// SPDX-License-Identifier: Apache-2.0
// The `rnicsim` command line: run, validate, gen, expect, params, presets, stats, schema,
// report, coverage, --help, --version.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/reference/model.h"
#include "app/scenario/memory.h"

namespace rnic::app {

// Exit statuses (docs/scenario-format.md "Running"); 3 is ours: the simulator itself failed.
constexpr int kExitPassed = 0;
constexpr int kExitFailed = 1;
constexpr int kExitInvalid = 2;
constexpr int kExitInternal = 3;
constexpr uint64_t kMaxTraceLimit = 10000000;  // --trace-limit

struct CliOptions {
  std::string command;  // a command's name, help or version
  std::string file;     // the (first) file
  std::vector<std::string> files;  // run: every file, in order
  std::string out, out_dir, trace, vcd;
  std::vector<std::string> sets;  // "key=value"
  std::optional<uint64_t> seed;
  uint64_t steps = 40;            // gen --steps: random actions
  bool strict = false;            // expect --strict: a step that could race is an error
  uint64_t trace_limit = 200000;  // --trace-limit: events in the trace at most
  std::string trace_from;         // --trace-from: the window's start (a step or a time)
  std::optional<uint64_t> trace_period_ns;  // --trace-period: counter tracks (0: none)
  uint64_t vcd_period_ns = 100;   // --vcd-period: sampling period of the waveforms
  std::string preset;             // params --preset
  bool quiet = false;
  bool no_summary = false;  // run --no-summary: no unit statistics table
  bool help = false;        // COMMAND --help
  uint64_t memory_budget = kDefaultMemoryBudget;  // run, validate --memory-budget
  std::string coverage;             // run --coverage: the coverage file
  std::string divergence_dir = "."; // run --divergence-dir: lockstep reports
  bool markdown = false;            // coverage report --markdown
  std::vector<std::string> focus;   // gen --focus: bins or prefixes
  std::string weights;              // gen --weights: {bin-or-prefix: weight}
};

// Parses argv[1..]; false with `error` set for a bad command line.
bool parse_cli(const std::vector<std::string>& args, CliOptions* options, std::string* error);

// Runs the command; returns the exit status. Never throws. `reference`: the reference model's
// options for gen and expect (a test build may break a rule; the product uses the defaults).
// `simulate` false (the command-line fuzz target): `run` makes every check, then stops with
// exit 0 where it would start the simulation (SystemC elaborates once per process).
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            const RefOptions& reference = {}, bool simulate = true);

}  // namespace rnic::app
