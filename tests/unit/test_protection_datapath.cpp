// SPDX-License-Identifier: Apache-2.0
// The protection checker's decision datapaths (model/rnic/protection/protection_datapath.h),
// without a kernel: the rules datapath answers what the rule functions answer, and lockstep
// compares every output an op defines, keeps the first divergence with its inputs, reports
// it once and leaves the model's answer in force.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "model/rnic/protection/protection_datapath.h"
#include "model/rnic/protection/protection_rules.h"

using namespace rnic;

namespace {

constexpr uint32_t kPd = 3;
constexpr uint32_t kQpn = 8;
constexpr uint32_t kMrIndex = 5;
constexpr uint8_t kTag = 0x21;

MptEntry valid_mr() {
  MptEntry mr;
  mr.state = MptState::Valid;
  mr.kind = MptKind::Mr;
  mr.access = kAccessLocalWrite | kAccessRemoteRead | kAccessRemoteWrite;
  mr.tag = kTag;
  mr.pd = kPd;
  mr.base_va = 0x40000;
  mr.length = 0x2000;
  mr.mtt_index = 77;
  mr.page_shift = 12;
  return mr;
}

ProtectionRequest remote_read(uint64_t va, uint64_t length) {
  ProtectionRequest req;
  req.op = ProtectionOp::RemoteAccess;
  req.token = make_token(kMrIndex, kTag);
  req.pd = kPd;
  req.qpn = kQpn;
  req.va = va;
  req.length = length;
  req.access = kAccessRemoteRead;
  return req;
}

// A unit that decides as the rules do, then spoils one output.
class SpoiledUnit final : public ProtectionDatapath {
 public:
  enum class Spoil { Nothing, Rule, TargetVa, Line0 };
  explicit SpoiledUnit(Spoil spoil) : spoil_(spoil) {}
  Decision decide(DatapathCall& call) override {
    Decision d = rules_.decide(call);
    switch (spoil_) {
      case Spoil::Nothing: break;
      case Spoil::Rule:
        if (d.failed()) d.rule = RuleId::R5_read_resp_pd;
        break;
      case Spoil::TargetVa: call.req->target_va += 1; break;
      case Spoil::Line0: call.entry0->bound_windows += 1; break;
    }
    return d;
  }
  uint32_t last_cycles() const override { return 6; }

 private:
  Spoil spoil_;
  RulesDatapath rules_;
};

}  // namespace

TEST_CASE("the rules datapath answers what the rule functions answer") {
  RulesDatapath rules;
  MptEntry mr = valid_mr();

  ProtectionRequest inside = remote_read(0x40100, 0x100);
  DatapathCall ok{DatapathOp::RemoteAccess, &inside, &mr, nullptr, kMrIndex, 0};
  CHECK(rules.decide(ok) == Decision::ok());
  CHECK(inside.target_va == 0x40100);
  CHECK(inside.region.mtt_index == 77);
  CHECK(inside.region.page_base_va == 0x40000);

  ProtectionRequest past_end = remote_read(0x41f00, 0x101);
  DatapathCall bounds{DatapathOp::RemoteAccess, &past_end, &mr, nullptr, kMrIndex, 0};
  MptEntry copy = mr;
  ProtectionRequest twin = past_end;
  CHECK(rules.decide(bounds) == check_remote_access(copy, nullptr, twin));
  CHECK(rules.decide(bounds).rule == RuleId::R5_read_resp_bounds);
  CHECK(rules.last_cycles() == 0);

  // A fast-register check hands the MR's MTT range on (4 KiB pages, no base).
  MptEntry fast;
  fast.state = MptState::Free;
  fast.kind = MptKind::FastMr;
  fast.pd = kPd;
  fast.page_capacity = 4;
  fast.mtt_index = 300;
  ProtectionRequest fr;
  fr.op = ProtectionOp::FastRegisterCheck;
  fr.pd = kPd;
  fr.page_count = 2;
  fr.va = 0x7000;
  fr.length = 0x2000;
  fr.rights = kAccessLocalWrite;
  DatapathCall check{DatapathOp::FastRegisterCheck, &fr, &fast, nullptr, 9, 0};
  CHECK(rules.decide(check) == Decision::ok(RuleId::R5_fr_success));
  CHECK(fr.region.mtt_index == 300);
  CHECK(fr.region.page_shift == 12);

  // Releasing a window never takes an MR below zero windows.
  MptEntry parent = valid_mr();
  parent.bound_windows = 1;
  ProtectionRequest any;
  DatapathCall release{DatapathOp::ReleaseWindow, &any, &parent, nullptr, kMrIndex, 0};
  rules.decide(release);
  CHECK(parent.bound_windows == 0);
  rules.decide(release);
  CHECK(parent.bound_windows == 0);
}

