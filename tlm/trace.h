// SPDX-License-Identifier: Apache-2.0
// Timeline tracing of work-request stages (docs/user-guide.md "Tracing"). Units hold a
// TraceTrack; the platform attaches a TraceSink that the application implements (the Chrome /
// Perfetto JSON writer lives in app/: nothing here formats text or touches files). With no
// sink attached a would-be slice costs one pointer test.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>

#include "tlm/timing.h"

namespace rnic {

// Where slices go. `track` is called at elaboration, one track per unit ("A.rnic.mtt");
// `slice` during simulation with static names. Slices with the same non-zero trace_id belong
// to one work request (its WQE, packets and completion) and are linked as one flow.
struct TraceSink {
  virtual ~TraceSink() = default;
  virtual uint32_t track(const std::string& path) = 0;
  virtual void slice(uint32_t track, const char* name, const sc_core::sc_time& start,
                     const sc_core::sc_time& end, uint64_t trace_id) = 0;
  // A slice of a check that decided: the rule that decided (a static string, "" for none) and
  // whether it refused. A sink without decisions keeps the slice alone.
  virtual void decision_slice(uint32_t track, const char* name, const sc_core::sc_time& start,
                              const sc_core::sc_time& end, uint64_t trace_id, const char* rule,
                              bool refused) {
    (void)rule, (void)refused;
    slice(track, name, start, end, trace_id);
  }
  // Counter tracks ("A.reads_outstanding"): declared at elaboration, then sampled values at
  // simulated times. A sink without counters ignores them.
  virtual uint32_t counter_track(const std::string& path) {
    (void)path;
    return 0;
  }
  virtual void counter(uint32_t track, const sc_core::sc_time& at, uint64_t value) {
    (void)track, (void)at, (void)value;
  }
};

// The trace id of a work request: node, QP and a per-node running number of fetched WQEs,
// so ids are unique in a run and the QP is readable from the id.
inline uint64_t make_trace_id(uint32_t node, uint32_t qpn, uint32_t number) {
  return (uint64_t(node + 1) << 56) | (uint64_t(qpn & 0xFFFFFFu) << 32) | number;
}
inline uint32_t trace_id_node(uint64_t id) { return uint32_t(id >> 56) - 1; }
inline uint32_t trace_id_qpn(uint64_t id) { return uint32_t(id >> 32) & 0xFFFFFFu; }

// One unit's track. Times are absolute: now + the annotated delay (LT), now being the unit's
// time source's (its device's time) or else the kernel's.
class TraceTrack {
 public:
  void attach(TraceSink* sink, const std::string& path, const TimeSource* time = nullptr) {
    sink_ = sink;
    time_ = time;
    if (sink_) id_ = sink_->track(path);
  }
  bool on() const { return sink_ != nullptr; }
  const sc_core::sc_time& now() const { return time_ ? time_->now() : sc_core::sc_time_stamp(); }
  void slice(const char* name, const sc_core::sc_time& start, const sc_core::sc_time& end,
             uint64_t trace_id) const {
    if (sink_) sink_->slice(id_, name, start, end, trace_id);
  }
  void decision_slice(const char* name, const sc_core::sc_time& start,
                      const sc_core::sc_time& end, uint64_t trace_id, const char* rule,
                      bool refused) const {
    if (sink_) sink_->decision_slice(id_, name, start, end, trace_id, rule, refused);
  }

 private:
  TraceSink* sink_ = nullptr;
  const TimeSource* time_ = nullptr;
  uint32_t id_ = 0;
};

// A slice from construction to destruction of the scope, both at now + `delay` (the caller's
// annotation, which may be advanced or consumed by wait() in between: the sum stays the
// absolute time). Nothing is read or written when the track is off.
class TraceScope {
 public:
  TraceScope(const TraceTrack& track, const char* name, uint64_t trace_id,
             const sc_core::sc_time& delay)
      : track_(track.on() ? &track : nullptr), name_(name), id_(trace_id), delay_(delay) {
    if (track_) start_ = track_->now() + delay;
  }
  // The slice starts at `start` (absolute) instead.
  TraceScope(const TraceTrack& track, const char* name, uint64_t trace_id,
             const sc_core::sc_time& start, const sc_core::sc_time& delay)
      : track_(track.on() ? &track : nullptr), name_(name), id_(trace_id), delay_(delay),
        start_(start) {}
  ~TraceScope() {
    if (track_) track_->slice(name_, start_, track_->now() + delay_, id_);
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  const TraceTrack* track_;
  const char* name_;
  uint64_t id_;
  const sc_core::sc_time& delay_;
  sc_core::sc_time start_;
};

}  // namespace rnic
