// SPDX-License-Identifier: Apache-2.0
// Workload ops: read_stream, write_stream (verbs, through the whole device) and dma_bench
// (the device's DMA engine alone), with the metrics of docs/scenario-format.md and their bounds.
#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn: one host thread per stream
#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

#include "app/runner/context.h"
#include "app/runner/window_stats.h"
#include "model/host/pcie_link.h"
#include "tlm/histogram.h"

namespace rnic::app {

StallWatch::StallWatch(RunContext& ctx, uint64_t bytes_in_flight) : ctx_(ctx), seen_(0) {
  const SystemConfig& c = ctx.scenario.config;
  const RnicConfig& r = c.rnic;
  const double port = double(r.port.gbps) / 8.0;  // bytes per ns
  const double pcie = pcie_bytes_per_ns(r.pcie.gen, r.pcie.lanes);
  const double read_ns = double(r.pcie.read_latency_ns) + double(c.host_memory.extra_latency_ns) +
                         double(r.pcie.mrrs_bytes) / 64.0 * double(c.host_memory.line_service_ns);
  const double tags = double(r.pcie.max_read_tags) * double(r.pcie.mrrs_bytes) / read_ns;
  const double slowest = std::max(1e-9, std::min({port, pcie, tags}));
  const double ns = 10e6 + 4.0 * double(bytes_in_flight) / slowest;
  limit_ = sc_core::sc_time(std::min(ns, double(kMaxSimNs)), sc_core::SC_NS);
  seen_ = activity();
}

bool StallWatch::moved() {
  const uint64_t now = activity();
  const bool changed = now != seen_;
  seen_ = now;
  return changed;
}

std::string StallWatch::limit_text() const {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g ms of simulated time",
                limit_.to_seconds() * 1e3);
  return text;
}

uint64_t StallWatch::activity() {
  uint64_t sum = 0;
  for (uint64_t v : ctx_.counter_window().take().counters) sum += v;  // counters only grow
  return sum;
}

namespace {

double now_ns() { return sc_core::sc_time_stamp().to_seconds() * 1e9; }

}  // namespace

// SystemC delta cycles (evaluation phases with a process to run) so far: every timed event
// that wakes a process costs at least one, so deltas per op measure how many times the
// kernel had to schedule work for one operation (the simulator's cost, not the device's).
uint64_t workload_deltas() { return uint64_t(sc_core::sc_delta_count()); }

namespace {

struct Settler {
  sc_core::sc_simcontext* simulation = nullptr;  // the one its process was spawned in
  sc_core::sc_event request{"rnicsim_settle_request"};
  sc_core::sc_event settled{"rnicsim_settled"};
};

}  // namespace

void wait_until_instant_settled() {
  static Settler* settler = nullptr;
  if (!settler || settler->simulation != sc_core::sc_get_curr_simcontext()) {
    settler = new Settler;  // lives as long as its simulation: never freed, one per process
    settler->simulation = sc_core::sc_get_curr_simcontext();
    Settler* s = settler;
    sc_core::sc_spawn(
        [s] {
          // Its first caller is already waiting when it starts: settle first, then wait.
          for (;;) {
            // The callers wait on `settled`, which is not activity: what is left is real.
            while (sc_core::sc_pending_activity_at_current_time())
              sc_core::wait(sc_core::SC_ZERO_TIME);
            s->settled.notify();
            sc_core::wait(s->request);
          }
        },
        "rnicsim_settler");
  }
  settler->request.notify();  // immediate: the helper runs in this evaluation phase
  sc_core::wait(settler->settled);
}

