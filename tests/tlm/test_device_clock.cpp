// SPDX-License-Identifier: Apache-2.0
// DeviceClock alone: stages notified from a host-like thread run at their due times, those
// due before the kernel's next activity in one activation (ahead of the kernel), never past
// another process's activity; ties in the order the stages were added.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include <systemc>

#include "model/rnic/device_clock.h"
#include "support/stubs.h"

using namespace rnic;
using namespace rnic::test;

namespace {

struct Run {
  std::string stage;
  uint64_t now_ps;     // the device's time while it ran
  uint64_t kernel_ps;  // the kernel's
  uint64_t ahead_ps;   // ahead_by()
};

// Two stages that record each run; `then_a` / `then_b` run inside the stage.
struct Recorder {
  explicit Recorder(DeviceClock& c)
      : clock(c), a(c.add_stage<Recorder, &Recorder::run_a>(this)),
        b(c.add_stage<Recorder, &Recorder::run_b>(this)) {}
  DeviceClock& clock;
  DeviceClock::Stage a, b;
  std::vector<Run> runs;
  std::function<void()> then_a, then_b;
  sc_core::sc_event parked;  // the tests' threads end here (spawn_parked)
  void record(const char* name) {
    runs.push_back({name, clock.now().value(), sc_core::sc_time_stamp().value(),
                    clock.ahead_by().value()});
  }
  void run_a() {
    record("a");
    if (then_a) then_a();
  }
  void run_b() {
    record("b");
    if (then_b) then_b();
  }
};

sc_core::sc_time ns_(double n) { return sc_core::sc_time(n, sc_core::SC_NS); }

}  // namespace

TEST_CASE("device clock: entries due before the kernel's next activity run in one "
          "activation, each at its due time", "[tlm][device_clock]") {
  DeviceClock clock("clock");
  Recorder r(clock);
  spawn_parked(r.parked, [&] {
    clock.notify(r.a, ns_(10));
    clock.notify(r.b, ns_(20));
    sc_core::wait(ns_(30));
  });
  run_simulation();
  REQUIRE(r.runs.size() == 2);
  CHECK(r.runs[0].stage == "a");
  CHECK(r.runs[0].now_ps == 10000);
  CHECK(r.runs[0].kernel_ps == 10000);
  CHECK(r.runs[0].ahead_ps == 0);
  CHECK(r.runs[1].stage == "b");
  CHECK(r.runs[1].now_ps == 20000);
  CHECK(r.runs[1].kernel_ps == 10000);  // ran ahead: nothing else until 30 ns
  CHECK(r.runs[1].ahead_ps == 10000);
  CHECK(clock.now() == sc_core::sc_time_stamp());  // the kernel's again
}

TEST_CASE("device clock: never runs ahead past another process's activity",
          "[tlm][device_clock]") {
  DeviceClock clock("clock");
  Recorder r(clock);
  size_t runs_seen_at_15 = 99;
  spawn_parked(r.parked, [&] {
    clock.notify(r.a, ns_(10));
    clock.notify(r.b, ns_(20));
    sc_core::wait(ns_(15));
    runs_seen_at_15 = r.runs.size();
  });
  run_simulation();
  CHECK(runs_seen_at_15 == 1);  // a ran, b waited for the kernel
  REQUIRE(r.runs.size() == 2);
  CHECK(r.runs[1].stage == "b");
  CHECK(r.runs[1].now_ps == 20000);
  CHECK(r.runs[1].kernel_ps == 20000);
}

TEST_CASE("device clock: a stage's activity stops the run ahead", "[tlm][device_clock]") {
  // a makes kernel activity at 12 ns (as a packet into the switch would); b, due at 20 ns,
  // must wait for it although it was due before anything else when the method started.
  DeviceClock clock("clock");
  Recorder r(clock);
  sc_core::sc_event outside;
  bool outside_seen_b = true;
  spawn_parked(r.parked, [&] {
    sc_core::wait(outside);
    outside_seen_b = r.runs.size() > 1;
  });
  r.then_a = [&] { outside.notify(ns_(12) - sc_core::sc_time_stamp()); };
  spawn_parked(r.parked, [&] {
    clock.notify(r.a, ns_(10));
    clock.notify(r.b, ns_(20));
  });
  run_simulation();
  CHECK_FALSE(outside_seen_b);
  REQUIRE(r.runs.size() == 2);
  CHECK(r.runs[1].kernel_ps == 20000);
}

TEST_CASE("device clock: ties in the order the stages were added, a notification for now "
          "runs after the running entry", "[tlm][device_clock]") {
  DeviceClock clock("clock");
  Recorder r(clock);
  int b_runs = 0;
  r.then_b = [&] {
    if (++b_runs == 1) clock.notify_now(r.a);  // a, already run, is due again at once
  };
  spawn_parked(r.parked, [&] {
    clock.notify(r.b, ns_(10));  // b notified first, but a was added first
    clock.notify(r.a, ns_(10));
    clock.notify(r.a, ns_(15));  // later: ignored
  });
  run_simulation();
  REQUIRE(r.runs.size() == 3);
  CHECK(r.runs[0].stage == "a");
  CHECK(r.runs[1].stage == "b");
  CHECK(r.runs[2].stage == "a");
  CHECK(r.runs[2].now_ps == 10000);
}

TEST_CASE("device clock: cancel", "[tlm][device_clock]") {
  DeviceClock clock("clock");
  Recorder r(clock);
  r.then_a = [&] { clock.cancel_due(r.b, clock.now()); };  // b's notification is seen to
  spawn_parked(r.parked, [&] {
    clock.notify(r.a, ns_(10));
    clock.notify(r.b, ns_(10));
    sc_core::wait(ns_(20));
    clock.notify(r.b, ns_(30));
    clock.cancel(r.b);
  });
  run_simulation();
  REQUIRE(r.runs.size() == 1);
  CHECK(r.runs[0].stage == "a");
}
