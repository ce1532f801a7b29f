// SPDX-License-Identifier: Apache-2.0
// The transactor between the protection checker and its RTL twin: a Verilated (`--cc`) model
// of rtl/protection_checker/ behind the ProtectionDatapath interface, so the ProtectionChecker
// module (its sockets, cache, table port and timing unchanged) has its decisions made by the
// RTL (protection.implementation = rtl) or compared with it (lockstep). Built only with the
// RNICSIM_RTL option (Verilator); docs/rtl-cosim.md gives the pin contract.
//
// Each decide() drives one request onto the unit's request channel and clocks the model by
// hand until the response with the request's tag, inside the caller's b_transport: the
// engines call the checker from methods that cannot wait, so the RTL's clock advances in the
// call, and its cycle count becomes the check's latency (last_cycles()). One request is in the
// RTL at a time: its pipelining is not exercised in the loop (the checker's stage models the
// initiation interval, mpt.check_ii_cycles).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "model/rnic/protection/protection_datapath.h"

class VerilatedVcdC;

namespace rnic {

class RtlProtectionDatapath final : public ProtectionDatapath {
 public:
  struct Config {
    // The calls kept for replay_recent() (the divergence waveform); 0 keeps none.
    size_t recent_calls = 64;
    // A unit that has not answered after this many cycles is hung: the call fails.
    uint32_t timeout_cycles = 10000;
    // Builds with the seeded bugs (rnicsim_rtl_mutants): the RTL's mutant_sel input.
    uint32_t mutant = 0;
  };
  explicit RtlProtectionDatapath(const Config& config);
  ~RtlProtectionDatapath() override;

  Decision decide(DatapathCall& call) override;
  uint32_t last_cycles() const override { return last_cycles_; }

  uint64_t calls() const { return calls_; }
  uint64_t cycles() const { return cycles_; }
  // Answers the pins could not mean (a status or rule the contract lacks, no answer in
  // timeout_cycles): each is taken as a LocalQpOperation failure with no rule.
  uint64_t bad_answers() const override { return bad_answers_; }
  // The unit's declared latency in cycles (its LATENCY parameter, as built).
  static uint32_t latency_cycles();
  // "rtl/protection_checker/protection_decide.sv rtl/protection_checker/protection_checker.sv,
  // Verilator 5.006, LATENCY 4": the sources as built.
  static std::string description();
  // True in a build with the seeded bugs.
  static bool has_mutants();

  // Replays the kept calls (the last `recent_calls`, ending with the latest) into a fresh
  // instance of the unit whose waveform `open` opens (the caller names the file; false: not
  // opened). The unit keeps no state between requests, so the replay shows what the calls
  // did. Returns the replayed calls' count, or 0 when `open` failed.
  size_t replay_recent(const std::function<bool(VerilatedVcdC&)>& open) const;

 private:
  struct Unit;  // the Verilated model and its clock
  Config config_;
  std::unique_ptr<Unit> unit_;
  std::deque<DatapathInputs> recent_;
  uint32_t last_cycles_ = 0;
  uint64_t calls_ = 0;
  uint64_t cycles_ = 0;
  uint64_t bad_answers_ = 0;
};

}  // namespace rnic
