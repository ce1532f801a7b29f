// SPDX-License-Identifier: Apache-2.0
// The bottleneck report's ranking (app/runner/bottleneck.h) on exact inputs: most utilized
// first, the longer wait breaking a tie, then node and name; the summary's text.
#include <catch2/catch.hpp>
#include <vector>

#include "app/runner/bottleneck.h"

using rnic::app::bottleneck_text;
using rnic::app::rank_bottlenecks;
using rnic::app::ResourceLoad;

TEST_CASE("bottlenecks: most utilized first, whatever the input order", "[unit][bottleneck]") {
  const std::vector<ResourceLoad> loads = {{"A", "pcie.up", 0.10, 0},
                                           {"B", "read_tags", 0.62, 5000},
                                           {"B", "pcie.down", 0.97, 0},
                                           {"A", "port.tx", 0.40, 0}};
  const std::vector<ResourceLoad> ranked = rank_bottlenecks(loads);
  REQUIRE(ranked.size() == 4);
  CHECK(ranked[0].resource == "pcie.down");
  CHECK(ranked[0].node == "B");
  CHECK(ranked[1].resource == "read_tags");
  CHECK(ranked[1].wait_ns == 5000);
  CHECK(ranked[2].resource == "port.tx");
  CHECK(ranked[3].resource == "pcie.up");
  // The same list reversed ranks the same.
  const std::vector<ResourceLoad> reversed(loads.rbegin(), loads.rend());
  const std::vector<ResourceLoad> again = rank_bottlenecks(reversed);
  for (size_t i = 0; i < ranked.size(); ++i) CHECK(again[i].resource == ranked[i].resource);
}

TEST_CASE("bottlenecks: at equal utilization the longer wait, then node and name",
          "[unit][bottleneck]") {
  const std::vector<ResourceLoad> ranked =
      rank_bottlenecks({{"B", "wqe.buffer", 1.0, 0},
                        {"A", "read_tags", 1.0, 0},
                        {"A", "mtt.miss_registers", 1.0, 250},
                        {"A", "ird", 1.0, 0},
                        {"B", "pcie.up", 0.0, 0}});
  REQUIRE(ranked.size() == 5);
  CHECK(ranked[0].resource == "mtt.miss_registers");  // waited
  CHECK(ranked[1].resource == "ird");                 // A before B, then by name
  CHECK(ranked[2].resource == "read_tags");
  CHECK(ranked[3].resource == "wqe.buffer");
  CHECK(ranked[4].resource == "pcie.up");
  CHECK(rank_bottlenecks({}).empty());
}

TEST_CASE("bottlenecks: the summary names node, resource and whole percent",
          "[unit][bottleneck]") {
  CHECK(bottleneck_text({"B", "pcie.down", 0.9672, 0}) == "B pcie.down 97%");
  CHECK(bottleneck_text({"A", "read_tags", 1.0, 12}) == "A read_tags 100%");
  CHECK(bottleneck_text({"A", "port.rx", 0.004, 0}) == "A port.rx 0%");
}
