// SPDX-License-Identifier: Apache-2.0
// The structures the driver and the device share in host memory: encode/decode round trips
// with non-trivial values, a few fixed byte offsets, and the ICM table placement.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "model/rnic/util/byte_order.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/abi/wqe.h"

using namespace rnic;

TEST_CASE("MptEntry round trip", "[unit][codec]") {
  MptEntry e;
  e.state = MptState::Valid;
  e.kind = MptKind::Mw;
  e.access = 0x1f;
  e.tag = 0xA5;
  e.page_shift = 21;
  e.pd = 0x01020304;
  e.base_va = 0x0123456789ABCDEFull;
  e.length = 0xFEDCBA9876543210ull;
  e.mtt_index = 0x00FFEE11;
  e.page_capacity = 777;
  e.bound_qpn = 0x42;
  e.parent_index = 0x123456;
  e.bound_windows = 9;
  e.zero_based = 1;
  std::vector<uint8_t> raw(kMptEntryBytes, 0xCC);
  e.encode(raw.data());
  CHECK(raw[0] == uint8_t(MptState::Valid));
  CHECK(raw[1] == uint8_t(MptKind::Mw));
  CHECK(raw[4] == 0xA5);
  CHECK(get_le<uint64_t>(raw.data() + 16) == 0x0123456789ABCDEFull);
  CHECK(raw[16] == 0xEF);  // little endian
  CHECK(raw[63] == 0);     // reserved bytes cleared
  const MptEntry d = MptEntry::decode(raw.data());
  CHECK(d.state == e.state);
  CHECK(d.kind == e.kind);
  CHECK(d.access == e.access);
  CHECK(d.tag == e.tag);
  CHECK(d.page_shift == e.page_shift);
  CHECK(d.pd == e.pd);
  CHECK(d.base_va == e.base_va);
  CHECK(d.length == e.length);
  CHECK(d.mtt_index == e.mtt_index);
  CHECK(d.page_capacity == e.page_capacity);
  CHECK(d.bound_qpn == e.bound_qpn);
  CHECK(d.parent_index == e.parent_index);
  CHECK(d.bound_windows == e.bound_windows);
  CHECK(d.zero_based == e.zero_based);

  // Garbage state/kind bytes decode as an unused entry, never as a valid one.
  raw[0] = 0x77;
  raw[1] = 0x99;
  const MptEntry bad = MptEntry::decode(raw.data());
  CHECK(bad.state == MptState::Unused);
  CHECK(bad.kind == MptKind::None);
}

TEST_CASE("QpcEntry and CqcEntry round trips", "[unit][codec]") {
  QpcEntry q;
  q.valid = 1;
  q.connected = 1;
  q.pd = 0xAABBCCDD;
  q.cqn = 17;
  q.sq_base = 0x0000123456789000ull;
  q.sq_depth = 4096;
  q.rq_base = 0x00009876543210C0ull;
  q.rq_depth = 333;
  q.ord = 16;
  q.ird = 5;
  q.peer_node = 3;
  q.peer_qpn = 0x00ABCDEF;
  std::vector<uint8_t> raw(kQpcEntryBytes, 0xFF);
  q.encode(raw.data());
  const QpcEntry d = QpcEntry::decode(raw.data());
  CHECK(d.valid == 1);
  CHECK(d.connected == 1);
  CHECK(d.pd == q.pd);
  CHECK(d.cqn == q.cqn);
  CHECK(d.sq_base == q.sq_base);
  CHECK(d.sq_depth == q.sq_depth);
  CHECK(d.rq_base == q.rq_base);
  CHECK(d.rq_depth == q.rq_depth);
  CHECK(d.ord == q.ord);
  CHECK(d.ird == q.ird);
  CHECK(d.peer_node == q.peer_node);
  CHECK(d.peer_qpn == q.peer_qpn);

  CqcEntry c;
  c.valid = 1;
  c.overflow = 1;
  c.ring_base = 0x00000ABCDEF01000ull;
  c.depth = 65536;
  std::vector<uint8_t> craw(kCqcEntryBytes, 0xFF);
  c.encode(craw.data());
  CHECK(craw[CqcEntry::kOverflowOffset] == 1);  // the byte the device sets on overflow
  const CqcEntry cd = CqcEntry::decode(craw.data());
  CHECK(cd.valid == 1);
  CHECK(cd.overflow == 1);
  CHECK(cd.ring_base == c.ring_base);
  CHECK(cd.depth == c.depth);
}

