// SPDX-License-Identifier: Apache-2.0
// rnicsim schema: the JSON Schema of scenario files, from the op and parameter tables.
#include "app/scenario/schema.h"

#include "app/cli/commands.h"

namespace rnic::app {

const char* const kSchemaUsage =
    "usage: rnicsim schema [--out FILE.json]\n"
    "\n"
    "Writes the JSON Schema (draft-07) of scenario files, generated from the op table, the\n"
    "field types and the parameter table; scenarios/schema.json is this output (ctest\n"
    "schema/current checks it). Editors use it to complete op names, fields, flags, status\n"
    "names and config keys. Output: FILE.json or stdout.\n";

int cmd_schema(const CommandContext& c) {
  return write_output(c, scenario_schema_text());
}

}  // namespace rnic::app