namespace {

void run_stream(RunContext& ctx, const Step& step, StepResult& result, bool write) {
  host::Adapter& a = ctx.adapter_of(step.qp);
  const host::QpHandle qp = ctx.handle(step.qp);
  const host::CqHandle cq = a.QpCq(qp);
  const std::vector<ndk::NDK_SGE> sgl = build_sgl(ctx, step);
  // One (base, token) per target: requests go round-robin over them.
  std::vector<std::pair<uint64_t, uint32_t>> targets;
  RemoteSpec remote = step.remote;
  for (const std::string& name : step.remote.targets.empty()
                                     ? std::vector<std::string>{step.remote.target}
                                     : step.remote.targets) {
    remote.target = name;
    uint64_t base = 0;
    uint32_t token = 0;
    resolve_remote(ctx, remote, &base, &token);
    targets.emplace_back(base, token);
  }
  const uint64_t size = step.size;
  const uint64_t span = std::max<uint64_t>(step.remote.span, std::max<uint64_t>(size, 1));
  const uint64_t slots = std::max<uint64_t>(1, span / std::max<uint64_t>(size, 1));
  const uint64_t outstanding = step.outstanding;
  std::mt19937_64 rng(ctx.seed() ^ (step.index * 0x9E3779B97F4A7C15ull));

  const CounterWindow::Snapshot before = ctx.counter_window().take();
  const double start_ns = now_ns();
  const uint64_t deltas_before = workload_deltas();
  std::optional<CounterWindow::Snapshot> mid;  // the counters halfway through
  std::vector<sc_core::sc_time> posted_at(outstanding);
  LatencyHistogram latency;
  uint64_t posted = 0, completed = 0;
  StallWatch watch(ctx, std::min(outstanding, step.count) * size);
  const sc_core::sc_time patience = watch.limit();

  // A signaled completion of request i means every earlier request of the QP has completed
  // too (in-order completion); its latency is from posting to the host seeing it.
  auto take = [&](const ndk::NDK_RESULT_EX& r) {
    if (r.Status != ndk::STATUS_SUCCESS) {
      fail_step(result, "STATUS_SUCCESS", ndk::status_name(r.Status),
                "request " + std::to_string(r.RequestContext) + " completed with " +
                    ndk::status_name(r.Status));
      return false;
    }
    latency.add((sc_core::sc_time_stamp() - posted_at[r.RequestContext % outstanding]).value());
    completed = std::max(completed, r.RequestContext + 1);
    return true;
  };

  ndk::NDK_RESULT_EX batch[64];
  while (completed < step.count) {
    while (posted < step.count && posted - completed < outstanding) {
      const bool signaled = (posted + 1) % step.signal_every == 0 || posted + 1 == step.count;
      const uint32_t flags = step.flags | (signaled ? 0 : ndk::NDK_OP_FLAG_SILENT_SUCCESS);
      const auto& [remote_base, token] = targets[posted % targets.size()];
      const uint64_t walked = posted / targets.size();
      const uint64_t slot = step.remote.random ? rng() % slots : walked % slots;
      const uint64_t address = remote_base + slot * size;
      const uint32_t status =
          write ? a.NdkWrite(qp, posted, sgl.data(), 1, address, token, flags)
                : a.NdkRead(qp, posted, sgl.data(), 1, address, token, flags);
      if (status == ndk::STATUS_INSUFFICIENT_RESOURCES) break;  // the ring is full: drain
      if (status != ndk::STATUS_SUCCESS) {
        fail_step(result, "STATUS_SUCCESS", ndk::status_name(status),
                  "request " + std::to_string(posted) + " returned " + ndk::status_name(status) +
                      ": " + a.last_error());
        return;
      }
      posted_at[posted % outstanding] = sc_core::sc_time_stamp();
      ++posted;
    }
    size_t got = a.GetCqResults(cq, batch, 64);
    while (got == 0) {
      const std::vector<ndk::NDK_RESULT_EX> waited = a.WaitCq(cq, 1, patience);
      if (waited.empty()) {
        if (watch.moved()) continue;  // a long transfer: the devices are still at it
        fail_step(result, "a completion", "none",
                  "no completion and no device activity for " + watch.limit_text() +
                      " after " + std::to_string(completed) + " of " +
                      std::to_string(step.count) + " requests");
        return;
      }
      batch[0] = waited[0];
      got = 1 + a.GetCqResults(cq, batch + 1, 63);
    }
    for (size_t i = 0; i < got; ++i) {
      if (!take(batch[i])) return;
    }
    if (!mid && completed >= step.count / 2) mid = ctx.counter_window().take();
  }
  report_workload(ctx, step, result, step.count, step.count * size, now_ns() - start_ns,
                  latency, before, mid ? &*mid : nullptr, deltas_before);
}

}  // namespace

void check_metric_bounds(const Step& step, StepResult& result) {
  for (const MetricBound& bound : step.metrics) {
    const auto found = std::find_if(result.metrics.begin(), result.metrics.end(),
                                    [&](const auto& m) { return m.first == bound.metric; });
    if (found == result.metrics.end()) {
      // A per-node or per-flow name this run did not measure (no lookups, no such flow).
      fail_step(result, bound.metric, "not measured",
                "metric " + bound.metric + " was not measured by this step");
      return;
    }
    const double value = found->second;
    const bool low = bound.min && value < *bound.min;
    const bool high = bound.max && value > *bound.max;
    if (!low && !high) continue;
    const std::string range = bound.metric + " in [" +
                              (bound.min ? std::to_string(*bound.min) : "-") + ", " +
                              (bound.max ? std::to_string(*bound.max) : "-") + "]";
    char number[32];
    std::snprintf(number, sizeof number, "%g", value);
    const std::string got = bound.metric + " = " + number;
    fail_step(result, range, got, "metric " + got + ", expected " + range);
    return;
  }
}

