// SPDX-License-Identifier: Apache-2.0
// scenarios/schema.json stays in step with the code, and every shipped file loads as its
// directory says: scenarios/ and tests/scenario/fail/ load, tests/scenario/bad/ is refused.
#include <dirent.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/scenario/params.h"
#include "app/runner/runner.h"
#include "app/scenario/scenario.h"
#include "app/scenario/parse.h"

using namespace rnic::app;
using nlohmann::json;

namespace {

// The repository root, from CMake (not __FILE__: ccache with a base_dir makes it relative).
std::string repo_root() { return RNICSIM_SOURCE_DIR; }

std::string read(const std::string& file) {
  std::ifstream in(file);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

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
  return json::parse(read(repo_root() + "/scenarios/schema.json"));
}

}  // namespace

TEST_CASE("schema.json lists every config key of the parameter table", "[app]") {
  const json keys = schema()["properties"]["config"]["properties"]["set"]["propertyNames"]["enum"];
  std::set<std::string> in_schema(keys.begin(), keys.end());
  std::set<std::string> in_table;
  for (const ParamDef& d : param_table()) in_table.insert(d.key);
  CHECK(in_schema == in_table);
}

TEST_CASE("schema.json lists every op with the fields the parser accepts", "[app]") {
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
      refused = !check_supported(s).empty();  // ops of later versions: refused with exit 2
    } catch (const ScenarioError&) {
      refused = true;
    }
    CHECK(refused);
  }
}
