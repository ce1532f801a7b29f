// SPDX-License-Identifier: Apache-2.0
// The key, window and region rules of docs/behaviour.md (R5.*) as plain functions: every check of
// the local SGE check, the responder check and Bind, one violation at a time.
#include <catch2/catch.hpp>

#include <cstdint>

#include "model/rnic/protection/protection_rules.h"

using namespace rnic;

namespace {

constexpr uint32_t kPd = 7;
constexpr uint32_t kQpn = 12;
constexpr uint32_t kMrIndex = 3;
constexpr uint32_t kMwIndex = 9;
constexpr uint8_t kMrTag = 0x5A;
constexpr uint64_t kBase = 0x10000;
constexpr uint64_t kLength = 0x4000;

MptEntry valid_mr() {
  MptEntry mr;
  mr.state = MptState::Valid;
  mr.kind = MptKind::Mr;
  mr.access = kAccessLocalWrite | kAccessRemoteRead | kAccessReadSink;
  mr.tag = kMrTag;
  mr.pd = kPd;
  mr.base_va = kBase + 0x234;  // not page aligned: region_of rounds down
  mr.length = kLength;
  mr.mtt_index = 100;
  mr.page_shift = 12;
  return mr;
}

ProtectionRequest local_request(uint64_t va, uint64_t length, uint16_t access) {
  ProtectionRequest req;
  req.op = ProtectionOp::LocalAccess;
  req.token = make_token(kMrIndex, kMrTag);
  req.pd = kPd;
  req.qpn = kQpn;
  req.va = va;
  req.length = length;
  req.access = access;
  return req;
}

// A VALID window over [kBase + 0x1000, +0x2000) of valid_mr(), bound to kQpn.
MptEntry bound_window(uint8_t tag, uint16_t rights, uint8_t zero_based = 0) {
  MptEntry mw;
  mw.state = MptState::Valid;
  mw.kind = MptKind::Mw;
  mw.tag = tag;
  mw.pd = kPd;
  mw.base_va = kBase + 0x1000;
  mw.length = 0x2000;
  mw.access = rights;
  mw.bound_qpn = kQpn;
  mw.parent_index = kMrIndex;
  mw.zero_based = zero_based;
  return mw;
}

ProtectionRequest remote_request(uint32_t token, uint64_t va, uint64_t length, uint16_t access) {
  ProtectionRequest req;
  req.op = ProtectionOp::RemoteAccess;
  req.token = token;
  req.pd = kPd;
  req.qpn = kQpn;
  req.va = va;
  req.length = length;
  req.access = access;
  return req;
}

}  // namespace

TEST_CASE("range_inside is overflow safe", "[unit][protection]") {
  CHECK(range_inside(0x1000, 0x100, 0x1000, 0x100));
  CHECK(range_inside(0x10ff, 1, 0x1000, 0x100));
  CHECK_FALSE(range_inside(0x10ff, 2, 0x1000, 0x100));
  CHECK_FALSE(range_inside(0xfff, 1, 0x1000, 0x100));
  CHECK_FALSE(range_inside(0x1001, UINT64_MAX, 0x1000, 0x100));  // va + length wraps
  CHECK_FALSE(range_inside(UINT64_MAX, 2, 0x1000, UINT64_MAX - 0x1000));
  CHECK(range_inside(0x1100, 0, 0x1000, 0x100));  // empty access at the end
}

TEST_CASE("local access: success fills region and target VA", "[unit][protection]") {
  const MptEntry mr = valid_mr();
  ProtectionRequest req = local_request(mr.base_va + 0x100, 0x200, kAccessLocalWrite);
  REQUIRE(check_local_access(mr, req) == CqeStatus::Success);
  CHECK(req.region.mtt_index == 100);
  CHECK(req.region.page_shift == 12);
  CHECK(req.region.page_base_va == kBase);  // base VA rounded down to its page
  CHECK(req.target_va == mr.base_va + 0x100);
  // The whole region, exactly.
  ProtectionRequest all = local_request(mr.base_va, kLength, kAccessLocalWrite | kAccessReadSink);
  CHECK(check_local_access(mr, all) == CqeStatus::Success);
}

