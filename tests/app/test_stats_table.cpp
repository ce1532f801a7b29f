// SPDX-License-Identifier: Apache-2.0
// Unit statistics of real runs (histogram counts match the counters, occupancies stay within
// their limits, in both timing modes), the results JSON form, and the summary table's shape.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "app/runner/results.h"
#include "app/runner/runner.h"
#include "app/scenario/scenario.h"
#include "app/runner/stats_table.h"

using namespace rnic::app;

namespace {

// 16 KiB reads (32 read requests of 512 B each on B's PCIe link), ORD 8, IRD 4, 8 read tags.
std::string bulk_reads(const std::string& mode) {
  return R"({"name": "bulk", "nodes": ["A", "B"],
  "config": {"set": {"pcie.max_read_tags": 8, "sim.fast": )" +
         mode + R"(}},
  "steps": [
    {"op": "alloc", "node": "A", "name": "sink", "size": 65536},
    {"op": "alloc", "node": "B", "name": "src", "size": 262144, "fill": "incrementing"},
    {"op": "create_pd", "node": "A", "name": "pdA"},
    {"op": "create_pd", "node": "B", "name": "pdB"},
    {"op": "create_cq", "node": "A", "name": "cqA", "depth": 256},
    {"op": "create_cq", "node": "B", "name": "cqB", "depth": 256},
    {"op": "create_qp", "name": "qpA", "pd": "pdA", "cq": "cqA", "send_depth": 64,
     "recv_depth": 16, "ord": 8, "ird": 4},
    {"op": "create_qp", "name": "qpB", "pd": "pdB", "cq": "cqB", "send_depth": 64,
     "recv_depth": 16, "ord": 8, "ird": 4},
    {"op": "connect", "qp": "qpA", "peer": "qpB"},
    {"op": "create_mr", "name": "mrA", "pd": "pdA"},
    {"op": "register_mr", "mr": "mrA", "buffer": "sink", "offset": 0, "length": 65536,
     "flags": ["ALLOW_LOCAL_WRITE", "RDMA_READ_SINK"]},
    {"op": "create_mr", "name": "mrB", "pd": "pdB"},
    {"op": "register_mr", "mr": "mrB", "buffer": "src", "offset": 0, "length": 262144,
     "flags": ["ALLOW_LOCAL_WRITE", "ALLOW_REMOTE_READ"]},
    {"op": "read_stream", "qp": "qpA", "count": 120, "size": 16384, "outstanding": 8,
     "sgl": {"mr": "mrA", "offset": 0},
     "remote": {"target": "mrB", "offset": 0, "span": 262144, "pattern": "sequential"},
     "signal_every": 1}
  ]})";
}

uint64_t counter(const RunResult& run, const std::string& owner, const std::string& name) {
  for (const StatEntry& e : run.stats) {
    if (e.owner == owner && e.name == name) return e.value;
  }
  FAIL("no counter " << owner << " " << name);
  return 0;
}

const HistogramEntry& histogram(const RunResult& run, const std::string& owner,
                                const std::string& name) {
  auto it =
      std::find_if(run.histograms.begin(), run.histograms.end(),
                   [&](const HistogramEntry& h) { return h.owner == owner && h.name == name; });
  REQUIRE(it != run.histograms.end());
  return *it;
}

const OccupancyEntry& occupancy(const RunResult& run, const std::string& owner,
                                const std::string& name) {
  auto it =
      std::find_if(run.occupancies.begin(), run.occupancies.end(),
                   [&](const OccupancyEntry& o) { return o.owner == owner && o.name == name; });
  REQUIRE(it != run.occupancies.end());
  return *it;
}

