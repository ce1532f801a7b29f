// SPDX-License-Identifier: Apache-2.0
// JSON paths for messages and the numbers of a scenario: literals, or `$NAME.field+N`
// references resolved when the step runs (tokens and addresses exist only then).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace rnic::app {

// steps[3].sgl[0].mr; keys that are not identifiers print as ["pcie.gen"].
class JsonPath {
 public:
  JsonPath() = default;
  JsonPath key(const std::string& k) const;
  JsonPath index(size_t i) const;
  std::string str() const;
  bool empty() const { return parts_.empty(); }
  const std::vector<std::variant<std::string, size_t>>& parts() const { return parts_; }

 private:
  std::vector<std::variant<std::string, size_t>> parts_;
};

struct Value {
  enum class Field { None, Token, LocalToken, Va, Length };  // None: a saved value

  bool is_ref = false;
  uint64_t literal = 0;
  std::string name;  // referenced object or saved value
  Field field = Field::None;
  bool negative = false;  // the +N / -N suffix
  uint64_t adjust = 0;
  JsonPath path;     // where the value was written, for run-time messages
  std::string text;  // as written ("$mwB.token+1")

  static Value of(uint64_t literal) {
    Value v;
    v.literal = literal;
    return v;
  }
  // Applies the suffix to a resolved base value (modulo 2^64, as a C++ unsigned would).
  // base +/- adjust; false when it leaves 0..2^64-1 (a reference never wraps).
  bool adjusted(uint64_t base, uint64_t* out) const {
    if (negative ? base < adjust : base > UINT64_MAX - adjust) return false;
    *out = negative ? base - adjust : base + adjust;
    return true;
  }
};

const char* field_name(Value::Field field);  // "token", ..., "" for a saved value

// Why `v` cannot be resolved from `base`: its suffix leaves the 64-bit range (the message
// `validate` gives for a base the file fixes, and `run` for one only the run knows).
std::string wrap_message(const Value& v, uint64_t base);

// Splits "$NAME.field+N" into `out`. `defined` says whether a name exists, so that a name
// holding '-', '+' or '.' still wins over a suffix reading when it is defined. Returns an
// empty string, or the error ("unknown object "x"", "bad reference ..."); for an unknown
// object, out->name is that name (and out->is_ref false).
std::string parse_reference(const std::string& text,
                            const std::function<bool(const std::string&)>& defined, Value* out);

}  // namespace rnic::app
