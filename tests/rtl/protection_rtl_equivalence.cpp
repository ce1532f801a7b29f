// SPDX-License-Identifier: Apache-2.0
// Equivalence of rtl/protection_checker/ (rnicsim_protection_checker,
// Verilated with --cc) and the C++ rule functions of model/rnic/protection/protection_rules.cpp.
//
// Random requests over the seven ops, on entries built to pass every check and then disturbed
// (a field flipped, a bound moved by one, state and kind bytes out of range, garbage in the
// bytes decode ignores ...), go in through the pins under random valid/ready traffic; every
// response is compared, in order, with what the C++ function decides and defines: status,
// rule, target VA, region, new token, which lines are written back and, for a written line,
// MptEntry::encode(MptEntry::decode(rtl line)) against the encoding of the C++-updated entry.
// Fields the C++ leaves undefined must read 0 and a written line must already be canonical
// (normalized state and kind, bytes 7 and 48..63 zero). The latency of a request into an
// empty pipeline must be exactly LATENCY cycles, and with rsp_ready high the unit must take a
// request every cycle.
//
// usage: protection_rtl_equivalence [--count N] [--seed S] [--latency L] [--mutant M]
//   --latency: the LATENCY the model was Verilated with (-GLATENCY=L; default 4)
//   --mutant:  mutant_sel (a build with +define+RNICSIM_RTL_MUTANTS only)
// exit 0: every response agrees; 1: the first divergence (printed); 2: bad arguments.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>

#ifdef RNICSIM_RTL_MUTANTS  // ctest builds it on the mutant variant (rtl/CMakeLists.txt)
#include "Vrnicsim_protection_checker_mutants.h"
using Top = Vrnicsim_protection_checker_mutants;
#else
#include "Vrnicsim_protection_checker.h"
using Top = Vrnicsim_protection_checker;
#endif
#include "verilated.h"

#include "model/rnic/protection/protection_rules.h"
#include "protection_rtl_stimulus.h"

using namespace rnic;
using namespace rnic::rtl_bench;

// protection_rules.h brings in <systemc>, and libsystemc.so wants an sc_main symbol (as
// tests/support/test_main.cpp): this program has its own main, so this one never runs.
int sc_main(int, char**) { return 0; }

namespace {

// ---- The RTL side --------------------------------------------------------------------------

// mutant_sel exists only in a build with RNICSIM_RTL_MUTANTS.
template <class T>
auto set_mutant(T& m, unsigned n, int) -> decltype(m.mutant_sel = 0, bool()) {
  m.mutant_sel = uint8_t(n);
  return true;
}
template <class T>
bool set_mutant(T&, unsigned n, long) { return n == 0; }


template <class W>
void put_line(W& w, const uint8_t* bytes) {
  for (unsigned i = 0; i < 16; ++i)
    w[i] = uint32_t(bytes[4 * i]) | uint32_t(bytes[4 * i + 1]) << 8 |
           uint32_t(bytes[4 * i + 2]) << 16 | uint32_t(bytes[4 * i + 3]) << 24;
}
template <class W>
void get_line(const W& w, uint8_t* bytes) {
  for (unsigned i = 0; i < 64; ++i) bytes[i] = uint8_t(w[i / 4] >> (8 * (i % 4)));
}

void drive(Top& t, const Stimulus& s, uint16_t tag) {
  t.req_tag = tag;
  t.req_op = s.op;
  t.req_checks = s.checks;
  t.req_token = s.token;
  t.req_mr_token = s.mr_token;
  t.req_pd = s.pd;
  t.req_qpn = s.qpn;
  t.req_va = s.va;
  t.req_len = s.len;
  t.req_access = s.access;
  t.req_rights = s.rights;
  t.req_zero_based = s.zero_based;
  t.req_by_object = s.by_object;
  t.req_page_count = s.page_count;
  t.req_fbo = s.fbo;
  t.req_index0 = s.index0;
  t.req_index1 = s.index1;
  t.req_line1_present = s.line1_present;
  put_line(t.req_line0, s.line0);
  put_line(t.req_line1, s.line1);
}

void tick(Top& t) {
  t.clk = 1;
  t.eval();
  t.clk = 0;
  t.eval();
}

std::string rule_str(uint16_t rule) {
  if (rule == 0) return "none";
  if (rule > uint16_t(RuleId::R6_misuse)) return "?" + std::to_string(rule);
  return rule_name(RuleId(rule));
}

std::string hex_line(const uint8_t* b) {
  std::string out;
  char buf[4];
  for (unsigned i = 0; i < 48; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    out += buf;
    if (i % 8 == 7 && i != 47) out += ' ';
  }
  return out;
}

void print_request(const Stimulus& s) {
  std::fprintf(stderr,
               "  request: op %s checks %u token 0x%08x mr_token 0x%08x pd 0x%x qpn 0x%x"
               " va 0x%016" PRIx64 " len 0x%016" PRIx64 " access 0x%x rights 0x%x zero_based %d by_object %d"
               " page_count %u fbo %u index0 0x%x index1 0x%x line1_present %d\n",
               op_name(s.op), s.checks, s.token, s.mr_token, s.pd, s.qpn, s.va, s.len, s.access,
               s.rights, s.zero_based, s.by_object, s.page_count, s.fbo, s.index0, s.index1,
               s.line1_present);
  std::fprintf(stderr, "  line0 (bytes 0..47): %s\n", hex_line(s.line0).c_str());
  std::fprintf(stderr, "  line1 (bytes 0..47): %s\n", hex_line(s.line1).c_str());
}

struct Checker {
  uint64_t compared = 0;
  std::map<std::string, uint64_t> decided;  // per decided rule ("success" for RULE_NONE)

