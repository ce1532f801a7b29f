// SPDX-License-Identifier: Apache-2.0
// Observing the device's decisions (coverage, and an external implementation asked the same
// question: docs/validation.md): the protection checker and the MTT report every check they
// decide to a sink the platform attaches. Plain C++; with no sink attached a report costs one
// pointer test.
#pragma once

#include <cstdint>

#include "model/rnic/abi/icm.h"
#include "model/rnic/abi/rules.h"
#include "model/rnic/msg/engine_side.h"

namespace rnic {

struct ProtectionRequest;  // model/rnic/msg/messages.h

// One decision: whose checks, what the request was doing, who asked, the outcome and the rule
// that decided it, and the object the token named as the check found it.
struct DecisionRecord {
  uint32_t node = 0;
  EngineSide side = EngineSide::Requester;
  CheckList list = CheckList::ReadSink;
  RequestVerb verb = RequestVerb::Read;
  Decision decision;  // a failure's rule is checks_of(list)[k]: checks 0..k-1 passed
  MptKind kind = MptKind::None;
  MptState state = MptState::Unused;
  // The inputs, for an implementation asked the same question. `request`: the protection
  // request as the unit answered it (inputs as asked; valid during decided() only; null for the
  // MTT's page-list check). `object`: the MPT entry the token named, as the check read it
  // (default, of no kind, when none could be read). `parent`: a window's MR (a remote access
  // through a window, a Bind's MR), when `has_parent`.
  const ProtectionRequest* request = nullptr;
  MptEntry object;
  MptEntry parent;
  bool has_parent = false;
};

struct DecisionSink {
  virtual ~DecisionSink() = default;
  virtual void decided(const DecisionRecord& record) = 0;
};

}  // namespace rnic
