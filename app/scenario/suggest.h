// SPDX-License-Identifier: Apache-2.0
// "Did you mean" for every unknown name rnicsim refuses (ops, fields, config keys, presets,
// flags, statuses, metrics, commands, options): the valid names closest to a misspelt one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rnic::app {

// Damerau-Levenshtein distance (optimal string alignment: swapping two neighbours is one
// edit), case-sensitive; stops counting past `limit` (returns limit + 1 there).
size_t edit_distance(const std::string& a, const std::string& b, size_t limit = SIZE_MAX);

// The names of `valid` closest to `name`, in the order of `valid`; empty for a valid name,
// when none is close, or when too many are equally close to help. Close: the same name but
// for case or for '_', '-', '.' and ' ' (best); `name` is the last words of a valid name, or a
// valid name the last words of `name` ("gen" -> "pcie.gen", "NDK_OP_FLAG_INLINE" ->
// "INLINE"); or within an edit distance of a third of the length.
std::vector<std::string> closest_names(const std::string& name,
                                       const std::vector<std::string>& valid);

// "; did you mean "read_stream"?" (or "a" or "b") when a valid name is close, else `otherwise`.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& valid,
                         const std::string& otherwise = "");
// "unknown WHAT "name"" followed by did_you_mean().
std::string unknown_name(const std::string& what, const std::string& name,
                         const std::vector<std::string>& valid, const std::string& otherwise = "");
// " (LABEL: a, b, c)": the whole list, for when no name is close and the list is short.
std::string name_list(const std::string& label, const std::vector<std::string>& valid);

inline std::vector<std::string> strings(const std::vector<const char*>& names) {
  return {names.begin(), names.end()};
}

}  // namespace rnic::app
