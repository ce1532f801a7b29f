// SPDX-License-Identifier: Apache-2.0
#include "app/runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <systemc>

#include "app/runner_context.h"
#include "app/text.h"
#include "app/vcd_probe.h"

namespace rnic::app {

namespace {

// Per-node seeds: nodes must not share random fills (splitmix64 of seed and node).
uint64_t node_seed(uint64_t seed, uint32_t node) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (uint64_t(node) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t now_ns() {
  return uint64_t(sc_core::sc_time_stamp() / sc_core::sc_time(1, sc_core::SC_NS));
}

// The one thread that plays the scenario; everything the driver does happens inside it.
class Driver : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Driver);
  Driver(sc_core::sc_module_name name, RunContext& ctx, RunResult& result)
      : sc_module(name), ctx_(ctx), result_(result) {
    SC_THREAD(run);
    set_stack_size(8u << 20);  // executors build messages and SGLs on this stack
  }
  bool finished = false;

 private:
  void run() {
    try {
      ctx_.create_adapters();
      for (const Step& step : ctx_.scenario.steps) {
        StepResult r;
        r.index = step.index;
        r.op = op_name(step.op);
        r.start_ns = now_ns();
        executor_for(step.op)(ctx_, step, r);
        r.end_ns = now_ns();
        result_.steps.push_back(r);
        if (!r.passed) {
          result_.outcome = RunOutcome::Failed;
          result_.message = failure_line(r);
          break;
        }
      }
    } catch (const sc_core::sc_unwind_exception&) {
      throw;  // a kill or reset of this thread: SystemC needs it back (IEEE 1666-2011 5.6.6.2)
    } catch (const StepInvalid& e) {
      result_.outcome = RunOutcome::Invalid;
      result_.message = e.what();
    } catch (const std::exception& e) {
      result_.outcome = RunOutcome::Internal;
      result_.message = e.what();
    }
    result_.sim_ns = now_ns();
    finished = true;
    sc_core::sc_stop();
  }

  RunContext& ctx_;
  RunResult& result_;
};

// Runs the simulation to its end. With `progress`, in slices of simulated time sized to about
// 50 ms of wall time each, printing one updated line on stderr once the run has taken 2 s:
// the same events in the same order as one sc_start(), with a look at the clock in between.
void simulate(const Driver& driver, const RunResult& result, size_t steps, bool progress) {
  if (!progress) {
    sc_core::sc_start();
    return;
  }
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto shown = start;
  bool showing = false;
  sc_core::sc_time chunk(1, sc_core::SC_US);
  // The first slice elaborates and initialises: nothing is pending before it.
  for (bool first = true; first || (!driver.finished &&
                                    sc_core::sc_get_status() != sc_core::SC_STOPPED &&
                                    sc_core::sc_pending_activity());
       first = false) {
    const auto before = Clock::now();
    // Never a slice with nothing in it (SystemC warns about those): at least to the next event.
    const sc_core::sc_time step =
        first ? chunk : std::max(chunk, sc_core::sc_time_to_pending_activity());
    sc_core::sc_start(step, sc_core::SC_EXIT_ON_STARVATION);
    const auto now = Clock::now();
    const double wall = std::chrono::duration<double>(now - before).count();
    if (wall < 0.025) {
      chunk = chunk * 2;
    } else if (wall > 0.1 && chunk > sc_core::sc_time(2, sc_core::SC_NS)) {
      chunk = chunk / 2;
    }
    const double elapsed = std::chrono::duration<double>(now - start).count();
    if (elapsed < 2.0 || std::chrono::duration<double>(now - shown).count() < 0.2) continue;
    shown = now;
    showing = true;
    const double sim_us = sc_core::sc_time_stamp().to_seconds() * 1e6;
    std::fprintf(stderr, "\r\033[Krnicsim: %.3f us simulated, %zu/%zu steps done, %.3f us/s, %.1f s",
                 sim_us, result.steps.size(), steps, sim_us / elapsed, elapsed);
    std::fflush(stderr);
  }
  if (showing) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
}

// Every unit's statistics at the end of the run; occupancy means are over the whole run.
void collect_stats(const System& system, RunResult& result) {
  const uint64_t end_ps = sc_core::sc_time_stamp().value();
  system.visit_groups([&](const StatGroup& group) {
    const std::string& owner = group.owner();
    for (const Counter& c : group.counters())
      result.stats.push_back(StatEntry{owner, c.name, c.unit, c.value});
    for (const Histogram& h : group.histograms()) {
      result.histograms.push_back(HistogramEntry{owner, h.name, h.count(), h.mean_ns(),
                                                 h.percentile_ns(0.50), h.percentile_ns(0.90),
                                                 h.percentile_ns(0.99), h.max_ns()});
    }
    for (const Occupancy& o : group.occupancies())
      result.occupancies.push_back(OccupancyEntry{owner, o.name, o.unit, o.mean(end_ps), o.max()});
  });
}

}  // namespace

