// SPDX-License-Identifier: Apache-2.0
// The results of a run: the JSON of --out (docs/scenario-format.md "Results") and the short
// summary.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "app/runner/runner.h"
#include "app/scenario/scenario.h"

namespace rnic::app {

const char* version();  // the project version, "0.1.0"

nlohmann::json results_json(const Scenario& scenario, const RunResult& run, uint64_t seed);
// Writes `results` (pretty-printed) to `file_name`; empty string or the error text.
std::string write_json_file(const std::string& file_name, const nlohmann::json& results);
// "read-through-window: PASS  19/19 steps  sim 12.3 us  wall 0.04 s"
std::string summary_line(const Scenario& scenario, const RunResult& run);
// One line per workload step that ran (read_stream, write_stream, dma_bench): its metrics,
// for a person reading the terminal ("" when the run had no workload step).
std::string workload_table(const RunResult& run);
// `prefix` + "B pcie.down 97% (waits 1.2 us in all); then A port.tx 50%, ...\n": the top of
// a ranked bottleneck report and the next two; "" when nothing did any work.
std::string bound_by_line(const std::vector<ResourceLoad>& ranked, const std::string& prefix);
// The requests that failed (inline, or in a completion a poll took), each with the rule that
// decided it; "" when none did.
std::string decisions_table(const RunResult& run);
// 1234567 -> "1.235 ms"
std::string format_sim_time(uint64_t ns);

}  // namespace rnic::app
