// SPDX-License-Identifier: Apache-2.0
// The memory estimate behind --memory-budget (app/scenario/memory.h): what it counts, that it
// follows what the file asks for (buffers, caches times nodes, transfers in flight, steps),
// not what it merely mentions (a dma_bench count), and the sizes on the command line.
#include <catch2/catch.hpp>
#include <string>

#include "app/scenario/memory.h"

using namespace rnic::app;

namespace {

constexpr uint64_t MiB = 1ull << 20, GiB = 1ull << 30;

Scenario load(const std::string& steps, const std::string& config = "",
              const std::string& nodes = R"(["A", "B"])") {
  return load_scenario(R"({"name": "m", "nodes": )" + nodes + R"(, )" +
                       (config.empty() ? "" : R"("config": {"set": {)" + config + "}}, ") +
                       R"("steps": [)" + steps + "]}");
}

uint64_t part(const MemoryEstimate& e, const std::string& name) {
  for (const MemoryPart& p : e.parts) {
    if (p.name == name) return p.bytes;
  }
  return 0;
}

// Two connected QPs (qpA on A, qpB on B, CQs cqA and cqB) and MRs mrA, mrB on buffers
// sink (A) and src (B) of `bytes` each.
std::string pair(uint64_t bytes) {
  const std::string size = std::to_string(bytes);
  return R"({"op": "alloc", "node": "A", "name": "sink", "size": )" + size + R"(},
    {"op": "alloc", "node": "B", "name": "src", "size": )" + size + R"(},
    {"op": "create_pd", "node": "A", "name": "pdA"}, {"op": "create_pd", "node": "B", "name": "pdB"},
    {"op": "create_cq", "node": "A", "name": "cqA"}, {"op": "create_cq", "node": "B", "name": "cqB"},
    {"op": "create_qp", "name": "qpA", "pd": "pdA", "cq": "cqA"},
    {"op": "create_qp", "name": "qpB", "pd": "pdB", "cq": "cqB"},
    {"op": "connect", "qp": "qpA", "peer": "qpB"},
    {"op": "create_mr", "name": "mrA", "pd": "pdA"},
    {"op": "register_mr", "mr": "mrA", "buffer": "sink", "flags": ["ALLOW_LOCAL_WRITE", "RDMA_READ_SINK"]},
    {"op": "create_mr", "name": "mrB", "pd": "pdB"},
    {"op": "register_mr", "mr": "mrB", "buffer": "src", "flags": ["ALLOW_REMOTE_READ"]})";
}

std::string read(uint64_t bytes, int context) {
  return R"(, {"op": "read", "qp": "qpA", "sgl": [{"mr": "mrA", "length": )" +
         std::to_string(bytes) + R"(}], "remote": {"target": "mrB"}, "context": )" +
         std::to_string(context) + "}";
}

std::string poll(int count) {
  return R"(, {"op": "poll", "cq": "cqA", "count": )" + std::to_string(count) +
         R"(, "timeout_ns": 1000000000})";
}

}  // namespace

TEST_CASE("memory: sizes on the command line", "[app][memory]") {
  uint64_t v = 0;
  CHECK((parse_byte_size("4GiB", &v) && v == 4 * GiB));
  CHECK((parse_byte_size("8g", &v) && v == 8 * GiB));
  CHECK((parse_byte_size("512MiB", &v) && v == 512 * MiB));
  CHECK((parse_byte_size("1.5G", &v) && v == 3 * GiB / 2));
  CHECK((parse_byte_size("65536", &v) && v == 65536));
  CHECK((parse_byte_size("2t", &v) && v == 2ull << 40));
  CHECK((parse_byte_size("100B", &v) && v == 100));
  for (const char* bad : {"", "GiB", "1.5", "-1G", "4GB", "4 GiB", "1e3", "4GiBs", "0x10G",
                          "99999999999999999999", "16777216T"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_byte_size(bad, &v));
  }
  CHECK(format_size(4 * GiB) == "4 GiB");
  CHECK(format_size(3 * GiB / 2) == "1.5 GiB");
  CHECK(format_size(300 * MiB) == "300 MiB");
  CHECK(format_size(MiB - 100) == "1 MiB");
  CHECK(format_size(512) == "512 bytes");
  CHECK(format_size(10 * MiB + MiB / 5) == "10.2 MiB");
}