  // The response on the pins against `x`; false (after a report) at the first difference.
  bool compare(const Top& t, const Expected& x) {
    std::string field;
    char want[96] = "", got[96] = "";
    auto differ = [&](const char* name, uint64_t w, uint64_t g) {
      if (!field.empty() || w == g) return;
      field = name;
      std::snprintf(want, sizeof want, "0x%" PRIx64, w);
      std::snprintf(got, sizeof got, "0x%" PRIx64, g);
    };
    differ("rsp_tag (order)", x.tag, t.rsp_tag);
    differ("rsp_status", uint8_t(x.decision.status), t.rsp_status);
    if (field.empty() && uint16_t(x.decision.rule) != t.rsp_rule) {
      field = "rsp_rule";
      std::snprintf(want, sizeof want, "%s", rule_str(uint16_t(x.decision.rule)).c_str());
      std::snprintf(got, sizeof got, "%s", rule_str(t.rsp_rule).c_str());
    }
    differ("rsp_write0", x.write0, t.rsp_write0);
    differ("rsp_write1", x.write1, t.rsp_write1);
    // Defined fields equal the C++ ones; undefined ones read 0.
    differ("rsp_target_va", x.has_target ? x.target_va : 0, t.rsp_target_va);
    differ("rsp_mtt_index", x.has_region ? x.region.mtt_index : 0, t.rsp_mtt_index);
    differ("rsp_page_shift", x.has_region ? x.region.page_shift : 0, t.rsp_page_shift);
    differ("rsp_page_base_va", x.has_region ? x.region.page_base_va : 0, t.rsp_page_base_va);
    differ("rsp_new_token", x.has_token ? x.new_token : 0, t.rsp_new_token);
    for (int n = 0; n < 2 && field.empty(); ++n) {
      if (!(n ? x.write1 : x.write0)) continue;
      uint8_t raw[kMptEntryBytes], canon[kMptEntryBytes];
      get_line(n ? t.rsp_line1 : t.rsp_line0, raw);
      MptEntry::decode(raw).encode(canon);
      const uint8_t* w = n ? x.line1 : x.line0;
      for (unsigned i = 0; i < kMptEntryBytes && field.empty(); ++i) {
        if (canon[i] != w[i]) {
          field = std::string(n ? "rsp_line1" : "rsp_line0") + " byte " + std::to_string(i) +
                  " (after decode/encode)";
          std::snprintf(want, sizeof want, "0x%02x", w[i]);
          std::snprintf(got, sizeof got, "0x%02x", canon[i]);
        } else if (raw[i] != canon[i]) {
          field = std::string(n ? "rsp_line1" : "rsp_line0") + " byte " + std::to_string(i) +
                  " (not canonical)";
          std::snprintf(want, sizeof want, "0x%02x", canon[i]);
          std::snprintf(got, sizeof got, "0x%02x", raw[i]);
        }
      }
    }
    if (!field.empty()) {
      std::fprintf(stderr,
                   "protection_rtl_equivalence: DIVERGENCE at response %" PRIu64 " (%s), rule %s:"
                   " %s: model %s, rtl %s; model decided %s (status %u), rtl %s (status %u)\n",
                   compared, op_name(x.op),
                   rule_str(uint16_t(x.decision.failed() ? x.decision.rule : RuleId(t.rsp_rule)))
                       .c_str(),
                   field.c_str(), want, got,
                   rule_str(uint16_t(x.decision.rule)).c_str(), unsigned(x.decision.status),
                   rule_str(t.rsp_rule).c_str(), unsigned(t.rsp_status));
      print_request(x.stim);
      return false;
    }
    ++compared;
    ++decided[x.decision.rule == RuleId::None
                  ? std::string(x.decision.failed() ? "failure" : "success")
                  : std::string(rule_name(x.decision.rule))];
    return true;
  }
};

int usage(const char* msg) {
  std::fprintf(stderr,
               "protection_rtl_equivalence: %s\n"
               "usage: protection_rtl_equivalence [--count N] [--seed S] [--latency L]"
               " [--mutant M]\n",
               msg);
  return 2;
}

bool parse_u64(const char* s, uint64_t* out) {
  if (!s || !*s) return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s, &end, 0);
  if (errno || *end || *s == '-') return false;
  *out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t count = 200000, seed = 1, latency = 4, mutant = 0;
  for (int i = 1; i < argc; i += 2) {  // options and their values, in pairs
    const std::string a = argv[i];
    uint64_t* target = a == "--count"     ? &count
                       : a == "--seed"    ? &seed
                       : a == "--latency" ? &latency
                       : a == "--mutant"  ? &mutant
                                          : nullptr;
    if (!target) return usage(("unknown argument '" + a + "'").c_str());
    if (i + 1 >= argc || !parse_u64(argv[i + 1], target))
      return usage((a + " needs a non-negative number").c_str());
  }
  if (latency < 1 || latency > 64) return usage("--latency must be 1..64");
  if (mutant > 15) return usage("--mutant must be 0..15");
  if (count == 0) return usage("--count must be at least 1");