TEST_CASE("local access: each violation is a local protection error", "[unit][protection]") {
  const MptEntry mr = valid_mr();
  const uint64_t va = mr.base_va + 0x100;

  SECTION("unused entry") {
    MptEntry none;
    ProtectionRequest req = local_request(va, 0x10, 0);
    CHECK(check_local_access(none, req) == CqeStatus::LocalProtection);
  }
  SECTION("a window is never a local key") {
    MptEntry mw = bound_window(kMrTag, kAccessRemoteRead);
    ProtectionRequest req = local_request(mw.base_va, 0x10, 0);
    CHECK(check_local_access(mw, req) == CqeStatus::LocalProtection);
  }
  SECTION("stale tag") {
    ProtectionRequest req = local_request(va, 0x10, 0);
    req.token = make_token(kMrIndex, kMrTag + 1);
    CHECK(check_local_access(mr, req) == CqeStatus::LocalProtection);
  }
  SECTION("FREE region") {
    MptEntry free_mr = mr;
    free_mr.state = MptState::Free;
    ProtectionRequest req = local_request(va, 0x10, 0);
    CHECK(check_local_access(free_mr, req) == CqeStatus::LocalProtection);
  }
  SECTION("PD mismatch") {
    ProtectionRequest req = local_request(va, 0x10, 0);
    req.pd = kPd + 1;
    CHECK(check_local_access(mr, req) == CqeStatus::LocalProtection);
  }
  SECTION("missing rights") {
    MptEntry read_only = mr;
    read_only.access = kAccessRemoteRead;
    ProtectionRequest req = local_request(va, 0x10, kAccessLocalWrite);
    CHECK(check_local_access(read_only, req) == CqeStatus::LocalProtection);
    ProtectionRequest sink = local_request(va, 0x10, kAccessLocalWrite | kAccessRemoteWrite);
    CHECK(check_local_access(mr, sink) == CqeStatus::LocalProtection);
  }
  SECTION("range past the end, before the start, and overflowing") {
    ProtectionRequest past = local_request(mr.base_va + kLength - 0x10, 0x11, 0);
    CHECK(check_local_access(mr, past) == CqeStatus::LocalProtection);
    ProtectionRequest before = local_request(mr.base_va - 1, 0x10, 0);
    CHECK(check_local_access(mr, before) == CqeStatus::LocalProtection);
    ProtectionRequest huge = local_request(va, UINT64_MAX, 0);
    CHECK(check_local_access(mr, huge) == CqeStatus::LocalProtection);
    ProtectionRequest wrap = local_request(UINT64_MAX - 0x10, 0x20, 0);
    CHECK(check_local_access(mr, wrap) == CqeStatus::LocalProtection);
  }
}

TEST_CASE("remote access to an MR: success and each violation", "[unit][protection]") {
  const MptEntry mr = valid_mr();
  const uint32_t token = make_token(kMrIndex, kMrTag);
  const uint64_t va = mr.base_va + 0x800;

  ProtectionRequest ok = remote_request(token, va, 0x400, kAccessRemoteRead);
  REQUIRE(check_remote_access(mr, nullptr, ok) == CqeStatus::Success);
  CHECK(ok.target_va == va);
  CHECK(ok.region.mtt_index == 100);
  CHECK(ok.region.page_base_va == kBase);

  SECTION("unused object") {
    MptEntry unused = mr;
    unused.state = MptState::Unused;
    ProtectionRequest req = remote_request(token, va, 0x10, kAccessRemoteRead);
    CHECK(check_remote_access(unused, nullptr, req) == CqeStatus::RemoteAccess);
    MptEntry none;
    CHECK(check_remote_access(none, nullptr, req) == CqeStatus::RemoteAccess);
  }
  SECTION("stale tag") {
    ProtectionRequest req = remote_request(token ^ 0x1, va, 0x10, kAccessRemoteRead);
    CHECK(check_remote_access(mr, nullptr, req) == CqeStatus::RemoteAccess);
  }
  SECTION("FREE object") {
    MptEntry free_mr = mr;
    free_mr.state = MptState::Free;
    ProtectionRequest req = remote_request(token, va, 0x10, kAccessRemoteRead);
    CHECK(check_remote_access(free_mr, nullptr, req) == CqeStatus::RemoteAccess);
  }
  SECTION("PD mismatch") {
    ProtectionRequest req = remote_request(token, va, 0x10, kAccessRemoteRead);
    req.pd = kPd + 1;
    CHECK(check_remote_access(mr, nullptr, req) == CqeStatus::RemoteAccess);
  }
  SECTION("missing remote right") {
    ProtectionRequest req = remote_request(token, va, 0x10, kAccessRemoteWrite);
    CHECK(check_remote_access(mr, nullptr, req) == CqeStatus::RemoteAccess);
  }
  SECTION("range past the end, with an overflow-safe huge length") {
    ProtectionRequest past = remote_request(token, mr.base_va + kLength - 8, 9, kAccessRemoteRead);
    CHECK(check_remote_access(mr, nullptr, past) == CqeStatus::RemoteAccess);
    ProtectionRequest huge = remote_request(token, va, UINT64_MAX - va + 1, kAccessRemoteRead);
    CHECK(check_remote_access(mr, nullptr, huge) == CqeStatus::RemoteAccess);
    ProtectionRequest max = remote_request(token, va, UINT64_MAX, kAccessRemoteRead);
    CHECK(check_remote_access(mr, nullptr, max) == CqeStatus::RemoteAccess);
  }
}

