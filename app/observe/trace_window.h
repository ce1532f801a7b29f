// SPDX-License-Identifier: Apache-2.0
// `--trace-from`: where a trace's window starts, a simulated time ("25us") or a step (named as
// the results and the summary name steps: its index, "step14", "steps[14]", "-1" or
// "steps[-1]" for the last, or the name the step defines). Plain C++: checked before anything
// is simulated.
#pragma once

#include <cstdint>
#include <string>

#include "app/scenario/scenario.h"

namespace rnic::app {

constexpr uint64_t kMaxTraceFromPs = 1000000ull * 1000000000000ull;  // 10^6 s, the run's cap

struct TraceFrom {
  bool is_time = false;
  uint64_t ps = 0;   // is_time: the start, in ps
  std::string step;  // else: the step as written
};

// Parses the option's value; false with `error` set (a message naming --trace-from).
bool parse_trace_from(const std::string& text, TraceFrom* out, std::string* error);

// The index of the step `spec` names in `scenario`; false with `error` set.
bool resolve_trace_step(const std::string& spec, const Scenario& scenario, size_t* index,
                        std::string* error);

}  // namespace rnic::app