TEST_CASE("memory: host buffers count at their size, in pages", "[app][memory]") {
  const MemoryEstimate small = estimate_memory(load(pair(4096)));
  const MemoryEstimate big = estimate_memory(load(pair(512 * MiB)));
  CHECK(part(big, "host buffers") >= 1 * GiB);
  CHECK(big.total - small.total >= 1 * GiB - 8192);
  // A dma_bench window is allocated for the step: it counts, the largest per node.
  const MemoryEstimate bench = estimate_memory(load(
      R"({"op": "dma_bench", "node": "A", "size": 64, "window": 268435456, "count": 10},
         {"op": "dma_bench", "node": "A", "size": 64, "window": 4096, "count": 10})"));
  CHECK(part(bench, "host buffers") >= 256 * MiB);
  CHECK(part(bench, "host buffers") < 257 * MiB + 8 * MiB);
}

TEST_CASE("memory: on-chip caches count per node", "[app][memory]") {
  const std::string caches =
      R"("mtt.cache_entries": 1048576, "mtt.cache_ways": 1048576, "mpt.cache_entries": 1048576)";
  std::string nodes = "[";
  for (int i = 0; i < 64; ++i)
    nodes += std::string(i ? ", " : "") + "\"N" + std::to_string(i) + "\"";
  nodes += "]";
  const std::string step = R"({"op": "create_pd", "node": "N0", "name": "pd"})";
  const MemoryEstimate one = estimate_memory(load(step, caches, R"(["N0"])"));
  const MemoryEstimate all = estimate_memory(load(step, caches, nodes));
  // 144 bytes per entry pair measured: 64 nodes take 9.5 GB.
  CHECK(part(one, "on-chip caches") >= 144 * MiB);
  CHECK(part(all, "on-chip caches") == 64 * part(one, "on-chip caches"));
  const std::string refusal = check_memory_budget(all, kDefaultMemoryBudget);
  CHECK_THAT(refusal, Catch::StartsWith("needs about "));
  CHECK_THAT(refusal, Catch::Contains("more than the budget of 4 GiB"));
  CHECK_THAT(refusal, Catch::Contains("\n  on-chip caches: "));
  CHECK_THAT(refusal, Catch::Contains("64 nodes x (mtt.cache_entries 1048576"));
  CHECK(check_memory_budget(all, 16 * GiB).empty());
  CHECK(check_memory_budget(one, kDefaultMemoryBudget).empty());
}

TEST_CASE("memory: a transfer counts once while it may be in flight", "[app][memory]") {
  const uint64_t len = 256 * MiB;
  // Read, poll, read, poll: one in flight at a time.
  const MemoryEstimate serial =
      estimate_memory(load(pair(len) + read(len, 1) + poll(1) + read(len, 2) + poll(1)));
  // Both posted before the poll: both may be in flight.
  const MemoryEstimate both =
      estimate_memory(load(pair(len) + read(len, 1) + read(len, 2) + poll(2)));
  CHECK(part(serial, "transfers in flight") >= len);
  // The payload once, and its DMA read bookings (64 bytes per 512-byte read request).
  CHECK(part(serial, "transfers in flight") <= len + len / 8);
  CHECK(part(both, "transfers in flight") >= 2 * len);
  // A read above qp.max_transfer_bytes is refused when posted: it moves nothing.
  const MemoryEstimate refused = estimate_memory(
      load(pair(len) + read(len, 1) + poll(1), R"("qp.max_transfer_bytes": 65536)"));
  CHECK(part(refused, "transfers in flight") == 0);
  // A poll that may have reaped a receive's completion frees nothing of the read's.
  const std::string receive =
      R"(, {"op": "receive", "qp": "qpA", "sgl": [{"mr": "mrA", "length": 64}]})";
  const MemoryEstimate receives = estimate_memory(
      load(pair(len) + receive + read(len, 1) + poll(1) + read(len, 2) + poll(2)));
  CHECK(part(receives, "transfers in flight") >= 2 * len);
}

TEST_CASE("memory: a page_count override makes a 4 GiB transfer of two 4 KiB buffers",
          "[app][memory]") {
  // Issue #19: two 4 KiB buffers fast-registered as 4 GiB regions, one 4 GiB read (less a
  // byte: qp.max_transfer_bytes is at most 2^32 - 1).
  const std::string fr = R"(,
    {"op": "create_mr", "name": "frA", "pd": "pdA", "fast_register": true, "pages": 1048576},
    {"op": "fast_register", "qp": "qpA", "mr": "frA", "buffer": "sink", "length": 4294967296,
     "page_count": 1048576, "flags": ["ALLOW_LOCAL_WRITE", "RDMA_READ_SINK"]},
    {"op": "read", "qp": "qpA", "sgl": [{"mr": "frA", "length": 2147483648},
     {"mr": "frA", "offset": 2147483648, "length": 2147483647}], "remote": {"target": "mrB"}})";
  const MemoryEstimate e = estimate_memory(
      load(pair(4096) + fr, R"("qp.max_fr_pages": 1048576, "qp.max_transfer_bytes": 4294967295)"));
  CHECK(part(e, "transfers in flight") >= 4 * GiB - 1);
  const std::string refusal = check_memory_budget(e, kDefaultMemoryBudget);
  CHECK_THAT(refusal, Catch::Contains("transfers in flight: 4."));
  CHECK_THAT(refusal, Catch::Contains("steps[15] read"));
}

