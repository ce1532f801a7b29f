// SPDX-License-Identifier: Apache-2.0
// rnicsim coverage: merge coverage files, report one, list the bins.
#include "app/coverage/coverage.h"

#include "app/cli/commands.h"
#include "app/scenario/text.h"

namespace rnic::app {

const char* const kCoverageUsage =
    "usage: rnicsim coverage merge FILE.json... [--out MERGED.json]\n"
    "       rnicsim coverage report FILE.json [--markdown] [--out REPORT]\n"
    "       rnicsim coverage bins [--markdown] [--out LIST]\n"
    "\n"
    "A coverage file is what `rnicsim run --coverage` writes: how often each named bin was\n"
    "hit (rule:ID:passed|decided, status:Type:STATUS, object:list:kind:state,\n"
    "flag:FLAG:verb, side:side:verb). merge adds files up. report prints per group the bins,\n"
    "the reachable ones and those hit, the rules that decided and how often, and every\n"
    "hole: a reachable bin never hit. bins lists every bin, and for one that cannot be hit\n"
    "the reason. Exit 0 done, 2 a bad file or option.\n";

namespace {

bool load(const CommandContext& c, const std::string& path, coverage::Coverage* out) {
  nlohmann::json j;
  std::string error;
  if (!read_json_input(path, &j, &error)) {
    c.err << "rnicsim: coverage: " << error << '\n';
    return false;
  }
  if (!coverage::from_json(j, out, &error)) {
    c.err << "rnicsim: coverage: " << path << ": " << error << '\n';
    return false;
  }
  return true;
}

std::string bins_text(bool markdown) {
  std::string out;
  if (markdown) out += "| bin | reachable |\n|---|---|\n";
  for (const coverage::Bin& b : coverage::all_bins()) {
    if (markdown) {
      out += "| `" + b.id + "` | " + (b.unreachable ? std::string("no: ") + b.unreachable : "yes") +
             " |\n";
    } else {
      out += b.id + '\t' + (b.unreachable ? b.unreachable : "reachable") + '\n';
    }
  }
  return out;
}

}  // namespace

int cmd_coverage(const CommandContext& c) {
  const CliOptions& o = c.options;
  const std::string& sub = o.files.front();
  if (sub == "bins") return write_output(c, bins_text(o.markdown));
  coverage::Coverage total;
  for (size_t i = 1; i < o.files.size(); ++i) {
    coverage::Coverage one;
    if (!load(c, o.files[i], &one)) return kExitInvalid;
    total.merge(one);
  }
  if (sub == "merge") return write_output(c, total.text());
  return write_output(c, coverage::report(total, o.markdown));
}

}  // namespace rnic::app