RunContext::RunContext(const Scenario& scenario_, System& system_, uint64_t seed)
    : scenario(scenario_), system(system_), seed_(seed) {}

void RunContext::create_adapters() {
  for (size_t i = 0; i < system.node_count(); ++i) {
    adapters.push_back(std::make_unique<host::Adapter>(system.node(i).cpu, scenario.config.rnic,
                                                       scenario.config.host_memory.size_bytes,
                                                       uint32_t(i), node_seed(seed_, uint32_t(i))));
  }
}

const RtObject& RunContext::object(const std::string& name) const {
  auto it = objects.find(name);
  // Validation guarantees definition before use; this guards against a runner bug.
  if (it == objects.end()) throw std::logic_error("object \"" + name + "\" was never created");
  return it->second;
}

uint64_t RunContext::resolve(const Value& v) {
  if (!v.is_ref) return v.literal;
  if (v.field == Value::Field::None) {
    auto it = saved.find(v.name);
    if (it == saved.end()) throw StepInvalid(v.path, "saved value " + quote(v.name) + " unset");
    return v.adjusted(it->second);
  }
  const RtObject& o = object(v.name);
  host::Adapter& a = adapter(o.node);
  uint64_t base = 0;
  switch (v.field) {
    case Value::Field::Token:
      base = o.kind == ObjectKind::Mw ? a.GetRemoteTokenFromMw(o.handle)
                                      : a.GetRemoteTokenFromMr(o.handle);
      break;
    case Value::Field::LocalToken:
      base = a.GetLocalTokenFromMr(o.handle);
      break;
    case Value::Field::Va:
      base = o.kind == ObjectKind::Buffer ? o.buffer.va : a.ObjectBaseVa(o.handle);
      break;
    case Value::Field::Length:
      base = o.kind == ObjectKind::Buffer ? o.buffer.size : a.ObjectLength(o.handle);
      break;
    case Value::Field::None:
      break;
  }
  return v.adjusted(base);
}

uint32_t RunContext::resolve32(const Value& v) {
  const uint64_t x = resolve(v);
  if (x > UINT32_MAX) {
    throw StepInvalid(v.path, quote(v.text) + " = " + hex(x) + " does not fit in 32 bits");
  }
  return uint32_t(x);
}

void fail_step(StepResult& result, const std::string& expected, const std::string& got,
               const std::string& message) {
  result.passed = false;
  result.expected = expected;
  result.got = got;
  result.message = message;
}

bool RunContext::check_status(const Step& step, uint32_t got, host::Adapter& a,
                              StepResult& result) {
  result.status = got;
  if (got == step.expect_status) return true;
  std::string why;
  if (got != ndk::STATUS_SUCCESS && !a.last_error().empty()) why = " (" + a.last_error() + ")";
  const std::string e = ndk::status_name(step.expect_status);
  const std::string g = ndk::status_name(got);
  fail_step(result, e, g, "expected status " + e + ", got " + g + why);
  return false;
}

