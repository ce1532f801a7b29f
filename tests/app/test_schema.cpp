// SPDX-License-Identifier: Apache-2.0
// The generated schema (`rnicsim schema`; ctest schema/current keeps scenarios/schema.json its
// output) says what the parser accepts, and every shipped file loads as its directory says:
// scenarios/ and tests/scenario/fail/ load, tests/scenario/bad/ is refused.
#include <dirent.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "app/scenario/params.h"
#include "app/runner/runner.h"
#include "app/scenario/scenario.h"
#include "app/scenario/parse.h"
#include "app/scenario/memory.h"
#include "app/scenario/schema.h"
#include "host_api/ndk.h"

using namespace rnic::app;
using nlohmann::json;

namespace {

// The repository root, from CMake (not __FILE__: ccache with a base_dir makes it relative).
std::string repo_root() { return RNICSIM_SOURCE_DIR; }

std::vector<std::string> json_files(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (e->d_type == DT_DIR) {
        for (const auto& f : json_files(dir + "/" + name)) out.push_back(f);
      } else if (name.size() > 5 && name.substr(name.size() - 5) == ".json" &&
                 name != "schema.json") {
        out.push_back(dir + "/" + name);
      }
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

json schema() {
  return json::parse(scenario_schema_text());
}

std::set<std::string> enum_of(const json& j) {
  return std::set<std::string>(j.begin(), j.end());
}

}  // namespace

TEST_CASE("the schema lists every config key and preset", "[app]") {
  const json config = schema()["properties"]["config"]["properties"];
  std::set<std::string> keys, presets;
  for (const ParamDef& d : param_table()) keys.insert(d.key);
  for (const Preset& p : preset_table()) presets.insert(p.name);
  CHECK(enum_of(config["set"]["propertyNames"]["enum"]) == keys);
  CHECK(enum_of(config["preset"]["enum"]) == presets);
  CHECK(presets.count("default") == 1);
}

TEST_CASE("every name the schema offers is one the parser accepts", "[app]") {
  const json d = schema()["definitions"];
  uint32_t value = 0;
  CHECK(enum_of(d["status"]["enum"]).size() == status_names().size());
  for (const std::string& name : enum_of(d["status"]["enum"])) {
    INFO(name);
    CHECK(rnic::ndk::status_from_name(name, &value));
    CHECK(rnic::ndk::status_name(value) == name);
  }
  for (const std::string& name : enum_of(d["op_flags"]["oneOf"][0]["items"]["enum"])) {
    INFO(name);
    CHECK(rnic::ndk::op_flag_from_name(name, &value));
  }
  for (const std::string& name : enum_of(d["mr_flags"]["oneOf"][0]["items"]["enum"])) {
    INFO(name);
    CHECK(rnic::ndk::mr_flag_from_name(name, &value));
  }
  for (const std::string& name : enum_of(d["completion"]["properties"]["type"]["enum"])) {
    INFO(name);
    CHECK(rnic::ndk::operation_type_from_name(name, &value));
    CHECK(rnic::ndk::operation_type_name(value) == name);
  }
  CHECK_FALSE(rnic::ndk::op_flag_from_name("NOT_A_FLAG", &value));
  // Every status value the device can report has a name in the schema.
  for (uint32_t s : {rnic::ndk::STATUS_SUCCESS, rnic::ndk::STATUS_PENDING,
                     rnic::ndk::STATUS_ACCESS_VIOLATION, rnic::ndk::STATUS_IMPLEMENTATION_LIMIT}) {
    CHECK(enum_of(d["status"]["enum"]).count(rnic::ndk::status_name(s)) == 1);
  }
}

TEST_CASE("a step with only its op is refused for a field the schema requires", "[app]") {
  const json s = schema();
  for (const json& rule : s["definitions"]["step"]["allOf"]) {
    const std::string op = rule["if"]["properties"]["op"]["const"];
    const std::set<std::string> required = enum_of(rule["then"]["required"]);
    INFO(op);
    REQUIRE_FALSE(required.empty());
    std::string missing;
    try {
      load_scenario(R"({"name": "r", "nodes": ["A"], "steps": [{"op": ")" + op + R"("}]})");
    } catch (const ScenarioError& e) {
      const std::string what = e.what();  // "steps[0].FIELD: missing required field"
      if (what.rfind("steps[0].", 0) == 0) missing = what.substr(9, what.find(':') - 9);
    }
    CHECK(required.count(missing) == 1);
  }
}

TEST_CASE("the schema lists every op with the fields the parser accepts", "[app]") {
  const json s = schema();
  const json ops = s["definitions"]["step"]["properties"]["op"]["enum"];
  std::set<std::string> in_schema(ops.begin(), ops.end());
  std::set<std::string> in_code;
  for (Op op : all_ops()) in_code.insert(op_name(op));
  CHECK(in_schema == in_code);
  for (const json& rule : s["definitions"]["step"]["allOf"]) {
    const std::string name = rule["if"]["properties"]["op"]["const"];
    Op op;
    REQUIRE(op_from_name(name, &op));
    std::set<std::string> fields;
    for (auto it = rule["then"]["properties"].begin(); it != rule["then"]["properties"].end(); ++it)
      fields.insert(it.key());
    std::set<std::string> expected = {"op", "description", "comment"};
    for (const std::string& f : op_fields(op)) expected.insert(f);
    INFO(name);
    CHECK(fields == expected);
  }
}

TEST_CASE("shipped scenarios and fail files load and can run in this version", "[app]") {
  std::vector<std::string> files = json_files(repo_root() + "/scenarios");
  for (const auto& f : json_files(repo_root() + "/tests/scenario/fail")) files.push_back(f);
  CHECK(files.size() >= 8);
  for (const std::string& file : files) {
    INFO(file);
    try {
      const Scenario s = load_scenario_file(file);
      CHECK(check_supported(s) == "");
    } catch (const ScenarioError& e) {
      FAIL(describe(e));
    }
  }
}

TEST_CASE("every file in tests/scenario/bad is refused before running", "[app]") {
  const std::vector<std::string> files = json_files(repo_root() + "/tests/scenario/bad");
  CHECK(files.size() >= 9);
  for (const std::string& file : files) {
    INFO(file);
    bool refused = false;
    try {
      const Scenario s = load_scenario_file(file);
      refused = !check_supported(s).empty() ||  // ops of later versions: refused with exit 2
                // or more memory than the default budget
                !check_memory_budget(estimate_memory(s), kDefaultMemoryBudget).empty();
    } catch (const ScenarioError&) {
      refused = true;
    }
    CHECK(refused);
  }
}
