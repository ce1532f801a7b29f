// SPDX-License-Identifier: Apache-2.0
// Internals of the command line: the command table, each command's entry point and usage
// text (one file per command), and the helpers several commands share.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "app/generator/generator.h"
#include "app/scenario/scenario.h"

namespace rnic::app {

struct CommandContext {
  const CliOptions& options;
  const RefOptions& reference;  // gen, expect: the reference model's options
  std::ostream& out;
  std::ostream& err;
  bool simulate = true;  // false: `run` stops before simulating (run_cli)
};

struct Command {
  enum class Files { None, One, Many };
  const char* name;
  Files files;
  const char* usage;  // synopsis and description; the option lines come from the option table
  int (*run)(const CommandContext&);
};

// Every command, in the order of the main usage text; nullptr for an unknown name.
const Command* find_command(const std::string& name);
std::vector<std::string> command_names();  // for "did you mean"

int cmd_run(const CommandContext& c);
int cmd_validate(const CommandContext& c);
int cmd_gen(const CommandContext& c);
int cmd_expect(const CommandContext& c);
int cmd_params(const CommandContext& c);
int cmd_presets(const CommandContext& c);
int cmd_stats(const CommandContext& c);
int cmd_schema(const CommandContext& c);
int cmd_report(const CommandContext& c);
int cmd_coverage(const CommandContext& c);
extern const char* const kRunUsage;
extern const char* const kValidateUsage;
extern const char* const kGenUsage;
extern const char* const kExpectUsage;
extern const char* const kParamsUsage;
extern const char* const kPresetsUsage;
extern const char* const kStatsUsage;
extern const char* const kSchemaUsage;
extern const char* const kReportUsage;
extern const char* const kCoverageUsage;

// Lines "  --out FILE     meaning" for the options COMMAND accepts (the option table).
std::string option_lines(const std::string& command);

// "file.json:12:7: steps[3].qp: unknown QP "qpX"" (the compiler convention, for editors).
std::string file_error(const std::string& file, const ScenarioError& e);
// Writes text to --out, or to `out` without --out; exit status.
int write_output(const CommandContext& c, const std::string& text);
// Reads a JSON file the command takes (a regular file only: a FIFO would block); false with
// `error` set ("FILE: why").
bool read_json_input(const std::string& path, nlohmann::json* out, std::string* error);

}  // namespace rnic::app
