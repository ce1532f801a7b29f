// SPDX-License-Identifier: Apache-2.0
#include "app/observe/trace_window.h"

#include <cctype>
#include <cmath>

#include "app/scenario/text.h"

namespace rnic::app {

namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

const char* const kForms =
    "a step (its index, -1 for the last, stepN, steps[N], or the name it defines) or a "
    "simulated time with a unit (25us; ns, us, ms or s)";

// "25us", "1.5ms": digits, an optional fraction, a unit. Exact to the picosecond where the
// text is; the fraction's last digits are rounded.
bool parse_time(const std::string& text, uint64_t* ps, std::string* error) {
  static const std::pair<const char*, uint64_t> kUnits[] = {
      {"ns", 1000ull}, {"us", 1000000ull}, {"ms", 1000000000ull}, {"s", 1000000000000ull}};
  size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  const std::string number = text.substr(0, digits);
  const std::string unit = text.substr(digits);
  uint64_t scale = 0;
  for (const auto& [name, value] : kUnits) {
    if (unit == name) scale = value;
  }
  const size_t dot = number.find('.');
  const std::string whole = number.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? "" : number.substr(dot + 1);
  uint64_t w = 0;
  if (!scale || !all_digits(whole) || (dot != std::string::npos && !all_digits(fraction)) ||
      !parse_unsigned(whole, &w)) {
    *error = "--trace-from needs " + std::string(kForms) + ", got " + quote(text);
    return false;
  }
  if (w > kMaxTraceFromPs / scale) {
    *error = "--trace-from is at most 1000000s of simulated time, got " + quote(text);
    return false;
  }
  long double f = 0;
  for (size_t i = fraction.size(); i-- > 0;) f = (f + (fraction[i] - '0')) / 10;
  const uint64_t total = w * scale + uint64_t(std::llround(f * scale));
  if (total > kMaxTraceFromPs) {
    *error = "--trace-from is at most 1000000s of simulated time, got " + quote(text);
    return false;
  }
  *ps = total;
  return true;
}

}  // namespace

bool parse_trace_from(const std::string& text, TraceFrom* out, std::string* error) {
  *out = TraceFrom{};
  // A time starts with a digit (or a sign or point, refused) and ends with its unit; a bare
  // number is a step index.
  const size_t lead = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  const bool timed = text.size() > lead &&
                     (std::isdigit(static_cast<unsigned char>(text[lead])) || text[lead] == '.') &&
                     std::isalpha(static_cast<unsigned char>(text.back()));
  if (timed) {
    out->is_time = true;
    return parse_time(text, &out->ps, error);
  }
  if (text.empty()) {
    *error = "--trace-from needs " + std::string(kForms);
    return false;
  }
  out->step = text;
  return true;
}

bool resolve_trace_step(const std::string& spec, const Scenario& scenario, size_t* index,
                        std::string* error) {
  const size_t count = scenario.steps.size();
  std::string number = spec;
  if (number.rfind("steps[", 0) == 0 && number.back() == ']') {
    number = number.substr(6, number.size() - 7);
  } else if (number.rfind("step", 0) == 0 && all_digits(number.substr(4))) {
    number = number.substr(4);
  }
  const bool negative = !number.empty() && number[0] == '-';
  uint64_t n = 0;
  if (all_digits(negative ? number.substr(1) : number) &&
      parse_unsigned(negative ? number.substr(1) : number, &n)) {
    if ((!negative && n < count) || (negative && n >= 1 && n <= count)) {
      *index = negative ? size_t(count - n) : size_t(n);
      return true;
    }
    *error = "--trace-from " + quote(spec) + ": no such step (the file has " +
             std::to_string(count) + " steps" +
             (count ? ", 0.." + std::to_string(count - 1) + " or -1..-" + std::to_string(count)
                    : std::string()) +
             ")";
    return false;
  }
  for (const Step& step : scenario.steps) {
    if (!step.name.empty() && step.name == spec) {
      *index = step.index;
      return true;
    }
  }
  *error = "--trace-from " + quote(spec) + ": no step of that index or name; give " + kForms;
  return false;
}

}  // namespace rnic::app
