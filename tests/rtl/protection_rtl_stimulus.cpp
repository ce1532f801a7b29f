// SPDX-License-Identifier: Apache-2.0
#include "protection_rtl_stimulus.h"

namespace rnic::rtl_bench {

// ---- The C++ side ------------------------------------------------------------------------

Expected reference(const Stimulus& s, uint16_t tag) {
  Expected x;
  x.tag = tag;
  x.op = s.op;
  x.stim = s;
  MptEntry e0 = MptEntry::decode(s.line0);
  MptEntry e1 = MptEntry::decode(s.line1);
  ProtectionRequest req;
  req.token = s.token;
  req.pd = s.pd;
  req.qpn = s.qpn;
  req.va = s.va;
  req.length = s.len;
  req.access = s.access;
  req.checks = CheckList(s.checks);
  req.mr_token = s.mr_token;
  req.rights = s.rights;
  req.zero_based = s.zero_based;
  req.by_object = s.by_object;
  req.page_count = s.page_count;
  req.fbo = s.fbo;
  switch (s.op) {
    case kLocal:
      x.decision = check_local_access(e0, req);
      x.has_target = x.has_region = !x.decision.failed();
      break;
    case kRemote:
      x.decision = check_remote_access(e0, s.line1_present ? &e1 : nullptr, req);
      x.has_target = x.has_region = !x.decision.failed();
      break;
    case kBind:
      x.decision = apply_bind(s.index0, e0, s.index1, e1, req);
      x.has_token = x.write0 = x.write1 = !x.decision.failed();
      break;
    case kFrCheck:
      x.decision = check_fast_register(e0, req, 4096);
      // As ProtectionChecker::handle: a pass answers the MR's MTT range.
      if (!x.decision.failed()) req.region = Region{e0.mtt_index, 12, 0};
      x.has_region = !x.decision.failed();
      break;
    case kFrCommit:
      apply_fast_register(e0, req);
      x.decision = Decision::ok(RuleId::R5_fr_success);
      x.write0 = true;
      break;
    case kInvalidate:
      x.decision = apply_invalidate(e0, req);
      x.write0 = !x.decision.failed();
      break;
    case kRelease:
      // ProtectionChecker::handle, Invalidate of a window: its parent loses one bound window.
      if (e0.bound_windows > 0) --e0.bound_windows;
      x.decision = Decision::ok();
      x.write0 = true;
      break;
    default:  // handle()'s answer to an op it does not know
      x.decision = Decision::fail(CqeStatus::LocalQpOperation, RuleId::None);
      break;
  }
  x.target_va = req.target_va;
  x.region = req.region;
  x.new_token = req.new_token;
  e0.encode(x.line0);
  e1.encode(x.line1);
  return x;
}

// ---- Random stimulus -----------------------------------------------------------------------

namespace {

std::mt19937_64 rng;
uint64_t r64() { return rng(); }

}  // namespace

uint32_t below(uint32_t n) { return n ? uint32_t(rng() % n) : 0; }
bool chance(unsigned pct) { return below(100) < pct; }

namespace {

uint64_t corner64() {
  switch (below(12)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return UINT64_MAX;
    case 3: return UINT64_MAX - below(4096);
    case 4: return uint64_t(1) << 63;
    case 5: return (uint64_t(1) << 63) - 1;
    case 6: return 0xffffffffu;
    case 7: return uint64_t(below(1 << 16));
    case 8: return uint64_t(below(1 << 20)) << 12;
    case 9: return r64() >> below(64);
    default: return r64();
  }
}
uint32_t corner32() {
  switch (below(6)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return UINT32_MAX;
    case 3: return below(16);
    default: return uint32_t(r64());
  }
}
uint32_t other32(uint32_t v) { return chance(50) ? v ^ (1u << below(32)) : v + 1 + below(1000); }
uint8_t other_tag(uint8_t t) { return uint8_t(t ^ (1 + below(255))); }
uint8_t shift_value() {
  switch (below(5)) {
    case 0: return 12;
    case 1: return 21;
    case 2: return 0;
    default: return uint8_t(below(64));  // 64 and up: undefined in C++ (region_of)
  }
}
uint16_t random_access() { return uint16_t(below(32)); }  // the five MptAccess bits
uint32_t pd_value() { return chance(30) ? 1 + below(3) : uint32_t(r64()); }

// A region [base, base + size); some end at 2^64 exactly, some would wrap.
void make_region(uint64_t& base, uint64_t& size) {
  base = corner64();
  switch (below(7)) {
    case 0: size = 0; break;
    case 1: size = 1 + below(8); break;
    case 2: size = uint64_t(0) - base; break;          // ends at 2^64
    case 3: size = UINT64_MAX; break;
    case 4: size = corner64(); break;
    default: size = 1 + (r64() >> (16 + below(48))); break;
  }
}

// An access [va, va + len) against [base, base + size): mostly inside, at the edges, or just out.
void pick_access(uint64_t base, uint64_t size, uint64_t& va, uint64_t& len) {
  const uint64_t off = size ? r64() % (size + (size != UINT64_MAX ? 1 : 0)) : 0;
  switch (below(12)) {
    case 0: va = base + off; len = size - off ? r64() % (size - off + 1) : 0; break;
    case 1: va = base + off; len = size - off; break;                 // ends at the end
    case 2: va = base; len = size; break;                             // the whole region
    case 3: va = base + size; len = 0; break;                         // empty, at the end
    case 4: va = base + off; len = size - off + 1; break;             // one byte past
    case 5: va = base - 1; len = chance(50) ? 1 : 0; break;           // one byte before
    case 6: va = base + size + 1; len = 0; break;                     // starts past the end
    case 7: va = base + off; len = UINT64_MAX - below(3); break;      // length wraps
    case 8: va = base + off; len = 0; break;
    case 9: va = corner64(); len = corner64(); break;
    default: va = base + off; len = size - off ? r64() % (size - off + 1) : 0; break;
  }
}

struct Scenario {
  Stimulus s;
  MptEntry m0, m1;
};

MptEntry random_entry() {
  MptEntry e;
  e.state = MptState(below(3));
  e.kind = MptKind(below(4));
  e.access = random_access();
  e.tag = uint8_t(r64());
  e.page_shift = shift_value();
  e.zero_based = chance(70) ? 0 : (chance(50) ? 1 : uint8_t(r64()));
  e.pd = pd_value();
  e.mtt_index = uint32_t(r64());
  make_region(e.base_va, e.length);
  e.page_capacity = corner32();
  e.bound_qpn = uint32_t(r64());
  e.parent_index = uint32_t(r64());
  e.bound_windows = chance(50) ? 0 : corner32();
  return e;
}

MptKind region_kind() { return chance(50) ? MptKind::Mr : MptKind::FastMr; }

// An MPT index: mostly 24 bits, sometimes with bits a token shifts out.
uint32_t index_value() { return chance(90) ? below(1u << 24) : uint32_t(r64()); }

// Every op's request, built so that every check passes.
Scenario passing(uint8_t op) {
  Scenario c;
  Stimulus& s = c.s;
  MptEntry& m0 = c.m0;
  MptEntry& m1 = c.m1;
  m0 = random_entry();
  m1 = random_entry();
  s.op = op;
  s.pd = pd_value();
  s.qpn = uint32_t(r64());
  s.index0 = index_value();
  s.index1 = index_value();
  s.token = (s.index0 << 8) | uint8_t(r64());
  s.mr_token = (s.index1 << 8) | uint8_t(r64());
  s.access = random_access();
  s.rights = random_access();
  s.zero_based = chance(50);
  s.by_object = chance(30);
  s.page_count = corner32();
  s.fbo = below(4096);
  s.line1_present = chance(50);
  s.checks = chance(95) ? uint8_t(below(3)) : uint8_t(3 + below(5));
  s.va = corner64();
  s.len = corner64();
  switch (op) {
    case kLocal: {
      m0.state = MptState::Valid;
      m0.kind = region_kind();
      m0.tag = uint8_t(s.token);
      m0.pd = s.pd;
      s.access = uint16_t(below(16)) & (kAccessLocalWrite | kAccessReadSink);
      if (chance(20)) s.access |= kAccessRemoteRead;  // not a local right: ignored
      m0.access |= s.access;
      pick_access(m0.base_va, m0.length, s.va, s.len);
      break;
    }
    case kRemote: {
      m0.state = MptState::Valid;
      m0.tag = uint8_t(s.token);
      m0.pd = s.pd;
      switch (below(3)) {
        case 0: s.access = kAccessRemoteRead; break;
        case 1: s.access = kAccessRemoteWrite; break;
        default: s.access = kAccessRemoteRead | kAccessRemoteWrite; break;
      }
      m0.access |= s.access;
      uint64_t va = 0;
      pick_access(m0.base_va, m0.length, va, s.len);
      if (chance(50)) {  // a window, bound to this QP, on a VALID MR
        m0.kind = MptKind::Mw;
        m0.bound_qpn = s.qpn;
        m0.zero_based = chance(50) ? 0 : (chance(70) ? 1 : uint8_t(1 + below(255)));
        m1.state = MptState::Valid;
        m1.kind = region_kind();
        s.line1_present = chance(95);
        if (m0.zero_based) {
          va -= m0.base_va;  // an offset into the window
          if (chance(5)) va = UINT64_MAX - m0.base_va + 1 + below(16);  // the sum wraps
        }
      } else {
        m0.kind = region_kind();
      }
      s.va = va;
      break;
    }
    case kBind: {
      m0.kind = MptKind::Mw;
      m0.state = MptState::Free;
      m0.pd = s.pd;
      m1.kind = region_kind();
      m1.state = MptState::Valid;
      m1.tag = uint8_t(s.mr_token);
      m1.pd = s.pd;
      switch (below(3)) {
        case 0: s.rights = kAccessRemoteRead; break;
        case 1: s.rights = kAccessRemoteWrite | kAccessLocalWrite; break;
        default: s.rights = kAccessRemoteRead | kAccessRemoteWrite; break;
      }
      if (chance(30)) s.rights |= uint16_t(below(32));
      if (s.rights & kAccessRemoteWrite) m1.access |= kAccessLocalWrite;
      pick_access(m1.base_va, m1.length, s.va, s.len);
      if (s.va == 0) s.va = m1.base_va + 1, s.len = 0;
      break;
    }
    case kFrCheck:
    case kFrCommit: {
      m0.kind = MptKind::FastMr;
      m0.state = MptState::Free;
      m0.pd = s.pd;
      switch (below(5)) {
        case 0: m0.page_capacity = 1; break;
        case 1: m0.page_capacity = UINT32_MAX; break;
        case 2: m0.page_capacity = 1 + below(16); break;
        default: m0.page_capacity = 1 + below(1 << 20); break;
      }
      switch (below(3)) {
        case 0: s.page_count = 1; break;
        case 1: s.page_count = m0.page_capacity; break;
        default: s.page_count = 1 + below(m0.page_capacity); break;
      }
      s.fbo = chance(30) ? 0 : below(4096);
      s.va = chance(10) ? s.fbo : ((r64() & ~uint64_t(0xfff)) | s.fbo);
      const uint64_t room = uint64_t(s.page_count) * 4096 - s.fbo;
      switch (below(3)) {
        case 0: s.len = room; break;
        case 1: s.len = 0; break;
        default: s.len = r64() % (room + 1); break;
      }
      s.rights = uint16_t(below(16));
      if (s.rights & kAccessRemoteWrite) s.rights |= kAccessLocalWrite;
      if (s.rights & (kAccessRemoteRead | kAccessRemoteWrite)) m0.access |= kAccessRemoteAllowed;
      break;
    }
    case kInvalidate: {
      m0.kind = chance(50) ? MptKind::FastMr : MptKind::Mw;
      m0.state = MptState::Valid;
      m0.tag = uint8_t(s.token);
      m0.pd = s.pd;
      m0.bound_qpn = s.qpn;
      if (m0.kind == MptKind::FastMr) m0.bound_windows = 0;
      break;
    }
    case kRelease: {
      m0.kind = region_kind();
      m0.state = MptState::Valid;
      switch (below(4)) {
        case 0: m0.bound_windows = 0; break;
        case 1: m0.bound_windows = 1; break;
        case 2: m0.bound_windows = UINT32_MAX; break;
        default: m0.bound_windows = corner32(); break;
      }
      break;
    }
    default: break;
  }
  return c;
}

void nudge64(uint64_t& v) {
  switch (below(5)) {
    case 0: v += 1; break;
    case 1: v -= 1; break;
    case 2: v = 0; break;
    case 3: v = UINT64_MAX; break;
    default: v = corner64(); break;
  }
}

// One disturbance of a passing scenario: a field another value, a bound moved by one ...
void disturb(Scenario& c) {
  Stimulus& s = c.s;
  MptEntry& m0 = c.m0;
  MptEntry& m1 = c.m1;
  switch (below(36)) {
    case 0: m0.state = MptState(below(3)); break;
    case 1: m0.kind = MptKind(below(4)); break;
    case 2: m0.tag = other_tag(m0.tag); break;
    case 3: m0.pd = other32(m0.pd); break;
    case 4: m0.bound_qpn = other32(m0.bound_qpn); break;
    case 5:  // often a right the request asks for
      if (chance(50) && (s.access & 0x1f)) {
        uint16_t bit = 0;
        while (!(s.access & (bit = uint16_t(1u << below(5))))) {
        }
        m0.access = uint16_t(m0.access & ~bit);
      } else {
        m0.access ^= uint16_t(1u << below(chance(90) ? 5 : 16));
      }
      break;
    case 6: m0.zero_based = chance(50) ? 0 : uint8_t(1 + below(255)); break;
    case 7: m0.bound_windows = chance(50) ? 1 : corner32(); break;
    case 8:
      m0.page_capacity = chance(50) && s.page_count ? s.page_count - 1 : corner32();
      break;
    case 9: nudge64(m0.base_va); break;
    case 10: nudge64(m0.length); break;
    case 11: m1.state = MptState(below(3)); break;
    case 12: m1.kind = MptKind(below(4)); break;
    case 13: m1.tag = other_tag(m1.tag); break;
    case 14: m1.pd = other32(m1.pd); break;
    case 15: m1.access ^= uint16_t(1u << below(5)); break;
    case 16: nudge64(m1.base_va); break;
    case 17: nudge64(m1.length); break;
    case 18: m1.bound_windows = corner32(); break;
    case 19: s.token = (s.token & ~0xffu) | other_tag(uint8_t(s.token)); break;
    case 20: s.mr_token = (s.mr_token & ~0xffu) | other_tag(uint8_t(s.mr_token)); break;
    case 21: s.pd = other32(s.pd); break;
    case 22: s.qpn = other32(s.qpn); break;
    case 23: s.access ^= uint16_t(1u << below(chance(90) ? 5 : 16)); break;
    case 24:
      if (chance(30))
        s.rights &= uint16_t(~(kAccessRemoteRead | kAccessRemoteWrite));
      else
        s.rights ^= uint16_t(1u << below(chance(90) ? 5 : 16));
      break;
    case 25:
      if (chance(30)) {
        s.va = 0;  // with an MR at 0 every other Bind check can still pass
        if (chance(50)) m1.base_va = 0;
      } else {
        nudge64(s.va);
      }
      break;
    case 26: nudge64(s.len); break;
    case 27:
      switch (below(4)) {
        case 0: s.page_count = 0; break;
        case 1: s.page_count += 1; break;
        case 2: s.page_count = m0.page_capacity + 1; break;
        default: s.page_count = corner32(); break;
      }
      break;
    case 28:
      switch (below(4)) {
        case 0: s.fbo += 1; break;
        case 1: s.fbo = 4096; break;
        case 2: s.fbo = 4096 + (uint32_t(s.va) & 0xfff); break;
        default: s.fbo = corner32(); break;
      }
      break;
    case 29: s.by_object = !s.by_object; break;
    case 30: s.line1_present = !s.line1_present; break;
    case 31: s.zero_based = !s.zero_based; break;
    case 32: s.token ^= uint32_t(r64()) & ~0xffu; break;  // the index: read by no rule
    case 33: m0.page_shift = shift_value(); m1.page_shift = shift_value(); break;
    case 34: s.checks = uint8_t(below(8)); break;
    default: s.op = uint8_t(below(8)); break;  // another op on the same entries
  }
}

// Raw bytes: state and kind out of range, garbage where decode does not read.
void rough_up(uint8_t* line) {
  if (chance(4)) line[0] = uint8_t(3 + below(253));
  if (chance(4)) line[1] = uint8_t(4 + below(252));
  if (chance(30)) {
    line[7] = uint8_t(r64());
    for (unsigned i = 48; i < kMptEntryBytes; ++i) line[i] = uint8_t(r64());
  }
}

}  // namespace

Stimulus next_stimulus() {
  const uint8_t op = chance(1) ? uint8_t(kNoSuchOp) : uint8_t(below(7));
  Scenario c = passing(op);
  unsigned n = below(100);
  n = n < 40 ? 0 : n < 75 ? 1 : n < 90 ? 2 : 2 + below(4);
  for (unsigned i = 0; i < n; ++i) disturb(c);
  if (chance(2)) {  // sometimes nothing planned at all
    c.m0 = random_entry();
    c.m1 = random_entry();
  }
  c.m0.encode(c.s.line0);
  c.m1.encode(c.s.line1);
  rough_up(c.s.line0);
  rough_up(c.s.line1);
  return c.s;
}

void seed_stimulus(uint64_t seed) { rng.seed(seed); }

}  // namespace rnic::rtl_bench