Executor executor_for(Op op) {
  switch (op) {
    case Op::Alloc:
      return exec_alloc;
    case Op::CreatePd:
      return exec_create_pd;
    case Op::CreateCq:
      return exec_create_cq;
    case Op::CreateQp:
      return exec_create_qp;
    case Op::Connect:
      return exec_connect;
    case Op::CreateMr:
      return exec_create_mr;
    case Op::RegisterMr:
      return exec_register_mr;
    case Op::DeregisterMr:
      return exec_deregister_mr;
    case Op::CreateMw:
      return exec_create_mw;
    case Op::Bind:
      return exec_bind;
    case Op::Read:
      return exec_read;
    case Op::FastRegister:
      return exec_fast_register;
    case Op::Invalidate:
      return exec_invalidate;
    case Op::Write:
      return exec_write;
    case Op::Send:
      return exec_send;
    case Op::Receive:
      return exec_receive;
    case Op::Flush:
      return exec_flush;
    case Op::ReadStream:
      return exec_read_stream;
    case Op::WriteStream:
      return exec_write_stream;
    case Op::DmaBench:
      return exec_dma_bench;
    case Op::Poll:
      return exec_poll;
    case Op::ExpectMemory:
      return exec_expect_memory;
    case Op::FillMemory:
      return exec_fill_memory;
    case Op::WaitAsync:
      return exec_wait_async;
    case Op::Save:
      return exec_save;
    case Op::Wait:
      return exec_wait;
    default:
      return nullptr;
  }
}

std::string unsupported_reason(const Step& step) {
  if (!executor_for(step.op)) {
    return std::string("op \"") + op_name(step.op) + "\" is not supported by this version";
  }
  return {};
}

std::string check_supported(const Scenario& scenario) {
  for (const Step& step : scenario.steps) {
    const std::string why = unsupported_reason(step);
    if (!why.empty()) return "steps[" + std::to_string(step.index) + "]: " + why;
  }
  return {};
}

std::string failure_line(const StepResult& step) {
  return "step " + std::to_string(step.index) + " (" + step.op + "): " + step.message;
}

RunResult run_scenario(const Scenario& scenario, uint64_t seed) {
  RunOptions none;
  return run_scenario(scenario, seed, none);
}

RunResult run_scenario(const Scenario& scenario, uint64_t seed, RunOptions& options) {
  RunResult result;
  const auto wall_start = std::chrono::steady_clock::now();
  const std::string unsupported = check_supported(scenario);
  if (!unsupported.empty()) {
    result.outcome = RunOutcome::Invalid;
    result.message = unsupported;
    return result;
  }
  // sc_stop() reports an info message on stdout; the summary says when the run ended.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  try {
    System system(scenario.config, scenario.nodes);
    RunContext ctx(scenario, system, seed);
    Driver driver("driver", ctx, result);
    system.attach_trace(options.trace);
    std::unique_ptr<VcdProbe> probe;
    if (!options.vcd.empty()) {
      probe = std::make_unique<VcdProbe>(
          "vcd_probe", system, options.vcd,
          sc_core::sc_time(double(std::max<uint64_t>(1, options.vcd_period_ns)), sc_core::SC_NS));
    }
    simulate(driver, result, scenario.steps.size(), options.progress);
    if (probe) options.vcd_error = probe->close();
    if (!driver.finished && result.outcome == RunOutcome::Passed) {
      result.outcome = RunOutcome::Internal;
      result.message =
          "simulation stalled in step " + std::to_string(result.steps.size()) + ": no more events";
      result.sim_ns = now_ns();
    }
    // The device touched host memory no valid token and range allowed (SPEC.md 6): whatever
    // the completions said, the scenario fails.
    if (system.protection_violations() > 0 && result.outcome == RunOutcome::Passed) {
      result.outcome = RunOutcome::Failed;
      result.message = "the protection monitor saw " +
                       std::to_string(system.protection_violations()) +
                       " DMA(s) outside every range the device was given";
    }
    collect_stats(system, result);
  } catch (const std::exception& e) {
    result.outcome = RunOutcome::Internal;
    result.message = std::string("simulator error: ") + e.what();
  }
  result.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace rnic::app
