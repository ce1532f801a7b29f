// SPDX-License-Identifier: Apache-2.0
#include "app/scenario/suggest.h"

#include <algorithm>
#include <cctype>

#include "app/scenario/text.h"

namespace rnic::app {

namespace {

constexpr size_t kMaxNameLength = 256;  // longer is no typo of a name; spares the distance work
constexpr size_t kMaxSuggestions = 3;   // more, equally close, would not help choose
constexpr size_t kMinWordsLength = 3;   // "gen" may stand for "pcie.gen"; "s" for nothing

// Lower case, and one separator: "PCIe-MRRS" and "pcie.mrrs" read the same.
std::string normalized(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    c = char(std::tolower(static_cast<unsigned char>(c)));
    if (c == '-' || c == '.' || c == ' ') c = '_';
  }
  return out;
}

// `shorter` is the last whole words of `longer` ("gen" of "pcie_gen").
bool last_words(const std::string& longer, const std::string& shorter) {
  const size_t n = shorter.size();
  return n >= kMinWordsLength && longer.size() > n + 1 &&
         longer.compare(longer.size() - n, n, shorter) == 0 && longer[longer.size() - n - 1] == '_';
}

}  // namespace

size_t edit_distance(const std::string& a, const std::string& b, size_t limit) {
  const size_t n = a.size(), m = b.size();
  const size_t over = limit == SIZE_MAX ? limit : limit + 1;  // "more than limit"
  if ((n > m ? n - m : m - n) > limit) return over;
  // Three rows of the (n+1) x (m+1) table: the transposition looks two rows back.
  std::vector<size_t> before(m + 1), previous(m + 1), current(m + 1);
  for (size_t j = 0; j <= m; ++j) previous[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    current[0] = i;
    size_t row_min = current[0];
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      size_t d = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d = std::min(d, before[j - 2] + 1);
      current[j] = d;
      row_min = std::min(row_min, d);
    }
    // Two rows past the limit: no later cell can come back under it.
    const size_t previous_min = *std::min_element(previous.begin(), previous.end());
    if (row_min > limit && previous_min > limit) return over;
    before.swap(previous);
    previous.swap(current);
  }
  return std::min(previous[m], over);
}

std::vector<std::string> closest_names(const std::string& name,
                                       const std::vector<std::string>& valid) {
  if (name.empty() || name.size() > kMaxNameLength) return {};
  if (std::find(valid.begin(), valid.end(), name) != valid.end()) return {};  // nothing to fix
  const std::string wanted = normalized(name);
  const size_t limit = std::max<size_t>(1, wanted.size() / 3);
  size_t best = SIZE_MAX;
  std::vector<std::string> found;
  for (const std::string& candidate : valid) {
    if (candidate.size() > kMaxNameLength) continue;
    const std::string c = normalized(candidate);
    size_t score;
    if (c == wanted) {
      score = 0;
    } else if (last_words(c, wanted) || last_words(wanted, c)) {
      score = 1;
    } else {
      score = edit_distance(wanted, c, limit);
      // Replacing every letter of a short name is no typo: "C" is not "A".
      if (score > limit || score >= std::min(wanted.size(), c.size())) continue;
    }
    if (score < best) {
      best = score;
      found.clear();
    }
    if (score == best && std::find(found.begin(), found.end(), candidate) == found.end())
      found.push_back(candidate);
  }
  if (found.size() > kMaxSuggestions) found.clear();
  return found;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& valid,
                         const std::string& otherwise) {
  const std::vector<std::string> close = closest_names(name, valid);
  if (close.empty()) return otherwise;
  std::string text = "; did you mean ";
  for (size_t i = 0; i < close.size(); ++i) {
    if (i) text += i + 1 == close.size() ? " or " : ", ";
    text += quote(close[i]);
  }
  return text + "?";
}

std::string unknown_name(const std::string& what, const std::string& name,
                         const std::vector<std::string>& valid, const std::string& otherwise) {
  return "unknown " + what + " " + quote(name) + did_you_mean(name, valid, otherwise);
}

std::string name_list(const std::string& label, const std::vector<std::string>& valid) {
  std::string list;
  for (const std::string& n : valid) list += (list.empty() ? "" : ", ") + n;
  return " (" + label + ": " + list + ")";
}

}  // namespace rnic::app
