// SPDX-License-Identifier: Apache-2.0
// The key, window and region rules of docs/behaviour.md (R5.*) as plain functions: every check of
// the local SGE checks, the responders' checks, Bind, FastRegister and Invalidate, one violation
// at a time with the rule it names, and for every ordered pair of checks of a list the proof that
// the earlier one decides when both fail (the order is normative).
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <set>
#include <utility>
#include <vector>

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

ProtectionRequest local_request(uint64_t va, uint64_t length, uint16_t access,
                                CheckList checks = CheckList::ReadSink) {
  ProtectionRequest req;
  req.op = ProtectionOp::LocalAccess;
  req.token = make_token(kMrIndex, kMrTag);
  req.pd = kPd;
  req.qpn = kQpn;
  req.va = va;
  req.length = length;
  req.access = access;
  req.checks = checks;
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

// One check list as data: a case every check passes, and for each check a change that makes
// it fail (and none before it). `decide` runs the rule function on a case.
template <typename Case>
struct Ordered {
  CheckList list;
  std::function<Case()> passing;
  std::vector<std::function<void(Case&)>> breakers;  // one per check, in the list's order
  std::function<Decision(Case&)> decide;
  // Pairs of checks (earlier, later) no case can fail at once, with the reason in a comment
  // where they are listed.
  std::set<std::pair<size_t, size_t>> exclusive;

  // Every check alone names its rule; for every ordered pair both broken, the earlier decides.
  // The rule function decides the list's first `breakers.size()` checks (the rest are another
  // unit's: a fast-register's page list is the MTT's).
  void prove() const {
    const std::vector<RuleId> rules(checks_of(list).begin(),
                                    checks_of(list).begin() + breakers.size());
    REQUIRE(breakers.size() <= checks_of(list).size());
    Case ok = passing();
    REQUIRE_FALSE(decide(ok).failed());
    for (size_t i = 0; i < rules.size(); ++i) {
      Case c = passing();
      breakers[i](c);
      INFO(check_list_name(list) << ": check " << i << " alone");
      const Decision d = decide(c);
      CHECK(d.failed());
      CHECK(rule_name(d.rule) == std::string(rule_name(rules[i])));
    }
    size_t pairs = 0;
    for (size_t i = 0; i < rules.size(); ++i) {
      for (size_t j = i + 1; j < rules.size(); ++j) {
        if (exclusive.count({i, j})) continue;
        Case c = passing();
        breakers[j](c);
        breakers[i](c);  // applied last: where both change one field, the earlier check's wins
        INFO(check_list_name(list) << ": checks " << rule_name(rules[i]) << " and "
                                   << rule_name(rules[j]) << " both fail");
        CHECK(rule_name(decide(c).rule) == std::string(rule_name(rules[i])));
        ++pairs;
      }
    }
    CHECK(pairs + exclusive.size() == rules.size() * (rules.size() - 1) / 2);
  }
};

struct LocalCase {
  MptEntry entry = valid_mr();
  ProtectionRequest req;
};

struct RemoteCase {
  MptEntry entry;
  MptEntry parent = valid_mr();
  ProtectionRequest req;
};

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
  Decision bind() { return apply_bind(kMwIndex, mw, kMrIndex, mr, req); }
};

struct FastRegisterCase {
  MptEntry fmr;
  ProtectionRequest req;

  FastRegisterCase() {
    fmr.state = MptState::Free;
    fmr.kind = MptKind::FastMr;
    fmr.pd = kPd;
    fmr.page_capacity = 4;
    fmr.mtt_index = 200;
    fmr.access = kAccessRemoteAllowed;
    req.token = make_token(5, 0x10);
    req.pd = kPd;
    req.qpn = kQpn;
    req.va = 0x7000 + 0x80;
    req.fbo = 0x80;
    req.page_count = 2;
    req.length = 2 * 4096 - 0x80;
    req.rights = kAccessLocalWrite | kAccessRemoteWrite;
  }
};

