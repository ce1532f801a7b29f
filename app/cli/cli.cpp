// SPDX-License-Identifier: Apache-2.0
#include "app/cli/cli.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include <unistd.h>

#include "app/generator/generator.h"
#include "app/scenario/params.h"
#include "app/runner/results.h"
#include "app/runner/runner.h"
#include "app/scenario/scenario.h"
#include "app/scenario/parse.h"
#include "app/runner/stats_table.h"
#include "app/scenario/text.h"
#include "app/observe/trace_writer.h"
#include "model/platform/system.h"

namespace rnic::app {

namespace {

const char* const kUsage =
    "usage: rnicsim COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  run FILE.json...    run a scenario, or several in one simulation (exit 0 passed,\n"
    "                      1 an expectation failed, 2 invalid file or option, 3 simulator\n"
    "                      error)\n"
    "  validate FILE.json  parse and check a scenario, run nothing\n"
    "  gen --seed N        write a random scenario whose expectations come from the\n"
    "                      reference model (differential testing)\n"
    "  expect FILE.json    recompute a scenario's expectations with the reference model\n"
    "  params              list every config key with unit, default and meaning\n"
    "  presets             list the config presets\n"
    "  stats               list every statistic of the results JSON (owner, name, unit,\n"
    "                      meaning)\n"
    "\n"
    "  rnicsim --help | rnicsim COMMAND --help | rnicsim --version\n";

const char* const kRunUsage =
    "usage: rnicsim run FILE.json [--out results.json] [--trace trace.json] [--vcd waves.vcd]\n"
    "                             [--set key=value ...] [--seed N] [--quiet] [--no-summary]\n"
    "                             [--trace-limit N] [--vcd-period NS]\n"
    "       rnicsim run FILE.json FILE2.json... [--out-dir DIR] [--set key=value ...]\n"
    "                             [--seed N] [--quiet] [--no-summary]\n"
    "\n"
    "Several files run in one process and one simulation, each scenario on a platform of its\n"
    "own from time 0; each gives the results it gives alone. The exit status is the worst:\n"
    "3, else 2, else 1, else 0. A file that cannot be loaded stops everything (exit 2).\n"
    "\n"
    "  --out FILE     write the results JSON (config, per-step results, statistics)\n"
    "  --out-dir DIR  write each file's results JSON to DIR/NAME.json, NAME being the file's\n"
    "                 name without .json (the names must differ; DIR must exist)\n"
    "  --trace FILE   timeline of every WQE's stages, Chrome/Perfetto trace-event JSON\n"
    "                 (open in ui.perfetto.dev or chrome://tracing)\n"
    "  --trace-limit N  record at most N trace events (default 200000, at most 10000000),\n"
    "                   then stop recording\n"
    "  --vcd FILE     waveforms of key signals per node (SystemC VCD)\n"
    "  --vcd-period NS  sampling period of the waveforms (default 100 ns)\n"
    "  --set K=V      override a config key (see `rnicsim params`); repeatable\n"
    "  --seed N       seed for every random choice (default: the file's, else 1)\n"
    "  --quiet        no summary on stdout\n"
    "  --no-summary   the summary line and workload lines only, without the unit statistics\n"
    "                 table (per node counters, latency percentiles in ns, occupancies)\n";

const char* const kValidateUsage =
    "usage: rnicsim validate FILE.json [--set key=value ...] [--quiet]\n"
    "\n"
    "Parses and checks the file (JSON syntax, fields, names, references, config keys) and\n"
    "runs nothing. Exit 0 when valid, 2 otherwise.\n";

const char* const kGenUsage =
    "usage: rnicsim gen --seed N [--steps K] [--out FILE.json]\n"
    "\n"
    "Writes a constrained-random scenario (two nodes, PDs, MRs, fast-register MRs, windows,\n"
    "QP pairs, then K random actions, default 40) whose every expectation (inline statuses,\n"
    "completions, final memory) is the reference model's prediction, so that `rnicsim run`\n"
    "checks the timed model against it. Same seed, same file. Output: FILE.json or stdout.\n"
    "Exit 0 written, 2 bad option, 3 the generator failed (a bug).\n";

const char* const kExpectUsage =
    "usage: rnicsim expect FILE.json [--out FILE2.json] [--strict]\n"
    "\n"
    "Recomputes every expectation of a scenario with the reference model: each call's\n"
    "`expect`, each poll's `count` and completions (everything pending at that point), and a\n"
    "check of every byte of every buffer at the end (replacing the file's expect_memory\n"
    "steps). Steps whose outcome could depend on timing are reported on stderr; with\n"
    "--strict they are an error. Output: FILE2.json or stdout.\n"
    "Exit 0 written, 2 invalid file, an op the model does not cover, or (--strict) a race.\n";

const char* const kParamsUsage =
    "usage: rnicsim params [--preset NAME]\n"
    "\n"
    "Lists every config key (for config.set and --set) with unit, value and meaning;\n"
    "values are the defaults, or those of preset NAME.\n";

const char* const kStatsUsage =
    "usage: rnicsim stats\n"
    "\n"
    "Lists every statistic a run writes to the results JSON under \"stats\": owner (NODE\n"
    "stands for each node's name), name, unit and meaning, one per line, columns separated\n"
    "by tabs. Histograms (unit \"ns (histogram)\") and occupancies (\"UNIT (occupancy)\") are\n"
    "objects in the JSON; docs/stats.md describes them.\n";

const char* const kPresetsUsage =
    "usage: rnicsim presets\n"
    "\n"
    "Lists the config presets and the keys each one changes from the defaults.\n";

// Options that take a value; `--name=value` is accepted too.
bool takes_value(const std::string& o) {
  return o == "--out" || o == "--out-dir" || o == "--trace" || o == "--vcd" || o == "--set" ||
         o == "--seed" || o == "--preset" || o == "--trace-limit" || o == "--vcd-period" ||
         o == "--steps";
}

bool allowed(const std::string& command, const std::string& o) {
  if (o == "--help" || o == "-h") return true;
  if (command == "run")
    return o == "--out" || o == "--out-dir" || o == "--trace" || o == "--vcd" || o == "--set" ||
           o == "--seed" || o == "--quiet" || o == "-q" || o == "--trace-limit" ||
           o == "--vcd-period" || o == "--no-summary";
  if (command == "validate") return o == "--set" || o == "--quiet" || o == "-q";
  if (command == "params") return o == "--preset";
  if (command == "gen") return o == "--seed" || o == "--steps" || o == "--out";
  if (command == "expect") return o == "--out" || o == "--strict";
  return false;
}

const char* usage_of(const std::string& command) {
  if (command == "run") return kRunUsage;
  if (command == "validate") return kValidateUsage;
  if (command == "gen") return kGenUsage;
  if (command == "expect") return kExpectUsage;
  if (command == "params") return kParamsUsage;
  if (command == "presets") return kPresetsUsage;
  if (command == "stats") return kStatsUsage;
  return kUsage;
}

// "file.json:12:7: steps[3].qp: unknown QP "qpX"" (the compiler convention, for editors).
std::string file_error(const std::string& file, const ScenarioError& e) {
  std::string where = file;
  if (e.line) where += ":" + std::to_string(e.line) + ":" + std::to_string(e.column);
  return where + ": " + e.what();
}

void print_params(std::ostream& out, const SystemConfig& config) {
  size_t key_width = 0, unit_width = 0;
  for (const ParamDef& d : param_table()) {
    key_width = std::max(key_width, std::string(d.key).size());
    unit_width = std::max(unit_width, std::string(d.unit).size());
  }
  for (const ParamDef& d : param_table()) {
    std::string line = d.key;
    line.resize(key_width + 2, ' ');
    std::string value = format_param_value(d, d.get(config));
    value.resize(std::max<size_t>(value.size(), 12) + 1, ' ');
    std::string unit = d.unit;
    unit.resize(unit_width + 2, ' ');
    out << line << value << unit << d.description << '\n';
  }
}

int cmd_params(const CliOptions& o, std::ostream& out, std::ostream& err) {
  SystemConfig config;
  const std::string error = apply_preset(config, o.preset.empty() ? "default" : o.preset);
  if (!error.empty()) {
    err << "rnicsim: " << error << '\n';
    return kExitInvalid;
  }
  print_params(out, config);
  return kExitPassed;
}

int cmd_presets(std::ostream& out) {
  for (const Preset& p : preset_table()) {
    out << p.name << ": " << p.description << '\n';
    for (const auto& [key, value] : p.values) out << "    " << key << " = " << value << '\n';
  }
  return kExitPassed;
}

// Elaborates a one-node system named NODE (monitor included) and walks its statistics: the
// same walk that fills "stats" after a run, so the list cannot drift from the code.
int cmd_stats(std::ostream& out) {
  SystemConfig config;
  config.protection_monitor = true;
  System system(config, {"NODE"});
  system.visit_groups([&](const StatGroup& group) {
    const std::string& owner = group.owner();
    for (const Counter& c : group.counters())
      out << owner << '\t' << c.name << '\t' << c.unit << '\t' << c.description << '\n';
    for (const Histogram& h : group.histograms()) {
      out << owner << '\t' << h.name << '\t' << h.unit << " (histogram)\t" << h.description << '\n';
    }
    for (const Occupancy& o : group.occupancies()) {
      out << owner << '\t' << o.name << '\t' << o.unit << " (occupancy)\t" << o.description << '\n';
    }
  });
  return kExitPassed;
}

int cmd_validate(const CliOptions& o, std::ostream& out, std::ostream& err) {
  Scenario scenario;
  try {
    scenario = load_scenario_file(o.file, o.sets);
  } catch (const ScenarioError& e) {
    err << file_error(o.file, e) << '\n';
    return kExitInvalid;
  }
  const std::string unsupported = check_supported(scenario);
  if (!unsupported.empty()) err << o.file << ": note: " << unsupported << '\n';
  if (!o.quiet) out << o.file << ": valid (" << scenario.steps.size() << " steps)\n";
  return kExitPassed;
}

// Writes a scenario to --out, or to stdout.
int write_scenario(const CliOptions& o, const OrderedJson& scenario, std::ostream& out,
                   std::ostream& err) {
  const std::string text = format_scenario(scenario);
  if (o.out.empty()) {
    out << text;
    return kExitPassed;
  }
  std::ofstream file(o.out, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) {
    err << "rnicsim: cannot write " << quote(o.out) << '\n';
    return kExitInvalid;
  }
  return kExitPassed;
}

int cmd_gen(const CliOptions& o, const RefOptions& reference, std::ostream& out,
            std::ostream& err) {
  GenOptions options;
  options.seed = *o.seed;
  options.steps = o.steps;
  options.ref = reference;
  OrderedJson scenario;
  try {
    scenario = generate_scenario(options);
  } catch (const std::exception& e) {
    err << "rnicsim: gen --seed " << options.seed << ": internal error: " << e.what() << '\n';
    return kExitInternal;
  }
  return write_scenario(o, scenario, out, err);
}

int cmd_expect(const CliOptions& o, const RefOptions& options, std::ostream& out,
               std::ostream& err) {
  std::ifstream in(o.file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    err << "rnicsim: cannot read " << quote(o.file) << '\n';
    return kExitInvalid;
  }
  OrderedJson scenario;
  std::vector<std::string> races;
  try {
    scenario = refill_expectations(text.str(), options, &races);
  } catch (const ScenarioError& e) {
    err << file_error(o.file, e) << '\n';
    return kExitInvalid;
  } catch (const RefUnsupported& e) {
    err << o.file << ": the reference model cannot predict this scenario: " << e.what() << '\n';
    return kExitInvalid;
  }
  for (const std::string& r : races)
    err << o.file << ": " << (o.strict ? "error" : "warning") << ": " << r << '\n';
  if (o.strict && !races.empty()) return kExitInvalid;
  return write_scenario(o, scenario, out, err);
}

// DIR/NAME.json for each file (NAME: the file name without ".json"), or an error.
bool out_dir_paths(const CliOptions& o, std::vector<std::string>* paths, std::string* error) {
  std::set<std::string> seen;
  for (const std::string& file : o.files) {
    std::string name = file.substr(file.find_last_of('/') + 1);
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
      name.resize(name.size() - 5);
    if (!seen.insert(name).second) {
      *error = "--out-dir: two files named " + quote(name + ".json") + " would write " +
               quote(o.out_dir + "/" + name + ".json");
      return false;
    }
    paths->push_back(o.out_dir + "/" + name + ".json");
  }
  return true;
}

// The most a file's buffers take at once: its allocs, plus its largest dma_bench window.
uint64_t buffer_bytes(const Scenario& scenario) {
  uint64_t allocs = 0, window = 0;
  for (const Step& step : scenario.steps) {
    if (step.op == Op::Alloc) allocs += step.size;
    if (step.op == Op::DmaBench) window = std::max(window, step.window);
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

int cmd_run(const CliOptions& o, std::ostream& out, std::ostream& err) {
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
    options.trace = trace.get();
  }
  options.vcd = o.vcd;
  options.vcd_period_ns = o.vcd_period_ns;
  // A progress line for long runs, only for a person watching a terminal.
  const char* force = std::getenv("RNICSIM_PROGRESS");
  options.progress = force ? std::string(force) == "1" : !o.quiet && isatty(STDERR_FILENO);
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
      case RunOutcome::Invalid:
        err << file << ": " << run.message << '\n';
        raise(kExitInvalid);
        break;
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
  for (const std::string& error :
       {trace ? trace->write_file(o.trace) : std::string(), options.vcd_error}) {
    if (!error.empty()) write_failed(error);
  }
  for (size_t i = 0; i < out_paths.size(); ++i) {
    const std::string error =
        write_json_file(out_paths[i], results_json(scenarios[i], runs[i], seeds[i]));
    if (!error.empty()) write_failed(error);
  }
  if (!o.quiet) {
    for (size_t i = 0; i < runs.size(); ++i) {
      if (runs.size() > 1) out << (i ? "\n" : "") << o.files[i] << '\n';
      out << summary_line(scenarios[i], runs[i]) << '\n' << workload_table(runs[i]);
      if (!o.no_summary) out << stats_table(scenarios[i].nodes, runs[i]);
    }
  }
  return worst;
}

}  // namespace

bool parse_cli(const std::vector<std::string>& args, CliOptions* o, std::string* error) {
  *o = CliOptions{};
  if (args.empty()) {
    *error = "no command given";
    return false;
  }
  const std::string& first = args[0];
  if (first == "--help" || first == "-h" || first == "help") {
    o->command = "help";
    return true;
  }
  if (first == "--version" || first == "version") {
    o->command = "version";
    return true;
  }
  if (first != "run" && first != "validate" && first != "params" && first != "presets" &&
      first != "stats" && first != "gen" && first != "expect") {
    *error = "unknown command " + quote(first);
    return false;
  }
  o->command = first;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string value;
    bool has_value = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
      has_value = true;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      if (!allowed(o->command, arg)) {
        *error = "unknown option " + quote(arg) + " for " + o->command;
        return false;
      }
      if (arg == "--help" || arg == "-h") {
        o->help = true;
        continue;
      }
      if (arg == "--quiet" || arg == "-q") {
        o->quiet = true;
        continue;
      }
      if (arg == "--strict") {
        o->strict = true;
        continue;
      }
      if (arg == "--no-summary") {
        o->no_summary = true;
        continue;
      }
      if (takes_value(arg) && !has_value) {
        if (i + 1 >= args.size()) {
          *error = arg + " needs a value";
          return false;
        }
        value = args[++i];
      }
      if (arg == "--out") o->out = value;
      if (arg == "--out-dir") o->out_dir = value;
      if (arg == "--trace") o->trace = value;
      if (arg == "--vcd") o->vcd = value;
      if (arg == "--preset") o->preset = value;
      if (arg == "--set") o->sets.push_back(value);
      if (arg == "--trace-limit" || arg == "--vcd-period") {
        uint64_t n = 0;
        if (!parse_unsigned(value, &n) || n == 0) {
          *error = arg + " needs a positive integer, got " + quote(value);
          return false;
        }
        // The trace is kept in memory until written: about 40 bytes an event.
        if (arg == "--trace-limit" && n > kMaxTraceLimit) {
          *error = "--trace-limit is at most " + std::to_string(kMaxTraceLimit) + ", got " +
                   quote(value);
          return false;
        }
        (arg == "--trace-limit" ? o->trace_limit : o->vcd_period_ns) = n;
      }
      if (arg == "--steps") {
        uint64_t n = 0;
        if (!parse_unsigned(value, &n) || n > 100000) {
          *error = "--steps needs an integer 0..100000, got " + quote(value);
          return false;
        }
        o->steps = n;
      }
      if (arg == "--seed") {
        uint64_t seed = 0;
        if (!parse_unsigned(value, &seed)) {
          *error = "--seed needs a non-negative integer, got " + quote(value);
          return false;
        }
        o->seed = seed;
      }
      if (takes_value(arg) && value.empty()) {
        *error = arg + " needs a non-empty value";
        return false;
      }
      continue;
    }
    if (o->command != "run" && o->command != "validate" && o->command != "expect") {
      *error = o->command + " takes no file";
      return false;
    }
    if (!o->file.empty() && o->command != "run") {
      *error = "more than one file given (" + quote(o->file) + ", " + quote(arg) + ")";
      return false;
    }
    if (o->file.empty()) o->file = arg;
    o->files.push_back(arg);
  }
  if (o->files.size() > 1 && !o->out.empty()) {
    *error = "--out takes a single scenario file (several: --out-dir DIR)";
    return false;
  }
  if (o->files.size() > 1 && (!o->trace.empty() || !o->vcd.empty())) {
    *error = "--trace and --vcd take a single scenario file";
    return false;
  }
  if (!o->out.empty() && !o->out_dir.empty()) {
    *error = "--out and --out-dir together";
    return false;
  }
  if (!o->help && (o->command == "run" || o->command == "validate" || o->command == "expect") &&
      o->file.empty()) {
    *error = o->command + " needs a scenario file";
    return false;
  }
  if (!o->help && o->command == "gen" && !o->seed) {
    *error = "gen needs --seed N";
    return false;
  }
  return true;
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            const RefOptions& reference) {
  try {
    CliOptions o;
    std::string error;
    if (!parse_cli(args, &o, &error)) {
      err << "rnicsim: " << error << " (see rnicsim " << (o.command.empty() ? "" : o.command + " ")
          << "--help)\n";
      return kExitInvalid;
    }
    if (o.command == "help") {
      out << kUsage;
      return kExitPassed;
    }
    if (o.command == "version") {
      out << "rnicsim " << version() << '\n';
      return kExitPassed;
    }
    if (o.help) {
      out << usage_of(o.command);
      return kExitPassed;
    }
    if (o.command == "params") return cmd_params(o, out, err);
    if (o.command == "presets") return cmd_presets(out);
    if (o.command == "stats") return cmd_stats(out);
    if (o.command == "validate") return cmd_validate(o, out, err);
    if (o.command == "gen") return cmd_gen(o, reference, out, err);
    if (o.command == "expect") return cmd_expect(o, reference, out, err);
    return cmd_run(o, out, err);
  } catch (const std::bad_alloc&) {
    err << "rnicsim: out of memory\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    err << "rnicsim: internal error: " << e.what() << '\n';
    return kExitInternal;
  } catch (...) {
    err << "rnicsim: internal error: unknown exception\n";
    return kExitInternal;
  }
}

}  // namespace rnic::app
