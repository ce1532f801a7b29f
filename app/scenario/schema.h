// SPDX-License-Identifier: Apache-2.0
// The JSON Schema (draft-07) of scenario files, built from the op table, the field types and
// the parameter table: `rnicsim schema` writes it, scenarios/schema.json is its checked-in copy.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rnic::app {

nlohmann::ordered_json scenario_schema();
std::string scenario_schema_text();  // indented two spaces, ending in a newline

// Name lists the schema offers for completion (host_api's lookup tables are not exported;
// tests/app/test_schema.cpp checks every name against ndk's *_from_name).
const std::vector<const char*>& status_names();
const std::vector<const char*>& op_flag_names();
const std::vector<const char*>& mr_flag_names();
const std::vector<const char*>& operation_type_names();

}  // namespace rnic::app
