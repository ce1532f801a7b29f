// SPDX-License-Identifier: Apache-2.0
// The reference model's keys and bytes: which object a token names, the local and remote key checks
// of docs/behaviour.md (Read: R5.read.*), and how a region's or window's addresses reach buffer
// bytes.
#include "app/reference/model.h"

#include <algorithm>

#include "host_api/ndk.h"

namespace rnic::app {

using namespace refm;
using namespace ndk;

const Mpt* ReferenceModel::object_of(uint32_t node, uint32_t token) const {
  const auto& table = state_.by_index.at(node);
  auto it = table.find(token >> 8);
  return it == table.end() ? nullptr : &state_.mpts.at(it->second);
}

// A local SGE (docs/behaviour.md, Read requester side, in order): a VALID region (not a
// window) named by its current token, of the QP's PD, with local write where asked, the SGE
// inside it, with RDMA_READ_SINK where asked. A source or receive SGE has one rule for all of
// them (R5.write.source, R5.recv.key).
Verdict ReferenceModel::check_local(const Qp& qp, const Sge& sge, uint32_t rights,
                                    CheckList list) const {
  const std::vector<RuleId>& rules = checks_of(list);
  auto fail = [&rules](size_t k) {
    return Verdict{STATUS_ACCESS_VIOLATION, rules[std::min(k, rules.size() - 1)]};
  };
  const Mpt* m = object_of(qp.node, sge.token);
  if (!m || m->kind == MptKind::Mw || uint8_t(sge.token) != m->tag || !m->valid) return fail(0);
  if (m->pd != qp.pd) return fail(1);
  if ((m->rights & rights & kLocalWrite) != (rights & kLocalWrite)) return fail(2);
  if (!inside(sge.addr, sge.length, m->base_va, m->length)) return fail(3);
  if ((m->rights & rights & kReadSink) != (rights & kReadSink)) return fail(4);
  return Verdict{};
}

// A responder (R5.read.resp.*, R5.write.* for a write), in order: the index names an MR or
// MW, the tag matches, the object is VALID, in the responder QP's PD, a window is bound to
// this QP, the right, the range.
Verdict ReferenceModel::check_remote(const std::string& responder, uint32_t token, uint64_t addr,
                                     uint64_t length, uint32_t right) const {
  const std::vector<RuleId>& rules =
      checks_of(right == kRemoteWrite ? CheckList::RemoteWrite : CheckList::RemoteRead);
  auto fail = [&rules](size_t k) { return Verdict{STATUS_ACCESS_VIOLATION, rules[k]}; };
  const Qp& qp = state_.qps.at(responder);
  const Mpt* m = object_of(qp.node, token);
  if (!m) return fail(0);
  if (uint8_t(token) != m->tag && options_.broken_rule != "stale-token") return fail(1);
  if (!m->valid) return fail(2);
  if (m->pd != qp.pd) return fail(3);
  if (m->kind == MptKind::Mw && m->bound_qp != responder && options_.broken_rule != "window-qp")
    return fail(4);
  if (!(m->rights & right)) return fail(5);
  const uint64_t base = m->kind == MptKind::Mw && m->zero_based ? 0 : m->base_va;
  if (!inside(addr, length, base, m->length)) return fail(6);
  return Verdict{};
}

std::vector<Footprint> ReferenceModel::pieces(const Mpt& m, uint64_t va, uint64_t length) const {
  std::vector<Footprint> out;
  if (length == 0) return out;
  if (m.kind == MptKind::Mw) {
    // A window's addresses are its region's (from 0 for a zero-based window).
    return pieces(state_.mpts.at(m.region), m.zero_based ? m.base_va + va : va, length);
  }
  if (m.kind == MptKind::Mr) {
    out.push_back(Footprint{m.buffer, m.buffer_offset + (va - m.base_va), length, false});
    return out;
  }
  // A fast-registered region: page by page through its page array.
  uint64_t rel = va - (m.base_va - m.fbo);
  while (length > 0) {
    const Page& page = m.pages.at(rel / kPageSize);
    const uint64_t in = rel % kPageSize;
    const uint64_t n = std::min<uint64_t>(length, kPageSize - in);
    const Buffer& b = state_.buffers.at(page.buffer);
    if (page.offset + in + n > b.bytes.size())
      throw RefUnsupported("a fast-registered page past the end of buffer \"" + page.buffer + "\"");
    if (!out.empty() && out.back().buffer == page.buffer &&
        out.back().offset + out.back().length == page.offset + in) {
      out.back().length += n;
    } else {
      out.push_back(Footprint{page.buffer, page.offset + in, n, false});
    }
    rel += n;
    length -= n;
  }
  return out;
}

std::vector<Footprint> ReferenceModel::local_pieces(const Qp& qp,
                                                    const std::vector<Sge>& sgl) const {
  std::vector<Footprint> out;
  for (const Sge& sge : sgl) {
    if (sge.length == 0) continue;
    for (const Footprint& f : pieces(*object_of(qp.node, sge.token), sge.addr, sge.length))
      out.push_back(f);
  }
  return out;
}

std::vector<uint8_t> ReferenceModel::gather(const std::vector<Footprint>& from) const {
  std::vector<uint8_t> data;
  for (const Footprint& f : from) {
    const auto& bytes = state_.buffers.at(f.buffer).bytes;
    data.insert(data.end(), bytes.begin() + long(f.offset),
                bytes.begin() + long(f.offset + f.length));
  }
  return data;
}

// Writes `data` into `to` in order, as far as it reaches.
void ReferenceModel::scatter(const std::vector<Footprint>& to, const std::vector<uint8_t>& data) {
  uint64_t at = 0;
  for (const Footprint& f : to) {
    auto& bytes = state_.buffers.at(f.buffer).bytes;
    for (uint64_t i = 0; i < f.length && at < data.size(); ++i) bytes[f.offset + i] = data[at++];
  }
}

// Bytes a request would read and write if it succeeds, for the race rules.
std::vector<Footprint> ReferenceModel::footprint(const std::string& name, const Request& r) const {
  std::vector<Footprint> out;
  if (r.op != Op::Read && r.op != Op::Write && r.op != Op::Send) return out;
  const Qp& qp = state_.qps.at(name);
  const bool read = r.op == Op::Read;
  const bool inline_data = !read && (r.flags & NDK_OP_FLAG_INLINE);
  if (!inline_data) {
    for (const Sge& sge : r.sgl) {
      if (sge.length > 0 && !check_local(qp, sge, 0, CheckList::Source).ok())
        return out;  // fails: moves nothing
    }
    out = local_pieces(qp, r.sgl);
    for (Footprint& f : out) f.write = read;
  } else {
    // INLINE: the CPU copies the payload from the process's memory when it posts.
    for (const Sge& sge : r.sgl) {
      for (const auto& [name, b] : state_.buffers) {
        if (sge.length > 0 && b.node == qp.node && sge.addr >= b.va && sge.addr - b.va < b.size)
          out.push_back(Footprint{name, sge.addr - b.va, sge.length, false, true});
      }
    }
  }
  if (!qp.connected) return out;
  const Qp& peer = state_.qps.at(qp.peer);
  const uint64_t total = total_of(r.sgl);
  if (r.op == Op::Send) {
    if (peer.receives.empty()) return out;
    for (const Sge& sge : peer.receives.front().sgl) {
      if (sge.length == 0 || !check_local(peer, sge, 0, CheckList::ReceiveSge).ok()) continue;
      for (Footprint f : pieces(*object_of(peer.node, sge.token), sge.addr, sge.length)) {
        f.write = true;
        out.push_back(f);
      }
    }
    return out;
  }
  if (total == 0 || !check_remote(qp.peer, r.remote_token, r.remote_addr, total,
                                  read ? kRemoteRead : kRemoteWrite)
                         .ok())
    return out;
  for (Footprint f : pieces(*object_of(peer.node, r.remote_token), r.remote_addr, total)) {
    f.write = !read;
    out.push_back(f);
  }
  return out;
}

}  // namespace rnic::app
