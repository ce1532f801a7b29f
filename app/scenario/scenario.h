// SPDX-License-Identifier: Apache-2.0
// A scenario file parsed and checked into plain structs (docs/scenario-format.md). Nothing here
// runs the model: `rnicsim validate` stops after load_scenario().
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "app/scenario/value.h"
#include "model/config/config.h"
#include "model/rnic/abi/rules.h"

namespace rnic::app {

// Every file problem: the JSON path, what is wrong and, once known, where in the text.
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(JsonPath path, const std::string& message);
  const JsonPath& path() const { return path_; }
  const std::string& message() const { return message_; }  // without the path
  size_t line = 0;                                         // 1-based; 0 = unknown
  size_t column = 0;

 private:
  JsonPath path_;
  std::string message_;
};

enum class Op {
  Alloc,
  CreatePd,
  CreateCq,
  CreateQp,
  Connect,
  CreateMr,
  RegisterMr,
  DeregisterMr,
  CreateMw,
  FastRegister,
  Bind,
  Invalidate,
  Read,
  Write,
  Send,
  Receive,
  Flush,
  Poll,
  ExpectMemory,
  FillMemory,
  WaitAsync,
  Save,
  Wait,
  ReadStream,
  WriteStream,
  DmaBench,
  Traffic,
  PingPong,
};
const char* op_name(Op op);

enum class Fill { None, Zero, Incrementing, Random, Byte };

// One scatter/gather entry: {mr, offset, length}, or the literal form {token, address, length}.
struct SgeSpec {
  std::string mr;  // empty in the literal form
  Value offset;
  Value length;
  Value token;
  Value address;
};

// Remote side of a read/write: {target, offset} or {token, address}.
struct RemoteSpec {
  std::string target;  // MR or MW name; empty in the literal form
  Value offset;
  Value token;
  Value address;
  std::vector<std::string> targets;  // workloads: round-robin over these (target = targets[0])
  bool descriptor = false;  // {descriptor, offset}: through the user-mode window descriptor
  uint64_t span = 0;    // workloads: bytes walked
  bool random = false;  // workloads: "pattern"
};

// One entry of fast_register's explicit `pages`: the `index`-th 4 KiB page of `buffer`, plus
// `offset` bytes (a non-zero offset gives an unaligned page address: a negative test).
struct PageSpec {
  std::string buffer;
  Value index;
  Value offset;
};

// One entry of a poll's `expect`: omitted fields are not checked.
struct CompletionExpect {
  std::optional<Value> context;
  std::optional<uint32_t> type;
  std::optional<uint32_t> status;
  std::optional<Value> bytes;
  std::optional<Value> qp_context;     // the QPContext given at create_qp
  std::optional<Value> type_specific;  // ReceiveAndInvalidate: the invalidated token
  std::optional<RuleId> rule;          // the rule that decided the request (abi/rules.h)
};

// One flow of a `traffic` step: `qps` connected QP pairs from node `src` to node `dst`, all
// posting `verb` operations of `size` bytes at once.
enum class Verb { Read, Write, Send };
struct FlowSpec {
  uint32_t src = 0, dst = 0;  // node indices
  Verb verb = Verb::Read;
  uint64_t qps = 1;
  uint64_t size = 0;
  uint64_t outstanding = 1;      // per QP
  uint64_t window = 0;           // operations in flight over the flow
  uint64_t regions = 1;          // remote MRs of the flow
  uint64_t region_bytes = 65536;
  uint64_t page_size = 4096;
  bool random = false;           // pattern
  bool random_region = false;    // region_select: random (else round_robin)
  uint32_t flags = 0;            // NDK op flags of every operation (INLINE, SILENT_SUCCESS)
  uint64_t signal_every = 1;     // per QP, one operation in N asks for a completion
  bool bidirectional = false;    // each QP pair also carries the same operations dst -> src
};