TEST_CASE("remote access through a window: window rights, QP binding, parent region",
          "[unit][protection]") {
  MptEntry parent = valid_mr();
  parent.access = kAccessLocalWrite;  // no remote rights: the window's own rights govern
  const uint8_t tag = 0x21;
  const MptEntry mw = bound_window(tag, kAccessRemoteRead);
  const uint32_t token = make_token(kMwIndex, tag);

  ProtectionRequest ok = remote_request(token, mw.base_va + 0x10, 0x100, kAccessRemoteRead);
  REQUIRE(check_remote_access(mw, &parent, ok) == CqeStatus::Success);
  CHECK(ok.target_va == mw.base_va + 0x10);
  CHECK(ok.region.mtt_index == parent.mtt_index);  // translated through the parent MR
  CHECK(ok.region.page_base_va == kBase);

  SECTION("bound to another QP") {
    ProtectionRequest req = remote_request(token, mw.base_va, 0x10, kAccessRemoteRead);
    req.qpn = kQpn + 1;
    CHECK(check_remote_access(mw, &parent, req) == CqeStatus::RemoteAccess);
  }
  SECTION("window lacks the right even though asked inside the MR") {
    ProtectionRequest req = remote_request(token, mw.base_va, 0x10, kAccessRemoteWrite);
    CHECK(check_remote_access(mw, &parent, req) == CqeStatus::RemoteAccess);
  }
  SECTION("inside the MR but outside the window") {
    ProtectionRequest req = remote_request(token, mw.base_va + 0x2000 - 4, 8, kAccessRemoteRead);
    CHECK(check_remote_access(mw, &parent, req) == CqeStatus::RemoteAccess);
    ProtectionRequest below = remote_request(token, mw.base_va - 4, 4, kAccessRemoteRead);
    CHECK(check_remote_access(mw, &parent, below) == CqeStatus::RemoteAccess);
  }
  SECTION("missing or FREE parent") {
    ProtectionRequest req = remote_request(token, mw.base_va, 0x10, kAccessRemoteRead);
    CHECK(check_remote_access(mw, nullptr, req) == CqeStatus::RemoteAccess);
    MptEntry free_parent = parent;
    free_parent.state = MptState::Free;
    CHECK(check_remote_access(mw, &free_parent, req) == CqeStatus::RemoteAccess);
  }
  SECTION("FREE (invalidated) window with the old token") {
    MptEntry freed = mw;
    freed.state = MptState::Free;
    ProtectionRequest req = remote_request(token, mw.base_va, 0x10, kAccessRemoteRead);
    CHECK(check_remote_access(freed, &parent, req) == CqeStatus::RemoteAccess);
  }
}

TEST_CASE("remote access through a zero-based window uses offsets", "[unit][protection]") {
  const MptEntry parent = valid_mr();
  const MptEntry mw = bound_window(0x44, kAccessRemoteRead | kAccessRemoteWrite, 1);
  const uint32_t token = make_token(kMwIndex, 0x44);

  ProtectionRequest ok = remote_request(token, 0x10, 0x100, kAccessRemoteWrite);
  REQUIRE(check_remote_access(mw, &parent, ok) == CqeStatus::Success);
  CHECK(ok.target_va == mw.base_va + 0x10);

  ProtectionRequest whole = remote_request(token, 0, 0x2000, kAccessRemoteRead);
  CHECK(check_remote_access(mw, &parent, whole) == CqeStatus::Success);
  CHECK(whole.target_va == mw.base_va);

  // An absolute VA is an offset far past the window end.
  ProtectionRequest absolute = remote_request(token, mw.base_va, 0x10, kAccessRemoteRead);
  CHECK(check_remote_access(mw, &parent, absolute) == CqeStatus::RemoteAccess);
  ProtectionRequest past = remote_request(token, 0x1ff8, 9, kAccessRemoteRead);
  CHECK(check_remote_access(mw, &parent, past) == CqeStatus::RemoteAccess);
  // Offset + base would wrap around 2^64.
  ProtectionRequest wrap = remote_request(token, UINT64_MAX - 0x10, 1, kAccessRemoteRead);
  CHECK(check_remote_access(mw, &parent, wrap) == CqeStatus::RemoteAccess);
}

