// SPDX-License-Identifier: Apache-2.0
// --memory-budget: the check against an estimate (memory.cpp), and byte sizes as text, read
// ("512M", "4GiB") and written ("1.5 GiB").
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/scenario/memory.h"
#include "app/scenario/memory_costs.h"
#include "app/scenario/text.h"

namespace rnic::app {

using memory_costs::KiB;

std::string check_memory_budget(const MemoryEstimate& estimate, uint64_t budget) {
  if (estimate.total <= budget) return {};
  std::string message = "needs about " + format_size(estimate.total) +
                        " of memory, more than the budget of " + format_size(budget) +
                        " (--memory-budget SIZE raises it); the largest parts:";
  size_t shown = 0;
  for (const MemoryPart& part : estimate.parts) {
    if (shown == 4) break;
    ++shown;
    message += "\n  " + part.name + ": " + format_size(part.bytes);
    if (!part.detail.empty()) message += " (" + part.detail + ")";
  }
  return message;
}

bool parse_byte_size(const std::string& text, uint64_t* out) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  const std::string number = text.substr(0, i);
  std::string unit;
  for (char c : text.substr(i)) unit += char(std::tolower(static_cast<unsigned char>(c)));
  double value = 0;
  if (number.empty() || !parse_real(number, &value)) return false;
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1.0},          {"b", 1.0},
      {"k", 0x1p10},      {"kib", 0x1p10},
      {"m", 0x1p20},      {"mib", 0x1p20},
      {"g", 0x1p30},      {"gib", 0x1p30},
      {"t", 0x1p40},      {"tib", 0x1p40}};
  for (const auto& [name, scale] : kUnits) {
    if (unit != name) continue;
    const double bytes = std::floor(value * scale);
    if (!(bytes >= 0) || bytes >= 0x1p64) return false;
    // A fraction of a byte is not a size: "1.5" bytes is refused, "1.5G" is not.
    if (scale == 1.0 && number.find('.') != std::string::npos) return false;
    *out = uint64_t(bytes);
    return true;
  }
  return false;
}

std::string format_size(uint64_t bytes) {
  static const char* const kNames[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < KiB) return std::to_string(bytes) + " bytes";
  double value = double(bytes);
  size_t unit = 0;
  // 1023.9 KiB prints as 1 MiB, not as "1024 KiB".
  while (value >= 1023.5 && unit + 1 < sizeof kNames / sizeof kNames[0]) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  // Three significant digits, without trailing zeros: "4 GiB", "1.5 GiB", "10.2 MiB".
  std::snprintf(text, sizeof text, "%.*f", value >= 100 ? 0 : value >= 10 ? 1 : 2, value);
  std::string s = text;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s + " " + kNames[unit];
}

}  // namespace rnic::app
