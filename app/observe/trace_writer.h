// SPDX-License-Identifier: Apache-2.0
// `--trace FILE`: a TraceSink (tlm/trace.h) that keeps the slices in memory, bounded, and writes
// them as Chrome / Perfetto trace-event JSON: one process per node, one thread per unit (a unit
// whose slices overlap gets extra lanes, "port #2", so every thread's slices nest), "X" events
// for slices (ts and dur in microseconds), and "s"/"t"/"f" flow events linking the slices of
// one work request in time order.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "tlm/trace.h"

namespace rnic::app {

class TraceWriter : public TraceSink {
 public:
  static constexpr uint64_t kDefaultLimit = 200000;

  // At most `limit` events (a slice linked to a request counts two: its flow event); past
  // that, slices are dropped and one line goes to `warn` (may be null).
  explicit TraceWriter(uint64_t limit = kDefaultLimit, std::ostream* warn = nullptr);

  uint32_t track(const std::string& path) override;
  void slice(uint32_t track, const char* name, const sc_core::sc_time& start,
             const sc_core::sc_time& end, uint64_t trace_id) override;

  // Free-form facts for the trace's "otherData" (scenario name, version).
  void set_info(const std::string& key, const std::string& value);
  void write(std::ostream& out) const;
  // Writes the JSON to `path`; returns an error message or "".
  std::string write_file(const std::string& path) const;

  size_t slices() const { return slices_.size(); }
  uint64_t dropped() const { return dropped_; }

 private:
  struct Track {
    std::string process;  // node ("A")
    std::string thread;   // unit ("fetcher")
    uint32_t pid = 0;
    uint32_t rank = 0;  // pipeline position, for the viewer's thread order
  };
  struct Slice {
    uint32_t track;
    const char* name;
    uint64_t start_ps;
    uint64_t end_ps;
    uint64_t trace_id;
  };

  uint64_t limit_;
  std::ostream* warn_;
  uint64_t used_ = 0;
  uint64_t dropped_ = 0;
  uint64_t dropped_at_ps_ = 0;
  std::vector<Track> tracks_;
  std::unordered_map<std::string, uint32_t> track_ids_;
  std::vector<std::string> processes_;
  std::vector<Slice> slices_;
  std::vector<std::pair<std::string, std::string>> info_;
};

}  // namespace rnic::app