namespace {

struct BindCase {
  MptEntry mw;
  MptEntry mr = valid_mr();
  ProtectionRequest req;

  BindCase() {
    mw.state = MptState::Free;
    mw.kind = MptKind::Mw;
    mw.pd = kPd;
    mw.tag = 0x32;
    mr.base_va = kBase;
    req.op = ProtectionOp::Bind;
    req.token = make_token(kMwIndex, 0x33);
    req.mr_token = make_token(kMrIndex, kMrTag);
    req.pd = kPd;
    req.qpn = kQpn;
    req.va = kBase + 0x1000;
    req.length = 0x1000;
    req.rights = kAccessRemoteRead | kAccessRemoteWrite;
  }
  CqeStatus bind() { return apply_bind(kMwIndex, mw, kMrIndex, mr, req); }
};

}  // namespace

TEST_CASE("bind: success makes the window VALID with the requested tag", "[unit][protection]") {
  BindCase c;
  c.req.zero_based = 1;
  REQUIRE(c.bind() == CqeStatus::Success);
  CHECK(c.mw.state == MptState::Valid);
  CHECK(c.mw.tag == 0x33);  // from req.token, not the old tag + 1
  CHECK(c.mw.base_va == kBase + 0x1000);
  CHECK(c.mw.length == 0x1000);
  CHECK(c.mw.access == (kAccessRemoteRead | kAccessRemoteWrite));
  CHECK(c.mw.bound_qpn == kQpn);
  CHECK(c.mw.parent_index == kMrIndex);
  CHECK(c.mw.zero_based == 1);
  CHECK(c.mr.bound_windows == 1);
  CHECK(c.req.new_token == make_token(kMwIndex, 0x33));

  // A bind covering the whole MR is inside it.
  BindCase whole;
  whole.req.va = kBase;
  whole.req.length = kLength;
  whole.req.rights = kAccessRemoteRead;
  CHECK(whole.bind() == CqeStatus::Success);
}

TEST_CASE("bind: each violation fails and leaves both entries untouched", "[unit][protection]") {
  BindCase c;
  SECTION("rebind of a VALID window") {
    c.mw.state = MptState::Valid;
  }
  SECTION("the window index names an MR") {
    c.mw.kind = MptKind::Mr;
  }
  SECTION("MR FREE") {
    c.mr.state = MptState::Free;
  }
  SECTION("stale MR token") {
    c.req.mr_token = make_token(kMrIndex, kMrTag + 1);
  }
  SECTION("the MR token names a window") {
    c.mr.kind = MptKind::Mw;
  }
  SECTION("window in another PD") {
    c.mw.pd = kPd + 1;
  }
  SECTION("MR in another PD") {
    c.mr.pd = kPd + 1;
  }
  SECTION("QP in another PD") {
    c.req.pd = kPd + 1;
  }
  SECTION("VA 0, even inside an MR based at 0") {
    c.mr.base_va = 0;
    c.req.va = 0;
  }
  SECTION("range past the MR end") {
    c.req.va = kBase + kLength - 0x800;
  }
  SECTION("range before the MR start") {
    c.req.va = kBase - 0x10;
  }
  SECTION("huge length") {
    c.req.length = UINT64_MAX;
  }
  SECTION("no remote right") {
    c.req.rights = kAccessLocalWrite;
  }
  SECTION("remote write on an MR without local write") {
    c.mr.access = kAccessRemoteRead;
    c.req.rights = kAccessRemoteWrite;
  }
  const MptEntry mw_before = c.mw;
  const MptEntry mr_before = c.mr;
  CHECK(c.bind() == CqeStatus::MwBind);
  CHECK(c.mw.state == mw_before.state);
  CHECK(c.mw.tag == mw_before.tag);
  CHECK(c.mr.bound_windows == mr_before.bound_windows);
  CHECK(c.req.new_token == 0);
}

TEST_CASE("bind: remote read only on an MR without local write succeeds", "[unit][protection]") {
  BindCase c;
  c.mr.access = kAccessRemoteRead;
  c.req.rights = kAccessRemoteRead;
  CHECK(c.bind() == CqeStatus::Success);
}

