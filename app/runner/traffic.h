// SPDX-License-Identifier: Apache-2.0
// The `traffic` workload's driver (docs/scenario-format.md, "traffic"), private to the runner:
// traffic_build.cpp builds a step's objects, traffic.cpp keeps its operations in flight.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "app/runner/context.h"

namespace rnic::app::traffic {


// A request's context: its flow (direction) above bit 40, below it the source slot (Read,
// Write, Send), the receive's index, pair x outstanding + k (Receive), or, with bit 39, the
// pair of a flush (below).
constexpr int kFlowShift = 40;
constexpr uint64_t kIndexMask = (uint64_t(1) << kFlowShift) - 1;
constexpr uint64_t kFlushBit = uint64_t(1) << 39;
// One operation in this many has its bytes compared with their source when it completes.
constexpr uint64_t kCheckEvery = 16;

constexpr uint32_t kNoSlot = UINT32_MAX;

struct QpPair {
  host::QpHandle src = 0, dst = 0;
  uint32_t in_flight = 0;
  uint32_t waiting = 0;   // random: operations drawn for this QP while it was full
  uint64_t measured = 0;  // operations completed in the measured window
  // The slots of the operations posted and not yet retired, oldest first, linked through
  // Slot::next (a signaled completion retires its own and every earlier one: in-order
  // completion); the posts since the last signaled one; whether a flush is in flight.
  uint32_t oldest = kNoSlot, newest = kNoSlot;
  uint64_t unsignaled = 0;
  bool flushing = false;
};

struct Slot {
  uint32_t pair = 0;
  sc_core::sc_time posted;
  uint64_t remote = 0;  // the remote address (read, write)
  uint32_t region = 0;
  uint32_t next = kNoSlot;  // the pair's next operation in posting order
};

struct Region {
  host::Buffer buffer;
  uint32_t remote_token = 0;  // read, write
  uint32_t local_token = 0;   // send: the receives land here
};

struct Flow {
  const FlowSpec* spec = nullptr;
  uint32_t index = 0;       // in flows_: the context's flow
  uint32_t spec_index = 0;  // in the step's `flows`: the metrics' flowN
  bool reverse = false;     // a bidirectional flow's dst -> src direction
  host::Adapter* src = nullptr;
  host::Adapter* dst = nullptr;
  std::vector<QpPair> pairs;
  host::Buffer local;  // one slot of `size` bytes per operation in flight
  uint32_t local_token = 0;
  std::vector<Region> regions;
  uint64_t slots_per_region = 1;
  std::deque<uint32_t> ready;  // round_robin: pairs with room, in posting order
  std::vector<uint32_t> free_slots;
  std::vector<Slot> slots;
  // in_flight: operations of the window, posted or waiting for their QP (random); posted:
  // operations handed to the adapter (operation j's region and slot follow from j).
  uint64_t in_flight = 0, posted = 0, completed = 0;
  uint64_t measured = 0;  // completed in the measured window
  uint64_t flushes = 0;   // zero-length signaled operations that retired a QP's last ones
  bool flush_scan_done = false;
};

// Every source slot of a write or send flow holds the same bytes, so any operation of the
// flow leaves exactly these where it lands, whichever lands last: a check needs no ordering.
// Computed a chunk at a time, never held whole: a flow's size may be a gigabyte.
constexpr uint64_t kChunkBytes = 1 << 20;
void fill_pattern(uint32_t flow, uint64_t offset, uint64_t n, std::vector<uint8_t>& out);

class Traffic {
 public:
  Traffic(RunContext& ctx, const Step& step, StepResult& result)
      : ctx_(ctx), step_(step), result_(result),
        rng_(ctx.seed() ^ (step.index * 0x9E3779B97F4A7C15ull)) {}

  void run();

 private:
  JsonPath flow_path(uint32_t flow, const char* key) const {
    return JsonPath().key("steps").index(step_.index).key("flows").index(flow).key(key);
  }
  [[noreturn]] void refuse(uint32_t flow, const char* key, const std::string& why) const {
    throw StepInvalid(flow_path(flow, key), why);
  }
  host::PdHandle pd(uint32_t node);
  bool build(Flow& flow, const Flow* forward);
  std::vector<host::CqHandle> make_cqs(Flow& flow, uint32_t node, bool source_side);
  bool post_receive(Flow& flow, uint32_t pair, uint32_t k);
  bool post(Flow& flow);
  bool post_on(Flow& flow, uint32_t pair_index);
  bool post_verb(Flow& flow, const QpPair& pair, uint64_t context, const ndk::NDK_SGE* sge,
                 uint64_t remote, uint32_t token, uint32_t flags, const char* what);
  bool retire(Flow& flow, uint32_t slot_index, bool signaled);
  bool flush_if_stuck(Flow& flow, uint32_t pair_index);
  bool take(Flow& flow, const ndk::NDK_RESULT_EX& r);
  bool check_bytes(Flow& flow, const Slot& slot, uint64_t local_offset);
  bool poll_node(uint32_t node, bool* any);
  void open_window();
  void finish();

  RunContext& ctx_;
  const Step& step_;
  StepResult& result_;
  std::mt19937_64 rng_;
  std::map<uint32_t, host::PdHandle> pds_;
  std::deque<FlowSpec> reverse_specs_;  // the reverse directions' specs (stable addresses)
  std::vector<Flow> flows_;
  std::vector<std::vector<host::CqHandle>> cqs_by_node_;  // the CQs to poll
  uint64_t target_ = 0;  // warmup_ops + ops
  uint64_t posted_ = 0, completed_ = 0;
  // The measured window: opened when warmup_ops operations have completed.
  bool open_ = false;
  sc_core::sc_time window_start_;
  CounterWindow::Snapshot before_;
  std::optional<CounterWindow::Snapshot> mid_;
  uint64_t deltas_before_ = 0;
  WholeStep whole_;  // the counters when posting began (fast mode's line-rate bound)
  sc_core::sc_time step_start_;
  LatencyHistogram latency_;
  uint64_t bytes_ = 0;
  std::vector<uint8_t> got_, want_;  // a chunk of landed and expected bytes
};

}  // namespace rnic::app::traffic
