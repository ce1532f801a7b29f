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
  static const char* const kOrder[] = {"host",     "doorbell",  "fetcher",   "requester",
                                       "protection", "mtt",      "dma_read",  "dma_write",
                                       "port",      "responder", "completion"};
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

uint32_t TraceWriter::process(const std::string& name) {
  auto p = std::find(processes_.begin(), processes_.end(), name);
  if (p == processes_.end()) p = processes_.insert(processes_.end(), name);
  return uint32_t(p - processes_.begin()) + 1;
}

void TraceWriter::set_nodes(const std::vector<std::string>& names) {
  nodes_ = names;
  for (const std::string& name : names) process(name);
}

void TraceWriter::set_window(uint64_t from_ps, const std::string& what) {
  from_ps_ = from_ps;
  window_what_ = what;
}

void TraceWriter::open_window(uint64_t at_ps) {
  if (from_ps_ == kNotYet) from_ps_ = at_ps;
}

void TraceWriter::open_window_now() { open_window(to_ps(sc_core::sc_time_stamp())); }

uint32_t TraceWriter::track(const std::string& path) {
  auto it = track_ids_.find(path);
  if (it != track_ids_.end()) return it->second;
  Track t;
  // "A.rnic.fetcher": node "A", unit "fetcher".
  const size_t first = path.find('.');
  const size_t last = path.rfind('.');
  t.process = first == std::string::npos ? path : path.substr(0, first);
  t.thread = last == std::string::npos ? path : path.substr(last + 1);
  t.pid = process(t.process);
  t.rank = unit_rank(t.thread);
  tracks_.push_back(t);
  const uint32_t id = uint32_t(tracks_.size() - 1);
  track_ids_.emplace(path, id);
  return id;
}

bool TraceWriter::reserve(uint64_t cost, bool sample) {
  if (used_ + cost <= limit_) {
    used_ += cost;
    return true;
  }
  if (dropped_ + dropped_samples_ == 0) {
    dropped_at_ps_ = to_ps(sc_core::sc_time_stamp());
    if (warn_) {
      *warn_ << "rnicsim: trace limit of " << limit_ << " events reached at "
             << us(dropped_at_ps_) << " us simulated; later events are not recorded "
             << "(--trace-limit)\n";
    }
  }
  ++(sample ? dropped_samples_ : dropped_);
  return false;
}

uint32_t TraceWriter::record(uint32_t track, const char* name, uint64_t start_ps,
                             uint64_t end_ps, uint64_t trace_id, uint64_t cost,
                             const HostArgs* args) {
  if (start_ps < from_ps_ || !reserve(cost, false)) return kNone;
  uint32_t host = kNone;
  if (args) {
    host = uint32_t(host_args_.size());
    host_args_.push_back(*args);
  }
  slices_.push_back(Slice{track, host, name, start_ps, std::max(start_ps, end_ps), trace_id});
  return uint32_t(slices_.size() - 1);
}

void TraceWriter::slice(uint32_t track, const char* name, const sc_core::sc_time& start,
                        const sc_core::sc_time& end, uint64_t trace_id) {
  // Every id is noted, inside the window or not: it names the next fetched WQE of its QP.
  if (trace_id) note_id(trace_id);
  record(track, name, to_ps(start), to_ps(end), trace_id, trace_id ? 2 : 1, nullptr);
}

void TraceWriter::decision_slice(uint32_t track, const char* name, const sc_core::sc_time& start,
                                 const sc_core::sc_time& end, uint64_t trace_id,
                                 const char* rule, bool refused) {
  if (trace_id) note_id(trace_id);
  const uint32_t k = record(track, name, to_ps(start), to_ps(end), trace_id, trace_id ? 2 : 1,
                            nullptr);
  if (k == kNone) return;
  slices_[k].rule = rule && *rule ? rule : nullptr;
  slices_[k].decision = true;
  slices_[k].refused = refused;
}

uint32_t TraceWriter::counter_track(const std::string& path) {
  auto it = counter_ids_.find(path);
  if (it != counter_ids_.end()) return it->second;
  // "A.reads_outstanding": node "A", counter "reads_outstanding".
  const size_t dot = path.find('.');
  CounterTrack c;
  c.pid = process(dot == std::string::npos ? path : path.substr(0, dot));
  c.name = dot == std::string::npos ? path : path.substr(dot + 1);
  counters_.push_back(c);
  const uint32_t id = uint32_t(counters_.size() - 1);
  counter_ids_.emplace(path, id);
  return id;
}