void check_bulk_reads(const std::string& mode) {
  const Scenario scenario = load_scenario(bulk_reads(mode));
  const RunResult run = run_scenario(scenario, 1);
  REQUIRE(run.outcome == RunOutcome::Passed);
  const uint64_t reads = counter(run, "A.rnic.requester", "reads");
  CHECK(reads == 120);
  // One latency sample per read on each side.
  CHECK(histogram(run, "A.rnic.requester", "read_latency_ns").count == reads);
  CHECK(histogram(run, "A.rnic.requester", "write_latency_ns").count == 0);
  CHECK(histogram(run, "B.rnic.responder", "read_service_ns").count ==
        counter(run, "B.rnic.responder", "read_requests"));
  CHECK(histogram(run, "B.rnic.dma_read", "request_latency_ns").count ==
        counter(run, "B.rnic.dma_read", "requests"));
  CHECK(histogram(run, "A.rnic.completion", "queue_delay_ns").count ==
        counter(run, "A.rnic.completion", "completions"));
  const HistogramEntry& latency = histogram(run, "A.rnic.requester", "read_latency_ns");
  CHECK(latency.p50 > 0);
  CHECK(latency.p50 <= latency.p90);
  CHECK(latency.p90 <= latency.p99);
  CHECK(latency.p99 <= latency.max);
  CHECK(latency.mean <= double(latency.max));
  // A 16 KiB read is 32 read requests: the tags fill up, and never beyond the limit.
  const OccupancyEntry& tags = occupancy(run, "B.rnic.dma_read", "tags_in_use");
  CHECK(tags.max > 1);
  CHECK(tags.max <= 8);
  CHECK(tags.mean > 0);
  CHECK(tags.mean <= double(tags.max));
  const OccupancyEntry& ird = occupancy(run, "B.rnic.responder", "ird_in_use");
  CHECK(ird.max > 0);
  CHECK(ird.max <= 4);
  const OccupancyEntry& ord = occupancy(run, "A.rnic.requester", "reads_outstanding");
  CHECK(ord.max > 0);
  CHECK(ord.max <= 8);
  CHECK(occupancy(run, "A.rnic.dma_read", "tags_in_use").max == 0);  // A reads no data
  // The link was busy, but not more than the whole time.
  const uint64_t busy = counter(run, "B.pcie", "downstream_busy_ps");
  CHECK(busy > 0);
  CHECK(busy <= run.sim_ns * 1000);

  // The results JSON: histograms and occupancies are objects under their unit's owner.
  const nlohmann::json stats = results_json(scenario, run, 1)["stats"];
  const nlohmann::json& h = stats["A.rnic.requester"]["read_latency_ns"];
  for (const char* key : {"count", "mean", "p50", "p90", "p99", "max"}) CHECK(h.contains(key));
  CHECK(h["count"] == reads);
  CHECK(stats["B.rnic.dma_read"]["tags_in_use"]["max"] == tags.max);
  CHECK(stats["B.rnic.dma_read"]["tags_in_use"].contains("mean"));
  CHECK(stats["A.rnic.requester"]["reads"] == reads);
}

