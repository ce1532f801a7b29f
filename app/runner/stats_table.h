// SPDX-License-Identifier: Apache-2.0
// The human summary of a run's unit statistics, printed after the summary line (not with
// --quiet or --no-summary): per node the key counters, then every latency histogram and
// occupancy that saw anything. Aligned columns, under 100 characters wide for short node
// names. The numbers are the results JSON's "stats", shortened for reading.
#pragma once

#include <string>
#include <vector>

#include "app/runner/runner.h"

namespace rnic::app {

// "" when the run collected no statistics (it stopped before simulating).
std::string stats_table(const std::vector<std::string>& nodes, const RunResult& run);

// 1234567 -> "1.23 MB": decimal units, three significant digits, at most 7 characters.
std::string format_bytes(uint64_t bytes);

}  // namespace rnic::app
