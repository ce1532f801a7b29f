// SPDX-License-Identifier: Apache-2.0
#include "model/host/line_service.h"

#include <algorithm>
#include <vector>

namespace rnic {

LineService::LineService(const Config& config)
    : service_ps_(uint64_t(config.line_service_ns) * 1000),
      share_ps_(service_ps_ / std::max<uint32_t>(1, config.lines_in_service)),
      forget_above_(64) {
  capacity_.set_rate(share_ps_ ? 1000.0 / double(share_ps_) : 0);  // lines per ns
  capacity_.set_time_ordered(true);
}

LineService::Result LineService::serve(uint64_t now_ps, uint64_t arrival_ps, uint64_t address,
                                       uint64_t bytes) {
  Result result;
  if (bytes == 0) return result;
  const uint64_t first = address / kLineBytes;
  const uint64_t last = (address + bytes - 1) / kLineBytes;
  const uint64_t lines = last - first + 1;
  result.lines = uint32_t(std::min<uint64_t>(lines, UINT32_MAX));
  if (runs_.size() > forget_above_) forget_served(now_ps);
  const uint64_t booked_end = to_ps(capacity_.reserve(ps(arrival_ps), lines));
  const uint64_t booked_start = booked_end - to_ps(capacity_.duration(lines));
  result.capacity_wait = booked_start > arrival_ps;
  const uint64_t own_end = booked_start + service_ps_;  // a line no one else holds

  // The runs this read overlaps, cut to its lines: each line is read once the access in
  // service to it before has ended, then holds it one service.
  std::vector<std::pair<uint64_t, Run>> pieces;  // the read's lines, by first line
  uint64_t ready = std::max(booked_end, own_end);
  uint64_t next = first;  // first line not yet covered by a piece
  auto it = runs_.upper_bound(first);
  if (it != runs_.begin() && std::prev(it)->second.last_line >= first) --it;
  while (it != runs_.end() && it->first <= last) {
    const uint64_t from = std::max(it->first, first);
    const uint64_t to = std::min(it->second.last_line, last);
    if (from > next) pieces.push_back({next, Run{from - 1, own_end}});
    uint64_t end = own_end;
    if (it->second.busy_until > booked_start) {
      end = it->second.busy_until + service_ps_;
      result.line_conflicts += uint32_t(std::min<uint64_t>(to - from + 1, UINT32_MAX));
    }
    pieces.push_back({from, Run{to, end}});
    ready = std::max(ready, end);
    next = to + 1;
    // Keep the parts of the old run outside this read.
    const Run old = it->second;
    const uint64_t old_first = it->first;
    it = runs_.erase(it);
    if (old_first < first) runs_.emplace(old_first, Run{first - 1, old.busy_until});
    if (old.last_line > last) it = runs_.emplace(last + 1, Run{old.last_line, old.busy_until}).first;
  }
  if (next <= last) pieces.push_back({next, Run{last, own_end}});
  // Store the pieces, joining neighbours that end together. A read that starts on a line
  // boundary right where a run still in service ends continues it (the requests a large
  // transfer is split into): the run grows instead of the map, and ends with the later read.
  // Its first lines then count as held a little longer, which only an unrelated access to
  // the same lines at that moment would notice.
  auto before = runs_.end();
  if (address % kLineBytes == 0 && first > 0 && pieces.front().second.busy_until == own_end) {
    before = runs_.lower_bound(first);
    if (before != runs_.begin() && std::prev(before)->second.last_line + 1 == first &&
        std::prev(before)->second.busy_until >= booked_start) {
      --before;
    } else {
      before = runs_.end();
    }
  }
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i == 0 && before != runs_.end()) {
      before->second.last_line = pieces[0].second.last_line;
      before->second.busy_until = std::max(before->second.busy_until, own_end);
      pieces[0].first = before->first;
      pieces[0].second.busy_until = before->second.busy_until;
      continue;
    }
    if (i > 0 && pieces[i].second.busy_until == pieces[i - 1].second.busy_until) {
      runs_[pieces[i - 1].first].last_line = pieces[i].second.last_line;
      pieces[i].first = pieces[i - 1].first;
      continue;
    }
    runs_.emplace(pieces[i].first, pieces[i].second);
  }
  result.wait_ps = ready - arrival_ps - service_ps_;
  return result;
}

void LineService::forget_served(uint64_t now_ps) {
  // No later read reaches the host before now: runs that ended by then can never delay one.
  for (auto it = runs_.begin(); it != runs_.end();) {
    if (it->second.busy_until <= now_ps)
      it = runs_.erase(it);
    else
      ++it;
  }
  // What is left is in service or booked ahead: let the map hold twice that before the next
  // sweep, so sweeps stay rare when many reads are booked.
  forget_above_ = std::max<size_t>(64, 2 * runs_.size());
}

}  // namespace rnic