  seed_stimulus(seed);
  auto context = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<Top>(context.get());
  Top& t = *top;
  if (!set_mutant(t, unsigned(mutant), 0))
    return usage("--mutant needs a model Verilated with +define+RNICSIM_RTL_MUTANTS");

  // Reset (synchronous, active low).
  t.clk = 0;
  t.rst_n = 0;
  t.req_valid = 0;
  t.rsp_ready = 0;
  t.eval();
  for (int i = 0; i < 3; ++i) tick(t);
  t.rst_n = 1;
  t.eval();
  if (t.rsp_valid) {
    std::fprintf(stderr, "protection_rtl_equivalence: rsp_valid high after reset\n");
    return 1;
  }

  Checker checker;
  std::deque<Expected> in_flight;
  uint64_t issued = 0, latency_probes = 0, cycles = 0;
  bool have_pending = false;
  Stimulus pending;
  bool last_stalled = false;
  uint16_t last_stalled_tag = 0;
  unsigned phase_left = 0, phase = 0;

  auto fail = [&](const char* what) {
    std::fprintf(stderr, "protection_rtl_equivalence: DIVERGENCE: %s (cycle %" PRIu64 ")\n", what,
                 cycles);
    return 1;
  };

  // One cycle with the inputs as set: compare what leaves, then clock.
  auto cycle = [&](bool& accepted) -> bool {
    t.eval();
    accepted = t.req_valid && t.req_ready;
    const bool leaves = t.rsp_valid && t.rsp_ready;
    if (last_stalled && (!t.rsp_valid || t.rsp_tag != last_stalled_tag)) {
      std::fprintf(stderr, "protection_rtl_equivalence: DIVERGENCE: a stalled response changed\n");
      return false;
    }
    last_stalled = t.rsp_valid && !t.rsp_ready;
    last_stalled_tag = t.rsp_tag;
    if (t.rsp_valid && in_flight.empty()) {
      std::fprintf(stderr, "protection_rtl_equivalence: DIVERGENCE: a response nobody asked for\n");
      return false;
    }
    if (leaves) {
      if (!checker.compare(t, in_flight.front())) return false;
      in_flight.pop_front();
    }
    tick(t);
    ++cycles;
    return true;
  };

