// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/util/event_queue.h"

namespace rnic {

EventQueue::Stage EventQueue::add_stage() {
  due_.push_back(kNever);
  return Stage(due_.size() - 1);
}

void EventQueue::find_next() {
  next_ps_ = kNever;
  next_ = 0;
  for (Stage s = 0; s < Stage(due_.size()); ++s) {
    if (due_[s] < next_ps_) {
      next_ps_ = due_[s];
      next_ = s;
    }
  }
}

}  // namespace rnic