TEST_CASE("memory: fast mode keeps each node's largest message", "[app][memory]") {
  const uint64_t len = 64 * MiB;
  const std::string file = pair(len) + read(len, 1) + read(len, 2) + read(len, 3) + poll(3);
  const MemoryEstimate cycle = estimate_memory(load(file));
  const MemoryEstimate fast = estimate_memory(load(file, R"("sim.fast": 1)"));
  CHECK(part(cycle, "transfers in flight") >= 3 * len);
  // No copy on the wire; B's responder keeps the largest response it built.
  CHECK(part(fast, "transfers in flight") >= len);
  CHECK(part(fast, "transfers in flight") < 2 * len);
}

TEST_CASE("memory: workloads count their requests in flight, not their count",
          "[app][memory]") {
  const auto bench = [](uint64_t count) {
    return load(R"({"op": "dma_bench", "node": "A", "size": 64, "outstanding": 16, "count": )" +
                std::to_string(count) + "}");
  };
  // dma_bench keeps statistics, not a record per request.
  CHECK(estimate_memory(bench(100000)).total == estimate_memory(bench(100000000)).total);
  // A read stream: outstanding 64, but ORD (qp.max_ord 16) lets 16 reads be in flight.
  const auto stream = [](const std::string& op) {
    return load(pair(64 * MiB) + R"(, {"op": ")" + op +
                R"(", "qp": "qpA", "count": 1000, "size": 4194304, "outstanding": 64,
                "sgl": {"mr": "mrA"}, "remote": {"target": "mrB", "span": 67108864}})");
  };
  const uint64_t reads = part(estimate_memory(stream("read_stream")), "transfers in flight");
  const uint64_t writes = part(estimate_memory(stream("write_stream")), "transfers in flight");
  CHECK(reads >= 16 * 4 * MiB);
  CHECK(reads < 20 * 4 * MiB);
  CHECK(writes >= 64 * 4 * MiB);
}

TEST_CASE("memory: steps, --out, --trace and several files", "[app][memory]") {
  std::string waits;
  for (int i = 0; i < 1000; ++i) waits += std::string(i ? "," : "") + R"({"op": "wait", "ns": 1})";
  const Scenario s = load(waits);
  const MemoryEstimate plain = estimate_memory(s);
  CHECK(part(plain, "steps and results") >= 1000 * sizeof(Step));
  MemoryOptions out;
  out.results_file = true;
  CHECK(estimate_memory(s, out).total > plain.total + 1000 * 1024);
  MemoryOptions trace;
  trace.trace_events = 10000000;
  CHECK(part(estimate_memory(s, trace), "trace") >= 400 * MiB);
  // Two files in one process: the process counted once.
  const MemoryEstimate two = estimate_memory(std::vector<const Scenario*>{&s, &s}, {},
                                             {"a.json", "b.json"});
  CHECK(two.total == 2 * plain.total - part(plain, "process"));
  CHECK(part(two, "nodes") == 2 * part(plain, "nodes"));
  // Largest first.
  for (size_t i = 1; i < two.parts.size(); ++i) CHECK(two.parts[i - 1].bytes >= two.parts[i].bytes);
}