// In a simulation shared by several scenarios the delta count is theirs together: left out.
void report_workload(RunContext& ctx, const Step& step, StepResult& result, uint64_t ops,
            uint64_t bytes, double sim_ns, const LatencyHistogram& latency_ps,
            const CounterWindow::Snapshot& before, const CounterWindow::Snapshot* mid,
            uint64_t deltas_before, const Metrics& extra, const WholeStep* whole) {
  auto ns = [](uint64_t ps) { return double(ps) / 1000.0; };
  const CounterWindow& window = ctx.counter_window();
  const CounterWindow::Snapshot after = window.take();
  if (mid) result.warnings = window.warming(before, *mid, after);
  // Fast mode books transfers without queuing them on links, so simulated time can run
  // ahead of what the busiest link could carry. The window then lasts at least as long as
  // that link needs for the window's share of the bytes: measured over the window itself,
  // and, after a warm-up (whose operations were still in flight when the window opened),
  // over the whole step, every byte of which crossed the link within it. Rates never exceed
  // a line rate (docs/user-guide.md, "Fast functional mode").
  double rate_ns = sim_ns;
  if (ctx.scenario.config.rnic.sim.fast) {
    std::string busiest;
    double busy_ns = 0, span_ns = 0;
    auto bound = [&](const CounterWindow::Snapshot& from, double span, double share) {
      const CounterWindow::BusiestLink link = window.busiest_link(from, after);
      const double needed = ns(link.busy_ps) * share;
      if (needed <= rate_ns) return;
      rate_ns = needed;
      busiest = link.label;
      busy_ns = ns(link.busy_ps);
      span_ns = span;
    };
    bound(before, sim_ns, 1.0);
    if (whole && whole->bytes)
      bound(whole->start, whole->sim_ns, double(bytes) / double(whole->bytes));
    if (!busiest.empty()) {
      char text[320];
      std::snprintf(text, sizeof text,
                    "fast mode: %s needs %.3f us for what it carried in %.3f us of simulated "
                    "time; rates are taken over %.3f us (its share for this window), not %.3f",
                    busiest.c_str(), busy_ns / 1e3, span_ns / 1e3, rate_ns / 1e3, sim_ns / 1e3);
      result.warnings.emplace_back(text);
    }
  }
  result.metrics = {
      {"ops", double(ops)},
      {"bytes", double(bytes)},
      {"sim_ns", sim_ns},
      {"mops", rate_ns > 0 ? double(ops) / rate_ns * 1e3 : 0.0},
      {"gbps", rate_ns > 0 ? double(bytes) * 8.0 / rate_ns : 0.0},
      {"latency_ns.p50", ns(latency_ps.percentile(0.50))},
      {"latency_ns.p90", ns(latency_ps.percentile(0.90))},
      {"latency_ns.p99", ns(latency_ps.percentile(0.99))},
      {"latency_ns.max", ns(latency_ps.max())},
  };
  window.hit_rates(before, after, result.metrics);
  for (auto [name, value] : extra) {
    // A workload's own rates (flowN.mops, flowN.gbps) were taken over sim_ns.
    const bool rate = name.size() > 5 && (name.compare(name.size() - 5, 5, ".mops") == 0 ||
                                          name.compare(name.size() - 5, 5, ".gbps") == 0);
    if (rate && rate_ns > sim_ns) value *= sim_ns / rate_ns;
    result.metrics.emplace_back(name, value);
  }
  window.lookup_split(before, after, ops, result.metrics);
  result.window_stats = window.deltas(before, after);
  for (auto& [owner, name, value] : window.busy_fractions(before, after))
    result.window_busy.push_back({owner, name, value});
  for (auto& [owner, name, value] : window.occupancy_means(before, after))
    result.window_occupancy.push_back({owner, name, value});
  result.bottlenecks = window.bottlenecks(before, after, ctx.qp_slots());
  if (!ctx.shared_simulation) {
    const uint64_t deltas = workload_deltas() - deltas_before;
    result.metrics.emplace_back("deltas_per_op", ops ? double(deltas) / double(ops) : 0.0);
  }
  check_metric_bounds(step, result);
}

void exec_read_stream(RunContext& ctx, const Step& step, StepResult& result) {
  run_stream(ctx, step, result, false);
}

void exec_write_stream(RunContext& ctx, const Step& step, StepResult& result) {
  run_stream(ctx, step, result, true);
}

void exec_dma_bench(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter(step.node_index);
  host::Buffer window;
  uint32_t status = a.AllocBuffer(step.window, uint32_t(step.page_size), false,
                                  host::BufferFill::Zero, 0, &window);
  LatencyHistogram latency;
  const CounterWindow::Snapshot before = ctx.counter_window().take();
  const double start_ns = now_ns();
  const uint64_t deltas_before = workload_deltas();
  if (status == ndk::STATUS_SUCCESS) {
    status = a.RunDmaBench(window, uint32_t(step.size), step.count, uint32_t(step.outstanding),
                           step.random_pattern, ctx.seed() + step.index, &latency,
                           step.translate);
    a.FreeBuffer(window);  // each dma_bench step has a window of its own, never a pile of them
  }
  if (!ctx.check_status(step, status, a, result)) return;
  // One blocking call: no halfway point to check warming at.
  report_workload(ctx, step, result, step.count, step.count * step.size, now_ns() - start_ns,
                  latency, before, nullptr, deltas_before);
}

}  // namespace rnic::app