struct InvalidateCase {
  MptEntry object;
  ProtectionRequest req;

  InvalidateCase() {
    object.state = MptState::Valid;
    object.kind = MptKind::FastMr;
    object.tag = 0x10;
    object.pd = kPd;
    req.token = make_token(5, 0x10);
    req.pd = kPd;
    req.qpn = kQpn;
  }
};

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
  REQUIRE(check_local_access(mr, req) == Decision::ok());
  CHECK(req.region.mtt_index == 100);
  CHECK(req.region.page_shift == 12);
  CHECK(req.region.page_base_va == kBase);  // base VA rounded down to its page
  CHECK(req.target_va == mr.base_va + 0x100);
  // The whole region, exactly.
  ProtectionRequest all = local_request(mr.base_va, kLength, kAccessLocalWrite | kAccessReadSink);
  CHECK(check_local_access(mr, all) == Decision::ok());
}

TEST_CASE("local access: each violation names its rule", "[unit][protection]") {
  const MptEntry mr = valid_mr();
  const uint64_t va = mr.base_va + 0x100;
  const Decision valid = Decision::fail(CqeStatus::LocalProtection, RuleId::R5_read_sink_valid);

  SECTION("a read's sink: the object is no VALID MR") {
    MptEntry none;
    ProtectionRequest req = local_request(va, 0x10, kAccessLocalWrite);
    CHECK(check_local_access(none, req) == valid);
    MptEntry mw = bound_window(kMrTag, kAccessRemoteRead);  // a window is never a local key
    ProtectionRequest at_mw = local_request(mw.base_va, 0x10, kAccessLocalWrite);
    CHECK(check_local_access(mw, at_mw) == valid);
    req.token = make_token(kMrIndex, kMrTag + 1);  // a stale tag names no valid registration
    CHECK(check_local_access(mr, req) == valid);
    MptEntry free_mr = mr;
    free_mr.state = MptState::Free;
    ProtectionRequest on_free = local_request(va, 0x10, kAccessLocalWrite);
    CHECK(check_local_access(free_mr, on_free) == valid);
  }
  SECTION("a read's sink: range past the end, before the start, and overflowing") {
    const Decision bounds =
        Decision::fail(CqeStatus::LocalProtection, RuleId::R5_read_sink_bounds);
    ProtectionRequest past = local_request(mr.base_va + kLength - 0x10, 0x11, kAccessLocalWrite);
    CHECK(check_local_access(mr, past) == bounds);
    ProtectionRequest before = local_request(mr.base_va - 1, 0x10, kAccessLocalWrite);
    CHECK(check_local_access(mr, before) == bounds);
    ProtectionRequest huge = local_request(va, UINT64_MAX, kAccessLocalWrite);
    CHECK(check_local_access(mr, huge) == bounds);
    ProtectionRequest wrap = local_request(UINT64_MAX - 0x10, 0x20, kAccessLocalWrite);
    CHECK(check_local_access(mr, wrap) == bounds);
  }
  SECTION("a source or receive SGE: one rule for every check") {
    for (const auto& [checks, id] : {std::pair{CheckList::Source, RuleId::R5_write_source},
                                     std::pair{CheckList::ReceiveSge, RuleId::R5_recv_key}}) {
      const Decision d = Decision::fail(CqeStatus::LocalProtection, id);
      ProtectionRequest other_pd = local_request(va, 0x10, 0, checks);
      other_pd.pd = kPd + 1;
      CHECK(check_local_access(mr, other_pd) == d);
      ProtectionRequest past = local_request(mr.base_va + kLength, 1, 0, checks);
      CHECK(check_local_access(mr, past) == d);
      MptEntry read_only = mr;
      read_only.access = kAccessRemoteRead;
      ProtectionRequest write = local_request(va, 0x10, kAccessLocalWrite, checks);
      CHECK(check_local_access(read_only, write) == d);
    }
  }
}

