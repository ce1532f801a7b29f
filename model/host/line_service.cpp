// SPDX-License-Identifier: Apache-2.0
#include "model/host/line_service.h"

#include <algorithm>

namespace rnic {

LineService::LineService(const Config& config)
    : service_ps_(uint64_t(config.line_service_ns) * 1000),
      forget_above_(4 * size_t(std::max<uint32_t>(1, config.lines_in_service))) {
  for (uint32_t i = 0; i < std::max<uint32_t>(1, config.lines_in_service); ++i)
    slot_free_ps_.push(0);
}

LineService::Result LineService::serve(uint64_t arrival_ps, uint64_t address, uint64_t bytes) {
  Result result;
  if (bytes == 0) return result;
  const uint64_t first = address / kLineBytes;
  const uint64_t last = (address + bytes - 1) / kLineBytes;
  if (line_busy_until_ps_.size() > forget_above_) forget_served(arrival_ps);
  uint64_t last_ready = arrival_ps + service_ps_;
  for (uint64_t line = first; line <= last; ++line) {
    uint64_t start = arrival_ps;
    const uint64_t slot_free = slot_free_ps_.top();
    if (slot_free > start) {
      start = slot_free;
      ++result.slot_waits;
    }
    auto [it, fresh] = line_busy_until_ps_.try_emplace(line, 0);
    if (!fresh && it->second > start) {
      start = it->second;
      ++result.line_conflicts;
    }
    const uint64_t ready = start + service_ps_;
    it->second = ready;
    slot_free_ps_.pop();
    slot_free_ps_.push(ready);
    last_ready = std::max(last_ready, ready);
    ++result.lines;
  }
  result.wait_ps = last_ready - arrival_ps - service_ps_;
  return result;
}

void LineService::forget_served(uint64_t now_ps) {
  for (auto it = line_busy_until_ps_.begin(); it != line_busy_until_ps_.end();) {
    if (it->second <= now_ps)
      it = line_busy_until_ps_.erase(it);
    else
      ++it;
  }
  // Every line still in the map is in service or queued: let the map hold twice that before
  // the next sweep, so sweeps stay rare when many lines queue.
  forget_above_ = std::max(forget_above_, 2 * line_busy_until_ps_.size());
}

}  // namespace rnic