TEST_CASE("fast-register and invalidate rules", "[unit][protection]") {
  MptEntry fmr;
  fmr.state = MptState::Free;
  fmr.kind = MptKind::FastMr;
  fmr.pd = kPd;
  fmr.page_capacity = 4;
  fmr.mtt_index = 200;
  fmr.access = kAccessRemoteAllowed;
  ProtectionRequest req;
  req.token = make_token(5, 0x10);
  req.pd = kPd;
  req.qpn = kQpn;
  req.va = 0x7000 + 0x80;
  req.fbo = 0x80;
  req.page_count = 2;
  req.length = 2 * 4096 - 0x80;
  req.rights = kAccessLocalWrite | kAccessRemoteWrite;

  REQUIRE(check_fast_register(fmr, req, 4096) == CqeStatus::Success);
  {
    ProtectionRequest r = req;
    r.length += 1;  // Length <= pageCount * PAGE_SIZE - FBO
    CHECK(check_fast_register(fmr, r, 4096) == CqeStatus::LocalProtection);
    r = req;
    r.va += 1;  // BaseVA % PAGE_SIZE == FBO
    CHECK(check_fast_register(fmr, r, 4096) == CqeStatus::LocalProtection);
    r = req;
    r.page_count = 5;  // above the MR's capacity
    CHECK(check_fast_register(fmr, r, 4096) == CqeStatus::LocalProtection);
    MptEntry normal = fmr;
    normal.kind = MptKind::Mr;
    CHECK(check_fast_register(normal, req, 4096) == CqeStatus::LocalProtection);
    MptEntry valid = fmr;
    valid.state = MptState::Valid;
    CHECK(check_fast_register(valid, req, 4096) == CqeStatus::LocalProtection);
    MptEntry local_only = fmr;
    local_only.access = 0;  // initialised without remote access
    CHECK(check_fast_register(local_only, req, 4096) == CqeStatus::LocalProtection);
  }
  apply_fast_register(fmr, req);
  CHECK(fmr.state == MptState::Valid);
  CHECK(fmr.tag == 0x10);
  CHECK(fmr.base_va == req.va);
  CHECK(fmr.length == req.length);
  CHECK(fmr.access == (kAccessRemoteAllowed | kAccessLocalWrite | kAccessRemoteWrite));

  ProtectionRequest inv;
  inv.token = make_token(5, 0x0f);  // stale
  inv.pd = kPd;
  inv.qpn = kQpn;
  CHECK(apply_invalidate(fmr, inv) == CqeStatus::LocalProtection);
  inv.token = make_token(5, 0x10);
  fmr.bound_windows = 1;  // an MR with bound windows cannot be invalidated
  CHECK(apply_invalidate(fmr, inv) == CqeStatus::LocalProtection);
  fmr.bound_windows = 0;
  CHECK(apply_invalidate(fmr, inv) == CqeStatus::Success);
  CHECK(fmr.state == MptState::Free);
  CHECK(apply_invalidate(fmr, inv) == CqeStatus::LocalProtection);  // already FREE

  MptEntry normal = valid_mr();
  ProtectionRequest inv_normal;
  inv_normal.token = make_token(kMrIndex, kMrTag);
  inv_normal.pd = kPd;
  CHECK(apply_invalidate(normal, inv_normal) == CqeStatus::LocalProtection);
  CHECK(normal.state == MptState::Valid);

  MptEntry mw = bound_window(0x21, kAccessRemoteRead);
  ProtectionRequest inv_mw;
  inv_mw.token = make_token(kMwIndex, 0x21);
  inv_mw.pd = kPd;
  inv_mw.qpn = kQpn + 1;  // not the QP it is bound to
  CHECK(apply_invalidate(mw, inv_mw) == CqeStatus::LocalProtection);
  inv_mw.qpn = kQpn;
  CHECK(apply_invalidate(mw, inv_mw) == CqeStatus::Success);
}

TEST_CASE("NDK op flags map to MPT access bits", "[unit][protection]") {
  CHECK(access_from_op_flags(0x008) == kAccessRemoteRead);
  CHECK(access_from_op_flags(0x010) == kAccessLocalWrite);
  // ALLOW_REMOTE_WRITE (0x030) contains LOCAL_WRITE.
  CHECK(access_from_op_flags(0x030) == (kAccessLocalWrite | kAccessRemoteWrite));
  CHECK(access_from_op_flags(0x080) == kAccessReadSink);
  CHECK(access_from_op_flags(0x001 | 0x002 | 0x040) == 0);
}
