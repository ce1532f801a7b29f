// SPDX-License-Identifier: Apache-2.0
#include "app/scenario/json_scan.h"

#include <set>

namespace rnic::app {

namespace {

class Scanner {
 public:
  explicit Scanner(const std::string& text) : t_(text) {}
  size_t pos = 0;

  void ws() {
    while (pos < t_.size() &&
           (t_[pos] == ' ' || t_[pos] == '\t' || t_[pos] == '\n' || t_[pos] == '\r'))
      ++pos;
  }
  bool peek(char c) {
    ws();
    return pos < t_.size() && t_[pos] == c;
  }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++pos;
    return true;
  }

  // A string at `pos`, decoded to UTF-8 (so keys compare equal to nlohmann's).
  bool string(std::string* out) {
    if (!eat('"')) return false;
    out->clear();
    while (pos < t_.size()) {
      const char c = t_[pos++];
      if (c == '"') return true;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos >= t_.size()) return false;
      const char e = t_[pos++];
      switch (e) {
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!hex4(&cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF && pos + 1 < t_.size() && t_[pos] == '\\' &&
              t_[pos + 1] == 'u') {
            pos += 2;
            uint32_t low = 0;
            if (!hex4(&low)) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          utf8(cp, out);
          break;
        }
        default:
          out->push_back(e);
          break;
      }
    }
    return false;
  }

  // Skips one value without recursion (depth counting), strings included.
  void skip_value() {
    ws();
    if (pos >= t_.size()) return;
    if (t_[pos] == '"') {
      std::string ignored;
      string(&ignored);
      return;
    }
    if (t_[pos] != '{' && t_[pos] != '[') {
      while (pos < t_.size() && std::string(",}] \t\r\n").find(t_[pos]) == std::string::npos) ++pos;
      return;
    }
    size_t depth = 0;
    bool in_string = false;
    for (; pos < t_.size(); ++pos) {
      const char c = t_[pos];
      if (in_string) {
        if (c == '\\') {
          ++pos;
        } else if (c == '"') {
          in_string = false;
        }
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        ++pos;
        return;
      }
    }
  }

 private:
  bool hex4(uint32_t* out) {
    if (pos + 4 > t_.size()) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = t_[pos++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= uint32_t(c - 'A' + 10);
      else
        return false;
    }
    *out = v;
    return true;
  }
  static void utf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(char(cp));
    } else if (cp < 0x800) {
      out->push_back(char(0xC0 | (cp >> 6)));
      out->push_back(char(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(char(0xE0 | (cp >> 12)));
      out->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(char(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(char(0xF0 | (cp >> 18)));
      out->push_back(char(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(char(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(char(0x80 | (cp & 0x3F)));
    }
  }

  const std::string& t_;
};

constexpr size_t kMaxScanDepth = 256;

bool duplicate_in(Scanner& s, const JsonPath& path, size_t depth, JsonPath* out, size_t* offset) {
  if (depth > kMaxScanDepth) return false;
  if (s.eat('{')) {
    std::set<std::string> keys;
    if (s.eat('}')) return false;
    for (;;) {
      s.ws();
      const size_t at = s.pos;
      std::string key;
      if (!s.string(&key)) return false;
      if (!keys.insert(key).second) {
        *out = path.key(key);
        *offset = at;
        return true;
      }
      if (!s.eat(':')) return false;
      if (duplicate_in(s, path.key(key), depth + 1, out, offset)) return true;
      if (!s.eat(',')) {
        s.eat('}');
        return false;
      }
    }
  }
  if (s.eat('[')) {
    if (s.eat(']')) return false;
    for (size_t i = 0;; ++i) {
      if (duplicate_in(s, path.index(i), depth + 1, out, offset)) return true;
      if (!s.eat(',')) {
        s.eat(']');
        return false;
      }
    }
  }
  s.skip_value();
  return false;
}

}  // namespace

size_t find_excess_depth(const std::string& text, size_t limit) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limit) return i;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return std::string::npos;
}

size_t locate(const std::string& text, const JsonPath& path) {
  Scanner s(text);
  s.ws();
  if (s.pos >= text.size()) return std::string::npos;
  size_t found = s.pos;
  for (const auto& part : path.parts()) {
    if (const std::string* key = std::get_if<std::string>(&part)) {
      if (!s.eat('{')) return found;
      size_t match = std::string::npos;
      while (!s.eat('}')) {
        std::string k;
        if (!s.string(&k) || !s.eat(':')) return found;
        s.ws();
        if (k == *key) match = s.pos;  // the last one wins, as in nlohmann::json
        s.skip_value();
        if (!s.eat(',')) break;
      }
      if (match == std::string::npos) return found;
      s.pos = found = match;
    } else {
      const size_t index = std::get<size_t>(part);
      if (!s.eat('[')) return found;
      for (size_t n = 0;; ++n) {
        if (s.peek(']')) return found;
        if (n == index) break;
        s.skip_value();
        if (!s.eat(',')) return found;
      }
      s.ws();
      found = s.pos;
    }
  }
  return found;
}

bool find_duplicate_key(const std::string& text, JsonPath* path, size_t* offset) {
  Scanner s(text);
  return duplicate_in(s, JsonPath(), 0, path, offset);
}

}  // namespace rnic::app