TEST_CASE("local access: the earlier check decides, for every pair (R5.read.sink.*)",
          "[unit][protection]") {
  Ordered<LocalCase> sink;
  sink.list = CheckList::ReadSink;
  sink.passing = [] {
    LocalCase c;
    c.req = local_request(c.entry.base_va + 0x100, 0x10, kAccessLocalWrite | kAccessReadSink);
    return c;
  };
  sink.breakers = {
      [](LocalCase& c) { c.entry.state = MptState::Free; },
      [](LocalCase& c) { c.req.pd = kPd + 1; },
      [](LocalCase& c) { c.entry.access &= uint16_t(~kAccessLocalWrite); },
      [](LocalCase& c) { c.req.va = c.entry.base_va + kLength; },
      [](LocalCase& c) { c.entry.access &= uint16_t(~kAccessReadSink); },
  };
  sink.decide = [](LocalCase& c) { return check_local_access(c.entry, c.req); };
  sink.prove();
}

TEST_CASE("remote access to an MR: success and each violation", "[unit][protection]") {
  const MptEntry mr = valid_mr();
  const uint32_t token = make_token(kMrIndex, kMrTag);
  const uint64_t va = mr.base_va + 0x800;
  auto read_fail = [](RuleId id) { return Decision::fail(CqeStatus::RemoteAccess, id); };

  ProtectionRequest ok = remote_request(token, va, 0x400, kAccessRemoteRead);
  REQUIRE(check_remote_access(mr, nullptr, ok) == Decision::ok());
  CHECK(ok.target_va == va);
  CHECK(ok.region.mtt_index == 100);
  CHECK(ok.region.page_base_va == kBase);

  SECTION("unused object") {
    MptEntry unused = mr;
    unused.state = MptState::Unused;
    ProtectionRequest req = remote_request(token, va, 0x10, kAccessRemoteRead);
    CHECK(check_remote_access(unused, nullptr, req) == read_fail(RuleId::R5_read_resp_index));
    MptEntry none;
    CHECK(check_remote_access(none, nullptr, req) == read_fail(RuleId::R5_read_resp_index));
  }
  SECTION("stale tag") {
    ProtectionRequest req = remote_request(token ^ 0x1, va, 0x10, kAccessRemoteRead);
    CHECK(check_remote_access(mr, nullptr, req) == read_fail(RuleId::R5_read_resp_tag));
  }
  SECTION("a write checks the same with remote write, under R5.write.*") {
    ProtectionRequest stale = remote_request(token ^ 0x1, va, 0x10, kAccessRemoteWrite);
    CHECK(check_remote_access(mr, nullptr, stale) == read_fail(RuleId::R5_write_stale));
    ProtectionRequest no_right = remote_request(token, va, 0x10, kAccessRemoteWrite);
    CHECK(check_remote_access(mr, nullptr, no_right) == read_fail(RuleId::R5_write_rights));
  }
  SECTION("range past the end, with an overflow-safe huge length") {
    const Decision bounds = read_fail(RuleId::R5_read_resp_bounds);
    ProtectionRequest past = remote_request(token, mr.base_va + kLength - 8, 9, kAccessRemoteRead);
    CHECK(check_remote_access(mr, nullptr, past) == bounds);
    ProtectionRequest huge = remote_request(token, va, UINT64_MAX - va + 1, kAccessRemoteRead);
    CHECK(check_remote_access(mr, nullptr, huge) == bounds);
    ProtectionRequest max = remote_request(token, va, UINT64_MAX, kAccessRemoteRead);
    CHECK(check_remote_access(mr, nullptr, max) == bounds);
  }
}