// 64 B reads from A to B over `qps` QP pairs, `outstanding` in flight on each.
std::string many_reads(uint32_t qps, uint32_t outstanding, const std::string& policy) {
  return R"({"name": "thrash", "nodes": ["A", "B"],
  "config": {"set": {"wqe.cache_policy": ")" +
         policy + R"("}},
  "steps": [{"op": "traffic", "flows": [{"src": "A", "dst": "B", "verb": "read", "qps": )" +
         std::to_string(qps) + R"(, "size": 64, "outstanding": )" +
         std::to_string(outstanding) + R"(}], "ops": 8000, "warmup_ops": 2000}]})";
}

double metric(const RunResult& run, const std::string& name) {
  for (const auto& [key, value] : run.steps.back().metrics)
    if (key == name) return value;
  FAIL("no metric " << name);
  return 0;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("bulk reads: latency samples match the counters, occupancies their limits",
          "[app][stats]") {
  check_bulk_reads("0");
}

TEST_CASE("bulk reads in fast mode: the same limits hold", "[app][stats]") {
  check_bulk_reads("1");
}

TEST_CASE("the statistics table: a row per node, then latencies and occupancies", "[app][stats]") {
  RunResult run;
  run.sim_ns = 1000;  // 1 us
  run.stats = {{"A.rnic.requester", "wqes", "WQEs", 20},
               {"A.rnic.requester", "reads", "requests", 18},
               {"A.rnic.requester", "writes", "requests", 2},
               {"A.rnic.endpoint", "dma_read_bytes", "bytes", 1234567},
               {"A.rnic.endpoint", "dma_write_bytes", "bytes", 999},
               {"A.rnic.mtt", "mtt_hits_requester", "lookups", 3},
               {"A.rnic.mtt", "mtt_misses_requester", "lookups", 1},
               {"B.rnic.mtt", "mtt_hits_responder", "lookups", 1},
               {"B.rnic.mtt", "mtt_misses_responder", "lookups", 2},
               {"B.rnic.mtt", "mtt_merged_responder", "lookups", 1},
               {"B.rnic.context", "qpc_hits_responder", "lookups", 4},
               {"A.pcie", "read_requests", "TLPs", 10},
               {"A.pcie", "completion_tlps", "TLPs", 12},
               {"A.pcie", "upstream_busy_ps", "ps", 250000},
               {"B.rnic.requester", "wqes", "WQEs", 0}};
  run.histograms = {{"A.rnic.requester", "read_latency_ns", 18, 1500.25, 1400, 1900, 2500, 2600},
                    {"A.rnic.requester", "write_latency_ns", 0, 0, 0, 0, 0, 0},
                    {"B.rnic.responder", "read_service_ns", 18, 600, 580, 590, 700, 710}};
  run.occupancies = {{"B.rnic.dma_read", "tags_in_use", "tags", 2.5, 16},
                     {"A.rnic.dma_read", "tags_in_use", "tags", 0, 0}};
  const std::vector<std::string> lines = lines_of(stats_table({"A", "B"}, run));
  REQUIRE(lines.size() == 15);
  CHECK(lines[0].empty());
  CHECK(lines[1].rfind("node", 0) == 0);
  for (const char* column : {"WQEs", "reads", "writes", "DMA rd", "PCIe TLPs", "up %"})
    CHECK(lines[1].find(column) != std::string::npos);
  CHECK(lines[2].rfind("A ", 0) == 0);
  CHECK(lines[2].find(" 20      18       2       0  1.23 MB    999 B ") != std::string::npos);
  CHECK(lines[2].find(" 22  25.0 ") != std::string::npos);  // TLPs, upstream busy 25%
  CHECK(lines[3].rfind("B ", 0) == 0);
  // Hit rates by node and side (merged lookups count as lookups), only sides that looked up.
  CHECK(lines[4].empty());
  CHECK(lines[5].rfind("hit rate", 0) == 0);
  CHECK(lines[6] == "A     requester    0.750       -       -       -");
  CHECK(lines[7] == "B     responder    0.250       -   1.000       -");
  CHECK(lines[8].empty());
  CHECK(lines[9].rfind("latency (ns)", 0) == 0);
  CHECK(lines[10].find("requester  read_latency_ns") != std::string::npos);
  CHECK(lines[10].find("18    1500.2     1400     1900     2500     2600") != std::string::npos);
  CHECK(lines[11].find("responder  read_service_ns") != std::string::npos);
  CHECK(lines[12].empty());
  CHECK(lines[13].rfind("occupancy", 0) == 0);
  CHECK(lines[14].find("dma_read   tags_in_use") != std::string::npos);
  CHECK(lines[14].find("2.50        16  tags") != std::string::npos);
  // Columns line up: every number column of a table ends where its header ends.
  CHECK(lines[2].size() == lines[1].size());
  CHECK(lines[6].size() == lines[5].size());
  CHECK(lines[10].size() == lines[9].size());
  for (const std::string& line : lines) CHECK(line.size() <= 100);
  // No statistics (the run stopped before simulating): no table.
  CHECK(stats_table({"A"}, RunResult{}).empty());
}

TEST_CASE("the statistics table: the measured window's busy fractions and occupancy means "
          "beside the whole run's", "[app][stats]") {
  RunResult run;
  run.sim_ns = 1000;  // 1 us
  run.stats = {{"A.pcie", "upstream_busy_ps", "ps", 250000},
               {"A.rnic.port", "tx_busy_ps", "ps", 100000}};
  run.occupancies = {{"B.rnic.dma_read", "tags_in_use", "tags", 2.5, 16},
                     {"A.rnic.requester", "reads_outstanding", "reads", 1.25, 4}};
  StepResult setup;  // no window: not a workload
  setup.index = 3;
  StepResult warmup, measured;
  warmup.index = 6;
  warmup.window_busy = {{"A.pcie", "upstream_busy_ps", 0.1}};
  measured.index = 7;
  measured.window_busy = {{"A.pcie", "upstream_busy_ps", 0.625},
                          {"A.pcie", "downstream_busy_ps", 0.0125},
                          {"A.rnic.port", "tx_busy_ps", 1.5}};  // fast mode's overlap: capped
  measured.window_occupancy = {{"B.rnic.dma_read", "tags_in_use", 7.75}};
  StepResult after;  // a check after the workloads
  after.index = 8;
  run.steps = {setup, warmup, measured, after};
  const std::vector<std::string> lines = lines_of(stats_table({"A", "B"}, run));
  REQUIRE(lines.size() == 10);
  CHECK(lines[2].rfind("A ", 0) == 0);
  CHECK(lines[2].find("  25.0   0.0   10.0") != std::string::npos);  // the whole run
  // The last workload step's window under each node's row, in the busy columns.
  CHECK(lines[3].rfind("  step 7 window ", 0) == 0);
  CHECK(lines[3].find("  62.5   1.2  100.0") != std::string::npos);
  CHECK(lines[3].size() == lines[1].size());
  CHECK(lines[4].rfind("B ", 0) == 0);
  CHECK(lines[5].rfind("  step 7 window ", 0) == 0);
  CHECK(lines[5].find("     -     -      -") != std::string::npos);  // nothing busy at B
  // Occupancies: the window's mean beside the whole run's, "-" where the window has none.
  CHECK(lines[6].empty());  // no lookups, no latencies: the occupancies follow
  CHECK(lines[7].rfind("occupancy", 0) == 0);
  CHECK(lines[7].find("mean       max    step 7") != std::string::npos);
  CHECK(lines[8].find("tags_in_use            2.50        16      7.75  tags") !=
        std::string::npos);
  CHECK(lines[9].find("reads_outstanding      1.25         4         -  reads") !=
        std::string::npos);
  CHECK(lines[8].size() - 6 == lines[7].size());  // the unit follows the last column
  for (const std::string& line : lines) CHECK(line.size() <= 100);
}

TEST_CASE("bytes read as B, kB, MB, GB with three significant digits", "[app][stats]") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(999) == "999 B");
  CHECK(format_bytes(1500) == "1.50 kB");
  CHECK(format_bytes(143300) == "143 kB");
  CHECK(format_bytes(999499) == "999 kB");
  CHECK(format_bytes(999500) == "1.00 MB");
  CHECK(format_bytes(2690000) == "2.69 MB");
  CHECK(format_bytes(12000000000ull) == "12.0 GB");
  CHECK(format_bytes(UINT64_MAX) == "18.4 EB");
  for (uint64_t b = 1; b < UINT64_MAX / 3; b = b * 3 + 1) CHECK(format_bytes(b).size() <= 7);
}

TEST_CASE("the option --no-summary parses for run only", "[app][stats]") {
  CliOptions o;
  std::string error;
  REQUIRE(parse_cli({"run", "f.json", "--no-summary"}, &o, &error));
  CHECK(o.no_summary);
  CHECK_FALSE(o.quiet);
  CHECK_FALSE(parse_cli({"validate", "f.json", "--no-summary"}, &o, &error));
  std::ostringstream out, err;
  CHECK(run_cli({"run", "--help"}, out, err) == 0);
  CHECK(out.str().find("--no-summary") != std::string::npos);
}

TEST_CASE("run prints the summary line, then the statistics table", "[app][stats]") {
  const std::string file = "/tmp/rnicsim_app_test_stats_table.json";
  std::ofstream(file) << bulk_reads("0");
  std::ostringstream out, err;
  REQUIRE(run_cli({"run", file}, out, err) == 0);
  const std::vector<std::string> lines = lines_of(out.str());
  REQUIRE(lines.size() > 8);
  CHECK(lines[0].rfind("bulk: PASS  14/14 steps", 0) == 0);
  CHECK(lines[1].rfind("  step 13  read_stream", 0) == 0);
  CHECK(lines[2].find("hit rate  A.requester") != std::string::npos);
  // The hit rates may wrap; the statistics table follows a blank line.
  const size_t blank = size_t(std::find(lines.begin(), lines.end(), "") - lines.begin());
  REQUIRE(blank + 3 < lines.size());
  CHECK(lines[blank + 1].rfind("node ", 0) == 0);
  CHECK(lines[blank + 2].rfind("A ", 0) == 0);
  CHECK(lines[blank + 3].rfind("  step 13 window ", 0) == 0);  // the read_stream's window
  CHECK(lines[blank + 4].rfind("B ", 0) == 0);
  CHECK(lines[blank + 5].rfind("  step 13 window ", 0) == 0);
  auto row = [&](const std::string& name) {
    auto it = std::find_if(lines.begin(), lines.end(),
                           [&](const std::string& l) { return l.find(name) != std::string::npos; });
    return it == lines.end() ? std::string() : *it;
  };
  CHECK(row(" read_latency_ns ").rfind("A ", 0) == 0);
  CHECK(row(" read_latency_ns ").find(" 120 ") != std::string::npos);  // count
  CHECK(row(" tags_in_use ").rfind("B ", 0) == 0);
  // The max, then the mean over step 13's window (the reads run only then: above the run's).
  CHECK(row(" tags_in_use ").find(" 8 ") != std::string::npos);
  CHECK(row(" tags_in_use ").find("  tags") != std::string::npos);
  CHECK(row("occupancy (time-weighted)").find("max   step 13") != std::string::npos);
  CHECK(row(" write_latency_ns ").empty());                           // nothing sampled: no row
  for (size_t i = 2; i < lines.size(); ++i) CHECK(lines[i].size() <= 100);
  std::remove(file.c_str());
}

TEST_CASE("run --no-summary keeps the summary and workload lines only", "[app][stats]") {
  const std::string file = "/tmp/rnicsim_app_test_no_summary.json";
  std::ofstream(file) << bulk_reads("0");
  std::ostringstream out, err;
  REQUIRE(run_cli({"run", file, "--no-summary"}, out, err) == 0);
  const std::vector<std::string> lines = lines_of(out.str());
  REQUIRE(lines.size() >= 3);
  CHECK(lines[0].rfind("bulk: PASS", 0) == 0);
  CHECK(lines[1].rfind("  step 13  read_stream", 0) == 0);
  for (size_t i = 2; i < lines.size(); ++i) {  // hit rates by node and side, nothing more
    CHECK(lines[i].rfind("           ", 0) == 0);
    CHECK(lines[i].find("node ") == std::string::npos);
  }
  std::remove(file.c_str());
}

TEST_CASE("WQE buffer: evict thrashes with many QPs x many reads in flight and block never "
          "refetches or holds more than wqe.cache_entries",
          "[app][stats]") {
  // 32 QPs x 16 reads want 512 WQEs on chip; 32 x 4 want 128, where evict is at its best
  // (scenarios/explore/README.md, wqe-cache: the rate rises to 4 in flight per QP, then falls).
  const Scenario evict_many = load_scenario(many_reads(32, 16, "evict"));
  const Scenario evict_few = load_scenario(many_reads(32, 4, "evict"));
  const Scenario block_many = load_scenario(many_reads(32, 16, "block"));
  RunOptions options;
  const std::vector<RunResult> runs =
      run_scenarios({&evict_many, &evict_few, &block_many}, {1, 1, 1}, options);
  REQUIRE(runs.size() == 3);
  for (const RunResult& run : runs) {
    REQUIRE(run.outcome == RunOutcome::Passed);
    CHECK(occupancy(run, "A.rnic.fetcher", "wqes_buffered").max <= 64);
  }
  const RunResult& many = runs[0];
  const RunResult& few = runs[1];
  const RunResult& block = runs[2];
  const uint64_t evicted = counter(many, "A.rnic.fetcher", "evicted_wqes");
  const uint64_t refetches = counter(many, "A.rnic.fetcher", "refetches");
  CHECK(evicted > 1000);
  CHECK(refetches > 0);
  CHECK(counter(many, "A.rnic.fetcher", "refetched_bytes") >= refetches * 128);
  CHECK(counter(many, "A.rnic.fetcher", "refetched_bytes") <= evicted * 128);
  INFO("mops evict: " << metric(many, "mops") << " with 16 in flight per QP, "
                      << metric(few, "mops") << " with 4; block: " << metric(block, "mops"));
  CHECK(metric(many, "mops") < metric(few, "mops"));
  CHECK(metric(many, "mops") < metric(block, "mops"));
  for (const char* name : {"evicted_wqes", "refetches", "refetched_bytes", "refetch_waits"})
    CHECK(counter(block, "A.rnic.fetcher", name) == 0);
}
