// SPDX-License-Identifier: Apache-2.0
#include "model/host/line_service.h"

#include <algorithm>

namespace rnic {

LineService::LineService(const Config& config)
    : service_ps_(uint64_t(config.line_service_ns) * 1000),
      share_ps_(service_ps_ / std::max<uint32_t>(1, config.lines_in_service)),
      forget_above_(kSweepAt) {
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
  const uint64_t booked_end = capacity_.reserve_ps(arrival_ps, lines);
  const uint64_t booked_start = booked_end - capacity_.duration_ps(lines);
  result.capacity_wait = booked_start > arrival_ps;
  const uint64_t own_end = booked_start + service_ps_;  // a line no one else holds

  // The runs this read overlaps, cut to its lines: each line is read once the access in
  // service to it before has ended, then holds it one service. A run's accesses follow each
  // other without a gap from busy_from to busy_until. A run booked ahead that starts once
  // this read is over delays nothing (the read reaches the host first) and keeps the lines
  // (it ends later; this read's own hold of them is not kept).
  uint64_t ready = std::max(booked_end, own_end);
  auto lo = std::lower_bound(runs_.begin(), runs_.end(), first,
                             [](const Run& r, uint64_t line) { return r.last_line < line; });
  pieces_.clear();
  uint64_t next = first;  // first line not yet covered by a piece
  auto hi = lo;
  for (; hi != runs_.end() && hi->first_line <= last; ++hi) {
    const uint64_t from = std::max(hi->first_line, first);
    const uint64_t to = std::min(hi->last_line, last);
    if (hi->first_line < first)
      pieces_.push_back({hi->first_line, first - 1, hi->busy_from, hi->busy_until});
    if (from > next) pieces_.push_back({next, from - 1, booked_start, own_end});
    if (hi->busy_from >= own_end) {  // booked ahead, after this read
      pieces_.push_back({from, to, hi->busy_from, hi->busy_until});
    } else if (hi->busy_until > booked_start) {  // in service when this read comes
      const uint64_t end = hi->busy_until + service_ps_;
      result.line_conflicts += uint32_t(std::min<uint64_t>(to - from + 1, UINT32_MAX));
      pieces_.push_back({from, to, hi->busy_from, end});
      ready = std::max(ready, end);
    } else {
      pieces_.push_back({from, to, booked_start, own_end});
    }
    next = to + 1;
    if (hi->last_line > last)
      pieces_.push_back({last + 1, hi->last_line, hi->busy_from, hi->busy_until});
  }
  if (next <= last) pieces_.push_back({next, last, booked_start, own_end});
  // A read that starts on a line boundary right where a run still in service ends continues
  // it (the requests a large transfer is split into): the run grows instead of the list, and
  // ends with the later read. Its first lines then count as held a little longer, which only
  // an unrelated access to the same lines at that moment would notice.
  if (lo != runs_.begin() && address % kLineBytes == 0 && pieces_.front().first_line == first &&
      pieces_.front().busy_until == own_end) {
    Run& before = *std::prev(lo);
    if (before.last_line + 1 == first && before.busy_until >= booked_start) {
      --lo;
      pieces_.front().first_line = before.first_line;
      pieces_.front().busy_from = std::min(before.busy_from, booked_start);
      pieces_.front().busy_until = std::max(before.busy_until, own_end);
    }
  }
  // Neighbours held over the same time become one run.
  size_t kept = 0;
  for (size_t k = 1; k < pieces_.size(); ++k) {
    if (pieces_[k].busy_until == pieces_[kept].busy_until &&
        pieces_[k].busy_from == pieces_[kept].busy_from &&
        pieces_[k].first_line == pieces_[kept].last_line + 1) {
      pieces_[kept].last_line = pieces_[k].last_line;
    } else {
      pieces_[++kept] = pieces_[k];
    }
  }
  pieces_.resize(kept + 1);
  const auto at = runs_.erase(lo, hi);
  runs_.insert(at, pieces_.begin(), pieces_.end());
  result.wait_ps = ready - arrival_ps - service_ps_;
  return result;
}

void LineService::forget_served(uint64_t now_ps) {
  // No later read reaches the host before now: runs that ended by then can never delay one.
  runs_.erase(std::remove_if(runs_.begin(), runs_.end(),
                             [now_ps](const Run& r) { return r.busy_until <= now_ps; }),
              runs_.end());
  // What is left is in service or booked ahead: let the list hold twice that before the
  // next sweep, so sweeps stay rare when many reads are booked.
  forget_above_ = std::max<size_t>(kSweepAt, 2 * runs_.size());
}

}  // namespace rnic
