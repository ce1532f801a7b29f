// SPDX-License-Identifier: Apache-2.0
// Field parsers shared by several ops: fills, hex bytes, SGLs, remote targets, metric bounds.
#include <algorithm>
#include <regex>

#include "app/scenario/parse.h"
#include "app/scenario/suggest.h"
#include "app/scenario/text.h"
#include "host_api/ndk.h"

namespace rnic::app {

using nlohmann::json;
using K = ObjectKind;

const std::vector<const char*>& metric_names() {
  static const std::vector<const char*> names = {"ops",
                                                 "bytes",
                                                 "sim_ns",
                                                 "mops",
                                                 "gbps",
                                                 "latency_ns.p50",
                                                 "latency_ns.p90",
                                                 "latency_ns.p99",
                                                 "latency_ns.max",
                                                 "mtt.hit_rate",
                                                 "mpt.hit_rate",
                                                 "deltas_per_op"};
  return names;
}

void charge_allocation(const Reader& r, const std::string& key, uint32_t node, uint64_t bytes) {
  uint64_t& total = r.state().allocated[node];
  if (bytes > kMaxAllocBytesPerNode - total) {
    r.fail(key, "buffers on node " + r.state().nodes[node] +
                    " would total more than the 1 GiB a scenario may allocate per node");
  }
  uint64_t all = 0;
  for (uint64_t n : r.state().allocated) all += n;
  if (bytes > kMaxAllocBytesTotal - all) {
    r.fail(key, "buffers on all nodes would total more than the 2 GiB a scenario may allocate");
  }
  total += bytes;
}

void parse_expect_status(const Reader& r, Step& s) {
  s.expect_status = r.has("expect") ? r.status("expect") : ndk::STATUS_SUCCESS;
}

// Objects passed to one adapter call must live on one node: a handle means nothing elsewhere.
void check_same_node(const Reader& r, const std::string& key, const std::string& name,
                     const std::string& other) {
  const Symbol& a = r.symbol(name);
  const Symbol& b = r.symbol(other);
  if (a.node == b.node) return;
  r.fail(key, std::string(kind_label(a.kind)) + " " + quote(name) + " is on node " +
                  r.state().nodes[a.node] + ", " + kind_label(b.kind) + " " + quote(other) +
                  " on node " + r.state().nodes[b.node]);
}

Fill parse_fill(const Reader& r, const std::string& key, uint8_t* byte, bool allow_random) {
  const json& j = r.at(key);
  if (j.is_number_unsigned()) {
    if (j.get<uint64_t>() > 0xff) r.fail(key, "a fill byte is 0..255");
    *byte = uint8_t(j.get<uint64_t>());
    return Fill::Byte;
  }
  const std::string s = r.string(key);
  if (s == "zero") return Fill::Zero;
  if (s == "incrementing") return Fill::Incrementing;
  if (s == "random" && allow_random) return Fill::Random;
  uint64_t v = 0;
  if (s.size() > 2 && s.size() <= 4 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
      parse_unsigned(s, &v)) {
    *byte = uint8_t(v);
    return Fill::Byte;
  }
  std::vector<std::string> fills = {"zero", "incrementing"};
  if (allow_random) fills.push_back("random");
  r.fail(key, unknown_name("fill", s, fills,
                           allow_random ? " (zero, incrementing, random or a byte like \"0xAB\")"
                                        : " (zero, incrementing or a byte like \"0xAB\")"));
}

std::vector<uint8_t> parse_hex_bytes(const Reader& r, const std::string& key) {
  std::string s = r.string(key);
  if (s.size() > (8u << 20)) r.fail(key, "longer than 8 MiB of text");
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s = s.substr(2);
  std::vector<uint8_t> out;
  int high = -1;
  for (char c : s) {
    if (c == ' ' || c == '_' || c == ':' || c == '-') continue;  // separators for readability
    uint64_t v = 0;
    if (!parse_unsigned(std::string("0x") + c, &v)) r.fail(key, "not a hex byte string");
    if (high < 0) {
      high = int(v);
    } else {
      out.push_back(uint8_t(high << 4 | int(v)));
      high = -1;
    }
  }
  if (high >= 0) r.fail(key, "odd number of hex digits");
  if (out.empty()) r.fail(key, "no bytes given");
  return out;
}

std::vector<SgeSpec> parse_sgl(const Reader& r, const Step& s) {
  const json& j = r.at("sgl");
  if (!j.is_array()) r.fail("sgl", std::string("must be an array, not ") + j.type_name());
  if (j.size() > kMaxSgl) r.fail("sgl", "more than " + std::to_string(kMaxSgl) + " entries");
  std::vector<SgeSpec> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const JsonPath p = r.path("sgl").index(i);
    if (!j[i].is_object()) throw_at(p, std::string("must be an object, not ") + j[i].type_name());
    Reader e(j[i], p, r.state());
    SgeSpec sge;
    if (e.has("mr")) {
      e.only({"mr", "offset", "length"});
      sge.mr = e.object("mr", {K::Mr});
      check_same_node(e, "mr", sge.mr, s.qp);
      sge.offset = e.value_or("offset", 0);
    } else {
      e.only({"token", "address", "length"});
      sge.token = e.value("token", kU32);
      sge.address = e.value("address");
    }
    sge.length = e.value("length", kU32);
    out.push_back(sge);
  }
  return out;
}

