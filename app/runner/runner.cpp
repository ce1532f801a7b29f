// SPDX-License-Identifier: Apache-2.0
#include "app/runner/runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <systemc>

#include "app/observe/sampler.h"
#include "app/observe/vcd_probe.h"
#include "app/runner/context.h"
#include "app/runner/divergence_report.h"
#include "app/runner/rtl_units.h"
#include "app/scenario/text.h"

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

// Every unit's statistics at the end of the run; occupancy means are over the whole run.
// `owner_prefix` characters are cut from each owner (a scope's "s1." in a run of several).
void collect_stats(const System& system, RunResult& result, size_t owner_prefix) {
  const uint64_t end_ps = sc_core::sc_time_stamp().value();
  system.visit_groups([&](const StatGroup& group) {
    const std::string owner = group.owner().substr(owner_prefix);
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

// Where a scenario's run ends: its driver has finished. The results are taken in the update
// phase of the driver's last delta cycle, which is where a lone run's sc_stop() would leave
// them (the default SC_STOP_FINISH_DELTA: the current delta cycle completes, no later one
// starts). In a run of several the others go on; this one's figures stay those of its end.
class EndOfRun : public sc_core::sc_prim_channel {
 public:
  EndOfRun(const System& system, RunResult& result, size_t owner_prefix, size_t& running)
      : sc_prim_channel(sc_core::sc_gen_unique_name("end_of_run")),
        system_(system),
        result_(result),
        owner_prefix_(owner_prefix),
        running_(running) {}

  void finish() { request_update(); }
  bool collected() const { return collected_; }
  // The run ran out of events before the driver finished (a stall): the figures as they are.
  void collect() {
    result_.sim_ns = now_ns();
    violations_ = system_.protection_violations();
    if (violations_) first_violation_ = system_.first_protection_violation();
    collect_stats(system_, result_, owner_prefix_);
    collected_ = true;
  }
  // DMAs the protection monitor flagged up to the end of this scenario, and the first of them.
  uint64_t violations() const { return violations_; }
  const std::string& first_violation() const { return first_violation_; }

 private:
  void update() override {
    collect();
    if (--running_ == 0) sc_core::sc_stop();
  }

  const System& system_;
  RunResult& result_;
  size_t owner_prefix_;
  size_t& running_;
  bool collected_ = false;
  uint64_t violations_ = 0;
  std::string first_violation_;
};

// The one thread that plays the scenario; everything the driver does happens inside it.
class Driver : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Driver);
  Driver(sc_core::sc_module_name name, RunContext& ctx, RunResult& result, EndOfRun& end)
      : sc_module(name), ctx_(ctx), result_(result), end_(end) {
    SC_THREAD(run);
    set_stack_size(8u << 20);  // executors build messages and SGLs on this stack
    process = sc_core::sc_get_current_process_handle();  // the thread just created
  }
  bool finished = false;
  sc_core::sc_process_handle process;

 private:
  void run() {
    try {
      ctx_.create_adapters();
      for (const Step& step : ctx_.scenario.steps) {
        StepResult r;
        r.index = step.index;
        r.op = op_name(step.op);
        r.start_ns = now_ns();
        if (ctx_.step_started) ctx_.step_started(step);
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
      result_.invalid_path = e.path();
    } catch (const std::exception& e) {
      result_.outcome = RunOutcome::Internal;
      result_.message = e.what();
    }
    // The whole run's bottleneck report: the same figures as a step's, over [0, now].
    const CounterWindow& window = ctx_.counter_window();
    result_.bottlenecks = window.bottlenecks(window.zero(), window.take(), ctx_.qp_slots());
    finished = true;
    end_.finish();
  }

  RunContext& ctx_;
  RunResult& result_;
  EndOfRun& end_;
};

// One scenario's platform, host driver and end of run.
struct Instance {
  Instance(const Scenario& scenario, uint64_t seed, RunResult& result, size_t owner_prefix,
           size_t& running, DivergenceStop& stop)
      : system(scenario.config, scenario.nodes),
        ctx(scenario, system, seed),
        end(system, result, owner_prefix, running),
        driver("driver", ctx, result, end) {
    ctx.shared_simulation = owner_prefix > 0;
    ctx.owner_prefix = owner_prefix;
    // An RTL protection unit per node, deciding or compared (check_supported made sure they
    // were built).
    const ProtectionUnitConfig& protection = scenario.config.rnic.protection;
    if (protection.implementation == ProtectionImplementation::Tlm) return;
    for (size_t i = 0; i < system.node_count(); ++i) {
      units.push_back(rtl_units().make_protection(protection));
      system.node(i).rnic.protection.use_unit(units.back().get(), [&stop] { stop.request(); });
    }
  }
  System system;
  RunContext ctx;
  EndOfRun end;
  Driver driver;
  std::vector<std::unique_ptr<ProtectionDatapath>> units;  // by node
};

// In a run of several scenarios, each one's modules sit under a parent of their own
// ("s1.A.rnic"), so that two scenarios can both name a node "A". Owners drop the "s1.".
class InstanceScope : public sc_core::sc_module {
 public:
  InstanceScope(sc_core::sc_module_name name, const Scenario& scenario, uint64_t seed,
                RunResult& result, size_t& running, DivergenceStop& stop)
      : sc_module(name),
        instance(scenario, seed, result, std::string(this->name()).size() + 1, running, stop) {}
  Instance instance;
};

// A bound on a kernel-wide figure (delta cycles per op) cannot be checked in a shared
// simulation: "steps[i]: ..." or empty.
std::string check_alone_metrics(const Scenario& scenario) {
  for (const Step& step : scenario.steps) {
    for (const MetricBound& bound : step.metrics) {
      if (bound.metric == "deltas_per_op") {
        return "steps[" + std::to_string(step.index) +
               "]: a bound on deltas_per_op (the whole simulation's delta cycles) needs the "
               "file run alone";
      }
    }
  }
  return {};
}

bool all_finished(const std::vector<Instance*>& instances) {
  for (const Instance* i : instances)
    if (!i->driver.finished) return false;
  return true;
}

// Runs the simulation to its end. With `progress`, in slices of simulated time sized to about
// 50 ms of wall time each, printing one updated line on stderr once the run has taken 2 s:
// the same events in the same order as one sc_start(), with a look at the clock in between.
void simulate(const std::vector<Instance*>& instances, const std::vector<RunResult>& results,
              size_t steps, bool progress) {
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
  for (bool first = true;
       first || (!all_finished(instances) && sc_core::sc_get_status() != sc_core::SC_STOPPED &&
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
    size_t done = 0;
    for (const RunResult& r : results) done += r.steps.size();
    const double sim_us = sc_core::sc_time_stamp().to_seconds() * 1e6;
    std::fprintf(stderr,
                 "\r\033[Krnicsim: %.3f us simulated, %zu/%zu steps done, %.3f us/s, %.1f s",
                 sim_us, done, steps, sim_us / elapsed, elapsed);
    std::fflush(stderr);
  }
  if (showing) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
}

}  // namespace

RunContext::RunContext(const Scenario& scenario_, System& system_, uint64_t seed)
    : scenario(scenario_), system(system_), seed_(seed) {}

const CounterWindow& RunContext::counter_window() {
  if (!counter_window_)
    counter_window_ = std::make_unique<CounterWindow>(system, scenario.nodes, owner_prefix,
                                                      double(scenario.config.rnic.port.gbps));
  return *counter_window_;
}

std::vector<CounterWindow::QpSlots> RunContext::qp_slots() const {
  std::vector<CounterWindow::QpSlots> slots;
  for (const auto& a : adapters) {
    const host::AdapterUsage u = a->Usage();
    slots.push_back({double(u.ord_total), double(u.ird_total)});
  }
  return slots;
}

void RunContext::create_adapters() {
  for (size_t i = 0; i < system.node_count(); ++i) {
    adapters.push_back(std::make_unique<host::Adapter>(system.node(i).cpu, scenario.config.rnic,
                                                       scenario.config.host_memory.size_bytes,
                                                       uint32_t(i), node_seed(seed_, uint32_t(i))));
    adapters.back()->attach_trace(host_trace);
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
    return adjust(v, it->second);
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
  return adjust(v, base);
}

uint64_t RunContext::adjust(const Value& v, uint64_t base) {
  uint64_t x = 0;
  if (!v.adjusted(base, &x)) {
    throw StepInvalid(v.path, wrap_message(v, base));
  }
  return x;
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
  result.inline_rule =
      got == ndk::STATUS_SUCCESS || got == ndk::STATUS_PENDING ? RuleId::None : a.last_rule();
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
    case Op::PingPong:
      return exec_pingpong;
    case Op::Traffic:
      return exec_traffic;
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
  const std::string rtl = check_rtl_units(scenario.config);
  if (!rtl.empty()) return rtl;
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
  std::vector<RunResult> results = run_scenarios({&scenario}, {seed}, options);
  return std::move(results.front());
}

std::vector<RunResult> run_scenarios(const std::vector<const Scenario*>& scenarios,
                                     const std::vector<uint64_t>& seeds, RunOptions& options) {
  std::vector<RunResult> results(scenarios.size());
  const auto wall_start = std::chrono::steady_clock::now();
  if (seeds.size() != scenarios.size()) throw std::invalid_argument("one seed per scenario");
  const bool several = scenarios.size() > 1;
  if (several && (options.trace || !options.vcd.empty())) {
    throw std::invalid_argument("a trace or waveforms record one scenario at a time");
  }
  // sc_stop() reports an info message on stdout; the summary says when the run ended.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  DivergenceStop stop("divergence_stop");
  std::vector<std::unique_ptr<InstanceScope>> scopes;
  std::unique_ptr<Instance> lone;
  std::vector<Instance*> instances;
  std::vector<size_t> index_of;  // instances[k] runs scenarios[index_of[k]]
  size_t running = 0;
  size_t steps = 0;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    RunResult& result = results[i];
    std::string refused = check_supported(*scenarios[i]);
    if (refused.empty() && several) refused = check_alone_metrics(*scenarios[i]);
    if (!refused.empty()) {
      result.outcome = RunOutcome::Invalid;
      result.message = refused;
      continue;
    }
    try {
      ++running;
      if (several) {
        const std::string scope = "s" + std::to_string(i);
        scopes.push_back(std::make_unique<InstanceScope>(scope.c_str(), *scenarios[i], seeds[i],
                                                         result, running, stop));
        instances.push_back(&scopes.back()->instance);
      } else {
        lone = std::make_unique<Instance>(*scenarios[i], seeds[i], result, 0, running, stop);
        instances.push_back(lone.get());
      }
      index_of.push_back(i);
      steps += scenarios[i]->steps.size();
    } catch (const std::exception& e) {
      --running;
      result.outcome = RunOutcome::Internal;
      result.message = std::string("simulator error: ") + e.what();
    }
  }
  if (instances.empty()) return results;
  for (Instance* instance : instances)
    stop.watch(instance->driver.process, &instance->driver.finished);
  for (size_t k = 0; k < instances.size(); ++k) {
    const size_t i = index_of[k];
    if (i < options.decisions.size() && options.decisions[i])
      instances[k]->system.attach_decisions(options.decisions[i]);
  }
  try {
    std::unique_ptr<VcdProbe> probe;
    std::unique_ptr<TraceCounters> counters;
    std::unique_ptr<Sampler> sampler;
    if (!several) {
      lone->system.attach_trace(options.trace);
      lone->ctx.host_trace = options.host_trace;
      lone->ctx.step_started = options.step_started;
      std::vector<Sampler::Consumer> consumers;
      if (!options.vcd.empty()) {
        const sc_core::sc_time period(double(std::max<uint64_t>(1, options.vcd_period_ns)),
                                      sc_core::SC_NS);
        probe = std::make_unique<VcdProbe>(lone->system, options.vcd, period);
        consumers.push_back({period, [p = probe.get()] { p->sample(); }});
      }
      if (options.trace && options.trace_counter_period_ns) {
        const sc_core::sc_time period(double(options.trace_counter_period_ns), sc_core::SC_NS);
        counters = std::make_unique<TraceCounters>(lone->system, *options.trace, period);
        consumers.push_back({period, [c = counters.get()] { c->sample(); }});
      }
      // The module name the loader keeps from nodes (app/scenario/scenario.cpp).
      if (!consumers.empty()) sampler = std::make_unique<Sampler>("vcd_probe", consumers);
    }
    simulate(instances, results, steps, options.progress);
    if (probe) options.vcd_error = probe->close();
    bool diverged = false;
    for (Instance* instance : instances) diverged |= any_divergence(instance->system);
    for (size_t k = 0; k < instances.size(); ++k) {
      Instance& instance = *instances[k];
      RunResult& result = results[index_of[k]];
      if (!instance.end.collected()) instance.end.collect();
      if (!instance.driver.finished && result.outcome == RunOutcome::Passed) {
        result.outcome = RunOutcome::Internal;
        result.message = "simulation stalled in step " + std::to_string(result.steps.size()) +
                         ": no more events";
      }
      // Lockstep: the first divergence stopped the simulation; it is the failure to report.
      const std::string prefix = index_of[k] < options.divergence_prefixes.size()
                                     ? options.divergence_prefixes[index_of[k]]
                                     : "lockstep";
      if (report_divergence(instance.system, instance.units, *scenarios[index_of[k]], prefix,
                            result))
        continue;
      if (diverged && !instance.driver.finished) {
        result.outcome = RunOutcome::Failed;
        result.message = "stopped: an RTL unit diverged in another file of this run";
        continue;
      }
      // The device touched host memory the request it served did not allow (R6.no_touch):
      // whatever the completions said, the scenario fails, and the monitor says so first.
      if (instance.end.violations() > 0 && (result.outcome == RunOutcome::Passed ||
                                            result.outcome == RunOutcome::Failed)) {
        std::string monitor = "the protection monitor saw " +
                              std::to_string(instance.end.violations()) +
                              " DMA(s) the request they serve does not allow; the first: " +
                              instance.end.first_violation();
        if (result.outcome == RunOutcome::Failed) monitor += "\n" + result.message;
        result.outcome = RunOutcome::Failed;
        result.message = monitor;
      }
    }
  } catch (const std::exception& e) {
    for (size_t k = 0; k < instances.size(); ++k) {
      RunResult& result = results[index_of[k]];
      result.outcome = RunOutcome::Internal;
      result.message = std::string("simulator error: ") + e.what();
    }
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  for (RunResult& r : results) r.wall_s = wall_s;
  return results;
}

}  // namespace rnic::app
