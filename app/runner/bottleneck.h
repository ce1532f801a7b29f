// SPDX-License-Identifier: Apache-2.0
// The bottleneck report of a workload step (docs/user-guide.md, "Reading the bottleneck
// report"): every bounded resource with its utilization over the measured window and the time
// work waited for it there, ranked. Plain C++: the figures come from CounterWindow.
#pragma once

#include <string>
#include <vector>

namespace rnic::app {

struct ResourceLoad {
  std::string node;      // "B"
  std::string resource;  // "pcie.down", "read_tags", "mtt.miss_registers", ...
  // Busy time / window time (a link, the host's read service), or the time-weighted mean
  // occupancy / capacity (tags, registers, buffers, contexts). Fast mode's overlapping
  // bookings can take a busy fraction above 1.
  double utilization = 0;
  double wait_ns = 0;  // time requests waited for it in the window; 0 where nothing counts it
};

// Most utilized first; at equal utilization the longer wait first, then by node and name (a
// stable order for equal figures).
std::vector<ResourceLoad> rank_bottlenecks(std::vector<ResourceLoad> loads);

// "B pcie.down 97%" (the utilization in whole percent), for the summary.
std::string bottleneck_text(const ResourceLoad& load);

}  // namespace rnic::app