TEST_CASE("remote access through a window: window rights, QP binding, parent region",
          "[unit][protection]") {
  MptEntry parent = valid_mr();
  parent.access = kAccessLocalWrite;  // no remote rights: the window's own rights govern
  const uint8_t tag = 0x21;
  const MptEntry mw = bound_window(tag, kAccessRemoteRead);
  const uint32_t token = make_token(kMwIndex, tag);
  auto fail = [](RuleId id) { return Decision::fail(CqeStatus::RemoteAccess, id); };

  ProtectionRequest ok = remote_request(token, mw.base_va + 0x10, 0x100, kAccessRemoteRead);
  REQUIRE(check_remote_access(mw, &parent, ok) == Decision::ok());
  CHECK(ok.target_va == mw.base_va + 0x10);
  CHECK(ok.region.mtt_index == parent.mtt_index);  // translated through the parent MR
  CHECK(ok.region.page_base_va == kBase);

  SECTION("bound to another QP") {
    ProtectionRequest req = remote_request(token, mw.base_va, 0x10, kAccessRemoteRead);
    req.qpn = kQpn + 1;
    CHECK(check_remote_access(mw, &parent, req) == fail(RuleId::R5_read_resp_window_qp));
  }
  SECTION("window lacks the right even though asked inside the MR") {
    ProtectionRequest req = remote_request(token, mw.base_va, 0x10, kAccessRemoteWrite);
    CHECK(check_remote_access(mw, &parent, req) == fail(RuleId::R5_write_rights));
  }
  SECTION("inside the MR but outside the window") {
    ProtectionRequest req = remote_request(token, mw.base_va + 0x2000 - 4, 8, kAccessRemoteRead);
    CHECK(check_remote_access(mw, &parent, req) == fail(RuleId::R5_read_resp_bounds));
    ProtectionRequest below = remote_request(token, mw.base_va - 4, 4, kAccessRemoteRead);
    CHECK(check_remote_access(mw, &parent, below) == fail(RuleId::R5_read_resp_bounds));
  }
  SECTION("missing or FREE parent: the window is not usable") {
    ProtectionRequest req = remote_request(token, mw.base_va, 0x10, kAccessRemoteRead);
    CHECK(check_remote_access(mw, nullptr, req) == fail(RuleId::R5_read_resp_valid));
    MptEntry free_parent = parent;
    free_parent.state = MptState::Free;
    CHECK(check_remote_access(mw, &free_parent, req) == fail(RuleId::R5_read_resp_valid));
  }
  SECTION("FREE (invalidated) window with the old token") {
    MptEntry freed = mw;
    freed.state = MptState::Free;
    ProtectionRequest req = remote_request(token, mw.base_va, 0x10, kAccessRemoteRead);
    CHECK(check_remote_access(freed, &parent, req) == fail(RuleId::R5_read_resp_valid));
  }
}

TEST_CASE("remote access through a zero-based window uses offsets", "[unit][protection]") {
  const MptEntry parent = valid_mr();
  const MptEntry mw = bound_window(0x44, kAccessRemoteRead | kAccessRemoteWrite, 1);
  const uint32_t token = make_token(kMwIndex, 0x44);

  ProtectionRequest ok = remote_request(token, 0x10, 0x100, kAccessRemoteWrite);
  REQUIRE(check_remote_access(mw, &parent, ok) == Decision::ok());
  CHECK(ok.target_va == mw.base_va + 0x10);

  ProtectionRequest whole = remote_request(token, 0, 0x2000, kAccessRemoteRead);
  CHECK(check_remote_access(mw, &parent, whole) == Decision::ok());
  CHECK(whole.target_va == mw.base_va);

  // An absolute VA is an offset far past the window end.
  const Decision bounds = Decision::fail(CqeStatus::RemoteAccess, RuleId::R5_read_resp_bounds);
  ProtectionRequest absolute = remote_request(token, mw.base_va, 0x10, kAccessRemoteRead);
  CHECK(check_remote_access(mw, &parent, absolute) == bounds);
  ProtectionRequest past = remote_request(token, 0x1ff8, 9, kAccessRemoteRead);
  CHECK(check_remote_access(mw, &parent, past) == bounds);
  // Offset + base would wrap around 2^64.
  ProtectionRequest wrap = remote_request(token, UINT64_MAX - 0x10, 1, kAccessRemoteRead);
  CHECK(check_remote_access(mw, &parent, wrap) == bounds);
}

