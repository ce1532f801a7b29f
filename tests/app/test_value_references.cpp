// SPDX-License-Identifier: Apache-2.0
// `$NAME.field+N` references, JSON paths and the strict number parsers.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "app/scenario/json_scan.h"
#include "app/scenario/scenario.h"
#include "app/scenario/value.h"
#include "app/scenario/text.h"

using namespace rnic::app;

namespace {
std::string parse(const std::string& text, const std::set<std::string>& names, Value* v) {
  return parse_reference(
      text, [&](const std::string& n) { return names.count(n) > 0; }, v);
}
}  // namespace

TEST_CASE("references split into name, field and suffix", "[app]") {
  Value v;
  REQUIRE(parse("$mwB.token", {"mwB"}, &v) == "");
  CHECK(v.is_ref);
  CHECK(v.name == "mwB");
  CHECK(v.field == Value::Field::Token);
  CHECK(v.adjust == 0);

  REQUIRE(parse("$mrA.local_token", {"mrA"}, &v) == "");
  CHECK(v.field == Value::Field::LocalToken);

  REQUIRE(parse("$src.va+4096", {"src"}, &v) == "");
  CHECK(v.field == Value::Field::Va);
  CHECK_FALSE(v.negative);
  CHECK(v.adjust == 4096);
  uint64_t x = 0;
  CHECK(v.adjusted(0x1000, &x));
  CHECK(x == 0x2000);
  CHECK_FALSE(v.adjusted(UINT64_MAX - 4095, &x));  // never wraps

  REQUIRE(parse("$src.length-0x10", {"src"}, &v) == "");
  CHECK(v.field == Value::Field::Length);
  CHECK(v.negative);
  CHECK(v.adjust == 16);
  CHECK(v.adjusted(16, &x));
  CHECK(x == 0);
  CHECK_FALSE(v.adjusted(15, &x));  // below zero: refused, not wrapped

  REQUIRE(parse("$saved", {"saved"}, &v) == "");
  CHECK(v.field == Value::Field::None);
  REQUIRE(parse("$saved+1", {"saved"}, &v) == "");
  CHECK(v.adjust == 1);
}

TEST_CASE("a defined name with '-' wins over a suffix reading", "[app]") {
  Value v;
  REQUIRE(parse("$tok-1", {"tok-1"}, &v) == "");
  CHECK(v.name == "tok-1");
  CHECK(v.adjust == 0);
  REQUIRE(parse("$tok-1", {"tok"}, &v) == "");
  CHECK(v.name == "tok");
  CHECK(v.negative);
  CHECK(v.adjust == 1);
  REQUIRE(parse("$mr-A.token+2", {"mr-A"}, &v) == "");
  CHECK(v.name == "mr-A");
  CHECK(v.adjust == 2);
}

TEST_CASE("bad and unknown references", "[app]") {
  Value v;
  CHECK(parse("$", {}, &v) == "bad reference \"$\"");
  CHECK(parse("$zz.token", {"mwB"}, &v) == "unknown object \"zz\" in reference \"$zz.token\"");
  CHECK(v.name == "zz");  // for the caller's "did you mean"
  CHECK_FALSE(v.is_ref);
  CHECK(parse("$zz+3", {}, &v) == "unknown object \"zz\" in reference \"$zz+3\"");
  CHECK(parse("$.token", {}, &v) == "bad reference \"$.token\"");
}

TEST_CASE("reference kinds are checked against the objects", "[app]") {
  const std::string head = R"({"name": "t", "steps": [
    {"op": "alloc", "node": "A", "name": "buf", "size": 4096},
    {"op": "create_pd", "node": "A", "name": "pd"},
    {"op": "create_mr", "name": "mr", "pd": "pd"},
    )";
  auto error = [&](const std::string& value) {
    try {
      load_scenario(head + R"({"op": "save", "name": "x", "value": ")" + value + "\"}]}");
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error("$mr.token") == "");
  CHECK(error("$mr.local_token") == "");
  CHECK(error("$buf.va+8") == "");
  CHECK(error("$buf.length") == "");
  CHECK(error("$buf.token") == "steps[3].value: \"buf\" is a buffer and has no .token");
  CHECK(error("$pd.va") == "steps[3].value: \"pd\" is a PD and has no .va");
  CHECK(error("$mr") == "steps[3].value: \"mr\" is a MR: name a field (.token, .va, ...)");
  CHECK(error("$x") ==
        "steps[3].value: unknown object \"x\" in reference \"$x\"");  // not yet saved
  CHECK(error("$MR.token") ==
        "steps[3].value: unknown object \"MR\" in reference \"$MR.token\"; did you mean \"mr\"?");
  CHECK(error("0x") ==
        "steps[3].value: must be an integer, a hex string like \"0x1000\" or a $reference (got "
        "\"0x\")");
}

TEST_CASE("JSON paths print like the messages in docs/scenario-format.md", "[app]") {
  CHECK(JsonPath().key("steps").index(3).key("qp").str() == "steps[3].qp");
  CHECK(JsonPath().key("config").key("set").key("pcie.gen").str() == "config.set[\"pcie.gen\"]");
  CHECK(JsonPath().str() == "");
}

TEST_CASE("strict number parsing", "[app]") {
  uint64_t v = 0;
  CHECK(parse_unsigned("0", &v));
  CHECK(v == 0);
  CHECK(parse_unsigned("0x1000", &v));
  CHECK(v == 4096);
  CHECK(parse_unsigned("0XfF", &v));
  CHECK(v == 255);
  CHECK(parse_unsigned("18446744073709551615", &v));
  CHECK(v == UINT64_MAX);
  CHECK_FALSE(parse_unsigned("18446744073709551616", &v));
  CHECK_FALSE(parse_unsigned("0x10000000000000000", &v));
  CHECK_FALSE(parse_unsigned("", &v));
  CHECK_FALSE(parse_unsigned("0x", &v));
  CHECK_FALSE(parse_unsigned("-1", &v));
  CHECK_FALSE(parse_unsigned(" 1", &v));
  CHECK_FALSE(parse_unsigned("1k", &v));
  double d = 0;
  CHECK(parse_real("312.5", &d));
  CHECK(d == 312.5);
  CHECK_FALSE(parse_real("nan", &d));
  CHECK_FALSE(parse_real("1e999", &d));
  CHECK_FALSE(parse_real("0x10", &d));
}

TEST_CASE("locate finds values by path in the text", "[app]") {
  const std::string text = "{\"a\": 1,\n \"b\": [10, {\"c\": \"x\\\"y\"}, 30],\n \"d\": {}}";
  size_t line = 0, column = 0;
  line_and_column(text, locate(text, JsonPath().key("b").index(1).key("c")), &line, &column);
  CHECK(line == 2);
  CHECK(column == 18);
  line_and_column(text, locate(text, JsonPath().key("d").key("missing")), &line, &column);
  CHECK(line == 3);  // the deepest ancestor that exists
  CHECK(locate("", JsonPath().key("a")) == std::string::npos);
}
