// SPDX-License-Identifier: Apache-2.0
#include "app/scenario/params.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "app/scenario/suggest.h"
#include "app/scenario/text.h"
#include "model/rnic/abi/icm.h"

namespace rnic::app {

namespace {

using Kind = ParamDef::Kind;
using Rule = ParamDef::Rule;

// Getter/setter pair for one field: FIELD is an lvalue expression over `c`.
#define RNIC_PARAM_FIELD(FIELD)                          \
  [](const SystemConfig& c) { return double(c.FIELD); }, \
      [](SystemConfig& c, double v) { c.FIELD = static_cast<decltype(c.FIELD)>(v); }

constexpr double kMaxCycles = 1e6;
constexpr double kMaxNs = 1e9;  // one simulated second: anything above is a typo

std::vector<ParamDef> build_table() {
  return {
      {"device.clock_mhz", "MHz", "device core clock", Kind::Real, 1, 10000, Rule::Range,
       RNIC_PARAM_FIELD(rnic.timing.clock_mhz)},
      {"device.doorbell_cycles", "cycles", "decode of an MMIO doorbell", Kind::Integer, 0,
       kMaxCycles, Rule::Range, RNIC_PARAM_FIELD(rnic.timing.doorbell_cycles)},
      {"device.responder_cycles", "cycles", "parse of an incoming request", Kind::Integer, 0,
       kMaxCycles, Rule::Range, RNIC_PARAM_FIELD(rnic.timing.responder_cycles)},
      {"device.completion_cycles", "cycles", "build of a completion entry", Kind::Integer, 0,
       kMaxCycles, Rule::Range, RNIC_PARAM_FIELD(rnic.timing.completion_cycles)},
      {"device.doorbell_ii_cycles", "cycles",
       "initiation interval of doorbell decode: a new one at most every N cycles", Kind::Integer, 1,
       kMaxCycles, Rule::Range, RNIC_PARAM_FIELD(rnic.timing.doorbell_ii_cycles)},
      {"device.responder_ii_cycles", "cycles",
       "initiation interval of the responder's request parser: a new one at most every N cycles",
       Kind::Integer, 1, kMaxCycles, Rule::Range,
       RNIC_PARAM_FIELD(rnic.timing.responder_ii_cycles)},
      {"device.completion_ii_cycles", "cycles",
       "initiation interval of the completion engine: a new one at most every N cycles",
       Kind::Integer, 1, kMaxCycles, Rule::Range,
       RNIC_PARAM_FIELD(rnic.timing.completion_ii_cycles)},
      {"device.adapter_flags", "bitmask",
       "NDK_ADAPTER_FLAG_* capabilities reported (0x2 RDMA_READ_SINK_NOT_REQUIRED, 0x10 "
       "RDMA_READ_LOCAL_INVALIDATE_SUPPORTED, ...)",
       Kind::Integer, 0, 0xffffffff, Rule::Range, RNIC_PARAM_FIELD(rnic.adapter_flags)},
      {"pcie.gen", "generation", "PCIe generation 1..5: per-lane rate and encoding", Kind::Integer,
       1, 5, Rule::Range, RNIC_PARAM_FIELD(rnic.pcie.gen)},
      {"pcie.lanes", "lanes", "link width", Kind::Integer, 1, 32, Rule::Range,
       RNIC_PARAM_FIELD(rnic.pcie.lanes)},
      {"pcie.mps", "bytes", "max payload size: posted writes and completions split here",
       Kind::Integer, 128, 4096, Rule::PowerOfTwo, RNIC_PARAM_FIELD(rnic.pcie.mps_bytes)},
      {"pcie.mrrs", "bytes", "max read request size: DMA reads split here", Kind::Integer, 128,
       4096, Rule::PowerOfTwo, RNIC_PARAM_FIELD(rnic.pcie.mrrs_bytes)},
      {"pcie.rcb", "bytes", "read completion boundary", Kind::Integer, 64, 128, Rule::PowerOfTwo,
       RNIC_PARAM_FIELD(rnic.pcie.rcb_bytes)},
      {"pcie.max_read_tags", "tags", "outstanding non-posted reads the device can have",
       Kind::Integer, 1, 1024, Rule::Range, RNIC_PARAM_FIELD(rnic.pcie.max_read_tags)},
      {"pcie.read_latency_ns", "ns", "host round trip for a minimal (<= 64 B) read", Kind::Integer,
       0, kMaxNs, Rule::Range, RNIC_PARAM_FIELD(rnic.pcie.read_latency_ns)},
      {"pcie.tlp_overhead_bytes", "bytes", "per-TLP header, sequence, LCRC and framing",
       Kind::Integer, 0, 256, Rule::Range, RNIC_PARAM_FIELD(rnic.pcie.tlp_overhead_bytes)},
      {"pcie.mmio_latency_ns", "ns", "CPU posted MMIO write to the device register", Kind::Integer,
       0, kMaxNs, Rule::Range, RNIC_PARAM_FIELD(rnic.pcie.mmio_latency_ns)},
      {"pcie.write_latency_ns", "ns",
       "device posted write (data, completion entry, interrupt message): from its last byte on "
       "the link to visible in host memory or at the CPU",
       Kind::Integer, 0, kMaxNs, Rule::Range, RNIC_PARAM_FIELD(rnic.pcie.write_latency_ns)},
      {"dma.read_channels", "channels",
       "DMA read channels: transfers reassembled and moved into the device in parallel",
       Kind::Integer, 1, 256, Rule::Range, RNIC_PARAM_FIELD(rnic.dma.read_channels)},
      {"dma.read_bytes_per_cycle", "bytes/cycle",
       "datapath width of one DMA read channel (one beat per device cycle)", Kind::Integer, 1, 1024,
       Rule::Range, RNIC_PARAM_FIELD(rnic.dma.read_bytes_per_cycle)},
      {"host.memory_bytes", "bytes", "physical address space of each node", Kind::Integer,
       double(64ull << 20), double(1ull << 40), Rule::Range,
       RNIC_PARAM_FIELD(host_memory.size_bytes)},
      {"host.extra_latency_ns", "ns", "added to every device read (remote socket, LLC miss)",
       Kind::Integer, 0, kMaxNs, Rule::Range, RNIC_PARAM_FIELD(host_memory.extra_latency_ns)},
      {"host.line_service_ns", "ns",
       "time one 64 B line of a device read holds a host read slot (the lone minimal read's "
       "share is inside pcie.read_latency_ns)",
       Kind::Integer, 1, 100000, Rule::Range, RNIC_PARAM_FIELD(host_memory.line_service_ns)},
      {"host.lines_in_service", "lines",
       "device-read lines the host serves at once; accesses to one line never overlap",
       Kind::Integer, 1, 4096, Rule::Range, RNIC_PARAM_FIELD(host_memory.lines_in_service)},
      {"host.poll_ns", "ns",
       "a CPU spinning on a memory line sees a device write this long after it lands (the "
       "line's move to the core): every wake-up on a completion, and pingpong's landed data",
       Kind::Integer, 0, kMaxNs, Rule::Range, RNIC_PARAM_FIELD(host_memory.poll_ns)},
      {"monitor.enabled", "bool",
       "protection monitor on each device's host-memory port (1): a DMA the request it serves "
       "does not allow fails the scenario; 0 runs faster",
       Kind::Integer, 0, 1, Rule::Range, RNIC_PARAM_FIELD(protection_monitor)},
      {"host.blueflame", "bool",
       "BlueFlame doorbells (1): a post ringing for one WQE writes the WQE (128 bytes) with its "
       "doorbell by MMIO to the device's BlueFlame register, and the device skips the ring read",
       Kind::Integer, 0, 1, Rule::Range, RNIC_PARAM_FIELD(rnic.driver.blueflame)},
      {"sim.fast", "bool",
       "simulation mode: 0 cycle-approximate, 1 fast functional (loosely timed, temporal "
       "decoupling; same statuses and bytes, approximate times)",
       Kind::Integer, 0, 1, Rule::Range, RNIC_PARAM_FIELD(rnic.sim.fast)},
      {"mtt.cache_entries", "entries", "translation cache entries (one page each)", Kind::Integer,
       1, 1 << 20, Rule::Range, RNIC_PARAM_FIELD(rnic.mtt.cache_entries)},
      {"mtt.cache_ways", "ways", "translation cache associativity (divides cache_entries)",
       Kind::Integer, 1, 1 << 20, Rule::Range, RNIC_PARAM_FIELD(rnic.mtt.cache_ways)},
      {"mtt.lookup_cycles", "cycles", "pipeline latency of a translation hit", Kind::Integer, 0,
       kMaxCycles, Rule::Range, RNIC_PARAM_FIELD(rnic.mtt.lookup_cycles)},
      {"mtt.lookup_ii_cycles", "cycles",
       "initiation interval of translation lookups (per page): a new one at most every N cycles",
       Kind::Integer, 1, kMaxCycles, Rule::Range, RNIC_PARAM_FIELD(rnic.mtt.lookup_ii_cycles)},
      {"mtt.entries_per_fetch", "entries", "MTT entries fetched per miss", Kind::Integer, 1, 512,
       Rule::Range, RNIC_PARAM_FIELD(rnic.mtt.entries_per_fetch)},
      {"mtt.max_outstanding_misses", "misses",
       "translation cache miss-status registers: line reads in flight (1: a blocking cache)",
       Kind::Integer, 1, 256, Rule::Range, RNIC_PARAM_FIELD(rnic.mtt.max_outstanding_misses)},
      {"mtt.walk_ns", "ns",
       "0: a translation miss reads its line of entries by DMA over PCIe; N: a miss is a page "
       "walk of N ns beside host memory, no PCIe traffic (an IOMMU in place of the MTT)",
       Kind::Integer, 0, kMaxNs, Rule::Range, RNIC_PARAM_FIELD(rnic.mtt.walk_ns)},
      {"mpt.cache_entries", "entries", "protection table cache entries (fully associative)",
       Kind::Integer, 1, 1 << 20, Rule::Range, RNIC_PARAM_FIELD(rnic.mpt.cache_entries)},
      {"mpt.max_outstanding_misses", "misses",
       "protection table cache miss-status registers: entry reads in flight (1: a blocking cache)",
       Kind::Integer, 1, 256, Rule::Range, RNIC_PARAM_FIELD(rnic.mpt.max_outstanding_misses)},
      {"protection.implementation", "choice",
       "what decides the protection checks: tlm (the C++ rules), rtl (the RTL unit, built with "
       "Verilator), lockstep (both, every decision compared; the first divergence fails the "
       "run); docs/rtl-cosim.md",
       Kind::Choice, 0, 2, Rule::Range, RNIC_PARAM_FIELD(rnic.protection.implementation)},
      {"protection.divergence_trace_checks", "checks",
       "lockstep: the checks up to a divergence replayed into the RTL waveform written beside "
       "the report (bounds its size)",
       Kind::Integer, 1, 4096, Rule::Range,
       RNIC_PARAM_FIELD(rnic.protection.divergence_trace_checks)},
      {"mpt.check_cycles", "cycles", "key/PD/rights/bounds check latency", Kind::Integer, 0,
       kMaxCycles, Rule::Range, RNIC_PARAM_FIELD(rnic.mpt.check_cycles)},
      {"mpt.check_ii_cycles", "cycles",
       "initiation interval of protection checks: a new one at most every N cycles", Kind::Integer,
       1, kMaxCycles, Rule::Range, RNIC_PARAM_FIELD(rnic.mpt.check_ii_cycles)},
      {"qpc.cache_entries", "entries",
       "QP context cache entries in the QP-context unit (one QPC each)", Kind::Integer, 1, 1 << 20,
       Rule::Range, RNIC_PARAM_FIELD(rnic.context.qpc.cache_entries)},
      {"qpc.cache_ways", "ways", "QP context cache associativity (divides qpc.cache_entries)",
       Kind::Integer, 1, 1 << 20, Rule::Range, RNIC_PARAM_FIELD(rnic.context.qpc.cache_ways)},
      {"qpc.max_outstanding_misses", "misses",
       "QP context cache miss-status registers: entry reads in flight (1: a blocking cache)",
       Kind::Integer, 1, 256, Rule::Range,
       RNIC_PARAM_FIELD(rnic.context.qpc.max_outstanding_misses)},
      {"cqc.cache_entries", "entries",
       "CQ context cache entries in the QP-context unit (one CQC each)", Kind::Integer, 1, 1 << 20,
       Rule::Range, RNIC_PARAM_FIELD(rnic.context.cqc.cache_entries)},
      {"cqc.cache_ways", "ways", "CQ context cache associativity (divides cqc.cache_entries)",
       Kind::Integer, 1, 1 << 20, Rule::Range, RNIC_PARAM_FIELD(rnic.context.cqc.cache_ways)},
      {"cqc.max_outstanding_misses", "misses",
       "CQ context cache miss-status registers: entry reads in flight (1: a blocking cache)",
       Kind::Integer, 1, 256, Rule::Range,
       RNIC_PARAM_FIELD(rnic.context.cqc.max_outstanding_misses)},
      {"context.lookup_cycles", "cycles", "latency of a QPC or CQC cache hit", Kind::Integer, 0,
       kMaxCycles, Rule::Range, RNIC_PARAM_FIELD(rnic.context.lookup_cycles)},
      {"context.write_back", "bool",
       "an evicted QPC or CQC entry writes its running state back to host memory (1), or "
       "every QP's running state stays on chip at no cost (0)",
       Kind::Integer, 0, 1, Rule::Range, RNIC_PARAM_FIELD(rnic.context.write_back)},
      {"wqe.fetch_batch", "WQEs", "WQEs fetched per DMA read when that many are posted",
       Kind::Integer, 1, 64, Rule::Range, RNIC_PARAM_FIELD(rnic.wqe.fetch_batch)},
      {"wqe.prefetch_depth", "batches",
       "WQE batch reads per QP in flight or waiting on chip (1: the next batch is read when the "
       "last is used up)",
       Kind::Integer, 1, 64, Rule::Range, RNIC_PARAM_FIELD(rnic.wqe.prefetch_depth)},
      {"wqe.cache_entries", "WQEs",
       "on-chip WQE buffer, all QPs: WQEs fetched and not yet taken by the requester",
       Kind::Integer, 1, 1 << 16, Rule::Range, RNIC_PARAM_FIELD(rnic.wqe.cache_entries)},
      {"wqe.cache_policy", "choice",
       "the WQE buffer full: block (the next WQE read waits for a slot) or evict (it takes the "
       "slot of another QP's prefetched WQE, on chip and not yet handed on, the oldest first; "
       "that WQE is read again when its QP's turn comes)",
       Kind::Choice, 0, 1, Rule::Range, RNIC_PARAM_FIELD(rnic.wqe.cache_policy)},
      {"wqe.decode_cycles", "cycles", "decode of a fetched WQE", Kind::Integer, 0, kMaxCycles,
       Rule::Range, RNIC_PARAM_FIELD(rnic.wqe.decode_cycles)},
      {"wqe.decode_ii_cycles", "cycles",
       "initiation interval of the WQE decoder: a new one at most every N cycles", Kind::Integer, 1,
       kMaxCycles, Rule::Range, RNIC_PARAM_FIELD(rnic.wqe.decode_ii_cycles)},
      {"qp.max_ord", "reads", "outstanding RDMA reads per QP as requester (adapter limit)",
       Kind::Integer, 1, 1024, Rule::Range, RNIC_PARAM_FIELD(rnic.qp.max_ord)},
      {"qp.max_ird", "reads", "reads in service per QP as responder (adapter limit)", Kind::Integer,
       1, 1024, Rule::Range, RNIC_PARAM_FIELD(rnic.qp.max_ird)},
      {"responder.read_contexts", "contexts",
       "read-response contexts of the responder, shared by all QPs: reads in service at once "
       "(each also holds one of its QP's qp.max_ird); a read finding all held waits for one",
       Kind::Integer, 1, double(1u << 30), Rule::Range,
       RNIC_PARAM_FIELD(rnic.responder.read_contexts)},
      {"qp.max_qps", "QPs", "QP table size", Kind::Integer, 1, 1 << 20, Rule::Range,
       RNIC_PARAM_FIELD(rnic.qp.max_qps)},
      {"qp.max_cqs", "CQs", "CQ table size", Kind::Integer, 1, 1 << 20, Rule::Range,
       RNIC_PARAM_FIELD(rnic.qp.max_cqs)},
      {"qp.max_mpt_entries", "entries", "MPT table size (MRs + MWs)", Kind::Integer, 1,
       (1 << 24) - 1, Rule::Range, RNIC_PARAM_FIELD(rnic.qp.max_mpt_entries)},
      {"qp.max_mtt_entries", "entries", "MTT table size (translated pages)", Kind::Integer, 1,
       1 << 28, Rule::Range, RNIC_PARAM_FIELD(rnic.qp.max_mtt_entries)},
      {"qp.max_sge", "SGEs", "scatter/gather entries per request", Kind::Integer, 1, 64,
       Rule::Range, RNIC_PARAM_FIELD(rnic.qp.max_sge)},
      {"qp.max_fr_pages", "pages", "fast-register page count limit (FRMRPageCount)", Kind::Integer,
       1, 1 << 20, Rule::Range, RNIC_PARAM_FIELD(rnic.qp.max_fr_pages)},
      // MaxTransferLength is a ULONG, and so is a message's length on the wire: 2^32 bytes,
      // once accepted, crashed the requester landing the read (exit 139).
      {"qp.max_transfer_bytes", "bytes", "longest request (MaxTransferLength)", Kind::Integer, 1,
       double(UINT32_MAX), Rule::Range, RNIC_PARAM_FIELD(rnic.qp.max_transfer_bytes)},
      {"qp.rnr_retry_count", "retries", "sends retried while the peer has no receive posted",
       Kind::Integer, 0, 7, Rule::Range, RNIC_PARAM_FIELD(rnic.qp.rnr_retry_count)},
      {"qp.rnr_timer_ns", "ns", "wait before each RNR retry", Kind::Integer, 0, kMaxNs, Rule::Range,
       RNIC_PARAM_FIELD(rnic.qp.rnr_timer_ns)},
      {"port.gbps", "Gb/s", "data rate after line encoding (FDR InfiniBand: 54.55)", Kind::Real,
       1, 1600, Rule::Range,
       RNIC_PARAM_FIELD(rnic.port.gbps)},
      {"port.mtu", "bytes", "payload per packet: read responses are segmented here", Kind::Integer,
       256, 4096, Rule::PowerOfTwo, RNIC_PARAM_FIELD(rnic.port.mtu_bytes)},
      {"port.header_bytes", "bytes",
       "per-packet bytes on the wire besides the payload (RoCEv2 82, InfiniBand 34)", Kind::Integer,
       0, 1024, Rule::Range, RNIC_PARAM_FIELD(rnic.port.header_bytes)},
      {"port.pipeline_cycles", "cycles", "transmit or receive pipeline latency", Kind::Integer, 0,
       kMaxCycles, Rule::Range, RNIC_PARAM_FIELD(rnic.port.pipeline_cycles)},
      {"link.latency_ns", "ns", "propagation + switch cut-through, one way", Kind::Integer, 0,
       kMaxNs, Rule::Range, RNIC_PARAM_FIELD(fabric.link_latency_ns)},
  };
}

#undef RNIC_PARAM_FIELD

bool is_power_of_two(double v) {
  const uint64_t u = uint64_t(v);
  return double(u) == v && u && !(u & (u - 1));
}

}  // namespace

const std::vector<ParamDef>& param_table() {
  static const std::vector<ParamDef> table = build_table();
  return table;
}

const ParamDef* find_param(const std::string& key) {
  for (const ParamDef& def : param_table()) {
    if (key == def.key) return &def;
  }
  return nullptr;
}

std::string unknown_param(const std::string& key) {
  std::vector<std::string> keys;
  for (const ParamDef& def : param_table()) keys.push_back(def.key);
  // Too many keys to list in a message: say where the list is.
  return unknown_name("config key", key, keys, " (see `rnicsim params`)");
}

const std::vector<std::string>& param_choices(const ParamDef& def) {
  // Each Choice key's names, in the order of its enum (model/config/config.h).
  static const std::vector<std::pair<std::string, std::vector<std::string>>> choices = {
      {"protection.implementation", {"tlm", "rtl", "lockstep"}},  // ProtectionImplementation
      {"wqe.cache_policy", {"block", "evict"}},                    // WqeCachePolicy
  };
  static const std::vector<std::string> none;
  if (def.kind != Kind::Choice) return none;
  for (const auto& [key, names] : choices) {
    if (key == def.key) return names;
  }
  return none;  // a Choice key without names: test_params fails on it
}

namespace {

std::string choice_error(const ParamDef& def, const std::string& shown) {
  std::string names;
  for (const std::string& name : param_choices(def)) names += (names.empty() ? "" : ", ") + name;
  return std::string(def.key) + ": " + shown + " is not one of " + names;
}

}  // namespace

std::string set_param_value(SystemConfig& config, const std::string& key, double value,
                            bool is_integer) {
  const ParamDef* def = find_param(key);
  if (!def) return unknown_param(key);
  if (def->kind == Kind::Choice) return choice_error(*def, format_param_value(*def, value));
  if (!std::isfinite(value)) return key + ": not a finite number";
  if (def->kind == Kind::Integer && (!is_integer || value != std::floor(value)))
    return key + ": must be an integer";
  if (value < def->min || value > def->max) {
    return key + ": " + format_param_value(*def, value) + " is out of range " +
           format_param_value(*def, def->min) + ".." + format_param_value(*def, def->max);
  }
  if (def->rule == Rule::PowerOfTwo && !is_power_of_two(value)) {
    return key + ": " + format_param_value(*def, value) + " is not a power of two in " +
           format_param_value(*def, def->min) + ".." + format_param_value(*def, def->max);
  }
  def->set(config, value);
  return {};
}

std::string set_param(SystemConfig& config, const std::string& key, const std::string& text) {
  const ParamDef* def = find_param(key);
  if (!def) return unknown_param(key);
  if (def->kind == Kind::Choice) {
    const std::vector<std::string>& names = param_choices(*def);
    for (size_t i = 0; i < names.size(); ++i) {
      if (text == names[i]) {
        def->set(config, double(i));
        return {};
      }
    }
    return choice_error(*def, "\"" + text + "\"");
  }
  uint64_t integer = 0;
  if (parse_unsigned(text, &integer)) {
    if (integer > (1ull << 53)) return key + ": " + text + " is out of range";
    return set_param_value(config, key, double(integer), true);
  }
  if (def->kind == Kind::Real) {
    double real = 0;
    if (parse_real(text, &real)) return set_param_value(config, key, real, false);
    return key + ": \"" + text + "\" is not a number";
  }
  return key + ": \"" + text + "\" is not a non-negative integer";
}

std::string apply_preset(SystemConfig& config, const std::string& name) {
  for (const Preset& preset : preset_table()) {
    if (name != preset.name) continue;
    config = SystemConfig{};
    for (const auto& [key, value] : preset.values) {
      std::string error = set_param(config, key, value);
      if (!error.empty()) return "preset \"" + name + "\": " + error;  // a table bug
    }
    return {};
  }
  std::vector<std::string> known;
  for (const Preset& preset : preset_table()) known.push_back(preset.name);
  return unknown_name("preset", name, known, name_list("known", known));
}

std::string check_config(const SystemConfig& config) {
  // A set-associative cache has entries/ways sets of `ways` lines each.
  const struct {
    const char* name;
    uint32_t entries, ways;
  } caches[] = {{"mtt", config.rnic.mtt.cache_entries, config.rnic.mtt.cache_ways},
                {"qpc", config.rnic.context.qpc.cache_entries, config.rnic.context.qpc.cache_ways},
                {"cqc", config.rnic.context.cqc.cache_entries, config.rnic.context.cqc.cache_ways}};
  for (const auto& c : caches) {
    if (c.entries % c.ways != 0) {
      return std::string(c.name) + ".cache_ways (" + std::to_string(c.ways) + ") must divide " +
             c.name + ".cache_entries (" + std::to_string(c.entries) + ")";
    }
  }
  // A batch must fit the WQE buffer, or nothing could ever be fetched.
  if (config.rnic.wqe.cache_entries < config.rnic.wqe.fetch_batch) {
    return "wqe.cache_entries (" + std::to_string(config.rnic.wqe.cache_entries) +
           ") must hold at least one batch, wqe.fetch_batch (" +
           std::to_string(config.rnic.wqe.fetch_batch) + ")";
  }
  if (config.host_memory.size_bytes % 4096 != 0)
    return "host.memory_bytes must be a multiple of 4096";
  const IcmLayout icm = IcmLayout::from(config.rnic.qp);
  // The driver's buffers live above the device tables; leave at least half the memory to them.
  if (icm.end > config.host_memory.size_bytes / 2) {
    return "device tables (" + std::to_string(icm.end >> 20) +
           " MiB for qp.max_qps, qp.max_cqs, qp.max_mpt_entries, qp.max_mtt_entries) do not "
           "fit in half of host.memory_bytes";
  }
  return {};
}

std::string format_param_value(const ParamDef& def, double value) {
  if (def.kind == Kind::Choice) {
    const std::vector<std::string>& names = param_choices(def);
    if (value >= 0 && value < double(names.size())) return names[size_t(value)];
  }
  if (std::string(def.unit) == "bitmask" && value >= 0 && value <= 0xffffffff) {
    return hex(uint64_t(value));
  }
  if (def.kind == Kind::Integer && value == std::floor(value) && value >= 0 && value < 1e19) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(value));
    return buf;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", value);
  return buf;
}

std::vector<ParamValue> effective_params(const SystemConfig& config) {
  std::vector<ParamValue> out;
  for (const ParamDef& def : param_table()) {
    const double value = def.get(config);
    out.push_back(ParamValue{def.key, def.kind == Kind::Integer, value,
                             def.kind == Kind::Choice ? format_param_value(def, value) : ""});
  }
  return out;
}

}  // namespace rnic::app
