// SPDX-License-Identifier: Apache-2.0
// Top level of a scenario file: name, seed, config, nodes, and the walk over the steps.
#include "app/scenario/scenario.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "app/scenario/json_scan.h"
#include "app/scenario/params.h"
#include "app/scenario/parse.h"
#include "app/scenario/preflight.h"
#include "app/scenario/suggest.h"
#include "app/scenario/text.h"

namespace rnic::app {

using nlohmann::json;

namespace {

constexpr size_t kMaxDepth = 64;
constexpr size_t kMaxSteps = 1000000;
constexpr size_t kMaxNodes = 64;
constexpr size_t kMaxFileBytes = 64u << 20;

ScenarioError at_offset(const std::string& text, size_t offset, const std::string& message) {
  ScenarioError e(JsonPath(), message);
  line_and_column(text, offset, &e.line, &e.column);
  return e;
}

// nlohmann's what(): "[json.exception.parse_error.101] parse error at line 3, column 5:
// syntax error ..." -> "syntax error ...": the line and column are ours.
std::string syntax_message(const std::string& what) {
  std::string m = what;
  const size_t bracket = m.find("] ");
  if (m.rfind("[json.exception", 0) == 0 && bracket != std::string::npos) m = m.substr(bracket + 2);
  const size_t colon = m.find(": ");
  if (m.rfind("parse error", 0) == 0 && colon != std::string::npos) m = m.substr(colon + 2);
  return "invalid JSON: " + m;
}

void parse_config(const Reader& top, Scenario& sc) {
  if (!top.has("config")) return;
  const Reader config = top.object_reader("config");
  config.only({"preset", "set", "comment"});
  sc.preset = config.string_or("preset", "default");
  const std::string error = apply_preset(sc.config, sc.preset);
  if (!error.empty()) config.fail("preset", error);
  if (!config.has("set")) return;
  const Reader set = config.object_reader("set");
  const json& values = config.at("set");
  for (auto it = values.begin(); it != values.end(); ++it) {
    const json& v = it.value();
    std::string err, text;
    if (v.is_number_unsigned()) {
      text = std::to_string(v.get<uint64_t>());
      err = set_param(sc.config, it.key(), text);
    } else if (v.is_number_integer() || v.is_number_float()) {
      text = v.dump();
      err = set_param_value(sc.config, it.key(), v.get<double>(), v.is_number_integer());
    } else if (v.is_string() && (v.get<std::string>().rfind("0x", 0) == 0 ||
                                 v.get<std::string>().rfind("0X", 0) == 0 ||
                                 (find_param(it.key()) &&
                                  find_param(it.key())->kind == ParamDef::Kind::Choice))) {
      // Hex strings as in steps ("0x" or "0X", parse_unsigned); a Choice key's value by name.
      text = v.get<std::string>();
      err = set_param(sc.config, it.key(), text);
    } else {
      err = find_param(it.key()) ? std::string("must be a number or a hex string, not ") +
                                       (v.is_string() ? quote(v.get<std::string>()) : v.type_name())
                                 : unknown_param(it.key());
    }
    // Messages from the table start with the key; the path already names it.
    const std::string prefix = it.key() + ": ";
    if (err.rfind(prefix, 0) == 0) err = err.substr(prefix.size());
    if (!err.empty()) set.fail(it.key(), err);
    sc.config_set.push_back(ConfigSetting{it.key(), text});
  }
}

void parse_nodes(const Reader& top, Scenario& sc) {
  if (!top.has("nodes")) {
    sc.nodes = {"A", "B"};
    return;
  }
  const json& list = top.at("nodes");
  if (!list.is_array()) top.fail("nodes", std::string("must be an array, not ") + list.type_name());
  if (list.empty()) top.fail("nodes", "needs at least one node");
  if (list.size() > kMaxNodes) top.fail("nodes", "more than 64 nodes");
  for (size_t i = 0; i < list.size(); ++i) {
    const JsonPath p = top.path("nodes").index(i);
    if (!list[i].is_string())
      throw_at(p, std::string("must be a string, not ") + list[i].type_name());
    const std::string name = list[i].get<std::string>();
    // Node names become SystemC module names: keep them to identifier characters.
    bool ok = !name.empty() && name.size() <= 32;
    for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ok) throw_at(p, "node names are 1-32 letters, digits or '_' (got " + quote(name) + ")");
    // Names of the modules beside the nodes (System's switch, the runner's driver and VCD
    // probe): a node of the same name would be renamed by SystemC (W505), and so its stats.
    for (const char* reserved : {"switch", "driver", "vcd_probe"}) {
      if (name == reserved) throw_at(p, quote(name) + " is reserved (the platform's own module)");
    }
    for (const std::string& other : sc.nodes) {
      if (other == name) throw_at(p, "duplicate node " + quote(name));
    }
    sc.nodes.push_back(name);
  }
}

void parse_steps(const Reader& top, Scenario& sc) {
  const json& steps = top.at("steps");
  if (!steps.is_array())
    top.fail("steps", std::string("must be an array, not ") + steps.type_name());
  if (steps.size() > kMaxSteps) top.fail("steps", "more than 1000000 steps");
  ParseState state;
  state.nodes = sc.nodes;
  state.allocated.assign(sc.nodes.size(), 0);
  for (size_t i = 0; i < steps.size(); ++i) {
    const JsonPath p = top.path("steps").index(i);
    if (!steps[i].is_object()) {
      throw_at(p, std::string("must be an object with an \"op\", not ") + steps[i].type_name());
    }
    const Reader r(steps[i], p, state);
    Step step;
    step.index = i;
    const std::string op = r.string("op");
    if (!op_from_name(op, &step.op)) {
      const std::vector<std::string> ops = op_names();
      r.fail("op", unknown_name("op", op, ops, name_list("known", ops)));
    }
    step.description = r.string_or("description", "");
    if (r.has("comment")) r.string("comment");
    parse_step_fields(r, step);
    sc.steps.push_back(std::move(step));
  }
}

}  // namespace

