// SPDX-License-Identifier: Apache-2.0
// rnicsim params, presets and stats: the tables the code owns, for people and for docs/.
#include <algorithm>

#include "app/cli/commands.h"
#include "app/scenario/params.h"
#include "model/platform/system.h"

namespace rnic::app {

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
    "objects in the JSON; docs/generated/stats.md describes them.\n";

const char* const kPresetsUsage =
    "usage: rnicsim presets\n"
    "\n"
    "Lists the config presets and the keys each one changes from the defaults.\n";

namespace {

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

}  // namespace

int cmd_params(const CommandContext& c) {
  const std::string& preset = c.options.preset;
  SystemConfig config;
  const std::string error = apply_preset(config, preset.empty() ? "default" : preset);
  if (!error.empty()) {
    c.err << "rnicsim: " << error << '\n';
    return kExitInvalid;
  }
  print_params(c.out, config);
  return kExitPassed;
}

int cmd_presets(const CommandContext& c) {
  std::ostream& out = c.out;
  for (const Preset& p : preset_table()) {
    out << p.name << ": " << p.description << '\n';
    for (const auto& [key, value] : p.values) out << "    " << key << " = " << value << '\n';
  }
  return kExitPassed;
}

// Elaborates a one-node system named NODE (monitor included) and walks its statistics: the
// same walk that fills "stats" after a run, so the list cannot drift from the code.
int cmd_stats(const CommandContext& c) {
  std::ostream& out = c.out;
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

}  // namespace rnic::app
