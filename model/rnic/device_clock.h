// SPDX-License-Identifier: Apache-2.0
// The device's clock: its timed stages (WQE fetch turns, CQE writes, RNR retransmissions) on
// one kernel event and one method, in one queue ordered by due time, stages due at one time in
// the order they were added (util/event_queue.h), and the device's time, which its units read
// instead of the kernel's. A stage never waits (it is called from a method).
//
// When the method runs at kernel time t it takes every entry due before the kernel's next
// pending activity, each at its own due time: nothing else in the simulation can run in
// between, so every other process sees the same calls at the same times as with one kernel
// activation per entry. While an entry runs, now() is its due time; a call that leaves the
// device (DMA through the PCIe endpoint, a packet from the port) adds ahead_by() to its
// annotated delay, so the loosely-timed target sees the same absolute times, and a packet
// that enters the port while the device is ahead (nested calls, fast mode) takes it off.
// MMIO (the doorbells) comes only from host processes, which never run while a device is
// ahead.
#pragma once

#include <memory>
#include <vector>

#include <systemc>

#include "model/rnic/util/event_queue.h"
#include "tlm/timing.h"

namespace rnic {

class DeviceClock final : public sc_core::sc_module, public TimeSource {
 public:
  using Stage = EventQueue::Stage;

  // `run_ahead` false: every entry at its due time in the kernel's (a unit built alone, whose
  // own sockets are the device's edge and convert nothing).
  explicit DeviceClock(sc_core::sc_module_name name, bool run_ahead = true);

  // Registers `(self->*F)()` as a stage: called when it is due.
  template <typename T, void (T::*F)()>
  Stage add_stage(T* self) {
    calls_.push_back({[](void* p) { (static_cast<T*>(p)->*F)(); }, self});
    return queue_.add_stage();
  }
  // The device's current time: the running entry's due time, else the kernel's.
  const sc_core::sc_time& now() const override { return *now_; }
  // How far the device is ahead of the kernel (zero unless an entry runs ahead): what a call
  // leaving the device adds to its annotated delay, and one entering it takes off.
  bool ahead() const { return now_ != kernel_; }
  const sc_core::sc_time& ahead_by() const { return ahead() ? ahead_ : sc_core::SC_ZERO_TIME; }

  // The stage is due at `at` (absolute, >= now()), unless it already is by then (as a
  // sc_event's notification: the earlier one wins).
  void notify(Stage s, const sc_core::sc_time& at) {
    const uint64_t at_ps = to_ps(at);
    queue_.notify(s, at_ps);
    // Inside run() the loop sees the entry; outside, the kernel event must fire by then.
    if (!in_run_ && at_ps < armed_ps_) arm(at_ps, at);
  }
  // The stage is due now: after the running entry (with any other due now, in stage order).
  void notify_now(Stage s) { notify(s, now()); }
  // The stage is no longer due if it was due by `by` (a stage that is about to run at `by`
  // has seen what those notifications were for).
  void cancel_due(Stage s, const sc_core::sc_time& by) {
    if (queue_.due_ps(s) <= to_ps(by)) queue_.cancel(s);
  }
  void cancel(Stage s) { queue_.cancel(s); }

 private:
  struct Call {
    void (*run)(void*);
    void* self;
  };
  void run();
  // The event fires at `at` (not running ahead: now() is the kernel's time).
  void arm(uint64_t at_ps, const sc_core::sc_time& at);

  EventQueue queue_;
  std::vector<Call> calls_;  // by stage
  sc_core::sc_event event_;
  const sc_core::sc_time* kernel_;  // the kernel's current time
  const sc_core::sc_time* now_;     // kernel_, or &running_ while an entry runs ahead
  sc_core::sc_time running_;  // now() while an entry runs ahead
  sc_core::sc_time ahead_;    // running_ - the kernel's time
  uint64_t armed_ps_ = EventQueue::kNever;  // event_'s pending notification
  bool run_ahead_;
  bool in_run_ = false;
};

// A unit's device clock: its device's (the Rnic hands it over), or, for a unit built alone
// (a test bench), one of its own, which does not run ahead: the unit's sockets are then the
// device's edge, where nothing converts a delay.
class ClockRef {
 public:
  explicit ClockRef(DeviceClock* device)
      : own_(device ? nullptr : new DeviceClock("clock", false)),
        clock_(device ? device : own_.get()) {}
  DeviceClock* operator->() const { return clock_; }
  DeviceClock& operator*() const { return *clock_; }

 private:
  std::unique_ptr<DeviceClock> own_;
  DeviceClock* clock_;
};

}  // namespace rnic