std::vector<PageSpec> parse_pages(const Reader& r, const Step& s) {
  const json& j = r.at("pages");
  if (!j.is_array()) r.fail("pages", std::string("must be an array, not ") + j.type_name());
  if (j.empty() || j.size() > 65536) r.fail("pages", "must have 1..65536 entries");
  std::vector<PageSpec> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const JsonPath p = r.path("pages").index(i);
    if (!j[i].is_object()) throw_at(p, std::string("must be an object, not ") + j[i].type_name());
    Reader e(j[i], p, r.state());
    e.only({"buffer", "index", "offset"});
    PageSpec page;
    page.buffer = e.object("buffer", {K::Buffer});
    check_same_node(e, "buffer", page.buffer, s.qp);
    page.index = e.value_or("index", 0, kU32);
    page.offset = e.value_or("offset", 0, 4095);
    out.push_back(page);
  }
  return out;
}

RemoteSpec parse_remote(const Reader& r, bool workload) {
  const Reader e = r.object_reader("remote");
  RemoteSpec remote;
  if (workload) {
    e.only({"target", "targets", "offset", "span", "pattern"});
  } else if (e.has("target")) {
    e.only({"target", "offset"});
  } else if (e.has("descriptor")) {
    e.only({"descriptor", "offset"});
    remote.target = e.object("descriptor", {K::Mw});
    remote.descriptor = true;
    remote.offset = e.value_or("offset", 0);
    return remote;
  } else {
    e.only({"token", "address"});
  }
  if (workload && e.has("targets")) {
    if (e.has("target")) e.fail("targets", "give either target or targets, not both");
    const nlohmann::json& list = e.at("targets");
    if (!list.is_array() || list.empty() || list.size() > kMaxWorkloadTargets)
      e.fail("targets", "must be an array of 1 to " + std::to_string(kMaxWorkloadTargets) +
                            " MR or MW names");
    for (size_t i = 0; i < list.size(); ++i) {
      const JsonPath at = e.path("targets").index(i);
      if (!list[i].is_string()) throw_at(at, "must be the name of an MR or MW");
      const std::string name = list[i].get<std::string>();
      auto it = e.state().symbols.find(name);
      if (it == e.state().symbols.end()) throw_at(at, "unknown MR or MW " + quote(name));
      if (it->second.kind != K::Mr && it->second.kind != K::Mw)
        throw_at(at, quote(name) + " is a " + kind_label(it->second.kind) + ", not an MR or MW");
      if (!remote.targets.empty() && it->second.node != e.symbol(remote.targets[0]).node)
        throw_at(at, quote(name) + " is on another node than " + quote(remote.targets[0]));
      remote.targets.push_back(name);
    }
    remote.target = remote.targets[0];
    remote.offset = e.value_or("offset", 0);
  } else if (workload || e.has("target")) {
    remote.target = e.object("target", {K::Mr, K::Mw});
    remote.offset = e.value_or("offset", 0);
  } else {
    remote.token = e.value("token", kU32);
    remote.address = e.value("address");
  }
  if (workload) {
    remote.span = e.literal("span", 1, 1ull << 40);
    const std::string pattern = e.string_or("pattern", "sequential");
    if (pattern != "sequential" && pattern != "random")
      e.fail("pattern", "must be \"sequential\" or \"random\"");
    remote.random = pattern == "random";
  }
  return remote;
}

