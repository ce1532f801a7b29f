// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/abi/icm.h"

#include <cstring>

#include "model/rnic/util/byte_order.h"

namespace rnic {

namespace {
uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
}  // namespace

IcmLayout IcmLayout::from(const QpConfig& limits, uint64_t base) {
  IcmLayout l;
  l.mpt_entries = limits.max_mpt_entries;
  l.mtt_entries = limits.max_mtt_entries;
  l.qpc_entries = limits.max_qps;
  l.cqc_entries = limits.max_cqs;
  l.mpt_base = align_up(base, 4096);
  l.mtt_base = align_up(l.mpt_base + uint64_t(l.mpt_entries) * kMptEntryBytes, 4096);
  l.qpc_base = align_up(l.mtt_base + uint64_t(l.mtt_entries) * kMttEntryBytes, 4096);
  l.cqc_base = align_up(l.qpc_base + uint64_t(l.qpc_entries) * kQpcEntryBytes, 4096);
  l.end = align_up(l.cqc_base + uint64_t(l.cqc_entries) * kCqcEntryBytes, 4096);
  return l;
}

// MPT entry layout (64 bytes):
//  0 state  1 kind  2 access(16)  4 tag  5 page_shift  6 zero_based  8 pd(32)
// 12 mtt_index(32)  16 base_va(64)  24 length(64)  32 page_capacity(32)  36 bound_qpn(32)
// 40 parent_index(32)  44 bound_windows(32)
void MptEntry::encode(uint8_t* out) const {
  std::memset(out, 0, kMptEntryBytes);
  out[0] = uint8_t(state);
  out[1] = uint8_t(kind);
  put_le<uint16_t>(out + 2, access);
  out[4] = tag;
  out[5] = page_shift;
  out[6] = zero_based;
  put_le<uint32_t>(out + 8, pd);
  put_le<uint32_t>(out + 12, mtt_index);
  put_le<uint64_t>(out + 16, base_va);
  put_le<uint64_t>(out + 24, length);
  put_le<uint32_t>(out + 32, page_capacity);
  put_le<uint32_t>(out + 36, bound_qpn);
  put_le<uint32_t>(out + 40, parent_index);
  put_le<uint32_t>(out + 44, bound_windows);
}

MptEntry MptEntry::decode(const uint8_t* in) {
  MptEntry e;
  e.state = in[0] <= uint8_t(MptState::Valid) ? MptState(in[0]) : MptState::Unused;
  e.kind = in[1] <= uint8_t(MptKind::Mw) ? MptKind(in[1]) : MptKind::None;
  e.access = get_le<uint16_t>(in + 2);
  e.tag = in[4];
  e.page_shift = in[5];
  e.zero_based = in[6];
  e.pd = get_le<uint32_t>(in + 8);
  e.mtt_index = get_le<uint32_t>(in + 12);
  e.base_va = get_le<uint64_t>(in + 16);
  e.length = get_le<uint64_t>(in + 24);
  e.page_capacity = get_le<uint32_t>(in + 32);
  e.bound_qpn = get_le<uint32_t>(in + 36);
  e.parent_index = get_le<uint32_t>(in + 40);
  e.bound_windows = get_le<uint32_t>(in + 44);
  return e;
}

// QPC layout: 0 valid 1 connected 2 closed 3 retired 4 pd 8 cqn 12 sq_depth 16 sq_base 24 rq_base
// 32 rq_depth 36 ord 40 ird 44 peer_node 48 peer_qpn 52 running state (12 bytes, the device's)
static_assert(QpcEntry::kRunningOffset + QpcEntry::kRunningBytes <= kQpcEntryBytes);
static_assert(CqcEntry::kRunningOffset + CqcEntry::kRunningBytes <= kCqcEntryBytes);
static_assert(CqcEntry::kConsumerOffset + 4 <= CqcEntry::kRunningOffset);

void QpcEntry::encode(uint8_t* out) const {
  std::memset(out, 0, kQpcEntryBytes);
  out[0] = valid;
  out[1] = connected;
  out[2] = closed;
  out[3] = retired;
  put_le<uint32_t>(out + 4, pd);
  put_le<uint32_t>(out + 8, cqn);
  put_le<uint32_t>(out + 12, sq_depth);
  put_le<uint64_t>(out + 16, sq_base);
  put_le<uint64_t>(out + 24, rq_base);
  put_le<uint32_t>(out + 32, rq_depth);
  put_le<uint32_t>(out + 36, ord);
  put_le<uint32_t>(out + 40, ird);
  put_le<uint32_t>(out + 44, peer_node);
  put_le<uint32_t>(out + 48, peer_qpn);
  std::memcpy(out + kRunningOffset, running.data(), kRunningBytes);
}

QpcEntry QpcEntry::decode(const uint8_t* in) {
  QpcEntry e;
  e.valid = in[0];
  e.connected = in[1];
  e.closed = in[2];
  e.retired = in[3];
  e.pd = get_le<uint32_t>(in + 4);
  e.cqn = get_le<uint32_t>(in + 8);
  e.sq_depth = get_le<uint32_t>(in + 12);
  e.sq_base = get_le<uint64_t>(in + 16);
  e.rq_base = get_le<uint64_t>(in + 24);
  e.rq_depth = get_le<uint32_t>(in + 32);
  e.ord = get_le<uint32_t>(in + 36);
  e.ird = get_le<uint32_t>(in + 40);
  e.peer_node = get_le<uint32_t>(in + 44);
  e.peer_qpn = get_le<uint32_t>(in + 48);
  std::memcpy(e.running.data(), in + kRunningOffset, kRunningBytes);
  return e;
}

// CQC layout: 0 valid 1 overflow (written by the device) 2 retired 4 depth 8 ring_base
// 16 consumer (stored by the driver) 20 running state (8 bytes, the device's)
void CqcEntry::encode(uint8_t* out) const {
  std::memset(out, 0, kCqcEntryBytes);
  out[0] = valid;
  out[1] = overflow;
  out[2] = retired;
  put_le<uint32_t>(out + 4, depth);
  put_le<uint64_t>(out + 8, ring_base);
  put_le<uint32_t>(out + kConsumerOffset, consumer);
  std::memcpy(out + kRunningOffset, running.data(), kRunningBytes);
}

void CqcEntry::encode_consumer(uint32_t consumer, uint8_t* out) {
  put_le<uint32_t>(out, consumer);
}

CqcEntry CqcEntry::decode(const uint8_t* in) {
  CqcEntry e;
  e.valid = in[0];
  e.overflow = in[1];
  e.retired = in[2];
  e.depth = get_le<uint32_t>(in + 4);
  e.ring_base = get_le<uint64_t>(in + 8);
  e.consumer = get_le<uint32_t>(in + kConsumerOffset);
  std::memcpy(e.running.data(), in + kRunningOffset, kRunningBytes);
  return e;
}

}  // namespace rnic
