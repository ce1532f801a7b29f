// SPDX-License-Identifier: Apache-2.0
// rnicsim expect: recompute a scenario's expectations with the reference model.
#include <fstream>
#include <sstream>

#include "app/cli/commands.h"
#include "app/scenario/text.h"

namespace rnic::app {

const char* const kExpectUsage =
    "usage: rnicsim expect FILE.json [--out FILE2.json] [--strict]\n"
    "\n"
    "Recomputes every expectation of a scenario with the reference model: each call's\n"
    "`expect`, each poll's `count` and completions (everything pending at that point), and a\n"
    "check of every byte of every buffer at the end (replacing the file's expect_memory\n"
    "steps). Steps whose outcome could depend on timing are reported on stderr; with\n"
    "--strict they are an error. Output: FILE2.json or stdout.\n"
    "Exit 0 written, 2 invalid file, an op the model does not cover, or (--strict) a race.\n";

int cmd_expect(const CommandContext& c) {
  const CliOptions& o = c.options;
  std::ifstream in(o.file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    c.err << "rnicsim: cannot read " << quote(o.file) << '\n';
    return kExitInvalid;
  }
  OrderedJson scenario;
  std::vector<std::string> races;
  try {
    scenario = refill_expectations(text.str(), c.reference, &races);
  } catch (const ScenarioError& e) {
    c.err << file_error(o.file, e) << '\n';
    return kExitInvalid;
  } catch (const RefUnsupported& e) {
    c.err << o.file << ": the reference model cannot predict this scenario: " << e.what() << '\n';
    return kExitInvalid;
  }
  for (const std::string& r : races)
    c.err << o.file << ": " << (o.strict ? "error" : "warning") << ": " << r << '\n';
  if (o.strict && !races.empty()) return kExitInvalid;
  return write_output(c, format_scenario(scenario));
}

}  // namespace rnic::app
