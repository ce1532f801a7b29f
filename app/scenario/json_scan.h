// SPDX-License-Identifier: Apache-2.0
// A small scanner over JSON text for what nlohmann::json does not keep: where a value is
// (line numbers in messages), duplicate keys (a silent overwrite there) and nesting depth.
#pragma once

#include <cstddef>
#include <string>

#include "app/scenario/value.h"

namespace rnic::app {

// Byte offset where nesting first exceeds `limit`, or npos. Works on any text.
size_t find_excess_depth(const std::string& text, size_t limit);
// Byte offset of the value at `path` (or of its deepest existing ancestor); npos if the text
// is not JSON there.
size_t locate(const std::string& text, const JsonPath& path);
// First key that appears twice in one object: its path and offset. False when none.
bool find_duplicate_key(const std::string& text, JsonPath* path, size_t* offset);

}  // namespace rnic::app
