// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/protection/rtl_protection_datapath.h"

#include <cstring>
#include <string>

#include "model/rnic/util/byte_order.h"

// verilated_funcs.h calls sc_time_stamp() unqualified once <systemc> is in (it is, through the
// messages): give it SystemC's.
using sc_core::sc_time_stamp;
#ifdef RNICSIM_RTL_MUTANTS
#include "Vrnicsim_protection_checker_mutants.h"
using VerilatedUnit = Vrnicsim_protection_checker_mutants;
#else
#include "Vrnicsim_protection_checker.h"
using VerilatedUnit = Vrnicsim_protection_checker;
#endif
#include "verilated.h"
#include "verilated_vcd_c.h"

#ifndef RNICSIM_RTL_LATENCY
#error "RNICSIM_RTL_LATENCY: the unit's LATENCY, set by rtl/CMakeLists.txt"
#endif
#ifndef RNICSIM_RTL_SOURCES
#error "RNICSIM_RTL_SOURCES: the unit's sources, set by rtl/CMakeLists.txt"
#endif

namespace rnic {

namespace {

constexpr int kLineWords = kMptEntryBytes / 4;

void put_line(VlWide<kLineWords>& pins, const std::array<uint8_t, kMptEntryBytes>& line) {
  for (int w = 0; w < kLineWords; ++w) pins[w] = get_le<uint32_t>(line.data() + 4 * w);
}

MptEntry get_line(const VlWide<kLineWords>& pins) {
  uint8_t raw[kMptEntryBytes];
  for (int w = 0; w < kLineWords; ++w) put_le<uint32_t>(raw + 4 * w, pins[w]);
  return MptEntry::decode(raw);
}

bool known_status(uint8_t status) {
  switch (CqeStatus(status)) {
    case CqeStatus::Success:
    case CqeStatus::LocalQpOperation:
    case CqeStatus::LocalProtection:
    case CqeStatus::MwBind:
    case CqeStatus::RemoteAccess: return true;
    default: return false;
  }
}

}  // namespace

// The model, its own context (a replay's tracing must not touch the run's units) and the
// clock the transactor turns; `time` counts half cycles for the waveform.
struct RtlProtectionDatapath::Unit {
  explicit Unit(bool traced) : model(&context, "protection_checker") {
    if (traced) context.traceEverOn(true);
    model.clk = 0;
    model.rst_n = 0;
    model.req_valid = 0;
    model.rsp_ready = 1;
#ifdef RNICSIM_RTL_MUTANTS
    model.mutant_sel = 0;
#endif
    model.eval();
    for (int i = 0; i < 2; ++i) tick();  // reset, synchronous
    model.rst_n = 1;
    model.eval();
  }
  ~Unit() { model.final(); }

  void tick() {
    model.clk = 1;
    model.eval();
    if (vcd) vcd->dump(time);
    ++time;
    model.clk = 0;
    model.eval();
    if (vcd) vcd->dump(time);
    ++time;
  }

  // One request in, its response out; false when none came in `timeout` cycles.
  bool run(const DatapathInputs& in, uint16_t tag, uint32_t timeout, uint32_t* cycles) {
    const ProtectionRequest& r = in.req;
    VerilatedUnit& m = model;
    m.req_tag = tag;
    m.req_op = uint8_t(in.op);
    m.req_checks = uint8_t(r.checks);
    m.req_token = r.token;
    m.req_mr_token = r.mr_token;
    m.req_pd = r.pd;
    m.req_qpn = r.qpn;
    m.req_va = r.va;
    m.req_len = r.length;
    m.req_access = r.access;
    m.req_rights = r.rights;
    m.req_zero_based = r.zero_based ? 1 : 0;
    m.req_by_object = r.by_object ? 1 : 0;
    m.req_page_count = r.page_count;
    m.req_fbo = r.fbo;
    m.req_index0 = in.index0;
    m.req_index1 = in.index1;
    m.req_line1_present = in.has_entry1 ? 1 : 0;
    put_line(m.req_line0, in.line0);
    put_line(m.req_line1, in.line1);
    m.req_valid = 1;
    m.rsp_ready = 1;
    m.eval();
    // Cycles from the edge that takes the request to the one after which its response shows.
    bool accepted = false;
    uint32_t n = 0;
    while (n < timeout) {
      const bool takes = m.req_valid && m.req_ready;
      tick();
      if (accepted || takes) ++n;
      if (takes) {
        accepted = true;
        m.req_valid = 0;
        m.eval();
      }
      if (accepted && m.rsp_valid && m.rsp_tag == tag) {
        *cycles = n;
        return true;
      }
    }
    m.req_valid = 0;
    m.eval();
    *cycles = n;
    return false;
  }

