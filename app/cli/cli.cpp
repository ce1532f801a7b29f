// SPDX-License-Identifier: Apache-2.0
// The command table and the dispatch; parsing is in options.cpp, each command in its file.
#include "app/cli/cli.h"

#include "app/runner/rtl_units.h"

#include <sys/stat.h>

#include <exception>
#include <fstream>
#include <new>
#include <sstream>

#include "app/cli/commands.h"
#include "app/runner/output_files.h"
#include "app/runner/results.h"
#include "app/runner/rtl_units.h"
#include "app/scenario/text.h"

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
    "  schema              write the JSON Schema of scenario files (scenarios/schema.json)\n"
    "  report FILE.json    per-request stage breakdown of a trace (count, mean, p50, p99\n"
    "                      per stage, end-to-end latency), or a results file's latencies\n"
    "  coverage merge|report|bins\n"
    "                      merge coverage files (run --coverage), report one (holes\n"
    "                      included), or list every bin and why it may be unreachable\n"
    "\n"
    "  rnicsim --help | rnicsim COMMAND --help | rnicsim --version\n";

using Files = Command::Files;
const Command kCommands[] = {
    {"run", Files::Many, kRunUsage, cmd_run},
    {"validate", Files::One, kValidateUsage, cmd_validate},
    {"gen", Files::None, kGenUsage, cmd_gen},
    {"expect", Files::One, kExpectUsage, cmd_expect},
    {"params", Files::None, kParamsUsage, cmd_params},
    {"presets", Files::None, kPresetsUsage, cmd_presets},
    {"stats", Files::None, kStatsUsage, cmd_stats},
    {"schema", Files::None, kSchemaUsage, cmd_schema},
    {"report", Files::One, kReportUsage, cmd_report},
    {"coverage", Files::Many, kCoverageUsage, cmd_coverage},
};

}  // namespace

const Command* find_command(const std::string& name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const Command& c : kCommands) names.push_back(c.name);
  return names;
}

std::string file_error(const std::string& file, const ScenarioError& e) {
  std::string where = file;
  if (e.line) where += ":" + std::to_string(e.line) + ":" + std::to_string(e.column);
  return where + ": " + e.what();
}

int write_output(const CommandContext& c, const std::string& text) {
  const std::string& path = c.options.out;
  if (path.empty()) {
    c.out << text;
    return kExitPassed;
  }
  const std::string refused = check_output_file("--out", path, c.options.files);
  if (!refused.empty()) {
    c.err << "rnicsim: " << refused << '\n';
    return kExitInvalid;
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) {
    c.err << "rnicsim: cannot write " << quote(path) << '\n';
    return kExitInvalid;
  }
  return kExitPassed;
}

bool read_json_input(const std::string& path, nlohmann::json* out, std::string* error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    *error = quote(path) + ": no such file";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *error = quote(path) + ": not a regular file";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    *error = "cannot read " + quote(path);
    return false;
  }
  try {
    *out = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    *error = quote(path) + ": not JSON (" + e.what() + ")";
    return false;
  }
  return true;
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            const RefOptions& reference, bool simulate) {
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
      const std::string& rtl = rtl_units().protection_description;
      if (!rtl.empty()) out << "RTL units: " << rtl << '\n';
      return kExitPassed;
    }
    const Command& command = *find_command(o.command);
    if (o.help) {
      const std::string options = option_lines(o.command);
      out << command.usage << (options.empty() ? "" : "\n") << options;
      return kExitPassed;
    }
    return command.run(CommandContext{o, reference, out, err, simulate});
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
