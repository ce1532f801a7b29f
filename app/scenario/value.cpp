// SPDX-License-Identifier: Apache-2.0
#include "app/scenario/value.h"

#include <cctype>

#include "app/scenario/text.h"

namespace rnic::app {

JsonPath JsonPath::key(const std::string& k) const {
  JsonPath p = *this;
  p.parts_.emplace_back(k);
  return p;
}

JsonPath JsonPath::index(size_t i) const {
  JsonPath p = *this;
  p.parts_.emplace_back(i);
  return p;
}

namespace {
bool is_identifier(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}
}  // namespace

std::string JsonPath::str() const {
  std::string out;
  for (const auto& part : parts_) {
    if (const size_t* i = std::get_if<size_t>(&part)) {
      out += "[" + std::to_string(*i) + "]";
    } else {
      const std::string& k = std::get<std::string>(part);
      if (is_identifier(k)) {
        out += (out.empty() ? "" : ".") + k;
      } else {
        out += "[" + quote(k) + "]";
      }
    }
  }
  return out;
}

const char* field_name(Value::Field field) {
  switch (field) {
    case Value::Field::Token:
      return "token";
    case Value::Field::LocalToken:
      return "local_token";
    case Value::Field::Va:
      return "va";
    case Value::Field::Length:
      return "length";
    case Value::Field::None:
      break;
  }
  return "";
}

namespace {

// "name.field" or "name" -> name + field.
void split_field(const std::string& base, std::string* name, Value::Field* field) {
  static const std::pair<const char*, Value::Field> kFields[] = {
      {".token", Value::Field::Token},
      {".local_token", Value::Field::LocalToken},
      {".va", Value::Field::Va},
      {".length", Value::Field::Length},
  };
  for (const auto& [suffix, f] : kFields) {
    const std::string s = suffix;
    if (base.size() >= s.size() && base.compare(base.size() - s.size(), s.size(), s) == 0) {
      *name = base.substr(0, base.size() - s.size());
      *field = f;
      return;
    }
  }
  *name = base;
  *field = Value::Field::None;
}

}  // namespace

std::string parse_reference(const std::string& text,
                            const std::function<bool(const std::string&)>& defined, Value* out) {
  if (text.size() < 2 || text[0] != '$') return "bad reference " + quote(text);
  const std::string body = text.substr(1);

  // Candidate readings: the whole body, then body split at the last '+'/'-' before a number.
  struct Reading {
    std::string base;
    bool negative = false;
    uint64_t adjust = 0;
  };
  std::vector<Reading> readings;
  const size_t sign = body.find_last_of("+-");
  if (sign != std::string::npos && sign > 0) {
    uint64_t n = 0;
    if (parse_unsigned(body.substr(sign + 1), &n)) {
      readings.push_back(Reading{body.substr(0, sign), body[sign] == '-', n});
    }
  }
  readings.insert(readings.begin(), Reading{body, false, 0});

  for (const Reading& r : readings) {
    std::string name;
    Value::Field field;
    split_field(r.base, &name, &field);
    if (name.empty() || !defined(name)) continue;
    out->is_ref = true;
    out->name = name;
    out->field = field;
    out->negative = r.negative;
    out->adjust = r.adjust;
    out->text = text;
    return {};
  }
  // Nothing defined: name the most likely object (the reading with a numeric suffix).
  std::string name;
  Value::Field field;
  const std::string& base = readings.back().base;
  if (readings.size() > 1 && !base.empty() && (base.back() == '+' || base.back() == '-')) {
    return "bad offset in reference " + quote(text) + " (one + or - and a number: $NAME.va+16)";
  }
  split_field(base, &name, &field);
  if (name.empty()) return "bad reference " + quote(text);
  out->name = name;  // for the caller's "did you mean"
  return "unknown object " + quote(name) + " in reference " + quote(text);
}

std::string wrap_message(const Value& v, uint64_t base) {
  return quote(v.text) + ": " + hex(base) + (v.negative ? " - " : " + ") +
         std::to_string(v.adjust) + " leaves the 64-bit range";
}

}  // namespace rnic::app