void visit_values(const Step& s, const std::function<void(const Value&)>& visit) {
  for (const Value* v : {&s.offset, &s.length, &s.context, &s.value, &s.remote.offset,
                         &s.remote.token, &s.remote.address, &s.equals_offset})
    visit(*v);
  for (const auto* v : {&s.va, &s.base_va, &s.page_count, &s.invalidate_token})
    if (*v) visit(**v);
  for (const SgeSpec& sge : s.sgl) {
    for (const Value* v : {&sge.offset, &sge.length, &sge.token, &sge.address}) visit(*v);
  }
  for (const PageSpec& page : s.page_list) {
    visit(page.index);
    visit(page.offset);
  }
  for (const CompletionExpect& c : s.completions) {
    for (const auto* v : {&c.context, &c.bytes, &c.qp_context, &c.type_specific})
      if (*v) visit(**v);
  }
}

ScenarioError::ScenarioError(JsonPath path, const std::string& message)
    : std::runtime_error(path.empty() ? message : path.str() + ": " + message),
      path_(std::move(path)),
      message_(message) {}

Scenario load_scenario(const std::string& text, const std::vector<std::string>& overrides) {
  // A UTF-8 byte-order mark is not part of the JSON text (RFC 8259 section 8.1 lets a parser
  // ignore it): drop it first, or the duplicate-key and position scanners would miss it.
  static const std::string kBom = "\xEF\xBB\xBF";
  if (text.compare(0, kBom.size(), kBom) == 0) {
    return load_scenario(text.substr(kBom.size()), overrides);
  }
  if (text.size() > kMaxFileBytes) throw ScenarioError(JsonPath(), "file larger than 64 MiB");
  // JSON text never holds a raw NUL; the parser would read one as the end of input.
  const size_t nul = text.find('\0');
  if (nul != std::string::npos) {
    throw at_offset(text, nul, "invalid JSON: NUL byte (not a text file?)");
  }
  const size_t deep = find_excess_depth(text, kMaxDepth);
  if (deep != std::string::npos) throw at_offset(text, deep, "nesting deeper than 64 levels");
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw at_offset(text, e.byte > 0 ? e.byte - 1 : 0, syntax_message(e.what()));
  } catch (const json::out_of_range& e) {
    // A number beyond a double ("1e400"): the parser names it but gives no position.
    const std::string what = e.what();
    const size_t open = what.find('\''), close = what.rfind('\'');
    const std::string number =
        open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : "";
    const size_t at = number.empty() ? std::string::npos : text.find(number);
    const std::string message = "invalid JSON: number " + number + " is out of range";
    if (at == std::string::npos) throw ScenarioError(JsonPath(), message);
    throw at_offset(text, at, message);
  }
  JsonPath dup;
  size_t dup_offset = 0;
  if (find_duplicate_key(text, &dup, &dup_offset)) {
    ScenarioError e(dup, "duplicate key");
    line_and_column(text, dup_offset, &e.line, &e.column);
    throw e;
  }
  Scenario sc;
  try {
    if (!root.is_object()) throw_at(JsonPath(), "the top level must be an object");
    ParseState top_state;
    const Reader top(root, JsonPath(), top_state);
    top.only({"$schema", "name", "description", "comment", "seed", "config", "nodes", "steps"});
    sc.name = top.string("name");
    if (sc.name.empty()) top.fail("name", "must not be empty");
    sc.description = top.string_or("description", "");
    if (top.has("comment")) top.string("comment");
    if (top.has("$schema")) top.string("$schema");
    sc.seed = top.literal_or("seed", 1, 0, UINT64_MAX);
    parse_config(top, sc);
    parse_nodes(top, sc);
    parse_steps(top, sc);
    const std::string file_err = check_config(sc.config);
    if (!file_err.empty()) throw_at(JsonPath().key("config"), file_err);
    // Command-line overrides come last and are checked together with the file's values.
    for (const std::string& o : overrides) {
      const size_t eq = o.find('=');
      const std::string err = eq == std::string::npos || eq == 0
                                  ? std::string("expected key=value")
                                  : set_param(sc.config, o.substr(0, eq), o.substr(eq + 1));
      if (!err.empty()) throw ScenarioError(JsonPath(), "--set " + o + ": " + err);
      sc.config_set.push_back(ConfigSetting{o.substr(0, eq), o.substr(eq + 1)});
    }
    // The file's config was valid: an error now comes from --set, not from a line of the file.
    const std::string err = check_config(sc.config);
    if (!err.empty()) throw ScenarioError(JsonPath(), "--set: " + err);
    // What the run would refuse before simulating, with the config it runs with.
    check_run_limits(sc);
  } catch (ScenarioError& e) {
    const size_t offset = e.path().empty() ? std::string::npos : locate(text, e.path());
    if (offset != std::string::npos) line_and_column(text, offset, &e.line, &e.column);
    throw;
  }
  return sc;
}

