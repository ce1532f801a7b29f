// SPDX-License-Identifier: Apache-2.0
// rnicsim run: one or several scenarios in one simulation, results JSON, trace and VCD.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>

#include "app/cli/commands.h"
#include "app/observe/trace_window.h"
#include "app/observe/trace_writer.h"
#include "app/observe/vcd_probe.h"
#include "app/runner/coverage_collector.h"
#include "app/runner/output_files.h"
#include "app/runner/results.h"
#include "app/runner/runner.h"
#include "app/runner/stats_table.h"
#include "app/scenario/parse.h"
#include "app/scenario/text.h"

namespace rnic::app {

const char* const kRunUsage =
    "usage: rnicsim run FILE.json [--out results.json] [--trace trace.json] [--vcd waves.vcd]\n"
    "                             [--set key=value ...] [--seed N] [--quiet] [--no-summary]\n"
    "                             [--trace-limit N] [--trace-from STEP|TIME] [--trace-period NS]\n"
    "                             [--vcd-period NS] [--memory-budget SIZE]\n"
    "                             [--coverage coverage.json]\n"
    "       rnicsim run FILE.json FILE2.json... [--out-dir DIR] [--set key=value ...]\n"
    "                             [--seed N] [--quiet] [--no-summary] [--memory-budget SIZE]\n"
    "                             [--coverage coverage.json]\n"
    "\n"
    "Several files run in one process and one simulation, each scenario on a platform of its\n"
    "own from time 0; each gives the results it gives alone. The exit status is the worst:\n"
    "3, else 2, else 1, else 0. A file that cannot be loaded stops everything (exit 2), and\n"
    "so does a run estimated to need more memory than the budget (--memory-budget).\n";

namespace {

constexpr size_t kMaxNodesPerRun = 1024;  // docs/user-guide.md, Limits

// The file name without its directory and ".json".
std::string file_stem(const std::string& file) {
  std::string name = file.substr(file.find_last_of('/') + 1);
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
    name.resize(name.size() - 5);
  return name;
}

// DIR/NAME.json for each file (NAME: the file name without ".json"), or an error.
bool out_dir_paths(const CliOptions& o, std::vector<std::string>* paths, std::string* error) {
  std::set<std::string> seen;
  for (const std::string& file : o.files) {
    const std::string name = file_stem(file);
    if (!seen.insert(name).second) {
      *error = "--out-dir: two files named " + quote(name + ".json") + " would write " +
               quote(o.out_dir + "/" + name + ".json");
      return false;
    }
    paths->push_back(o.out_dir + "/" + name + ".json");
  }
  return true;
}

// The most a file's buffers take at once: its allocs and traffic buffers, plus its largest
// dma_bench window.
uint64_t buffer_bytes(const Scenario& scenario) {
  uint64_t allocs = 0, window = 0;
  for (const Step& step : scenario.steps) {
    if (step.op == Op::Alloc) allocs += step.size;
    if (step.op == Op::DmaBench) window = std::max(window, step.window);
    if (step.op == Op::PingPong) allocs += 4 * step.size;  // a send and a receive buffer a side
    for (const FlowSpec& flow : step.flows) {  // traffic: source slots, destination regions
      allocs += (flow.bidirectional ? 2 : 1) *
                (flow.window * flow.size +
                 flow.regions * ((flow.region_bytes + flow.page_size - 1) / flow.page_size *
                                 flow.page_size));
    }
  }
  return allocs + window;
}

// Severity of an outcome's exit status: a run of several exits with the worst.
int severity(int status) {
  switch (status) {
    case kExitInternal:
      return 3;
    case kExitInvalid:
      return 2;
    case kExitFailed:
      return 1;
    default:
      return 0;
  }
}

}  // namespace

int cmd_run(const CommandContext& c) {
  const CliOptions& o = c.options;
  std::ostream& out = c.out;
  std::ostream& err = c.err;
  std::vector<Scenario> scenarios(o.files.size());
  bool loaded = true;
  for (size_t i = 0; i < o.files.size(); ++i) {
    try {
      scenarios[i] = load_scenario_file(o.files[i], o.sets);
    } catch (const ScenarioError& e) {
      err << file_error(o.files[i], e) << '\n';
      loaded = false;
    }
  }
  if (!loaded) return kExitInvalid;
  // One process holds every file's memory: the cap of one file holds for them together.
  uint64_t buffers = 0;
  for (const Scenario& scenario : scenarios) buffers += buffer_bytes(scenario);
  if (scenarios.size() > 1 && buffers > kMaxAllocBytesTotal) {
    err << "rnicsim: the files' buffers would total " << (buffers >> 20) << " MiB, more than the "
        << (kMaxAllocBytesTotal >> 30) << " GiB one run may allocate (run them in several)\n";
    return kExitInvalid;
  }
  // Each node costs the process about 1.2 MB and a dozen coroutine stacks (mappings): a run
  // of many files is bounded by its nodes together, refused up front rather than failing
  // with exit 3 when the kernel runs out of stacks or memory (measured: 8,000 nodes, 9.9 GB).
  size_t nodes = 0;
  for (const Scenario& scenario : scenarios) nodes += scenario.nodes.size();
  if (nodes > kMaxNodesPerRun) {
    err << "rnicsim: the files have " << nodes << " nodes together, more than the "
        << kMaxNodesPerRun << " one run simulates (run them in several)\n";
    return kExitInvalid;
  }
  // The memory budget, for everything this process will hold (docs/user-guide.md, Limits).
  MemoryOptions memory_options;
  memory_options.results_file = !o.out.empty() || !o.out_dir.empty();
  memory_options.trace_events = o.trace.empty() ? 0 : o.trace_limit;
  std::vector<const Scenario*> all;
  for (const Scenario& scenario : scenarios) all.push_back(&scenario);
  const std::string over =
      check_memory_budget(estimate_memory(all, memory_options, o.files), o.memory_budget);
  if (!over.empty()) {
    err << (scenarios.size() == 1 ? o.files.front() : std::string("rnicsim: the files together"))
        << ": " << over << '\n';
    return kExitInvalid;
  }
  std::vector<std::string> out_paths;
  if (!o.out_dir.empty()) {
    std::string error;
    if (!out_dir_paths(o, &out_paths, &error)) {
      err << "rnicsim: " << error << '\n';
      return kExitInvalid;
    }
  } else if (!o.out.empty()) {
    out_paths.push_back(o.out);
  }
  // Every output, checked before simulating (a typo must not throw a finished run away).
  std::vector<std::pair<std::string, std::string>> outputs;  // option, path
  for (const std::string& path : out_paths) {
    outputs.emplace_back(o.out_dir.empty() ? "--out" : "--out-dir", path);
  }
  if (!o.trace.empty()) outputs.emplace_back("--trace", o.trace);
  if (!o.coverage.empty()) outputs.emplace_back("--coverage", o.coverage);
  if (!o.vcd.empty()) {
    outputs.emplace_back("--vcd", o.vcd);
    // SystemC's VCD writer appends ".vcd": that file is written too, then moved to the name.
    const std::string written = vcd_written_name(o.vcd);
    if (written != o.vcd) outputs.emplace_back("--vcd", written);
  }
  // Lockstep: the divergence report each node could write (only the first is written).
  std::vector<std::string> divergence_prefixes;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    divergence_prefixes.push_back(o.divergence_dir + "/" + file_stem(o.files[i]) + "-lockstep");
    if (scenarios[i].config.rnic.protection.implementation != ProtectionImplementation::Lockstep)
      continue;
    for (const std::string& node : scenarios[i].nodes) {
      for (const char* ext : {".json", ".vcd"})
        outputs.emplace_back("--divergence-dir",
                             divergence_prefixes.back() + "-" + node + "-protection" + ext);
    }
  }
  const std::string refused = check_outputs(outputs, o.files);
  if (!refused.empty()) {
    err << "rnicsim: " << refused << '\n';
    return kExitInvalid;
  }
  // The trace's window, against the file: a step must exist (before simulating, like outputs).
  if (o.trace.empty() && (!o.trace_from.empty() || o.trace_period_ns)) {
    err << "rnicsim: " << (o.trace_from.empty() ? "--trace-period" : "--trace-from")
        << " needs --trace FILE\n";
    return kExitInvalid;
  }
  TraceFrom from;
  size_t from_step = 0;
  std::string window;  // how the trace names its window
  if (!o.trace_from.empty()) {
    std::string error;
    if (!parse_trace_from(o.trace_from, &from, &error) ||
        (!from.is_time && !resolve_trace_step(from.step, scenarios.front(), &from_step, &error))) {
      err << "rnicsim: " << error << '\n';
      return kExitInvalid;
    }
    window = from.is_time ? o.trace_from : "step " + std::to_string(from_step);
    if (!from.is_time && from.step != std::to_string(from_step)) window += " (" + from.step + ")";
  }
  std::vector<const Scenario*> list;
  std::vector<uint64_t> seeds;
  for (const Scenario& scenario : scenarios) {
    list.push_back(&scenario);
    seeds.push_back(o.seed.value_or(scenario.seed));
  }
  std::unique_ptr<TraceWriter> trace;
  RunOptions options;
  if (!o.trace.empty()) {
    trace = std::make_unique<TraceWriter>(o.trace_limit, &err);
    trace->set_info("scenario", scenarios.front().name);
    trace->set_info("rnicsim_version", version());
    trace->set_nodes(scenarios.front().nodes);
    options.trace = trace.get();
    options.host_trace = trace.get();
    options.trace_counter_period_ns = o.trace_period_ns.value_or(100);
    if (!o.trace_from.empty()) {
      trace->set_window(from.is_time ? from.ps : TraceWriter::kNotYet, window);
      if (!from.is_time) {
        TraceWriter* writer = trace.get();
        options.step_started = [writer, from_step](const Step& step) {
          if (step.index == from_step) writer->open_window_now();
        };
      }
    }
  }
  options.vcd = o.vcd;
  options.divergence_prefixes = divergence_prefixes;
  options.vcd_period_ns = o.vcd_period_ns;
  // A progress line for long runs, only for a person watching a terminal.
  const char* force = std::getenv("RNICSIM_PROGRESS");
  options.progress = force ? std::string(force) == "1" : !o.quiet && isatty(STDERR_FILENO);
  // Coverage: a collector per file, fitted only when asked for (none attached: no cost).
  std::vector<coverage::Coverage> coverages(o.coverage.empty() ? 0 : scenarios.size());
  std::vector<std::unique_ptr<CoverageCollector>> collectors;
  for (coverage::Coverage& cov : coverages) {
    collectors.push_back(std::make_unique<CoverageCollector>(cov));
    options.decisions.push_back(collectors.back().get());
  }
  if (!c.simulate) return kExitPassed;  // run_cli(simulate = false): every check made
  const std::vector<RunResult> runs = run_scenarios(list, seeds, options);