TEST_CASE("remote access: the earlier check decides, for every pair (R5.read.resp.*, "
          "R5.write.*)",
          "[unit][protection]") {
  for (const uint16_t access : {kAccessRemoteRead, kAccessRemoteWrite}) {
    Ordered<RemoteCase> remote;
    remote.list = access == kAccessRemoteRead ? CheckList::RemoteRead : CheckList::RemoteWrite;
    remote.passing = [access] {
      RemoteCase c;
      c.entry = bound_window(0x21, kAccessRemoteRead | kAccessRemoteWrite);
      c.req = remote_request(make_token(kMwIndex, 0x21), c.entry.base_va, 0x10, access);
      return c;
    };
    remote.breakers = {
        [](RemoteCase& c) { c.entry.kind = MptKind::None; },
        [](RemoteCase& c) { c.req.token ^= 0x1; },
        [](RemoteCase& c) { c.entry.state = MptState::Free; },
        [](RemoteCase& c) { c.req.pd = kPd + 1; },
        [](RemoteCase& c) { c.req.qpn = kQpn + 1; },
        [access](RemoteCase& c) { c.entry.access &= uint16_t(~access); },
        [](RemoteCase& c) { c.req.va = c.entry.base_va + c.entry.length; },
    };
    remote.decide = [](RemoteCase& c) { return check_remote_access(c.entry, &c.parent, c.req); };
    remote.prove();
  }
}

TEST_CASE("bind: success makes the window VALID with the requested tag", "[unit][protection]") {
  BindCase c;
  c.req.zero_based = 1;
  REQUIRE(c.bind() == Decision::ok(RuleId::R5_bind_token_on_return));
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
  CHECK_FALSE(whole.bind().failed());
}

TEST_CASE("bind: each violation names its rule and leaves both entries untouched",
          "[unit][protection]") {
  BindCase c;
  RuleId expected = RuleId::None;
  SECTION("rebind of a VALID window") {
    c.mw.state = MptState::Valid;
    expected = RuleId::R5_bind_rebind;
  }
  SECTION("the window index names an MR") {
    c.mw.kind = MptKind::Mr;
    expected = RuleId::R5_bind_rebind;
  }
  SECTION("MR FREE") {
    c.mr.state = MptState::Free;
    expected = RuleId::R5_bind_mr_valid;
  }
  SECTION("stale MR token") {
    c.req.mr_token = make_token(kMrIndex, kMrTag + 1);
    expected = RuleId::R5_bind_mr_valid;
  }
  SECTION("the MR token names a window") {
    c.mr.kind = MptKind::Mw;
    expected = RuleId::R5_bind_mr_valid;
  }
  SECTION("window in another PD") {
    c.mw.pd = kPd + 1;
    expected = RuleId::R5_bind_pd;
  }
  SECTION("MR in another PD") {
    c.mr.pd = kPd + 1;
    expected = RuleId::R5_bind_pd;
  }
  SECTION("QP in another PD") {
    c.req.pd = kPd + 1;
    expected = RuleId::R5_bind_pd;
  }
  SECTION("VA 0, even inside an MR based at 0") {
    c.mr.base_va = 0;
    c.req.va = 0;
    expected = RuleId::R5_bind_va_zero;
  }
  SECTION("range past the MR end") {
    c.req.va = kBase + kLength - 0x800;
    expected = RuleId::R5_bind_range;
  }
  SECTION("range before the MR start") {
    c.req.va = kBase - 0x10;
    expected = RuleId::R5_bind_range;
  }
  SECTION("huge length") {
    c.req.length = UINT64_MAX;
    expected = RuleId::R5_bind_range;
  }
  SECTION("no remote right") {
    c.req.rights = kAccessLocalWrite;
    expected = RuleId::R5_bind_rights_required;
  }
  SECTION("remote write on an MR without local write") {
    c.mr.access = kAccessRemoteRead;
    c.req.rights = kAccessRemoteWrite;
    expected = RuleId::R5_bind_remote_write_local_write;
  }
  const MptEntry mw_before = c.mw;
  const MptEntry mr_before = c.mr;
  CHECK(c.bind() == Decision::fail(CqeStatus::MwBind, expected));
  CHECK(c.mw.state == mw_before.state);
  CHECK(c.mw.tag == mw_before.tag);
  CHECK(c.mr.bound_windows == mr_before.bound_windows);
  CHECK(c.req.new_token == 0);
}