// The reverse direction of a bidirectional flow: the same operations from `dst` to `src`,
// over the same QP pairs.
inline FlowSpec reversed(const FlowSpec& f) {
  FlowSpec r = f;
  r.src = f.dst;
  r.dst = f.src;
  return r;
}

// A workload metric bound: {"gbps": {"min": 10}}.
struct MetricBound {
  std::string metric;
  std::optional<double> min;
  std::optional<double> max;
};

// Fields of every op live side by side; each op's parser fills what it uses. The op table in
// scenario_ops.cpp says which fields an op accepts.
struct Step {
  size_t index = 0;
  Op op = Op::Alloc;
  std::string description;
  uint32_t expect_status = 0;  // inline status a call must return (STATUS_SUCCESS)

  // names: what the step creates and the objects it uses
  std::string name, node, pd, cq, qp, peer, mr, mw, buffer, target;
  uint32_t node_index = 0;  // of the node the step acts on (objects know theirs)

  // numbers
  uint64_t size = 0, page_size = 4096, depth = 0, send_depth = 0, recv_depth = 0;
  std::optional<uint64_t> ord, ird;
  uint64_t pages = 0, count = 0, timeout_ns = 0, ns = 0, outstanding = 0, signal_every = 1;
  uint64_t window = 0;
  Value offset, length, context, value;
  std::optional<Value> va, base_va, page_count, invalidate_token;
  uint32_t flags = 0;
  bool scatter = false, fast_register = false, remote_access = false;
  bool zero_based = false;          // register_mr (refused), bind (user-mode descriptor)
  bool async = false;               // register_mr: the asynchronous form (STATUS_PENDING)
  bool wait = true;                 // bind: the step waits until the device has run it
  std::vector<PageSpec> page_list;  // fast_register: explicit page array
  Fill fill = Fill::None;
  uint8_t fill_byte = 0;
  bool random_pattern = false;  // dma_bench pattern
  bool translate = false;       // dma_bench: through the device's translation (an IOMMU)
  bool expect_overflow = false; // poll: the CQ must have overflowed (an error otherwise)
  std::string kind;             // dma_bench kind
  std::vector<FlowSpec> flows;  // traffic (its `ops` is `count`)
  uint64_t warmup_ops = 0;      // traffic
  bool random_select = false;   // traffic qp_select
  Verb verb = Verb::Write;      // pingpong: write or send

  // data-path details
  std::vector<SgeSpec> sgl;
  RemoteSpec remote;
  std::vector<CompletionExpect> completions;
  std::vector<MetricBound> metrics;

  // expect_memory: one of equals / bytes / fill
  std::string equals_buffer;
  Value equals_offset;
  std::vector<uint8_t> bytes;
};

struct ConfigSetting {
  std::string key;
  std::string value_text;  // for messages and results
};

struct Scenario {
  std::string name;
  std::string description;
  uint64_t seed = 1;
  std::string preset = "default";
  std::vector<ConfigSetting> config_set;
  SystemConfig config;  // preset + config.set (the CLI applies --set on top)
  std::vector<std::string> nodes;
  std::vector<Step> steps;
};

// Calls `visit` with every number of `step` (literals and references alike).
void visit_values(const Step& step, const std::function<void(const Value&)>& visit);

// Parses and checks `text` (the file's contents), then applies `overrides` ("key=value", from
// --set) and the cross-key config checks. Throws ScenarioError with line and column filled in
// where the path can be found in the text.
Scenario load_scenario(const std::string& text, const std::vector<std::string>& overrides = {});
// Reads the file, then load_scenario(); a read failure is a ScenarioError with an empty path.
Scenario load_scenario_file(const std::string& file_name,
                            const std::vector<std::string>& overrides = {});
// Line and column of `path` in the file (for errors found while running); false when the file
// cannot be read again or the path is not in it.
bool locate_in_file(const std::string& file_name, const JsonPath& path, size_t* line,
                    size_t* column);
// "steps[3].qp: unknown QP "qpX"" plus " (line 12, column 7)" when known.
std::string describe(const ScenarioError& error);

}  // namespace rnic::app
