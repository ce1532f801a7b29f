// SPDX-License-Identifier: Apache-2.0
// The one table of configuration parameters: dotted key, unit, meaning, range, and where the
// value lives in SystemConfig. It drives `config.set`, `--set`, presets, `rnicsim params` and
// the `config` object of the results, so a key exists everywhere or nowhere.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "model/config/config.h"

namespace rnic::app {

struct ParamDef {
  // Choice: one of the names param_choices() lists, stored as its index.
  enum class Kind { Integer, Real, Choice };
  enum class Rule { Range, PowerOfTwo };

  const char* key;          // "pcie.mrrs"
  const char* unit;         // "bytes"
  const char* description;  // one line
  Kind kind;
  double min;  // inclusive
  double max;  // inclusive
  Rule rule;
  std::function<double(const SystemConfig&)> get;
  std::function<void(SystemConfig&, double)> set;
};

struct Preset {
  const char* name;
  const char* description;
  std::vector<std::pair<const char*, const char*>> values;  // key -> value, over the defaults
};

// Every parameter, in display order.
const std::vector<ParamDef>& param_table();
const ParamDef* find_param(const std::string& key);
// The names of a Choice key's values, in index order (empty for other keys).
const std::vector<std::string>& param_choices(const ParamDef& def);
const std::vector<Preset>& preset_table();

// "unknown config key "pcie.genx"; did you mean "pcie.gen"?" (or where the keys are listed).
std::string unknown_param(const std::string& key);
// All setters return an empty string on success, else the error text (no path prefix).
// `text` is a decimal or 0x-hex integer, a decimal real for real-valued keys, or a name for a
// Choice key.
std::string set_param(SystemConfig& config, const std::string& key, const std::string& text);
std::string set_param_value(SystemConfig& config, const std::string& key, double value,
                            bool is_integer);
// Resets `config` to the defaults, then applies the preset's values.
std::string apply_preset(SystemConfig& config, const std::string& name);
// Checks that span several keys (cache geometry, tables fitting in host memory).
std::string check_config(const SystemConfig& config);

// Effective value of every key, formatted: integers without a fraction.
struct ParamValue {
  std::string key;
  bool is_integer;
  double value;
  std::string choice;  // a Choice key's value by name ("" for other keys)
};
std::vector<ParamValue> effective_params(const SystemConfig& config);
std::string format_param_value(const ParamDef& def, double value);

}  // namespace rnic::app