  int worst = kExitPassed;
  const auto raise = [&worst](int status) {
    if (severity(status) > severity(worst)) worst = status;
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunResult& run = runs[i];
    const std::string& file = o.files[i];
    switch (run.outcome) {
      case RunOutcome::Passed:
        break;
      case RunOutcome::Failed:
        err << file << ": " << run.message << '\n';
        raise(kExitFailed);
        break;
      case RunOutcome::Invalid: {
        // Found while running: the same "file:line:col: " as a load error, where it can.
        size_t line = 0, column = 0;
        err << file;
        if (locate_in_file(file, run.invalid_path, &line, &column)) {
          err << ':' << line << ':' << column;
        }
        err << ": " << run.message << '\n';
        raise(kExitInvalid);
        break;
      }
      case RunOutcome::Internal:
        err << file << ": internal error: " << run.message << '\n';
        raise(kExitInternal);
        break;
    }
  }
  // A file that could not be written: exit 2 unless the runs already did worse than pass.
  const auto write_failed = [&](const std::string& error) {
    err << "rnicsim: " << error << '\n';
    if (worst == kExitPassed) worst = kExitInvalid;
  };
  // A window the run never reached: an empty trace, said so rather than silently.
  if (trace && !o.trace_from.empty() &&
      (trace->window_start_ps() == TraceWriter::kNotYet ||
       trace->window_start_ps() > runs.front().sim_ns * 1000)) {
    err << "rnicsim: the trace window (" << window << ") never opened: the run ended at "
        << runs.front().sim_ns << " ns simulated; " << o.trace << " has no events\n";
  }
  for (const std::string& error :
       {trace ? trace->write_file(o.trace) : std::string(), options.vcd_error}) {
    if (!error.empty()) write_failed(error);
  }
  for (size_t i = 0; i < out_paths.size(); ++i) {
    const std::string error =
        write_json_file(out_paths[i], results_json(scenarios[i], runs[i], seeds[i]));
    if (!error.empty()) write_failed(error);
  }
  if (!coverages.empty()) {
    // One file for the whole run: every scenario's bins added up.
    coverage::Coverage all;
    for (size_t i = 0; i < runs.size(); ++i) {
      add_step_coverage(coverages[i], scenarios[i], runs[i]);
      all.merge(coverages[i]);
    }
    std::ofstream file(o.coverage, std::ios::binary | std::ios::trunc);
    file << all.text();
    file.close();
    if (!file) write_failed("cannot write " + quote(o.coverage));
  }
  if (!o.quiet) {
    for (size_t i = 0; i < runs.size(); ++i) {
      if (runs.size() > 1) out << (i ? "\n" : "") << o.files[i] << '\n';
      out << summary_line(scenarios[i], runs[i]) << '\n' << workload_table(runs[i])
          << decisions_table(runs[i]);
      if (!o.no_summary) out << stats_table(scenarios[i].nodes, runs[i]);
    }
  }
  return worst;
}

}  // namespace rnic::app
