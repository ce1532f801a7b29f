// SPDX-License-Identifier: Apache-2.0
// The rule IDs the device, the driver and the reference model name (model/rnic/abi/rules.h)
// are exactly those of docs/spec-rules.tsv, in its order: a rule added to the table needs its
// ID in the code, and no code names a rule the table lacks.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "model/rnic/abi/rules.h"

using namespace rnic;

TEST_CASE("rule IDs: the code's list is docs/spec-rules.tsv", "[app][rules]") {
  std::ifstream in(std::string(RNICSIM_SOURCE_DIR) + "/docs/spec-rules.tsv");
  REQUIRE(in);
  std::vector<std::string> table;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    table.push_back(line.substr(0, line.find('\t')));
  }
  std::vector<std::string> code;
  for (RuleId rule : all_rules()) code.push_back(rule_name(rule));
  CHECK(code == table);
  for (const std::string& id : table) {
    RuleId rule = RuleId::None;
    INFO(id);
    CHECK(rule_from_name(id, &rule));
    CHECK(rule_name(rule) == id);
  }
  RuleId unknown = RuleId::None;
  CHECK_FALSE(rule_from_name("R5.read.resp.nope", &unknown));
  CHECK(std::string(rule_name(RuleId::None)).empty());
}
