// SPDX-License-Identifier: Apache-2.0
#include "app/runner/bottleneck.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

namespace rnic::app {

std::vector<ResourceLoad> rank_bottlenecks(std::vector<ResourceLoad> loads) {
  std::sort(loads.begin(), loads.end(), [](const ResourceLoad& a, const ResourceLoad& b) {
    return std::tie(b.utilization, b.wait_ns, a.node, a.resource) <
           std::tie(a.utilization, a.wait_ns, b.node, b.resource);
  });
  return loads;
}

std::string bottleneck_text(const ResourceLoad& load) {
  char text[160];
  std::snprintf(text, sizeof text, "%s %s %.0f%%", load.node.c_str(), load.resource.c_str(),
                std::floor(load.utilization * 100.0 + 0.5));
  return text;
}

}  // namespace rnic::app
