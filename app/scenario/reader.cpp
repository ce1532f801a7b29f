// SPDX-License-Identifier: Apache-2.0
// Reader: typed, range-checked access to one JSON object of a scenario file.
#include <algorithm>
#include <cmath>

#include "app/scenario/parse.h"
#include "app/scenario/schema.h"
#include "app/scenario/suggest.h"
#include "app/scenario/text.h"
#include "host_api/ndk.h"

namespace rnic::app {

using nlohmann::json;

const char* kind_label(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::Buffer:
      return "buffer";
    case ObjectKind::Pd:
      return "PD";
    case ObjectKind::Cq:
      return "CQ";
    case ObjectKind::Qp:
      return "QP";
    case ObjectKind::Mr:
      return "MR";
    case ObjectKind::Mw:
      return "MW";
    case ObjectKind::Saved:
      return "saved value";
  }
  return "object";
}

void throw_at(const JsonPath& path, const std::string& message) {
  throw ScenarioError(path, message);
}

Reader::Reader(const json& object, JsonPath path, ParseState& state)
    : object_(object), path_(std::move(path)), state_(state) {}

bool Reader::has(const std::string& key) const {
  return object_.contains(key);
}

const json& Reader::at(const std::string& key) const {
  auto it = object_.find(key);
  if (it == object_.end()) fail(key, "missing required field");
  return *it;
}

void Reader::fail(const std::string& key, const std::string& message) const {
  throw_at(path_.key(key), message);
}

void Reader::only(std::initializer_list<const char*> allowed) const {
  only(std::vector<const char*>(allowed));
}

void Reader::only(const std::vector<const char*>& allowed) const {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    const bool ok =
        std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return it.key() == a; });
    if (ok) continue;
    const std::vector<std::string> names = strings(allowed);
    fail(it.key(),
         "unknown field" + did_you_mean(it.key(), names, name_list("allowed here", names)));
  }
}

std::string Reader::string(const std::string& key) const {
  const json& j = at(key);
  if (!j.is_string()) fail(key, std::string("must be a string, not ") + j.type_name());
  return j.get<std::string>();
}

std::string Reader::string_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? string(key) : fallback;
}

bool Reader::boolean_or(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const json& j = at(key);
  if (!j.is_boolean()) fail(key, std::string("must be true or false, not ") + j.type_name());
  return j.get<bool>();
}

Value Reader::parse_value(const json& j, const JsonPath& path, uint64_t max) const {
  Value v;
  v.path = path;
  if (j.is_number_unsigned()) {
    v.literal = j.get<uint64_t>();
    v.text = std::to_string(v.literal);
  } else if (j.is_number_integer()) {
    throw_at(path, "must not be negative (got " + std::to_string(j.get<int64_t>()) + ")");
  } else if (j.is_number_float()) {
    // nlohmann reads an integer beyond 64 bits as a double: say that, not "not an integer".
    const double d = j.get<double>();
    if (d >= 18446744073709551616.0 && d == std::floor(d)) {
      throw_at(path, "is out of range (more than 64 bits)");
    }
    throw_at(path, "must be an integer (got " + j.dump() + ")");
  } else if (j.is_string()) {
    const std::string s = j.get<std::string>();
    v.text = s;
    if (!s.empty() && s[0] == '$') {
      const std::string error = parse_reference(
          s, [this](const std::string& n) { return state_.symbols.count(n) > 0; }, &v);
      // An unknown object's name is in v.name (value.h): suggest a defined one.
      if (!error.empty()) throw_at(path, error + did_you_mean(v.name, symbol_names({})));
      const ObjectKind kind = state_.symbols.at(v.name).kind;
      const Value::Field f = v.field;
      const bool ok =
          (f == Value::Field::None && kind == ObjectKind::Saved) ||
          (f == Value::Field::Token && (kind == ObjectKind::Mr || kind == ObjectKind::Mw)) ||
          (f == Value::Field::LocalToken && kind == ObjectKind::Mr) ||
          ((f == Value::Field::Va || f == Value::Field::Length) &&
           (kind == ObjectKind::Mr || kind == ObjectKind::Mw || kind == ObjectKind::Buffer));
      if (!ok) {
        throw_at(path,
                 quote(v.name) + " is a " + kind_label(kind) +
                     (f == Value::Field::None ? std::string(": name a field (.token, .va, ...)")
                                              : std::string(" and has no .") + field_name(f)));
      }
      v.path = path;
      return v;
    }
    const bool hex_form = s.size() >= 3 &&
                          (s.compare(0, 2, "0x") == 0 || s.compare(0, 2, "0X") == 0) &&
                          s.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
    if (hex_form && !parse_unsigned(s, &v.literal))
      throw_at(path, s + " is out of range (more than 64 bits)");
    if (!hex_form) {
      throw_at(path, "must be an integer, a hex string like \"0x1000\" or a $reference (got " +
                         quote(s) + ")");
    }
  } else {
    throw_at(path,
             std::string("must be an integer, a hex string or a $reference, not ") + j.type_name());
  }
  if (v.literal > max) {
    throw_at(path, v.text + " is out of range (at most " + std::to_string(max) + ")");
  }
  return v;
}

uint64_t Reader::literal(const std::string& key, uint64_t min, uint64_t max) const {
  const Value v = parse_value(at(key), path_.key(key), max);
  if (v.is_ref) fail(key, "must be a literal number here, not a reference");
  if (v.literal < min) {
    fail(key, v.text + " is out of range (at least " + std::to_string(min) + ")");
  }
  return v.literal;
}

