// SPDX-License-Identifier: Apache-2.0
#include "app/scenario/schema.h"

#include <string>

#include "app/scenario/params.h"
#include "app/scenario/parse.h"

namespace rnic::app {

using Json = nlohmann::ordered_json;

const std::vector<const char*>& status_names() {
  static const std::vector<const char*> names = {
      "STATUS_SUCCESS",           "STATUS_PENDING",
      "STATUS_CANCELLED",         "STATUS_ACCESS_VIOLATION",
      "STATUS_DATA_OVERRUN",      "STATUS_DATA_ERROR",
      "STATUS_REMOTE_RESOURCES",  "STATUS_IO_TIMEOUT",
      "STATUS_INTERNAL_ERROR",    "STATUS_CONNECTION_INVALID",
      "STATUS_INVALID_PARAMETER", "STATUS_INSUFFICIENT_RESOURCES",
      "STATUS_DEVICE_BUSY",       "STATUS_IMPLEMENTATION_LIMIT"};
  return names;
}

const std::vector<const char*>& op_flag_names() {
  static const std::vector<const char*> names = {"SILENT_SUCCESS",
                                                 "READ_FENCE",
                                                 "SEND_AND_SOLICIT_EVENT",
                                                 "ALLOW_REMOTE_READ",
                                                 "ALLOW_LOCAL_WRITE",
                                                 "ALLOW_REMOTE_WRITE",
                                                 "INLINE",
                                                 "RDMA_READ_SINK",
                                                 "RDMA_READ_LOCAL_INVALIDATE",
                                                 "DEFER"};
  return names;
}

const std::vector<const char*>& mr_flag_names() {
  static const std::vector<const char*> names = {"ALLOW_LOCAL_READ", "ALLOW_LOCAL_WRITE",
                                                 "ALLOW_REMOTE_READ", "ALLOW_REMOTE_WRITE",
                                                 "RDMA_READ_SINK"};
  return names;
}

const std::vector<const char*>& operation_type_names() {
  static const std::vector<const char*> names = {
      "Receive",    "Send", "FastRegister", "Bind",
      "Invalidate", "Read", "Write",        "ReceiveAndInvalidate"};
  return names;
}

namespace {

Json ref(const char* definition) {
  return {{"$ref", std::string("#/definitions/") + definition}};
}
Json string_type() {
  return {{"type", "string"}};
}
Json names_enum(const std::vector<const char*>& names) {
  return {{"enum", names}};
}

// Every rule ID of docs/spec-rules.tsv.
Json rule_names() {
  std::vector<const char*> names;
  for (RuleId r : all_rules()) names.push_back(rule_name(r));
  Json j = names_enum(names);
  j["description"] = "the rule that decided the request (docs/behaviour.md)";
  return j;
}

Json object_of(Json properties, std::vector<const char*> required) {
  Json o = {{"type", "object"}, {"additionalProperties", false}};
  if (!required.empty()) o["required"] = required;
  o["properties"] = std::move(properties);
  return o;
}

// A byte: "0xAB" or 0..255, or one of the named fills.
Json fill(std::vector<const char*> named) {
  return {{"oneOf",
           {names_enum(named),
            {{"type", "string"}, {"pattern", "^0[xX][0-9a-fA-F]{1,2}$"}},
            {{"type", "integer"}, {"minimum", 0}, {"maximum", 255}}}}};
}

Json flags(const std::vector<const char*>& names) {
  return {{"oneOf",
           {{{"type", "array"}, {"items", names_enum(names)}},
            {{"type", "integer"}, {"minimum", 0}, {"maximum", UINT32_MAX}}}}};
}

Json definitions() {
  Json d;
  d["hex"] = {{"type", "string"}, {"pattern", "^0[xX][0-9a-fA-F]{1,16}$"}};
  const Json natural = {{"type", "integer"}, {"minimum", 0}};
  d["literal"] = {{"description", "a JSON integer or a hex string like \"0x1000\""},
                  {"oneOf", {natural, ref("hex")}}};
  d["reference"] = {{"type", "string"},
                    {"pattern", "^\\$.+$"},
                    {"description",
                     "$NAME.token, $NAME.local_token, $NAME.va, $NAME.length or $SAVED, "
                     "optionally ending in +N or -N"}};
  d["value"] = {{"description", "a literal number or a $reference resolved when the step runs"},
                {"oneOf", {natural, ref("hex"), ref("reference")}}};
  d["name"] = {
      {"type", "string"}, {"minLength", 1}, {"maxLength", 128}, {"pattern", "^[^$\\s][^\\s]*$"}};
  d["node"] = {{"type", "string"}, {"pattern", "^[A-Za-z0-9_]{1,32}$"}};
  d["status"] = names_enum(status_names());
  d["op_flags"] = flags(op_flag_names());
  d["mr_flags"] = flags(mr_flag_names());
  d["fill"] = fill({"zero", "incrementing", "random"});
  d["check_fill"] = fill({"zero", "incrementing"});
  d["sge"] = {
      {"oneOf",
       {object_of({{"mr", ref("name")}, {"offset", ref("value")}, {"length", ref("value")}},
                  {"mr", "length"}),
        object_of({{"token", ref("value")}, {"address", ref("value")}, {"length", ref("value")}},
                  {"token", "address", "length"})}}};
  d["sgl"] = {{"type", "array"}, {"maxItems", kMaxSgl}, {"items", ref("sge")}};
  Json descriptor =
      object_of({{"descriptor", ref("name")}, {"offset", ref("value")}}, {"descriptor"});
  descriptor["description"] =
      "through the user-mode window descriptor of an MW bound with zero_based: an offset "
      "inside the window";
  d["remote"] = {
      {"oneOf",
       {object_of({{"target", ref("name")}, {"offset", ref("value")}}, {"target"}), descriptor,
        object_of({{"token", ref("value")}, {"address", ref("value")}}, {"token", "address"})}}};
  Json stream_remote =
      object_of({{"target", ref("name")},
                 {"targets",
                  {{"description",
                    "instead of target: requests go round-robin over these MRs/MWs (one node)"},
                   {"type", "array"},
                   {"minItems", 1},
                   {"maxItems", kMaxWorkloadTargets},
                   {"items", ref("name")}}},
                 {"offset", ref("value")},
                 {"span", ref("literal")},
                 {"pattern", names_enum({"sequential", "random"})}},
                {"span"});
  stream_remote["oneOf"] = {{{"required", {"target"}}}, {{"required", {"targets"}}}};
  d["stream_remote"] = stream_remote;
  Json completion = object_of({{"context", ref("value")},
                               {"type", names_enum(operation_type_names())},
                               {"status", ref("status")},
                               {"bytes", ref("value")},
                               {"qp_context", ref("value")},
                               {"type_specific", ref("value")},
                               {"rule", rule_names()}},
                              {});
  d["completion"] = completion;
  const Json bound = object_of({{"min", {{"type", "number"}}}, {"max", {{"type", "number"}}}}, {});
  // Fixed names, hit rates (and the lookups behind them) by node, side and table, and a
  // traffic step's flow metrics.
  d["metric_bounds"] = {
      {"type", "object"},
      {"additionalProperties", false},
      {"propertyNames",
       {{"anyOf",
         {names_enum(metric_names()),
          {{"type", "string"},
           {"pattern",
            "^[A-Za-z0-9_]{1,32}\\.(requester|responder|completion|dma_bench)\\."
            "(mtt|mpt|qpc|cqc)\\.(hit_rate|hits|misses|merged|misses_per_op)$"}},
          {{"type", "string"},
           {"pattern", "^(flow[0-9]{1,9}(\\.reverse)?\\.(ops|mops|gbps)|fairness|flushes)$"}}}}}},
      {"patternProperties", {{".*", bound}}}};
  d["flow"] = object_of({{"src", ref("node")},
                         {"dst", ref("node")},
                         {"verb", names_enum({"read", "write", "send"})},
                         {"qps", ref("literal")},
                         {"size", ref("literal")},
                         {"outstanding", ref("literal")},
                         {"window", ref("literal")},
                         {"regions", ref("literal")},
                         {"region_bytes", ref("literal")},
                         {"page_size", {{"enum", {4096, 2097152, "0x1000", "0x200000"}}}},
                         {"pattern", names_enum({"sequential", "random"})},
                         {"region_select", names_enum({"round_robin", "random"})},
                         {"flags", ref("op_flags")},
                         {"signal_every", ref("literal")},
                         {"bidirectional", {{"type", "boolean"}}}},
                        {"src", "dst", "verb", "qps", "size"});
  return d;
}

Json field_schema(FieldType type) {
  switch (type) {
    case FieldType::Node:
      return ref("node");
    case FieldType::Name:
      return ref("name");
    case FieldType::Literal:
      return ref("literal");
    case FieldType::Value:
      return ref("value");
    case FieldType::Boolean:
      return {{"type", "boolean"}};
    case FieldType::Status:
      return ref("status");
    case FieldType::SuccessOnly:
      return {{"const", "STATUS_SUCCESS"}};
    case FieldType::OpFlags:
      return ref("op_flags");
    case FieldType::MrFlags:
      return ref("mr_flags");
    case FieldType::Fill:
      return ref("fill");
    case FieldType::CheckFill:
      return ref("check_fill");
    case FieldType::PageSize:
      return {{"enum", {4096, 2097152, "0x1000", "0x200000"}}};
    case FieldType::Sgl:
      return ref("sgl");
    case FieldType::StreamSgl:
      return object_of({{"mr", ref("name")}, {"offset", ref("value")}}, {"mr"});
    case FieldType::Remote:
      return ref("remote");
    case FieldType::StreamRemote:
      return ref("stream_remote");
    case FieldType::Completions:
      return {{"type", "array"}, {"items", ref("completion")}};
    case FieldType::MetricBounds:
      return ref("metric_bounds");
    case FieldType::Pages:
      return {
          {"type", "array"},
          {"minItems", 1},
          {"maxItems", 65536},
          {"items",
           object_of({{"buffer", ref("name")}, {"index", ref("value")}, {"offset", ref("value")}},
                     {"buffer"})}};
    case FieldType::Equals:
      return object_of({{"buffer", ref("name")}, {"offset", ref("value")}}, {"buffer"});
    case FieldType::HexBytes:
      return {{"type", "string"}, {"pattern", "^(0[xX])?[0-9a-fA-F _:-]+$"}};
    case FieldType::DmaKind:
      return names_enum({"read"});
    case FieldType::Pattern:
      return names_enum({"sequential", "random"});
    case FieldType::Flows:
      return {{"type", "array"}, {"minItems", 1}, {"maxItems", kMaxFlows}, {"items", ref("flow")}};
    case FieldType::QpSelect:
      return names_enum({"round_robin", "random"});
    case FieldType::PingVerb:
      return names_enum({"write", "send"});
  }
  return Json::object();  // unreachable: the switch covers every FieldType
}

Json required_each(const std::vector<const char*>& fields) {
  Json list = Json::array();
  for (const char* f : fields) list.push_back({{"required", {f}}});
  return list;
}

// One if/then rule per op: its fields, their types, the required ones.
Json op_rule(const OpInfo& op) {
  Json properties = {
      {"op", string_type()}, {"description", string_type()}, {"comment", string_type()}};
  std::vector<const char*> required;
  for (const FieldDef& f : op.fields) {
    Json field = field_schema(f.type);
    if (f.description) field["description"] = f.description;
    properties[f.name] = std::move(field);
    if (f.required) required.push_back(f.name);
  }
  Json then;
  if (*op.description) then["description"] = op.description;
  then["required"] = required;
  then["additionalProperties"] = false;
  then["properties"] = std::move(properties);
  if (!op.one_of.empty()) then["oneOf"] = required_each(op.one_of);
  if (!op.any_of.empty()) then["anyOf"] = required_each(op.any_of);
  return {{"if", {{"properties", {{"op", {{"const", op.name}}}}}, {"required", {"op"}}}},
          {"then", std::move(then)}};
}

Json config_schema() {
  std::vector<const char*> presets, keys;
  for (const Preset& p : preset_table()) presets.push_back(p.name);
  for (const ParamDef& d : param_table()) keys.push_back(d.key);
  const Json number = {{"type", "number"}, {"minimum", 0}};
  std::vector<std::string> choices;  // the names of Choice keys' values
  for (const ParamDef& d : param_table())
    for (const std::string& name : param_choices(d)) choices.push_back(name);
  return object_of({{"preset", names_enum(presets)},
                    {"comment", string_type()},
                    {"set",
                     {{"type", "object"},
                      {"propertyNames", names_enum(keys)},
                      {"additionalProperties", {{"oneOf", {number, ref("hex"), {{"enum", choices}}}}}}}}},
                   {});
}

}  // namespace

Json scenario_schema() {
  Json step = {{"type", "object"}, {"required", {"op"}}};
  std::vector<const char*> ops;
  Json rules = Json::array();
  for (const OpInfo& op : op_table()) {
    ops.push_back(op.name);
    rules.push_back(op_rule(op));
  }
  step["properties"] = {{"op", names_enum(ops)}};
  step["allOf"] = std::move(rules);
  Json defs = definitions();
  defs["step"] = std::move(step);

  Json s;
  s["$schema"] = "http://json-schema.org/draft-07/schema#";
  s["$id"] = "https://rnicsim.invalid/scenarios/schema.json";
  s["title"] = "rnicsim scenario";
  s["description"] =
      "A scenario file for `rnicsim run` (docs/scenario-format.md). The simulator checks more than "
      "this schema can (names defined by earlier steps, object kinds, nodes, ranges); `rnicsim "
      "validate FILE` is the authority. Generated by `rnicsim schema`: do not edit.";
  s["type"] = "object";
  s["additionalProperties"] = false;
  s["required"] = {"name", "steps"};
  s["properties"] = {{"$schema", string_type()},
                     {"name", string_type()},
                     {"description", string_type()},
                     {"comment", string_type()},
                     {"seed", ref("literal")},
                     {"config", config_schema()},
                     {"nodes",
                      {{"type", "array"},
                       {"minItems", 1},
                       {"maxItems", 64},
                       {"uniqueItems", true},
                       {"items", ref("node")}}},
                     {"steps", {{"type", "array"}, {"items", ref("step")}}}};
  s["definitions"] = std::move(defs);
  return s;
}

std::string scenario_schema_text() {
  return scenario_schema().dump(2) + "\n";
}

}  // namespace rnic::app