  while (checker.compared < count) {
    // Latency probe: drain, then one request into the empty pipeline with rsp_ready high,
    // counted as the contract says (set inputs, then full clock cycles until rsp_valid).
    if (issued == 0 || (issued % 997 == 0 && !have_pending && issued < count)) {
      t.req_valid = 0;
      t.rsp_ready = 1;
      bool acc = false;
      while (!in_flight.empty() || t.rsp_valid)
        if (!cycle(acc)) return 1;
      const Stimulus s = next_stimulus();
      const uint16_t tag = uint16_t(issued);
      drive(t, s, tag);
      t.req_valid = 1;
      t.rsp_ready = 0;  // an empty pipeline takes a request even while the consumer stalls
      t.eval();
      if (!t.req_ready) return fail("req_ready low with an empty pipeline");
      t.rsp_ready = 1;
      t.eval();
      in_flight.push_back(reference(s, tag));
      ++issued;
      uint64_t n = 0;
      do {
        t.clk = 1;
        t.eval();
        t.req_valid = 0;
        t.clk = 0;
        t.eval();
        ++n;
        ++cycles;
      } while (!t.rsp_valid && n <= latency + 4);
      if (n != latency) {
        std::fprintf(stderr,
                     "protection_rtl_equivalence: DIVERGENCE: latency %" PRIu64
                     " cycles, expected %" PRIu64 "\n",
                     n, latency);
        return 1;
      }
      ++latency_probes;
      last_stalled = false;
      if (!cycle(acc)) return 1;  // takes it (rsp_ready is high)
      continue;
    }

    // Traffic phases: full throughput, or random valid/ready.
    if (phase_left == 0) {
      phase = below(4);
      phase_left = 20 + below(200);
    }
    --phase_left;
    const bool full = phase == 0;
    if (!have_pending && issued < count && (full || chance(phase == 1 ? 90 : 60))) {
      pending = next_stimulus();
      have_pending = true;
    }
    t.req_valid = have_pending;
    if (have_pending) drive(t, pending, uint16_t(issued));
    t.rsp_ready = full ? 1 : chance(phase == 2 ? 30 : 75);
    t.eval();
    if (t.rsp_ready && !t.req_ready) return fail("req_ready low while rsp_ready is high");
    bool accepted = false;
    if (!cycle(accepted)) return 1;
    if (accepted) {
      in_flight.push_back(reference(pending, uint16_t(issued)));
      ++issued;
      have_pending = false;
    }
    if (issued >= count && !have_pending) {  // drain
      t.req_valid = 0;
      t.rsp_ready = 1;
      while (!in_flight.empty())
        if (!cycle(accepted)) return 1;
    }
  }

  std::string summary;
  for (const auto& [rule, n] : checker.decided)
    summary += " " + rule + "=" + std::to_string(n);
  std::printf("protection_rtl_equivalence: %" PRIu64 " responses agree (LATENCY %" PRIu64
              ", mutant %" PRIu64 ", seed %" PRIu64 ", %" PRIu64 " cycles, %" PRIu64
              " latency probes); decided:%s\n",
              checker.compared, latency, mutant, seed, cycles, latency_probes, summary.c_str());
  return 0;
}
