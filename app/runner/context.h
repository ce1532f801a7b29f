// SPDX-License-Identifier: Apache-2.0
// State shared by the step executors while a scenario runs: adapters, named objects, saved
// values. One executor per op (runner_ops.cpp, runner_checks.cpp); an op without one is
// reported as unsupported.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/runner/runner.h"
#include "app/runner/window_stats.h"
#include "app/scenario/parse.h"
#include "host_api/adapter.h"
#include "model/platform/system.h"
#include "tlm/histogram.h"

namespace rnic::app {

// A value in the file that turns out impossible only at run time (exit 2).
class StepInvalid : public std::runtime_error {
 public:
  StepInvalid(const JsonPath& path, const std::string& message)
      : std::runtime_error(path.empty() ? message : path.str() + ": " + message), path_(path) {}
  const JsonPath& path() const { return path_; }

 private:
  JsonPath path_;
};

struct RtObject {
  ObjectKind kind = ObjectKind::Buffer;
  uint32_t node = 0;
  uint32_t handle = 0;  // PD/CQ/QP number or MPT index
  host::Buffer buffer;  // buffers only
  // MWs bound through the user-mode Bind (`zero_based`): the descriptor it returned.
  bool has_descriptor = false;
  ndk::ND_MW_DESCRIPTOR descriptor;
};

class RunContext {
 public:
  RunContext(const Scenario& scenario, System& system, uint64_t seed);

  const Scenario& scenario;
  System& system;
  std::vector<std::unique_ptr<host::Adapter>> adapters;
  std::map<std::string, RtObject> objects;
  std::map<std::string, uint64_t> saved;
  // Asynchronous control calls by the name of their object (register_mr with async).
  std::map<std::string, std::unique_ptr<host::AsyncRequest>> async_calls;
  // One of several scenarios in one simulation (run_scenarios): kernel-wide figures such as
  // delta cycles are theirs together, not this scenario's.
  bool shared_simulation = false;
  size_t owner_prefix = 0;  // characters of a unit's name before its node's ("s1.")
  // Observers (a lone run with --trace): the drivers' host track, and each step's start.
  host::HostTraceSink* host_trace = nullptr;
  std::function<void(const Step&)> step_started;

  // The unit counters of this scenario's nodes, laid out once for workload windows.
  const CounterWindow& counter_window();
  // The ORD and IRD of the QPs open on each node, summed (the bottleneck report's capacity).
  std::vector<CounterWindow::QpSlots> qp_slots() const;

  void create_adapters();  // inside the SystemC thread: the driver talks to the device
  // The run's seed: --seed when given, else the file's (Scenario::seed is only the latter).
  uint64_t seed() const { return seed_; }
  host::Adapter& adapter(uint32_t node) { return *adapters.at(node); }
  const RtObject& object(const std::string& name) const;
  host::Adapter& adapter_of(const std::string& name) { return adapter(object(name).node); }
  uint32_t handle(const std::string& name) const { return object(name).handle; }

  // Value of a literal or reference (a +N/-N suffix that would wrap is refused).
  uint64_t resolve(const Value& v);
  // Same, refused (StepInvalid) above 32 bits: tokens, SGE lengths.
  uint32_t resolve32(const Value& v);
  // base +/- the reference's offset; refused (StepInvalid) when it would wrap.
  static uint64_t adjust(const Value& v, uint64_t base);

  // Compares a returned status with the step's `expect`; on a mismatch fills `result` and
  // returns false. `adapter` supplies last_error() for the message.
  bool check_status(const Step& step, uint32_t got, host::Adapter& adapter, StepResult& result);