namespace {

// "NODE.SIDE.TABLE.hit_rate" (or .hits, .misses, .merged, .misses_per_op) for a node of the
// scenario, or (flows > 0) "flowN[.reverse].ops|mops|gbps" with N < flows, "fairness" or
// "flushes"; an empty
// string when it is one, else what is wrong.
std::string check_patterned_metric(const Reader& r, const std::string& name, size_t flows) {
  static const std::regex hit_rate(
      "^([A-Za-z0-9_]+)\\.(requester|responder|completion|dma_bench)\\.(mtt|mpt|qpc|cqc)\\."
      "(hit_rate|hits|misses|merged|misses_per_op)$");
  static const std::regex flow("^flow([0-9]{1,9})(\\.reverse)?\\.(ops|mops|gbps)$");
  std::smatch m;
  if (std::regex_match(name, m, hit_rate)) {
    const auto& nodes = r.state().nodes;
    if (std::find(nodes.begin(), nodes.end(), m[1].str()) != nodes.end()) return "";
    return "metric " + quote(name) + " names node " + quote(m[1].str()) +
           ", not a node of this scenario";
  }
  if (flows && (name == "fairness" || name == "flushes")) return "";
  if (flows && std::regex_match(name, m, flow)) {
    if (std::stoull(m[1].str()) < flows) return "";
    return "metric " + quote(name) + ": the step has " + std::to_string(flows) +
           (flows == 1 ? " flow" : " flows") + " (flow0 to flow" + std::to_string(flows - 1) + ")";
  }
  return "?";
}

}  // namespace

std::vector<MetricBound> parse_metrics(const Reader& r, size_t flows) {
  std::vector<MetricBound> out;
  if (!r.has("expect")) return out;
  const Reader e = r.object_reader("expect");
  for (auto it = r.at("expect").begin(); it != r.at("expect").end(); ++it) {
    const auto& names = metric_names();
    if (std::find(names.begin(), names.end(), it.key()) == names.end()) {
      const std::string wrong = check_patterned_metric(r, it.key(), flows);
      if (!wrong.empty() && wrong != "?") e.fail(it.key(), wrong);
      if (!wrong.empty()) {
        std::vector<std::string> known = strings(names);
        known.insert(known.end(), {"NODE.SIDE.TABLE.hit_rate", "NODE.SIDE.TABLE.hits",
                                   "NODE.SIDE.TABLE.misses", "NODE.SIDE.TABLE.merged",
                                   "NODE.SIDE.TABLE.misses_per_op"});
        if (flows)
          known.insert(known.end(), {"flowN.ops", "flowN.mops", "flowN.gbps",
                                     "flowN.reverse.ops", "flowN.reverse.mops",
                                     "flowN.reverse.gbps", "fairness", "flushes"});
        e.fail(it.key(), unknown_name("metric", it.key(), known, name_list("known", known)));
      }
    }
    const Reader m = e.object_reader(it.key());
    m.only({"min", "max"});
    MetricBound bound{it.key(), std::nullopt, std::nullopt};
    for (const char* k : {"min", "max"}) {
      if (!m.has(k)) continue;
      if (!m.at(k).is_number()) m.fail(k, "must be a number");
      (std::string(k) == "min" ? bound.min : bound.max) = m.at(k).get<double>();
    }
    out.push_back(bound);
  }
  return out;
}

}  // namespace rnic::app