TEST_CASE("Wqe round trip with four SGEs", "[unit][codec]") {
  Wqe w;
  w.opcode = WqeOpcode::FastRegister;
  w.nsge = 4;
  w.flags = 0x2C3;
  w.access = 0x0B8;
  w.wr_id = 0xDEADBEEFCAFEF00Dull;
  w.remote_addr = 0x00007FFF12345678ull;
  w.remote_token = 0x12345678;
  w.aux_token = 0x9ABCDEF0;
  w.length = 0x100000001ull;
  w.page_list = 0x0000000200003000ull;
  w.page_count = 257;
  w.fbo = 0x123;
  for (uint32_t i = 0; i < kMaxSge; ++i) {
    w.sge[i].addr = 0x1000000000ull * (i + 1) + 0x10 * i;
    w.sge[i].length = 1000 + 37 * i;
    w.sge[i].token = make_token(100 + i, uint8_t(0x40 + i));
  }
  std::vector<uint8_t> raw(kWqeBytes, 0x5A);
  w.encode(raw.data());
  const Wqe d = Wqe::decode(raw.data());
  CHECK(d.opcode == w.opcode);
  CHECK(d.nsge == 4);
  CHECK(d.flags == w.flags);
  CHECK(d.access == w.access);
  CHECK(d.wr_id == w.wr_id);
  CHECK(d.remote_addr == w.remote_addr);
  CHECK(d.remote_token == w.remote_token);
  CHECK(d.aux_token == w.aux_token);
  CHECK(d.length == w.length);
  CHECK(d.page_list == w.page_list);
  CHECK(d.page_count == w.page_count);
  CHECK(d.fbo == w.fbo);
  for (uint32_t i = 0; i < kMaxSge; ++i) {
    CHECK(d.sge[i].addr == w.sge[i].addr);
    CHECK(d.sge[i].length == w.sge[i].length);
    CHECK(d.sge[i].token == w.sge[i].token);
  }
  CHECK(d.sgl_length() == 1000 + 1037 + 1074 + 1111);

  // A corrupt SGE count decodes above kMaxSge (the engine rejects it); an unknown opcode as Nop.
  raw[0] = 0xEE;
  raw[1] = 9;
  const Wqe bad = Wqe::decode(raw.data());
  CHECK(bad.opcode == WqeOpcode::Nop);
  CHECK(bad.nsge == kMaxSge + 1);
  CHECK(bad.sgl_length() == d.sgl_length());  // sums at most kMaxSge entries
}

TEST_CASE("Wqe inline payload, zero-based bind and well-formedness", "[unit][codec]") {
  Wqe w;
  w.opcode = WqeOpcode::Write;
  w.flags = kWqeFlagInline;
  w.length = kMaxInlineBytes;
  for (uint32_t i = 0; i < kMaxInlineBytes; ++i) w.inline_data[i] = uint8_t(0x80 + i);
  std::vector<uint8_t> raw(kWqeBytes, 0x5A);
  w.encode(raw.data());
  Wqe d = Wqe::decode(raw.data());
  CHECK(d.is_inline());
  CHECK(d.nsge == 0);
  CHECK(d.length == kMaxInlineBytes);
  CHECK(d.inline_data == w.inline_data);
  CHECK(wqe_well_formed(d));
  d.length = kMaxInlineBytes + 1;  // does not fit the WQE
  CHECK_FALSE(wqe_well_formed(d));

  Wqe read;
  read.opcode = WqeOpcode::Read;
  read.flags = kWqeFlagInline;  // INLINE is for sends and writes only
  CHECK_FALSE(read.is_inline());
  CHECK_FALSE(wqe_well_formed(read));
  read.flags = kWqeFlagSolicit;  // SEND_AND_SOLICIT_EVENT is for sends only
  CHECK_FALSE(wqe_well_formed(read));
  Wqe send;
  send.opcode = WqeOpcode::SendInvalidate;
  send.flags = kWqeFlagSolicit;
  CHECK(wqe_well_formed(send));

  Wqe bind;
  bind.opcode = WqeOpcode::Bind;
  bind.zero_based = 1;
  bind.encode(raw.data());
  CHECK(Wqe::decode(raw.data()).zero_based == 1);
}

