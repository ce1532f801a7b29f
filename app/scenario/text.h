// SPDX-License-Identifier: Apache-2.0
// Strict text helpers shared by the CLI, the parameter table and the scenario parser.
#pragma once

#include <cstdint>
#include <string>

namespace rnic::app {

// "4096" or "0x1000" (no sign, no spaces, no suffix); false on overflow or junk.
bool parse_unsigned(const std::string& text, uint64_t* out);
// A decimal real ("500", "312.5", "1e3"); false on junk, inf or nan.
bool parse_real(const std::string& text, double* out);
// "0x0000ABCD" style hex of a 64-bit value.
std::string hex(uint64_t value);
// Line and column (both 1-based) of byte `offset` in `text`.
void line_and_column(const std::string& text, size_t offset, size_t* line, size_t* column);
// Quotes `text` for messages: "name" with control characters escaped and length capped.
std::string quote(const std::string& text);

}  // namespace rnic::app
