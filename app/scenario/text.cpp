// SPDX-License-Identifier: Apache-2.0
#include "app/scenario/text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace rnic::app {

bool parse_unsigned(const std::string& text, uint64_t* out) {
  if (text.empty()) return false;
  uint64_t base = 10;
  size_t i = 0;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    i = 2;
  }
  uint64_t value = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    uint64_t digit;
    if (c >= '0' && c <= '9') {
      digit = uint64_t(c - '0');
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      digit = uint64_t(c - 'a' + 10);
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      digit = uint64_t(c - 'A' + 10);
    } else {
      return false;
    }
    if (value > (UINT64_MAX - digit) / base) return false;
    value = value * base + digit;
  }
  *out = value;
  return true;
}

bool parse_real(const std::string& text, double* out) {
  if (text.empty() || text.size() > 64) return false;
  // strtod also takes hex floats, "inf" and leading spaces: allow digits, '.', 'e', signs only.
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
      return false;
  }
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (!end || *end != '\0' || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

std::string hex(uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
  return buf;
}

void line_and_column(const std::string& text, size_t offset, size_t* line, size_t* column) {
  size_t l = 1, c = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++l;
      c = 1;
    } else {
      ++c;
    }
  }
  *line = l;
  *column = c;
}

std::string quote(const std::string& text) {
  constexpr size_t kMax = 80;
  std::string out = "\"";
  for (size_t i = 0; i < text.size() && i < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  if (text.size() > kMax) out += "...";
  return out + "\"";
}

}  // namespace rnic::app
