// SPDX-License-Identifier: Apache-2.0
// Internals of the scenario parser: the symbol table of named objects and a reader over one
// JSON object that checks types and ranges and throws ScenarioError with the exact path.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/scenario/scenario.h"
#include "host_api/limits.h"

namespace rnic::app {

enum class ObjectKind { Buffer, Pd, Cq, Qp, Mr, Mw, Saved };
const char* kind_label(ObjectKind kind);  // "buffer", "PD", ..., "saved value"

// The largest value of a 32-bit field (tokens, lengths, sizes), as a Reader's bound.
constexpr uint64_t kU32 = UINT32_MAX;

struct Symbol {
  ObjectKind kind;
  uint32_t node = 0;
  size_t step = 0;             // index of the defining step
  uint64_t size = 0;           // buffers: bytes
  bool fast_register = false;  // MRs
};

// What the parser knows while walking the steps in order.
struct ParseState {
  std::vector<std::string> nodes;
  std::map<std::string, Symbol> symbols;
  std::vector<uint64_t> allocated;  // bytes of buffers per node
  uint64_t waited_ns = 0;           // sum of wait and poll timeouts: sc_time must not overflow
};

// Limits that keep a file from asking for absurd amounts of host RAM or time (the table in
// docs/user-guide.md). Fields the adapter limits stop one past the largest value any
// configuration accepts, so a negative test can still ask for one too many.
constexpr uint64_t kMaxCqDepthField = host::kMaxCqDepth + 1;        // create_cq depth
constexpr uint64_t kMaxQueueDepthField = host::kMaxQueueDepth + 1;  // send_depth, recv_depth
constexpr uint64_t kMaxReadsField = 1024 + 1;  // ord, ird (qp.max_ord, qp.max_ird <= 1024)
constexpr uint64_t kMaxFrPagesField = (1u << 20) + 1;  // pages, page_count (qp.max_fr_pages)
constexpr uint64_t kMaxWorkloadCount = 100ull * 1000 * 1000;  // read/write_stream, dma_bench
constexpr uint64_t kMaxOutstanding = 65536;
constexpr uint64_t kMaxAllocBytesPerNode = 1ull << 30;
constexpr uint64_t kMaxAllocBytesTotal = 2ull << 30;
constexpr uint64_t kMaxSimNs = 1000ull * 1000 * 1000 * 1000;  // 1000 s of simulated time
constexpr uint64_t kMaxTotalWaitNs = 1000 * kMaxSimNs;        // far below sc_time's 2^64 ps
constexpr uint64_t kMaxPollCount = 65536;
constexpr size_t kMaxSgl = 64;
constexpr size_t kMaxWorkloadTargets = 65536;  // read_stream/write_stream remote.targets
constexpr size_t kMaxFlows = 4096;              // traffic: all-to-all among 64 nodes is 4032
constexpr uint64_t kMaxFlowQps = 1u << 20;      // traffic: QP pairs per flow (qp.max_qps limit)

class Reader {
 public:
  Reader(const nlohmann::json& object, JsonPath path, ParseState& state);

  const JsonPath& path() const { return path_; }
  JsonPath path(const std::string& key) const { return path_.key(key); }
  bool has(const std::string& key) const;
  const nlohmann::json& at(const std::string& key) const;  // throws when missing
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

  // Refuses fields not in `allowed` (typos must not be ignored).
  void only(std::initializer_list<const char*> allowed) const;
  void only(const std::vector<const char*>& allowed) const;

  std::string string(const std::string& key) const;
  std::string string_or(const std::string& key, const std::string& fallback) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  // A literal number (integer or hex string) in [min, max].
  uint64_t literal(const std::string& key, uint64_t min, uint64_t max) const;
  uint64_t literal_or(const std::string& key, uint64_t fallback, uint64_t min, uint64_t max) const;
  // A literal or a $reference; `max` applies to literals (references are checked when run).
  Value value(const std::string& key, uint64_t max = UINT64_MAX) const;
  Value value_or(const std::string& key, uint64_t fallback, uint64_t max = UINT64_MAX) const;
  std::optional<Value> optional_value(const std::string& key, uint64_t max = UINT64_MAX) const;

  // Names an object created by an earlier step, of one of `kinds`.
  std::string object(const std::string& key, std::initializer_list<ObjectKind> kinds) const;
  // Defines `name` (the "name" field) as a new object on `node`.
  std::string define(ObjectKind kind, uint32_t node, size_t step, uint64_t size = 0) const;
  uint32_t node(const std::string& key) const;      // index into nodes
  uint32_t op_flags(const std::string& key) const;  // 0 when absent
  uint32_t mr_flags(const std::string& key) const;
  uint32_t status(const std::string& key) const;
  uint32_t operation_type(const std::string& key) const;
  // A rule ID of docs/spec-rules.tsv ("R5.read.resp.tag").
  RuleId rule(const std::string& key) const;
  Reader object_reader(const std::string& key) const;  // the field must be an object

  const Symbol& symbol(const std::string& name) const { return state_.symbols.at(name); }
  ParseState& state() const { return state_; }