void TraceWriter::counter(uint32_t track, const sc_core::sc_time& at, uint64_t value) {
  const uint64_t ps = to_ps(at);
  if (ps < from_ps_ || track >= counters_.size()) return;
  CounterTrack& c = counters_[track];
  // On change only: a level that holds costs no events.
  if (c.written && c.last == value) return;
  if (!reserve(1, true)) return;
  c.written = true;
  c.last = value;
  samples_.push_back(Sample{track, ps, value});
}

// The device numbers a node's WQEs as it fetches them (make_trace_id), and a QP's WQEs are
// fetched in ring order; so the ids of a QP, in number order, are its posted WQEs in order.
// An id is new when its number was never seen; ids seen out of order wait in `ahead`.
void TraceWriter::note_id(uint64_t trace_id) {
  const uint32_t node = trace_id_node(trace_id);
  if (node >= 1024) return;  // not an id of make_trace_id
  if (node >= id_order_.size()) id_order_.resize(node + 1);
  IdOrder& order = id_order_[node];
  const uint32_t number = uint32_t(trace_id);
  if (number < order.next) return;
  if (number == order.next) {
    release(node, trace_id_qpn(trace_id), trace_id);
    ++order.next;
  } else {
    order.ahead.emplace(number, trace_id_qpn(trace_id));
    // A number that never shows would hold every later one back: give up on it.
    if (order.ahead.size() <= 4096) return;
    order.next = order.ahead.begin()->first;
  }
  while (!order.ahead.empty() && order.ahead.begin()->first <= order.next) {
    const auto [n, qpn] = *order.ahead.begin();
    order.ahead.erase(order.ahead.begin());
    if (n == order.next) {
      release(node, qpn, make_trace_id(node, qpn, n));
      ++order.next;
    }
  }
}

TraceWriter::QpLink& TraceWriter::link(uint32_t node, uint32_t qpn) {
  return links_[(uint64_t(node) << 32) | qpn];
}

// Request `trace_id` is the oldest WQE of its QP posted and not yet fetched: its host slices
// get the id.
void TraceWriter::release(uint32_t node, uint32_t qpn, uint64_t trace_id) {
  auto it = links_.find((uint64_t(node) << 32) | qpn);
  if (it == links_.end() || it->second.posted.empty()) return;
  QpLink& q = it->second;
  const Posted p = q.posted.front();
  q.posted.pop_front();
  for (const uint32_t k : {p.post_slice, p.doorbell_slice}) {
    if (k != kNone) slices_[k].trace_id = trace_id;
  }
  q.fetched.push_back(Fetched{p.index, trace_id});
  // Unsignaled WQEs never show a completion; a later one passes them (poll). The cap only
  // guards against a QP never polled.
  if (q.fetched.size() > 65536) q.fetched.pop_front();
}

uint32_t TraceWriter::host_track(uint32_t node, bool doorbell) {
  // Per node, made once: a host event costs no string work, inside the window or not.
  std::vector<uint32_t>& ids = doorbell ? doorbell_tracks_ : host_tracks_;
  if (node >= ids.size()) ids.resize(node + 1, kNone);
  if (ids[node] == kNone) {
    const std::string name = node < nodes_.size() ? nodes_[node] : std::to_string(node);
    ids[node] = track(name + (doorbell ? ".doorbell" : ".host"));
  }
  return ids[node];
}

void TraceWriter::host_post(uint32_t node, uint32_t qpn, Queue queue, uint32_t index,
                            const sc_core::sc_time& at) {
  const uint64_t ps = to_ps(at);
  const HostArgs args{qpn, index, "wqe_index"};
  if (queue == Queue::Receive) {
    record(host_track(node, false), "post receive", ps, ps, 0, 1, &args);
    return;
  }
  QpLink& q = link(node, qpn);
  // Index 0: a new QP (its number may be an old one's), whose ring starts empty.
  if (index == 0) q = QpLink{};
  // Two events: the flow event it gets once linked.
  const uint32_t k = record(host_track(node, false), "post", ps, ps, 0, 2, &args);
  q.posted.push_back(Posted{index, k, kNone});
  if (q.posted.size() > 65536) q.posted.pop_front();
}