 private:
  uint64_t seed_;
  std::unique_ptr<CounterWindow> counter_window_;
};

void fail_step(StepResult& result, const std::string& expected, const std::string& got,
               const std::string& message);

// Helpers of the data verbs.
std::vector<ndk::NDK_SGE> build_sgl(RunContext& ctx, const Step& step);
void resolve_remote(RunContext& ctx, const RemoteSpec& remote, uint64_t* address, uint32_t* token);
// Posts the step's Read (write = false) or Write.
void exec_rdma(RunContext& ctx, const Step& step, StepResult& result, bool write);

// Workload metrics (workloads.cpp), for every workload executor. `before` and `mid`: the
// unit counters at the start and halfway through the measured window (mid null: no warming
// check); `deltas_before`: workload_deltas() at the start. Fills result.metrics
// (docs/scenario-format.md "Metrics" names, hit rates by node and side, then `extra`),
// window_stats and warnings, then checks the bounds.
// `whole`: a step whose measured window starts with operations in flight (after a warm-up)
// gives its start and length too, for fast mode's line-rate bound.
uint64_t workload_deltas();  // SystemC delta cycles so far
// Returns (in the calling SystemC thread) once nothing else is due at the current instant.
// One helper process checks for all callers: two callers spinning on delta cycles each would
// keep the other's check true for ever (two traffic steps of a shared simulation did).
void wait_until_instant_settled();
struct WholeStep {
  CounterWindow::Snapshot start;  // the counters when the step's first operation was posted
  double sim_ns = 0;              // the step's simulated time, warm-up included
  uint64_t bytes = 0;             // the payload of every operation of the step
};
void report_workload(RunContext& ctx, const Step& step, StepResult& result, uint64_t ops,
                     uint64_t bytes, double sim_ns, const LatencyHistogram& latency_ps,
                     const CounterWindow::Snapshot& before, const CounterWindow::Snapshot* mid,
                     uint64_t deltas_before, const Metrics& extra = {},
                     const WholeStep* whole = nullptr);
// Fails `result` at the first metric outside the step's bounds, or not measured at all.
void check_metric_bounds(const Step& step, StepResult& result);

// Executors: one per op. They spend simulated time only through the adapter and wait().
using Executor = void (*)(RunContext&, const Step&, StepResult&);
Executor executor_for(Op op);  // nullptr: not supported by this version

void exec_alloc(RunContext&, const Step&, StepResult&);
void exec_create_pd(RunContext&, const Step&, StepResult&);
void exec_create_cq(RunContext&, const Step&, StepResult&);
void exec_create_qp(RunContext&, const Step&, StepResult&);
void exec_connect(RunContext&, const Step&, StepResult&);
void exec_create_mr(RunContext&, const Step&, StepResult&);
void exec_register_mr(RunContext&, const Step&, StepResult&);
void exec_deregister_mr(RunContext&, const Step&, StepResult&);
void exec_create_mw(RunContext&, const Step&, StepResult&);
void exec_bind(RunContext&, const Step&, StepResult&);
void exec_read(RunContext&, const Step&, StepResult&);
void exec_fast_register(RunContext&, const Step&, StepResult&);
void exec_invalidate(RunContext&, const Step&, StepResult&);
void exec_write(RunContext&, const Step&, StepResult&);
void exec_send(RunContext&, const Step&, StepResult&);
void exec_receive(RunContext&, const Step&, StepResult&);
void exec_flush(RunContext&, const Step&, StepResult&);
void exec_read_stream(RunContext&, const Step&, StepResult&);
void exec_write_stream(RunContext&, const Step&, StepResult&);
void exec_dma_bench(RunContext&, const Step&, StepResult&);
void exec_traffic(RunContext&, const Step&, StepResult&);  // traffic.cpp
void exec_pingpong(RunContext&, const Step&, StepResult&);  // pingpong.cpp
// A workload step (stream, traffic, pingpong) that sees no completion for a while looks at
// whether it is stuck (docs/limits.md, "Workload stall"): it is when no unit counter of its
// nodes moved either. The while is 10 ms of simulated time, plus four times what the bytes
// the step keeps in flight take on the slowest leg of a transfer: the port, the PCIe link,
// or the DMA reads one node's read tags keep in flight (each a host round trip with its
// extra latency and line service). A transfer booked ahead moves no counter while it waits
// for simulated time to catch up, so that time is the bound there.
class StallWatch {
 public:
  StallWatch(RunContext& ctx, uint64_t bytes_in_flight);
  const sc_core::sc_time& limit() const { return limit_; }
  // True when some unit counter of the scenario's nodes moved since the last look.
  bool moved();
  // "10 ms of simulated time", for messages.
  std::string limit_text() const;

 private:
  uint64_t activity();
  RunContext& ctx_;
  sc_core::sc_time limit_;
  uint64_t seen_;
};

void exec_poll(RunContext&, const Step&, StepResult&);
void exec_expect_memory(RunContext&, const Step&, StepResult&);
void exec_fill_memory(RunContext&, const Step&, StepResult&);
void exec_wait_async(RunContext&, const Step&, StepResult&);
void exec_save(RunContext&, const Step&, StepResult&);
void exec_wait(RunContext&, const Step&, StepResult&);

}  // namespace rnic::app