  VerilatedContext context;
  VerilatedUnit model;
  VerilatedVcdC* vcd = nullptr;
  uint64_t time = 0;
};

RtlProtectionDatapath::RtlProtectionDatapath(const Config& config)
    : config_(config), unit_(std::make_unique<Unit>(false)) {
#ifdef RNICSIM_RTL_MUTANTS
  unit_->model.mutant_sel = config.mutant;
  unit_->model.eval();
#endif
}

RtlProtectionDatapath::~RtlProtectionDatapath() = default;

uint32_t RtlProtectionDatapath::latency_cycles() { return RNICSIM_RTL_LATENCY; }

std::string RtlProtectionDatapath::description() {
  return std::string(RNICSIM_RTL_SOURCES) + ", Verilator " + Verilated::productVersion() +
         ", LATENCY " + std::to_string(RNICSIM_RTL_LATENCY);
}

bool RtlProtectionDatapath::has_mutants() {
#ifdef RNICSIM_RTL_MUTANTS
  return true;
#else
  return false;
#endif
}

Decision RtlProtectionDatapath::decide(DatapathCall& call) {
  DatapathInputs in = capture_inputs(call);
  ++calls_;
  const uint16_t tag = uint16_t(calls_);
  uint32_t cycles = 0;
  const bool answered = unit_->run(in, tag, config_.timeout_cycles, &cycles);
  if (config_.recent_calls > 0) {
    if (recent_.size() == config_.recent_calls) recent_.pop_front();
    recent_.push_back(std::move(in));
  }
  last_cycles_ = cycles;
  cycles_ += cycles;
  const VerilatedUnit& m = unit_->model;
  if (!answered || !known_status(m.rsp_status) || m.rsp_rule > all_rules().size()) {
    ++bad_answers_;
    return Decision::fail(CqeStatus::LocalQpOperation, RuleId::None);
  }
  const Decision decision{CqeStatus(m.rsp_status), RuleId(m.rsp_rule)};
  ProtectionRequest& req = *call.req;
  if (!decision.failed()) {
    req.target_va = m.rsp_target_va;
    req.region = Region{m.rsp_mtt_index, uint8_t(m.rsp_page_shift), m.rsp_page_base_va};
    req.new_token = m.rsp_new_token;
  }
  if (m.rsp_write0) *call.entry0 = get_line(m.rsp_line0);
  if (m.rsp_write1 && call.entry1) *call.entry1 = get_line(m.rsp_line1);
  return decision;
}

size_t RtlProtectionDatapath::replay_recent(
    const std::function<bool(VerilatedVcdC&)>& open) const {
  Unit replay(true);
#ifdef RNICSIM_RTL_MUTANTS
  replay.model.mutant_sel = config_.mutant;
  replay.model.eval();
#endif
  VerilatedVcdC vcd;
  replay.model.trace(&vcd, 99);
  if (!open(vcd)) return 0;
  replay.vcd = &vcd;
  uint16_t tag = uint16_t(calls_ - recent_.size());
  for (const DatapathInputs& in : recent_) {
    uint32_t cycles = 0;
    replay.run(in, ++tag, config_.timeout_cycles, &cycles);
  }
  replay.tick();  // the last response taken
  vcd.close();
  replay.vcd = nullptr;
  return recent_.size();
}

}  // namespace rnic