namespace {

// The file's text, read at most one chunk past the size limit (a FIFO or /dev/zero must not
// grow memory unbounded); a ScenarioError with an empty path when it cannot be read.
std::string read_text(const std::string& file_name) {
  struct stat info {};
  if (::stat(file_name.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    throw ScenarioError(JsonPath(), quote(file_name) + " is a directory, not a scenario file");
  }
  std::ifstream in(file_name, std::ios::binary);
  if (!in) throw ScenarioError(JsonPath(), "cannot open " + quote(file_name));
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= kMaxFileBytes && in.read(chunk, sizeof chunk).gcount() > 0) {
    text.append(chunk, size_t(in.gcount()));
  }
  if (in.bad()) throw ScenarioError(JsonPath(), "cannot read " + quote(file_name));
  if (text.size() > kMaxFileBytes) throw ScenarioError(JsonPath(), "file larger than 64 MiB");
  return text;
}

}  // namespace

Scenario load_scenario_file(const std::string& file_name,
                            const std::vector<std::string>& overrides) {
  return load_scenario(read_text(file_name), overrides);
}

bool locate_in_file(const std::string& file_name, const JsonPath& path, size_t* line,
                    size_t* column) {
  if (path.empty()) return false;
  try {
    std::string text = read_text(file_name);
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // as load_scenario
    const size_t offset = locate(text, path);
    if (offset == std::string::npos) return false;
    line_and_column(text, offset, line, column);
    return true;
  } catch (const ScenarioError&) {
    return false;
  }
}

std::string describe(const ScenarioError& error) {
  std::string s = error.what();
  if (error.line) {
    s += " (line " + std::to_string(error.line) + ", column " + std::to_string(error.column) + ")";
  }
  return s;
}

}  // namespace rnic::app
