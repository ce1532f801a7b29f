// SPDX-License-Identifier: Apache-2.0
// The option table: one row per option and command group drives parsing, validation and the
// option lines of each command's usage text.
#include <algorithm>
#include <cstdint>
#include <sstream>

#include "app/cli/commands.h"
#include "app/observe/trace_window.h"
#include "app/scenario/suggest.h"
#include "app/scenario/text.h"

namespace rnic::app {

namespace {

struct Option {
  const char* name;      // "--out"
  const char* alias;     // "-q", or nullptr
  const char* value;     // the value's placeholder in usage ("FILE"); nullptr for a flag
  const char* commands;  // the commands that accept it, space-separated; "*" for all
  const char* help;      // one line; '\n' continues it under the same column
  // Stores the value; false with `error` set when it is malformed.
  bool (*set)(CliOptions* o, const std::string& value, std::string* error);
};

bool store_positive(const char* name, const std::string& value, uint64_t max, uint64_t* out,
                    std::string* error) {
  uint64_t n = 0;
  if (!parse_unsigned(value, &n) || n == 0) {
    *error = std::string(name) + " needs a positive integer, got " + quote(value);
    return false;
  }
  if (n > max) {
    *error = std::string(name) + " is at most " + std::to_string(max) + ", got " + quote(value);
    return false;
  }
  *out = n;
  return true;
}

bool store_seed(CliOptions* o, const std::string& v, std::string* error) {
  uint64_t seed = 0;
  if (!parse_unsigned(v, &seed)) {
    *error = "--seed needs a non-negative integer, got " + quote(v);
    return false;
  }
  o->seed = seed;
  return true;
}

bool store_quiet(CliOptions* o, const std::string&, std::string*) {
  return o->quiet = true;
}

using E = std::string;
const std::vector<Option>& option_table() {
  static const std::vector<Option> table = {
      {"--help", "-h", nullptr, "*", "this text",
       [](CliOptions* o, const E&, E*) { return o->help = true; }},
      {"--out", nullptr, "FILE", "run",
       "write the results JSON (config, per-step results, statistics)",
       [](CliOptions* o, const E& v, E*) { return o->out = v, true; }},
      {"--out", nullptr, "FILE.json", "gen expect schema", "write there instead of stdout",
       [](CliOptions* o, const E& v, E*) { return o->out = v, true; }},
      {"--out", nullptr, "FILE", "coverage",
       "write there instead of stdout (merge: the merged JSON; report, bins:\n"
       "the text)",
       [](CliOptions* o, const E& v, E*) { return o->out = v, true; }},
      {"--out-dir", nullptr, "DIR", "run",
       "write each file's results JSON to DIR/NAME.json, NAME being the file's\n"
       "name without .json (the names must differ; DIR must exist)",
       [](CliOptions* o, const E& v, E*) { return o->out_dir = v, true; }},
      {"--trace", nullptr, "FILE", "run",
       "timeline of every WQE's stages, Chrome/Perfetto trace-event JSON\n"
       "(open in ui.perfetto.dev or chrome://tracing)",
       [](CliOptions* o, const E& v, E*) { return o->trace = v, true; }},
      // The trace is kept in memory until written: about 40 bytes an event.
      {"--trace-limit", nullptr, "N", "run",
       "record at most N trace events (default 200000, at most 10000000),\n"
       "then stop recording",
       [](CliOptions* o, const E& v, E* e) {
         return store_positive("--trace-limit", v, kMaxTraceLimit, &o->trace_limit, e);
       }},
      // The window: checked against the file (a step must exist) before simulating, in run.cpp.
      {"--trace-from", nullptr, "STEP|TIME", "run",
       "start the trace at a step (index, -1: the last, stepN,\n"
       "or the name it defines) or at a time (25us; ns us ms s);\n"
       "--trace-limit counts from there",
       [](CliOptions* o, const E& v, E* e) {
         TraceFrom from;
         return parse_trace_from(v, &from, e) && (o->trace_from = v, true);
       }},
      {"--trace-period", nullptr, "NS", "run",
       "sampling period of the trace's counter tracks\n"
       "(default 100 ns; 0: none)",
       [](CliOptions* o, const E& v, E* e) {
         uint64_t n = 0;
         if (!parse_unsigned(v, &n) || n > 1000000000) {
           *e = "--trace-period needs an integer 0..1000000000 (ns), got " + quote(v);
           return false;
         }
         o->trace_period_ns = n;
         return true;
       }},
      {"--coverage", nullptr, "FILE.json", "run",
       "write the functional coverage of the run (bins hit and how often;\n"
       "several files: one coverage, theirs together); `rnicsim coverage`\n"
       "merges and reports",
       [](CliOptions* o, const E& v, E*) { return o->coverage = v, true; }},
      {"--divergence-dir", nullptr, "DIR", "run",
       "protection.implementation=lockstep: where the first divergence's report\n"
       "goes, DIR/NAME-lockstep-NODE-protection.json and .vcd (default: .)",
       [](CliOptions* o, const E& v, E*) { return o->divergence_dir = v, true; }},
      {"--vcd", nullptr, "FILE", "run", "waveforms of key signals per node (SystemC VCD)",
       [](CliOptions* o, const E& v, E*) { return o->vcd = v, true; }},
      {"--vcd-period", nullptr, "NS", "run", "sampling period of the waveforms (default 100 ns)",
       [](CliOptions* o, const E& v, E* e) {
         return store_positive("--vcd-period", v, UINT64_MAX, &o->vcd_period_ns, e);
       }},
      {"--set", nullptr, "K=V", "run validate",
       "override a config key (see `rnicsim params`); repeatable",
       [](CliOptions* o, const E& v, E*) { return o->sets.push_back(v), true; }},
      {"--seed", nullptr, "N", "run", "seed for every random choice (default: the file's, else 1)",
       store_seed},
      {"--seed", nullptr, "N", "gen", "seed of every random choice (required)", store_seed},
      {"--steps", nullptr, "K", "gen", "random actions after the setup (default 40)",
       [](CliOptions* o, const E& v, E* e) {
         uint64_t n = 0;
         if (!parse_unsigned(v, &n) || n > 100000) {
           *e = "--steps needs an integer 0..100000, got " + quote(v);
           return false;
         }
         o->steps = n;
         return true;
       }},
      // Bins, not yet checked: the generator knows them (gen.cpp refuses an unknown one).
      {"--focus", nullptr, "BIN[,BIN]", "gen",
       "aim the random choices at these coverage bins or prefixes of bins\n"
       "(status:ReceiveAndInvalidate:, rule:R5.bind.); repeatable",
       [](CliOptions* o, const E& v, E*) {
         for (size_t start = 0; start <= v.size();) {
           const size_t comma = std::min(v.find(',', start), v.size());
           if (comma > start) o->focus.push_back(v.substr(start, comma - start));
           start = comma + 1;
         }
         return true;
       }},
      {"--weights", nullptr, "W.json", "gen",
       "weigh the random choices by bin: {\"BIN-or-prefix\": weight, ...}\n"
       "(1 leaves a choice as it is, 0 avoids it)",
       [](CliOptions* o, const E& v, E*) { return o->weights = v, true; }},
      {"--markdown", nullptr, nullptr, "coverage", "report, bins: Markdown instead of a table",
       [](CliOptions* o, const E&, E*) { return o->markdown = true; }},
      {"--quiet", "-q", nullptr, "run", "no summary on stdout", store_quiet},
      {"--quiet", "-q", nullptr, "validate", "no \"valid\" line on stdout", store_quiet},
      {"--no-summary", nullptr, nullptr, "run",
       "the summary line and workload lines only, without the unit statistics\n"
       "table (per node counters, latency percentiles in ns, occupancies)",
       [](CliOptions* o, const E&, E*) { return o->no_summary = true; }},
      {"--strict", nullptr, nullptr, "expect", "a step whose outcome could race is an error",
       [](CliOptions* o, const E&, E*) { return o->strict = true; }},
      {"--preset", nullptr, "NAME", "params", "values of preset NAME instead of the defaults",
       [](CliOptions* o, const E& v, E*) { return o->preset = v, true; }},
      // docs/user-guide.md, "Limits": the estimate of the whole run must fit in the budget.
      {"--memory-budget", nullptr, "SIZE", "run validate",
       "refuse files whose run is estimated to need more memory than SIZE\n"
       "(default 4GiB; units K, M, G, T or KiB, MiB, GiB, TiB)",
       [](CliOptions* o, const E& v, E* e) {
         uint64_t bytes = 0;
         if (!parse_byte_size(v, &bytes) || bytes < kMinMemoryBudget || bytes > kMaxMemoryBudget) {
           *e = "--memory-budget needs a size from " + format_size(kMinMemoryBudget) + " to " +
                format_size(kMaxMemoryBudget) + " such as 8GiB, got " + quote(v);
           return false;
         }
         o->memory_budget = bytes;
         return true;
       }},
  };
  return table;
}

bool accepts(const Option& option, const std::string& command) {
  if (std::string(option.commands) == "*") return true;
  std::istringstream words(option.commands);
  std::string word;
  while (words >> word) {
    if (word == command) return true;
  }
  return false;
}

// The row for `arg` (name or alias) that `command` accepts; nullptr if none.
const Option* find_option(const std::string& command, const std::string& arg) {
  for (const Option& option : option_table()) {
    if ((arg == option.name || (option.alias && arg == option.alias)) && accepts(option, command))
      return &option;
  }
  return nullptr;
}

// The long names `command` accepts (aliases are too short to tell apart), for "did you mean".
std::vector<std::string> option_names(const std::string& command) {
  std::vector<std::string> names;
  for (const Option& option : option_table()) {
    if (accepts(option, command)) names.push_back(option.name);
  }
  return names;
}

// coverage SUBCOMMAND FILE...: the subcommand comes first, as the first "file".
bool check_coverage_args(const CliOptions& o, std::string* error) {
  if (o.help) return true;
  const std::vector<std::string> subcommands = {"merge", "report", "bins"};
  if (o.files.empty()) {
    *error = "coverage needs merge, report or bins";
    return false;
  }
  const std::string& sub = o.files.front();
  if (std::find(subcommands.begin(), subcommands.end(), sub) == subcommands.end()) {
    *error = unknown_name("coverage subcommand", sub, subcommands, " (merge, report or bins)");
    return false;
  }
  const size_t files = o.files.size() - 1;
  if (sub == "merge" && files == 0) {
    *error = "coverage merge needs one or more coverage files";
    return false;
  }
  if (sub == "report" && files != 1) {
    *error = "coverage report takes one coverage file (merge several first)";
    return false;
  }
  if (sub == "bins" && files != 0) {
    *error = "coverage bins takes no file";
    return false;
  }
  if (sub == "merge" && o.markdown) {
    *error = "--markdown is for coverage report and bins";
    return false;
  }
  return true;
}

// Checks across options and files, once every argument is read.
bool check_combination(const CliOptions& o, const Command& command, std::string* error) {
  if (o.command == "coverage") return check_coverage_args(o, error);
  if (o.files.size() > 1 && !o.out.empty()) {
    *error = "--out takes a single scenario file (several: --out-dir DIR)";
    return false;
  }
  if (o.files.size() > 1 && (!o.trace.empty() || !o.vcd.empty())) {
    *error = "--trace and --vcd take a single scenario file";
    return false;
  }
  if (!o.out.empty() && !o.out_dir.empty()) {
    *error = "--out and --out-dir together";
    return false;
  }
  if (!o.help && command.files != Command::Files::None && o.file.empty()) {
    *error = o.command + " needs a scenario file";
    return false;
  }
  if (!o.help && o.command == "gen" && !o.seed) {
    *error = "gen needs --seed N";
    return false;
  }
  return true;
}

}  // namespace

std::string option_lines(const std::string& command) {
  constexpr size_t kNameColumn = 13;  // "--out-dir DIR": the help column starts 2 spaces after
  std::string lines;
  for (const Option& option : option_table()) {
    if (!accepts(option, command) || std::string(option.commands) == "*") continue;
    std::string left = option.name;
    if (option.value) left += std::string(" ") + option.value;
    const size_t column = 2 + std::max(left.size(), kNameColumn) + 2;
    left.resize(column - 2, ' ');
    lines += "  " + left;
    for (const char* c = option.help; *c; ++c) {
      lines += *c;
      if (*c == '\n') lines += std::string(column, ' ');
    }
    lines += '\n';
  }
  return lines;
}

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
  const Command* command = find_command(first);
  if (!command) {
    std::vector<std::string> names = command_names();
    names.insert(names.end(), {"help", "version", "--help", "--version"});  // taken above
    *error = unknown_name("command", first, names);
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
      const Option* option = find_option(o->command, arg);
      if (!option) {
        *error = "unknown option " + quote(arg) + " for " + o->command +
                 did_you_mean(arg, option_names(o->command));
        return false;
      }
      if (!option->value && has_value) {
        *error = arg + " takes no value (got " + quote(arg + "=" + value) + ")";
        return false;
      }
      if (option->value && !has_value) {
        if (i + 1 >= args.size()) {
          *error = arg + " needs a value";
          return false;
        }
        value = args[++i];
      }
      if (!option->set(o, value, error)) return false;
      if (option->value && value.empty()) {
        *error = arg + " needs a non-empty value";
        return false;
      }
      continue;
    }
    if (command->files == Command::Files::None) {
      *error = o->command + " takes no file";
      return false;
    }
    if (!o->file.empty() && command->files == Command::Files::One) {
      *error = "more than one file given (" + quote(o->file) + ", " + quote(arg) + ")";
      return false;
    }
    if (o->file.empty()) o->file = arg;
    o->files.push_back(arg);
  }
  return check_combination(*o, *command, error);
}

}  // namespace rnic::app
