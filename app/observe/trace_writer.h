// SPDX-License-Identifier: Apache-2.0
// `--trace FILE`: a TraceSink (tlm/trace.h) and HostTraceSink (host_api/host_trace.h) that keeps
// the events in memory, bounded, and writes them as Chrome / Perfetto trace-event JSON: one
// process per node, one thread per unit (a unit whose slices overlap gets extra lanes,
// "port #2", so every thread's slices nest) plus the host's "host" (posts, completions seen)
// and "doorbell" (MMIO writes in flight) threads, "X" events for slices (ts and dur in
// microseconds), "C" events for counter tracks, and "s"/"t"/"f" flow events linking the slices
// of one work request in time order.
//
// A window: events that start before the window's start are not recorded (the start is a time
// known up front, or the instant a step begins: open_window), and the limit counts from there.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "host_api/host_trace.h"
#include "tlm/trace.h"

namespace rnic::app {

class TraceWriter : public TraceSink, public host::HostTraceSink {
 public:
  static constexpr uint64_t kDefaultLimit = 200000;
  static constexpr uint64_t kNotYet = UINT64_MAX;  // a window that has not opened

  // At most `limit` events (a slice linked to a request counts two: its flow event; so does a
  // host post or doorbell, which is linked once the device fetches the WQE); past that, events
  // are dropped and one line goes to `warn` (may be null).
  explicit TraceWriter(uint64_t limit = kDefaultLimit, std::ostream* warn = nullptr);

  // The nodes by index (the host's events name nodes by index): node i is process i + 1.
  void set_nodes(const std::vector<std::string>& names);
  // Records only what starts at or after `from_ps` (kNotYet: nothing until open_window). The
  // default is the whole run. `what` describes it in the file ("step 14", "25us").
  void set_window(uint64_t from_ps, const std::string& what);
  // Opens a window that waited (kNotYet) at `at_ps`, or now; no effect on one already open.
  void open_window(uint64_t at_ps);
  void open_window_now();
  uint64_t window_start_ps() const { return from_ps_; }

  // TraceSink
  uint32_t track(const std::string& path) override;
  void slice(uint32_t track, const char* name, const sc_core::sc_time& start,
             const sc_core::sc_time& end, uint64_t trace_id) override;
  void decision_slice(uint32_t track, const char* name, const sc_core::sc_time& start,
                      const sc_core::sc_time& end, uint64_t trace_id, const char* rule,
                      bool refused) override;
  uint32_t counter_track(const std::string& path) override;
  void counter(uint32_t track, const sc_core::sc_time& at, uint64_t value) override;

  // HostTraceSink
  void host_post(uint32_t node, uint32_t qpn, Queue queue, uint32_t index,
                 const sc_core::sc_time& at) override;
  void host_doorbell(uint32_t node, uint32_t qpn, Queue queue, uint32_t producer,
                     const sc_core::sc_time& at, const sc_core::sc_time& seen) override;
  void host_poll(uint32_t node, uint32_t qpn, Queue queue, uint32_t index,
                 const sc_core::sc_time& at) override;

  // Free-form facts for the trace's "otherData" (scenario name, version).
  void set_info(const std::string& key, const std::string& value);
  void write(std::ostream& out) const;
  // Writes the JSON to `path`; returns an error message or "".
  std::string write_file(const std::string& path) const;

  size_t slices() const { return slices_.size(); }
  size_t counter_samples() const { return samples_.size(); }
  uint64_t dropped() const { return dropped_; }
  uint64_t events() const { return used_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Track {
    std::string process;  // node ("A")
    std::string thread;   // unit ("fetcher")
    uint32_t pid = 0;
    uint32_t rank = 0;  // pipeline position, for the viewer's thread order
  };
  struct Slice {
    uint32_t track;
    uint32_t host;  // index in host_args_, or kNone
    const char* name;
    uint64_t start_ps;
    uint64_t end_ps;
    uint64_t trace_id;
    const char* rule = nullptr;  // a decision's rule (static), or none
    bool decision = false;       // a check that decided: its outcome is written
    bool refused = false;        // a decision that refused
  };
  struct HostArgs {
    uint32_t qpn;
    uint32_t index;
    const char* index_key;  // "wqe_index" or "producer"
  };
  struct CounterTrack {
    uint32_t pid;
    std::string name;
    bool written = false;
    uint64_t last = 0;
  };
  struct Sample {
    uint32_t counter;
    uint64_t at_ps;
    uint64_t value;
  };
  // Linking host events to the device's request ids, per QP of a node: WQEs posted and not
  // yet fetched (their host slices wait for an id), then fetched and not yet completed.
  struct Posted {
    uint32_t index;
    uint32_t post_slice;
    uint32_t doorbell_slice;
  };
  struct Fetched {
    uint32_t index;
    uint64_t trace_id;
  };
  struct QpLink {
    std::deque<Posted> posted;
    std::deque<Fetched> fetched;
  };
  // Ids of a node in number order (make_trace_id): `next` is the lowest never seen, `ahead`
  // those seen out of order (number -> QP).
  struct IdOrder {
    uint32_t next = 0;
    std::map<uint32_t, uint32_t> ahead;
  };

  bool reserve(uint64_t cost, bool sample);
  uint32_t record(uint32_t track, const char* name, uint64_t start_ps, uint64_t end_ps,
                  uint64_t trace_id, uint64_t cost, const HostArgs* args);
  uint32_t host_track(uint32_t node, bool doorbell);
  void note_id(uint64_t trace_id);
  void release(uint32_t node, uint32_t qpn, uint64_t trace_id);
  QpLink& link(uint32_t node, uint32_t qpn);
  uint32_t process(const std::string& name);

  uint64_t limit_;
  std::ostream* warn_;
  uint64_t from_ps_ = 0;
  std::string window_what_;
  uint64_t used_ = 0;
  uint64_t dropped_ = 0;
  uint64_t dropped_samples_ = 0;
  uint64_t dropped_at_ps_ = 0;
  std::vector<Track> tracks_;
  std::unordered_map<std::string, uint32_t> track_ids_;
  std::vector<std::string> processes_;
  std::vector<std::string> nodes_;
  std::vector<uint32_t> host_tracks_, doorbell_tracks_;  // per node
  std::vector<Slice> slices_;
  std::vector<HostArgs> host_args_;
  std::vector<CounterTrack> counters_;
  std::unordered_map<std::string, uint32_t> counter_ids_;
  std::vector<Sample> samples_;
  std::unordered_map<uint64_t, QpLink> links_;
  std::vector<IdOrder> id_order_;
  std::vector<std::pair<std::string, std::string>> info_;
};

}  // namespace rnic::app