TEST_CASE("bind: remote read only on an MR without local write succeeds", "[unit][protection]") {
  BindCase c;
  c.mr.access = kAccessRemoteRead;
  c.req.rights = kAccessRemoteRead;
  CHECK_FALSE(c.bind().failed());
}

TEST_CASE("bind: the earlier check decides, for every pair (R5.bind.*)", "[unit][protection]") {
  Ordered<BindCase> bind;
  bind.list = CheckList::Bind;
  bind.passing = [] { return BindCase(); };
  bind.breakers = {
      [](BindCase& c) { c.mr.access &= uint16_t(~kAccessLocalWrite); },
      [](BindCase& c) { c.mw.state = MptState::Valid; },
      [](BindCase& c) { c.mr.state = MptState::Free; },
      [](BindCase& c) { c.mw.pd = kPd + 1; },
      [](BindCase& c) { c.req.va = 0; },
      [](BindCase& c) { c.req.length = UINT64_MAX; },
      [](BindCase& c) { c.req.rights = kAccessLocalWrite; },
  };
  // Remote write without local write needs remote write asked; asking no remote right at all
  // is the other check: they cannot both fail.
  bind.exclusive = {{0, 6}};
  bind.decide = [](BindCase& c) { return c.bind(); };
  bind.prove();
}

TEST_CASE("fast register: success, each violation with its rule, and the order of every pair",
          "[unit][protection]") {
  FastRegisterCase ok;
  REQUIRE(check_fast_register(ok.fmr, ok.req, 4096) == Decision::ok(RuleId::R5_fr_success));
  Ordered<FastRegisterCase> fr;
  fr.list = CheckList::FastRegister;
  fr.passing = [] { return FastRegisterCase(); };
  // The last check, page alignment, is the MTT's as it reads the page list
  // (tests/tlm/test_mtt.cpp); here it always passes.
  fr.breakers = {
      [](FastRegisterCase& c) { c.fmr.access = 0; },  // initialised without remote access
      [](FastRegisterCase& c) { c.fmr.kind = MptKind::Mr; },
      [](FastRegisterCase& c) { c.fmr.state = MptState::Valid; },
      [](FastRegisterCase& c) { c.req.pd = kPd + 1; },
      [](FastRegisterCase& c) { c.req.page_count = 5; },  // above the MR's capacity
      [](FastRegisterCase& c) { c.req.va += 1; },         // BaseVA % PAGE_SIZE != FBO
      [](FastRegisterCase& c) { c.req.length += 1; },     // > pageCount * PAGE_SIZE - FBO
      [](FastRegisterCase& c) { c.req.rights = kAccessRemoteWrite; },  // without local write
  };
  // The inline check is about an MR initialised for fast registration: an MR of another kind
  // cannot fail it.
  fr.exclusive = {{0, 1}};
  fr.decide = [](FastRegisterCase& c) { return check_fast_register(c.fmr, c.req, 4096); };
  REQUIRE(checks_of(CheckList::FastRegister).back() == RuleId::R5_fr_page_align);
  fr.prove();
  apply_fast_register(ok.fmr, ok.req);
  CHECK(ok.fmr.state == MptState::Valid);
  CHECK(ok.fmr.tag == 0x10);
  CHECK(ok.fmr.base_va == ok.req.va);
  CHECK(ok.fmr.length == ok.req.length);
  CHECK(ok.fmr.access == (kAccessRemoteAllowed | kAccessLocalWrite | kAccessRemoteWrite));
}