uint64_t Reader::literal_or(const std::string& key, uint64_t fallback, uint64_t min,
                            uint64_t max) const {
  return has(key) ? literal(key, min, max) : fallback;
}

Value Reader::value(const std::string& key, uint64_t max) const {
  return parse_value(at(key), path_.key(key), max);
}

Value Reader::value_or(const std::string& key, uint64_t fallback, uint64_t max) const {
  if (has(key)) return value(key, max);
  Value v = Value::of(fallback);
  v.path = path_.key(key);
  v.text = std::to_string(fallback);
  return v;
}

std::optional<Value> Reader::optional_value(const std::string& key, uint64_t max) const {
  if (!has(key)) return std::nullopt;
  return value(key, max);
}

std::string Reader::object(const std::string& key, std::initializer_list<ObjectKind> kinds) const {
  const std::string name = string(key);
  std::string wanted;
  for (ObjectKind k : kinds) wanted += std::string(wanted.empty() ? "" : " or ") + kind_label(k);
  auto it = state_.symbols.find(name);
  if (it == state_.symbols.end()) fail(key, unknown_name(wanted, name, symbol_names(kinds)));
  if (std::find(kinds.begin(), kinds.end(), it->second.kind) == kinds.end()) {
    fail(key, quote(name) + " is a " + kind_label(it->second.kind) + ", not a " + wanted);
  }
  return name;
}

std::vector<std::string> Reader::symbol_names(std::initializer_list<ObjectKind> kinds) const {
  std::vector<std::string> names;
  for (const auto& [name, symbol] : state_.symbols) {
    if (kinds.size() == 0 || std::find(kinds.begin(), kinds.end(), symbol.kind) != kinds.end())
      names.push_back(name);
  }
  return names;
}

std::string Reader::define(ObjectKind kind, uint32_t node, size_t step, uint64_t size) const {
  const std::string name = string("name");
  if (name.empty()) fail("name", "must not be empty");
  if (name.size() > 128) fail("name", "longer than 128 characters");
  if (name[0] == '$') fail("name", "must not start with '$' (that marks a reference)");
  if (name.find_first_of(" \t\r\n") != std::string::npos) fail("name", "must not contain spaces");
  auto it = state_.symbols.find(name);
  if (it != state_.symbols.end()) {
    fail("name", "duplicate name " + quote(name) + " (first defined by steps[" +
                     std::to_string(it->second.step) + "])");
  }
  Symbol symbol{kind, node, step, size, false};
  state_.symbols.emplace(name, symbol);
  return name;
}

uint32_t Reader::node(const std::string& key) const {
  const std::string name = string(key);
  for (size_t i = 0; i < state_.nodes.size(); ++i) {
    if (state_.nodes[i] == name) return uint32_t(i);
  }
  fail(key, unknown_name("node", name, state_.nodes, name_list("nodes", state_.nodes)));
}

uint32_t Reader::flags(const std::string& key, bool (*lookup)(const std::string&, uint32_t*),
                       const std::vector<const char*>& known) const {
  if (!has(key)) return 0;
  const json& j = at(key);
  if (j.is_number_unsigned()) {  // raw bits: for tests of undefined flag values
    const uint64_t v = j.get<uint64_t>();
    if (v > UINT32_MAX) fail(key, "flag bits out of range");
    return uint32_t(v);
  }
  if (!j.is_array()) fail(key, std::string("must be an array of flag names, not ") + j.type_name());
  uint32_t bits = 0;
  for (size_t i = 0; i < j.size(); ++i) {
    const JsonPath p = path_.key(key).index(i);
    if (!j[i].is_string()) throw_at(p, std::string("must be a flag name, not ") + j[i].type_name());
    uint32_t v = 0;
    if (!lookup(j[i].get<std::string>(), &v)) {
      const std::vector<std::string> names = strings(known);
      throw_at(p, unknown_name("flag", j[i].get<std::string>(), names, name_list("known", names)));
    }
    bits |= v;
  }
  return bits;
}

uint32_t Reader::op_flags(const std::string& key) const {
  return flags(key, ndk::op_flag_from_name, op_flag_names());
}
uint32_t Reader::mr_flags(const std::string& key) const {
  return flags(key, ndk::mr_flag_from_name, mr_flag_names());
}

uint32_t Reader::status(const std::string& key) const {
  const std::string name = string(key);
  uint32_t v = 0;
  if (!ndk::status_from_name(name, &v)) {
    const std::vector<std::string> names = strings(status_names());
    fail(key, unknown_name("status", name, names, name_list("known", names)));
  }
  return v;
}

uint32_t Reader::operation_type(const std::string& key) const {
  const std::string name = string(key);
  uint32_t v = 0;
  if (!ndk::operation_type_from_name(name, &v)) {
    const std::vector<std::string> names = strings(operation_type_names());
    fail(key, unknown_name("completion type", name, names, name_list("known", names)));
  }
  return v;
}

RuleId Reader::rule(const std::string& key) const {
  const std::string name = string(key);
  RuleId v = RuleId::None;
  if (!rule_from_name(name, &v)) {
    std::vector<std::string> names;
    for (RuleId r : all_rules()) names.push_back(rule_name(r));
    // The whole table is long: a suggestion and where to find the list.
    fail(key, unknown_name("rule", name, names, " (the rules: docs/spec-rules.tsv)"));
  }
  return v;
}

Reader Reader::object_reader(const std::string& key) const {
  const json& j = at(key);
  if (!j.is_object()) fail(key, std::string("must be an object, not ") + j.type_name());
  return Reader(j, path_.key(key), state_);
}

}  // namespace rnic::app
