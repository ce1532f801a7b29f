// SPDX-License-Identifier: Apache-2.0
// The protection checker's decision datapath: what decides a check once its MPT entries are
// on chip. The ProtectionChecker module keeps the cache, the table port, the generation
// register and the timing, and hands every decision to one of these:
// - RulesDatapath: the rules of protection_rules.h in C++ (the TLM twin, the default);
// - RtlProtectionDatapath (rtl_protection_datapath.h, built with RNICSIM_RTL): a Verilated RTL
//   unit behind a transactor, the entries passed as the raw table lines;
// - LockstepDatapath: both, every decision compared; the first divergence is kept and handed to
//   a callback (docs/rtl-cosim.md).
// Plain C++: tested without a kernel.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "model/rnic/abi/icm.h"
#include "model/rnic/abi/rules.h"
#include "model/rnic/msg/messages.h"

namespace rnic {

// One call per rule function of protection_rules.h, plus the window release an invalidate
// makes on the window's MR (R5.inv.bound_windows).
enum class DatapathOp : uint8_t {
  LocalAccess,        // check_local_access(entry0)
  RemoteAccess,       // check_remote_access(entry0, parent = entry1 or none)
  Bind,               // apply_bind(index0, window = entry0, index1, MR = entry1)
  FastRegisterCheck,  // check_fast_register(entry0); on success region = its MTT range
  FastRegisterCommit, // apply_fast_register(entry0)
  Invalidate,         // apply_invalidate(entry0)
  ReleaseWindow,      // entry0 (a window's MR) loses one bound window
};
constexpr size_t kDatapathOpCount = 7;
const char* datapath_op_name(DatapathOp op);

struct DatapathCall {
  DatapathOp op = DatapathOp::LocalAccess;
  // In: the request's fields. Out (on success): region, target_va, new_token.
  ProtectionRequest* req = nullptr;
  MptEntry* entry0 = nullptr;  // changed in place by Bind, commit, Invalidate, ReleaseWindow
  MptEntry* entry1 = nullptr;  // RemoteAccess: the window's MR (null: none read); Bind: the MR
  uint32_t index0 = 0;         // MPT index of entry0 (Bind: the window's, for its new token)
  uint32_t index1 = 0;         // MPT index of entry1
};

class ProtectionDatapath {
 public:
  virtual ~ProtectionDatapath() = default;
  virtual Decision decide(DatapathCall& call) = 0;
  // Cycles the last decide() took inside the unit; 0 for an untimed one (the checker's
  // mpt.check_cycles then stand for it).
  virtual uint32_t last_cycles() const { return 0; }
  // Answers the unit gave that the contract cannot mean (taken as failures), so far.
  virtual uint64_t bad_answers() const { return 0; }
};

// The rules of protection_rules.h.
class RulesDatapath final : public ProtectionDatapath {
 public:
  Decision decide(DatapathCall& call) override;
};

// What one decide() produced: every output a rule function defines.
struct DatapathAnswer {
  Decision decision;
  Region region;
  uint64_t target_va = 0;
  uint32_t new_token = 0;
  std::array<uint8_t, kMptEntryBytes> line0{}, line1{};  // entries after the call, encoded
  uint32_t cycles = 0;
};
// The inputs of a call, kept by value (entries encoded as the table holds them).
struct DatapathInputs {
  DatapathOp op = DatapathOp::LocalAccess;
  ProtectionRequest req;
  bool has_entry1 = false;
  std::array<uint8_t, kMptEntryBytes> line0{}, line1{};
  uint32_t index0 = 0, index1 = 0;
};

// The first call on which the two sides disagreed.
struct DatapathDivergence {
  uint64_t ordinal = 0;  // the call's number, from 1, in this datapath
  DatapathInputs inputs;
  DatapathAnswer model, unit;
  std::string field;  // what differed first: "rule", "status", "target_va", "line0" ...
};

// Runs `model` (whose answer the run uses and whose timing stands) and `unit` on the same
// inputs and compares every output the op defines. On the first divergence calls `diverged`
// (once); after it only the model is asked.
class LockstepDatapath final : public ProtectionDatapath {
 public:
  using DivergedFn = std::function<void(const DatapathDivergence&)>;
  LockstepDatapath(ProtectionDatapath& model, ProtectionDatapath& unit, DivergedFn diverged)
      : model_(model), unit_(unit), diverged_(std::move(diverged)) {}
  Decision decide(DatapathCall& call) override;
  uint32_t last_cycles() const override { return 0; }  // the model's timing stands
  uint64_t compared() const { return compared_; }
  uint64_t divergences() const { return divergences_; }
  // The first divergence (null: none yet).
  const DatapathDivergence* first() const { return first_.get(); }

 private:
  ProtectionDatapath& model_;
  ProtectionDatapath& unit_;
  DivergedFn diverged_;
  uint64_t compared_ = 0;
  uint64_t divergences_ = 0;
  std::unique_ptr<DatapathDivergence> first_;
};

DatapathInputs capture_inputs(const DatapathCall& call);
DatapathAnswer capture_answer(const DatapathCall& call, const Decision& decision,
                              uint32_t cycles);
// The first output the op defines on which `a` and `b` differ ("" when they agree).
std::string first_difference(DatapathOp op, const DatapathAnswer& a, const DatapathAnswer& b);
// One line naming the call, its inputs and both answers with their rules (the lockstep report).
std::string describe(const DatapathDivergence& d);

}  // namespace rnic