 private:
  Value parse_value(const nlohmann::json& j, const JsonPath& path, uint64_t max) const;
  // Names of the defined objects of `kinds` (every kind when empty), for "did you mean".
  std::vector<std::string> symbol_names(std::initializer_list<ObjectKind> kinds) const;
  // `known`: every name `lookup` accepts, for the message when it refuses one.
  uint32_t flags(const std::string& key, bool (*lookup)(const std::string&, uint32_t*),
                 const std::vector<const char*>& known) const;

  const nlohmann::json& object_;
  JsonPath path_;
  ParseState& state_;
};

// Shared field parsers (scenario_fields.cpp).
void parse_expect_status(const Reader& r, Step& s);  // "expect": a status name
void check_same_node(const Reader& r, const std::string& key, const std::string& name,
                     const std::string& other);
Fill parse_fill(const Reader& r, const std::string& key, uint8_t* byte, bool allow_random);
std::vector<uint8_t> parse_hex_bytes(const Reader& r, const std::string& key);
std::vector<SgeSpec> parse_sgl(const Reader& r, const Step& s);
RemoteSpec parse_remote(const Reader& r, bool workload);
std::vector<PageSpec> parse_pages(const Reader& r, const Step& s);  // fast_register "pages"
// A workload's "expect": fixed metric names, hit rates by node, side and table, and (traffic
// steps, `flows` > 0) the metrics of flows 0 .. flows - 1 and fairness.
std::vector<MetricBound> parse_metrics(const Reader& r, size_t flows = 0);

// Parsers of the control ops and the verbs (objects.cpp).
void parse_alloc(const Reader& r, Step& s);
void parse_create_pd(const Reader& r, Step& s);
void parse_create_cq(const Reader& r, Step& s);
void parse_create_qp(const Reader& r, Step& s);
void parse_connect(const Reader& r, Step& s);
void parse_create_mr(const Reader& r, Step& s);
void parse_register_mr(const Reader& r, Step& s);
void parse_deregister_mr(const Reader& r, Step& s);
void parse_create_mw(const Reader& r, Step& s);
void parse_fast_register(const Reader& r, Step& s);
void parse_bind(const Reader& r, Step& s);
void parse_invalidate(const Reader& r, Step& s);
void parse_read_write(const Reader& r, Step& s);  // read, write
void parse_send(const Reader& r, Step& s);
void parse_receive(const Reader& r, Step& s);
void parse_flush(const Reader& r, Step& s);

// Parsers of the check, completion and workload ops (scenario_checks.cpp).
void parse_poll(const Reader& r, Step& s);
void parse_expect_memory(const Reader& r, Step& s);
void parse_fill_memory(const Reader& r, Step& s);
void parse_wait_async(const Reader& r, Step& s);
void parse_save(const Reader& r, Step& s);
void parse_wait(const Reader& r, Step& s);
void parse_stream(const Reader& r, Step& s);
void parse_dma_bench(const Reader& r, Step& s);
void parse_traffic(const Reader& r, Step& s);
void parse_pingpong(const Reader& r, Step& s);
// Adds `bytes` of buffers on `node` to the scenario's total, refused (at `key`) beyond the
// per-node and overall limits.
void charge_allocation(const Reader& r, const std::string& key, uint32_t node, uint64_t bytes);

// What a step field holds, as the schema describes it (`rnicsim schema`); the op's parser
// checks the rest (names defined earlier, object kinds, ranges).
enum class FieldType {
  Node,
  Name,
  Literal,
  Value,
  Boolean,
  Status,
  SuccessOnly,
  OpFlags,
  MrFlags,
  Fill,
  CheckFill,
  PageSize,
  Sgl,
  StreamSgl,
  Remote,
  StreamRemote,
  Completions,
  MetricBounds,
  Pages,
  Equals,
  HexBytes,
  DmaKind,
  Pattern,
  Flows,
  QpSelect,
  PingVerb
};

struct FieldDef {
  const char* name;
  FieldType type;
  bool required = false;
  const char* description = nullptr;  // one line, where the name does not say enough
};

// One row per op (docs/scenario-format.md "Ops"): name, meaning, fields besides op, description and
// comment, parser; one_of/any_of: exactly one / at least one of these fields must be given.
struct OpInfo {
  const char* name;
  Op op;
  const char* description;
  std::vector<FieldDef> fields;
  void (*parse)(const Reader&, Step&);
  std::vector<const char*> one_of = {};
  std::vector<const char*> any_of = {};
};
const std::vector<OpInfo>& op_table();

// Names accepted in a workload's "expect" bounds (read_stream, write_stream, dma_bench).
const std::vector<const char*>& metric_names();

// Parses the fields of one step (after "op" is known); defined in op_table.cpp.
void parse_step_fields(const Reader& reader, Step& step);
// Op name -> Op; false for an unknown op. `op_names` lists them all for messages.
bool op_from_name(const std::string& name, Op* out);
std::vector<std::string> op_names();
// The fields an op accepts besides op, description and comment (for the schema test).
std::vector<std::string> op_fields(Op op);
std::vector<Op> all_ops();
[[noreturn]] void throw_at(const JsonPath& path, const std::string& message);

}  // namespace rnic::app