void TraceWriter::host_doorbell(uint32_t node, uint32_t qpn, Queue queue, uint32_t producer,
                                const sc_core::sc_time& at, const sc_core::sc_time& seen) {
  const HostArgs args{qpn, producer, "producer"};
  const uint32_t track = host_track(node, true);
  if (queue == Queue::Receive) {
    record(track, "receive doorbell", to_ps(at), to_ps(seen), 0, 1, &args);
    return;
  }
  // The doorbell belongs to the last WQE it hands over (its earlier ones were rung before,
  // or deferred behind it).
  QpLink& q = link(node, qpn);
  const bool linkable = !q.posted.empty() && q.posted.back().index + 1 == producer;
  const uint32_t k = record(track, "doorbell", to_ps(at), to_ps(seen), 0, linkable ? 2 : 1, &args);
  if (linkable) q.posted.back().doorbell_slice = k;
}

void TraceWriter::host_poll(uint32_t node, uint32_t qpn, Queue queue, uint32_t index,
                            const sc_core::sc_time& at) {
  const uint64_t ps = to_ps(at);
  const HostArgs args{qpn, index, "wqe_index"};
  const uint32_t track = host_track(node, false);
  if (queue == Queue::Receive) {
    record(track, "poll receive", ps, ps, 0, 1, &args);
    return;
  }
  // Completions of a QP's send queue come in ring order: earlier WQEs without one were
  // unsignaled.
  uint64_t id = 0;
  auto it = links_.find((uint64_t(node) << 32) | qpn);
  if (it != links_.end()) {
    std::deque<Fetched>& fetched = it->second.fetched;
    while (!fetched.empty() && int32_t(fetched.front().index - index) < 0) fetched.pop_front();
    if (!fetched.empty() && fetched.front().index == index) {
      id = fetched.front().trace_id;
      fetched.pop_front();
    }
  }
  record(track, "poll", ps, ps, id, id ? 2 : 1, &args);
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
  out << "\"trace_limit_events\":" << limit_ << ",\"events_counted\":" << used_
      << ",\"dropped_slices\":" << dropped_ << ",\"dropped_counter_samples\":" << dropped_samples_;
  if (dropped_ + dropped_samples_) out << ",\"truncated_at_us\":" << us(dropped_at_ps_);
  if (!window_what_.empty()) {
    out << ",\"trace_from\":\"" << escape(window_what_) << '"';
    if (from_ps_ != kNotYet) out << ",\"window_start_us\":" << us(from_ps_);
  }
  for (const auto& [key, value] : info_)
    out << ",\"" << escape(key) << "\":\"" << escape(value) << '"';
  out << "},\n\"traceEvents\":[\n";
  bool first = true;
  auto next = [&]() -> std::ostream& {
    if (!first) out << ",\n";
    first = false;
    return out;
  };
  for (size_t p = 0; p < processes_.size(); ++p) {
    next() << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << p + 1
           << ",\"tid\":0,\"args\":{\"name\":\"node " << escape(processes_[p]) << '"';
    // The node's index, as requests name their requester (args.requester_node).
    const auto node = std::find(nodes_.begin(), nodes_.end(), processes_[p]);
    if (node != nodes_.end()) out << ",\"node\":" << node - nodes_.begin();
    out << "}}";
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
  if (dropped_ + dropped_samples_) {
    next() << "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"trace limit reached: later events dropped\","
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
          << ",\"requester_node\":" << trace_id_node(s.trace_id);
    } else if (s.host != kNone) {
      out << ",\"args\":{\"qpn\":" << host_args_[s.host].qpn;
    }
    if (s.host != kNone) {
      out << ",\"" << host_args_[s.host].index_key << "\":" << host_args_[s.host].index;
    }
    // A decision: its outcome, and the rule that decided (docs/behaviour.md).
    if (s.decision) {
      out << (s.trace_id || s.host != kNone ? "," : ",\"args\":{") << "\"outcome\":\""
          << (s.refused ? "refused" : "passed") << '"';
      if (s.rule) out << ",\"rule\":\"" << s.rule << '"';
      if (!s.trace_id && s.host == kNone) out << '}';
    }
    if (s.trace_id || s.host != kNone) out << '}';
    out << '}';
  }
  // Counter tracks: one per counter and node, "args.value".
  for (const Sample& c : samples_) {
    next() << "{\"ph\":\"C\",\"name\":\"" << escape(counters_[c.counter].name)
           << "\",\"pid\":" << counters_[c.counter].pid << ",\"ts\":" << us(c.at_ps)
           << ",\"args\":{\"value\":" << c.value << "}}";
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
