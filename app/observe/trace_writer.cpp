// SPDX-License-Identifier: Apache-2.0
#include "app/observe/trace_writer.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>

namespace rnic::app {

namespace {

// Viewer order of a node's units: the path of a work request through the device.
uint32_t unit_rank(const std::string& unit) {
  static const char* const kOrder[] = {"fetcher",   "requester", "protection", "mtt",
                                       "dma_read",  "dma_write", "port",       "responder",
                                       "completion"};
  for (uint32_t i = 0; i < sizeof kOrder / sizeof kOrder[0]; ++i) {
    if (unit == kOrder[i]) return i + 1;
  }
  return 50;
}

std::string escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

// Microseconds with picosecond precision.
std::string us(uint64_t ps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%" PRIu64 ".%06" PRIu64, ps / 1000000, ps % 1000000);
  return buf;
}

uint64_t to_ps(const sc_core::sc_time& t) { return uint64_t(t.to_seconds() * 1e12 + 0.5); }

}  // namespace

TraceWriter::TraceWriter(uint64_t limit, std::ostream* warn) : limit_(limit), warn_(warn) {}

uint32_t TraceWriter::track(const std::string& path) {
  auto it = track_ids_.find(path);
  if (it != track_ids_.end()) return it->second;
  Track t;
  // "A.rnic.fetcher": node "A", unit "fetcher".
  const size_t first = path.find('.');
  const size_t last = path.rfind('.');
  t.process = first == std::string::npos ? path : path.substr(0, first);
  t.thread = last == std::string::npos ? path : path.substr(last + 1);
  auto p = std::find(processes_.begin(), processes_.end(), t.process);
  if (p == processes_.end()) p = processes_.insert(processes_.end(), t.process);
  t.pid = uint32_t(p - processes_.begin()) + 1;
  t.rank = unit_rank(t.thread);
  tracks_.push_back(t);
  const uint32_t id = uint32_t(tracks_.size() - 1);
  track_ids_.emplace(path, id);
  return id;
}

void TraceWriter::slice(uint32_t track, const char* name, const sc_core::sc_time& start,
                        const sc_core::sc_time& end, uint64_t trace_id) {
  const uint64_t cost = trace_id ? 2 : 1;
  if (used_ + cost > limit_) {
    if (dropped_++ == 0) {
      dropped_at_ps_ = to_ps(sc_core::sc_time_stamp());
      if (warn_) {
        *warn_ << "rnicsim: trace limit of " << limit_ << " events reached at "
               << us(dropped_at_ps_) << " us simulated; later slices are not recorded "
               << "(--trace-limit)\n";
      }
    }
    return;
  }
  used_ += cost;
  const uint64_t s = to_ps(start);
  slices_.push_back(Slice{track, name, s, std::max(s, to_ps(end)), trace_id});
}

void TraceWriter::set_info(const std::string& key, const std::string& value) {
  info_.emplace_back(key, value);
}

void TraceWriter::write(std::ostream& out) const {
  // Lanes: per track, slices in start order go to the first lane free by then, so no two
  // slices of one thread overlap (viewers require nesting on a thread).
  std::vector<size_t> order(slices_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Slice& x = slices_[a];
    const Slice& y = slices_[b];
    if (x.track != y.track) return x.track < y.track;
    return x.start_ps < y.start_ps;
  });
  std::vector<uint32_t> lane_of(slices_.size(), 0);
  std::vector<uint32_t> lanes_per_track(tracks_.size(), 1);
  {
    std::vector<uint64_t> lane_end;
    uint32_t current = UINT32_MAX;
    for (const size_t i : order) {
      const Slice& s = slices_[i];
      if (s.track != current) {
        current = s.track;
        lane_end.clear();
      }
      size_t lane = 0;
      while (lane < lane_end.size() && lane_end[lane] > s.start_ps) ++lane;
      if (lane == lane_end.size()) lane_end.push_back(0);
      lane_end[lane] = s.end_ps;
      lane_of[i] = uint32_t(lane);
      lanes_per_track[s.track] = std::max<uint32_t>(lanes_per_track[s.track], uint32_t(lane) + 1);
    }
  }
  // Thread ids: pipeline rank * 100 + lane + 1 (a unit appears once per node).
  auto tid = [&](uint32_t track, uint32_t lane) {
    return tracks_[track].rank * 100 + std::min<uint32_t>(lane, 99) + 1;
  };

  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":{";
  out << "\"time\":\"simulated; ts and dur in microseconds\",";
  out << "\"trace_limit_events\":" << limit_ << ",\"dropped_slices\":" << dropped_;
  if (dropped_) out << ",\"truncated_at_us\":" << us(dropped_at_ps_);
  for (const auto& [key, value] : info_) out << ",\"" << escape(key) << "\":\"" << escape(value) << '"';
  out << "},\n\"traceEvents\":[\n";
  bool first = true;
  auto next = [&]() -> std::ostream& {
    if (!first) out << ",\n";
    first = false;
    return out;
  };
  for (size_t p = 0; p < processes_.size(); ++p) {
    next() << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << p + 1
           << ",\"tid\":0,\"args\":{\"name\":\"node " << escape(processes_[p]) << "\"}}";
    next() << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << p + 1
           << ",\"tid\":0,\"args\":{\"sort_index\":" << p + 1 << "}}";
  }
  for (uint32_t t = 0; t < tracks_.size(); ++t) {
    for (uint32_t lane = 0; lane < std::min<uint32_t>(lanes_per_track[t], 100); ++lane) {
      std::string name = tracks_[t].thread;
      if (lane) name += " #" + std::to_string(lane + 1);
      next() << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << tracks_[t].pid
             << ",\"tid\":" << tid(t, lane) << ",\"args\":{\"name\":\"" << escape(name) << "\"}}";
      next() << "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" << tracks_[t].pid
             << ",\"tid\":" << tid(t, lane) << ",\"args\":{\"sort_index\":" << tid(t, lane)
             << "}}";
    }
  }
  if (dropped_) {
    next() << "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"trace limit reached: later slices dropped\","
              "\"pid\":1,\"tid\":0,\"ts\":"
           << us(dropped_at_ps_) << "}";
  }
  char id_text[24];
  for (size_t i = 0; i < slices_.size(); ++i) {
    const Slice& s = slices_[i];
    const Track& t = tracks_[s.track];
    next() << "{\"ph\":\"X\",\"name\":\"" << s.name << "\",\"cat\":\"" << escape(t.thread)
           << "\",\"pid\":" << t.pid << ",\"tid\":" << tid(s.track, lane_of[i])
           << ",\"ts\":" << us(s.start_ps) << ",\"dur\":" << us(s.end_ps - s.start_ps);
    if (s.trace_id) {
      std::snprintf(id_text, sizeof id_text, "0x%" PRIx64, s.trace_id);
      out << ",\"args\":{\"request\":\"" << id_text << "\",\"qpn\":" << trace_id_qpn(s.trace_id)
          << ",\"requester_node\":" << trace_id_node(s.trace_id) << '}';
    }
    out << '}';
  }
  // Flows: one per request, through its slices in time order.
  std::map<uint64_t, std::vector<size_t>> flows;
  for (size_t i = 0; i < slices_.size(); ++i) {
    if (slices_[i].trace_id) flows[slices_[i].trace_id].push_back(i);
  }
  for (auto& [id, members] : flows) {
    if (members.size() < 2) continue;
    std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) {
      return slices_[a].start_ps < slices_[b].start_ps;
    });
    std::snprintf(id_text, sizeof id_text, "0x%" PRIx64, id);
    for (size_t k = 0; k < members.size(); ++k) {
      const Slice& s = slices_[members[k]];
      const char* ph = k == 0 ? "s" : k + 1 == members.size() ? "f" : "t";
      next() << "{\"ph\":\"" << ph << "\",\"name\":\"request\",\"cat\":\"request\",\"id\":\""
             << id_text << "\",\"pid\":" << tracks_[s.track].pid
             << ",\"tid\":" << tid(s.track, lane_of[members[k]]) << ",\"ts\":" << us(s.start_ps)
             << ",\"bp\":\"e\"}";
    }
  }
  out << "\n]}\n";
}

std::string TraceWriter::write_file(const std::string& path) const {
  std::ofstream file(path, std::ios::binary);
  if (!file) return "cannot write trace file " + path;
  write(file);
  file.close();
  if (!file) return "error writing trace file " + path;
  return {};
}

}  // namespace rnic::app
