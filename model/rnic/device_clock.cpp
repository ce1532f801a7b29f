// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/device_clock.h"

namespace rnic {

DeviceClock::DeviceClock(sc_core::sc_module_name name, bool run_ahead)
    : sc_module(name), kernel_(&simcontext()->time_stamp()), now_(kernel_), run_ahead_(run_ahead) {
  SC_HAS_PROCESS(DeviceClock);
  SC_METHOD(run);
  sensitive << event_;
  dont_initialize();
}

void DeviceClock::arm(uint64_t at_ps, const sc_core::sc_time& at) {
  armed_ps_ = at_ps;
  event_.notify(at - *kernel_);
}

void DeviceClock::run() {
  const uint64_t t = to_ps(*kernel_);
  // The event fired at t. (A notification for later, made since by a process that ran
  // before this one at t, is cancelled: the loop below arms the event again.)
  if (armed_ps_ != EventQueue::kNever && armed_ps_ > t) event_.cancel();
  armed_ps_ = EventQueue::kNever;
  in_run_ = true;
  for (;;) {
    const uint64_t due = queue_.next_ps();
    if (due == EventQueue::kNever) break;
    if (due > t) {
      if (!run_ahead_) break;
      // Ahead of the kernel only up to its next activity, exclusive (this device's own
      // event is not pending: it fired, or was cancelled above). Asked before each entry:
      // the last one may have made some (a packet into the switch, a write a host thread
      // waits for, another device's stage in fast mode). Any activity left at t (another
      // process runnable, a delta notification) gives zero: nothing runs ahead.
      const uint64_t horizon = t + to_ps(sc_core::sc_time_to_pending_activity(simcontext()));
      if (due >= horizon) break;
      running_ = ps(due);
      ahead_ = running_ - *kernel_;
      now_ = &running_;
    }
    const Call call = calls_[queue_.pop()];
    call.run(call.self);
    now_ = kernel_;
  }
  in_run_ = false;
  const uint64_t next = queue_.next_ps();
  if (next != EventQueue::kNever) {
    armed_ps_ = next;
    event_.notify(ps(next - t));
  }
}

}  // namespace rnic