TEST_CASE("invalidate: success, each violation with its rule, and the order of every pair",
          "[unit][protection]") {
  InvalidateCase ok;
  ok.req.by_object = false;  // a SendAndInvalidate's or a read's token: its tag is checked
  REQUIRE(apply_invalidate(ok.object, ok.req) == Decision::ok(RuleId::R5_inv_success));
  CHECK(ok.object.state == MptState::Free);
  // Already FREE: the object must be VALID.
  CHECK(apply_invalidate(ok.object, ok.req) ==
        Decision::fail(CqeStatus::LocalProtection, RuleId::R5_inv_valid));
  // The Invalidate verb names the object: its tag is not checked.
  InvalidateCase by_object;
  by_object.req.by_object = true;
  by_object.req.token = make_token(5, 0x0f);
  CHECK_FALSE(apply_invalidate(by_object.object, by_object.req).failed());
  // A window is invalidated through the QP it is bound to.
  MptEntry mw = bound_window(0x21, kAccessRemoteRead);
  ProtectionRequest inv_mw;
  inv_mw.token = make_token(kMwIndex, 0x21);
  inv_mw.pd = kPd;
  inv_mw.qpn = kQpn + 1;
  CHECK(apply_invalidate(mw, inv_mw) ==
        Decision::fail(CqeStatus::LocalProtection, RuleId::R5_inv_pd_qp));
  inv_mw.qpn = kQpn;
  CHECK_FALSE(apply_invalidate(mw, inv_mw).failed());

  Ordered<InvalidateCase> inv;
  inv.list = CheckList::Invalidate;
  inv.passing = [] { return InvalidateCase(); };
  inv.breakers = {
      [](InvalidateCase& c) { c.object.kind = MptKind::Mr; },  // normally registered
      [](InvalidateCase& c) { c.object.state = MptState::Free; },
      [](InvalidateCase& c) { c.req.token = make_token(5, 0x0f); },
      [](InvalidateCase& c) { c.object.bound_windows = 1; },
      [](InvalidateCase& c) { c.req.pd = kPd + 1; },
  };
  inv.decide = [](InvalidateCase& c) { return apply_invalidate(c.object, c.req); };
  inv.prove();
}

TEST_CASE("the rule table's check lists name rules of the table, each once", "[unit][protection]") {
  std::set<RuleId> seen;
  for (size_t l = 0; l < kCheckListCount; ++l) {
    for (RuleId id : checks_of(CheckList(l))) {
      CHECK(std::string(rule_name(id)).size() > 0);
      RuleId back = RuleId::None;
      CHECK(rule_from_name(rule_name(id), &back));
      CHECK(back == id);
      CHECK(seen.insert(id).second);  // no rule decides in two lists
    }
  }
  CHECK(all_rules().size() > seen.size());
}

TEST_CASE("NDK op flags map to MPT access bits", "[unit][protection]") {
  CHECK(access_from_op_flags(0x008) == kAccessRemoteRead);
  CHECK(access_from_op_flags(0x010) == kAccessLocalWrite);
  // ALLOW_REMOTE_WRITE (0x030) contains LOCAL_WRITE.
  CHECK(access_from_op_flags(0x030) == (kAccessLocalWrite | kAccessRemoteWrite));
  CHECK(access_from_op_flags(0x080) == kAccessReadSink);
  CHECK(access_from_op_flags(0x001 | 0x002 | 0x040) == 0);
}