TEST_CASE("Cqe round trip and opcode mapping", "[unit][codec]") {
  Cqe c;
  c.status = CqeStatus::RemoteAccess;
  c.opcode = CqeOpcode::Read;
  c.owner = 2;
  c.byte_count = 0x87654321;
  c.wr_id = 0x0102030405060708ull;
  c.qpn = 0x00FEDCBA;
  c.invalidated_token = 0xCAFEBABE;
  c.wqe_index = 0xFFFFFFF0;
  std::vector<uint8_t> raw(kCqeBytes, 0x11);
  c.encode(raw.data());
  CHECK(raw[0] == 10);  // ibv_wc_status numbering
  CHECK(raw[2] == 2);
  const Cqe d = Cqe::decode(raw.data());
  CHECK(d.status == c.status);
  CHECK(d.opcode == c.opcode);
  CHECK(d.owner == c.owner);
  CHECK(d.byte_count == c.byte_count);
  CHECK(d.wr_id == c.wr_id);
  CHECK(d.qpn == c.qpn);
  CHECK(d.invalidated_token == c.invalidated_token);
  CHECK(d.wqe_index == c.wqe_index);

  CHECK(completion_opcode(WqeOpcode::Read) == CqeOpcode::Read);
  CHECK(completion_opcode(WqeOpcode::Write) == CqeOpcode::Write);
  CHECK(completion_opcode(WqeOpcode::Bind) == CqeOpcode::Bind);
  CHECK(completion_opcode(WqeOpcode::FastRegister) == CqeOpcode::FastRegister);
  CHECK(completion_opcode(WqeOpcode::Invalidate) == CqeOpcode::Invalidate);
  CHECK(completion_opcode(WqeOpcode::Send) == CqeOpcode::Send);
}

TEST_CASE("tokens and the ICM layout", "[unit][codec]") {
  const uint32_t token = make_token(0x123456, 0x78);
  CHECK(token == 0x12345678u);
  CHECK(token_index(token) == 0x123456u);
  CHECK(token_tag(token) == 0x78);

  QpConfig limits;
  limits.max_mpt_entries = 100;  // 6400 B: rounds up to two pages
  limits.max_mtt_entries = 1000;
  limits.max_qps = 3;
  limits.max_cqs = 5;
  const IcmLayout l = IcmLayout::from(limits, 0x100010);
  CHECK(l.mpt_base == 0x101000);  // aligned up to 4 KiB
  CHECK(l.mtt_base == 0x101000 + 0x2000);
  CHECK(l.qpc_base == l.mtt_base + 0x2000);  // 8000 B -> 2 pages
  CHECK(l.cqc_base == l.qpc_base + 0x1000);
  CHECK(l.end == l.cqc_base + 0x1000);
  CHECK(l.mpt_entries == 100);
  CHECK(l.mtt_entries == 1000);
  CHECK(l.qpc_entries == 3);
  CHECK(l.cqc_entries == 5);
  CHECK(l.mpt_addr(7) == l.mpt_base + 7 * kMptEntryBytes);
  CHECK(l.mtt_addr(999) == l.mtt_base + 999 * kMttEntryBytes);
  CHECK(l.qpc_addr(2) == l.qpc_base + 2 * kQpcEntryBytes);
  CHECK(l.cqc_addr(4) == l.cqc_base + 4 * kCqcEntryBytes);
  // Tables do not overlap.
  CHECK(l.mpt_addr(l.mpt_entries) <= l.mtt_base);
  CHECK(l.mtt_addr(l.mtt_entries) <= l.qpc_base);
  CHECK(l.qpc_addr(l.qpc_entries) <= l.cqc_base);
  CHECK(l.cqc_addr(l.cqc_entries) <= l.end);
}