TEST_CASE("lockstep agrees with an equal unit and keeps the model's answer") {
  RulesDatapath model;
  SpoiledUnit unit(SpoiledUnit::Spoil::Nothing);
  int reported = 0;
  LockstepDatapath lockstep(model, unit, [&](const DatapathDivergence&) { ++reported; });
  MptEntry mr = valid_mr();
  for (uint64_t va : {0x40000ull, 0x41fffull, 0x42000ull, 0x3ffffull}) {
    ProtectionRequest req = remote_read(va, 1);
    DatapathCall call{DatapathOp::RemoteAccess, &req, &mr, nullptr, kMrIndex, 0};
    lockstep.decide(call);
  }
  CHECK(lockstep.compared() == 4);
  CHECK(lockstep.divergences() == 0);
  CHECK(lockstep.first() == nullptr);
  CHECK(reported == 0);
  CHECK(lockstep.last_cycles() == 0);  // the model's timing stands
}

TEST_CASE(
    "lockstep reports the first divergence once, naming the field and the inputs, then asks "
    "only the model") {
  const auto spoil = GENERATE(SpoiledUnit::Spoil::Rule, SpoiledUnit::Spoil::TargetVa);
  RulesDatapath model;
  SpoiledUnit unit(spoil);
  int reported = 0;
  std::string seen;
  LockstepDatapath lockstep(model, unit, [&](const DatapathDivergence& d) {
    ++reported;
    seen = describe(d);
  });
  MptEntry mr = valid_mr();
  // Rule spoiling shows on a refusal only; target VA spoiling on a success only.
  const bool refusal = spoil == SpoiledUnit::Spoil::Rule;
  ProtectionRequest agreeing = remote_read(refusal ? 0x40000 : 0x50000, 4);
  DatapathCall first{DatapathOp::RemoteAccess, &agreeing, &mr, nullptr, kMrIndex, 0};
  lockstep.decide(first);
  CHECK(lockstep.divergences() == 0);

  ProtectionRequest req = remote_read(refusal ? 0x50000 : 0x40010, 4);
  DatapathCall call{DatapathOp::RemoteAccess, &req, &mr, nullptr, kMrIndex, 0};
  const Decision answer = lockstep.decide(call);
  lockstep.decide(call);  // after the first divergence the unit is asked no more
  CHECK(lockstep.compared() == 2);
  CHECK(lockstep.divergences() == 1);
  CHECK(reported == 1);
  REQUIRE(lockstep.first() != nullptr);
  const DatapathDivergence& d = *lockstep.first();
  CHECK(d.ordinal == 2);
  CHECK(d.inputs.op == DatapathOp::RemoteAccess);
  CHECK(d.inputs.req.va == req.va);
  CHECK(MptEntry::decode(d.inputs.line0.data()).mtt_index == 77);
  CHECK(d.unit.cycles == 6);
  if (refusal) {
    CHECK(answer.rule == RuleId::R5_read_resp_bounds);  // the model's answer stands
    CHECK(d.field == "rule");
    CHECK(seen.find("model RemoteAccess rule R5.read.resp.bounds") != std::string::npos);
    CHECK(seen.find("unit RemoteAccess rule R5.read.resp.pd") != std::string::npos);
  } else {
    CHECK(req.target_va == 0x40010);
    CHECK(d.field == "target_va");
    CHECK(seen.find("target_va 0x40011") != std::string::npos);
  }
  CHECK(seen.find("check 2 (remote_access") != std::string::npos);
  CHECK(seen.find("va 0x") != std::string::npos);
}

TEST_CASE("lockstep compares the entries a unit writes back, and the unit works on copies") {
  RulesDatapath model;
  SpoiledUnit unit(SpoiledUnit::Spoil::Line0);
  LockstepDatapath lockstep(model, unit, nullptr);
  MptEntry mr = valid_mr();
  mr.bound_windows = 2;
  ProtectionRequest req;
  DatapathCall call{DatapathOp::ReleaseWindow, &req, &mr, nullptr, kMrIndex, 0};
  CHECK(lockstep.decide(call) == Decision::ok());
  CHECK(mr.bound_windows == 1);  // the model's update, not the unit's
  REQUIRE(lockstep.first() != nullptr);
  CHECK(lockstep.first()->field == "line0");
  CHECK(MptEntry::decode(lockstep.first()->unit.line0.data()).bound_windows == 2);
  CHECK(MptEntry::decode(lockstep.first()->model.line0.data()).bound_windows == 1);
}
