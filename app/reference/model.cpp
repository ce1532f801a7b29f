// SPDX-License-Identifier: Apache-2.0
// The reference model's control path: objects (docs/behaviour.md: Objects, RegisterMr,
// InitializeFastRegisterMr), values as the consumer sees them, polls.
#include "app/reference/model.h"

#include <algorithm>

#include "host_api/ndk.h"
#include "model/rnic/abi/wqe.h"

namespace rnic::app {

using namespace refm;
using namespace ndk;

namespace {

// The host API's allocation layout (host_api/adapter.cpp AllocBuffer): virtual addresses
// from 0x7f0000000000 up, page aligned, a guard page between buffers. Only the consumer's
// view matters here: `$buf.va`, and which addresses lie inside some allocation (INLINE).
constexpr uint64_t kFirstVa = 0x00007f0000000000ull;
// Limits the host API enforces (host_api/limits.h, reported in NDK_ADAPTER_INFO).
constexpr uint32_t kMaxQueueDepth = 16384;
constexpr uint32_t kMaxCqDepth = 65536;

uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

}  // namespace

std::vector<std::string> ref_broken_rules() {
  return {"stale-token", "silent-success", "window-qp"};
}

ReferenceModel::ReferenceModel(const Scenario& scenario, RefOptions options)
    : options_(std::move(options)) {
  const QpConfig& qp = scenario.config.rnic.qp;
  // NDK_ADAPTER_INFO: MaxInitiatorSge is capped by what a WQE holds.
  max_sge_ = std::min<uint32_t>(qp.max_sge, kMaxSge);
  max_fr_pages_ = qp.max_fr_pages;
  max_transfer_ = qp.max_transfer_bytes;
  max_ord_ = qp.max_ord;
  max_ird_ = qp.max_ird;
  adapter_flags_ = scenario.config.rnic.adapter_flags;
  max_mpt_ = qp.max_mpt_entries;
  const size_t nodes = scenario.nodes.size();
  state_.by_index.resize(nodes);
  state_.va_next.assign(nodes, kFirstVa);
  state_.next_index.assign(nodes, 1);  // index 0 is never used: token 0 names nothing
  const auto& rules = ref_broken_rules();
  if (!options_.broken_rule.empty() &&
      std::find(rules.begin(), rules.end(), options_.broken_rule) == rules.end())
    throw RefUnsupported("unknown broken rule \"" + options_.broken_rule + "\"");
}

// --- values: what `$NAME.field` gives the consumer (app/runner/runner.cpp resolve) ---

uint64_t ReferenceModel::resolve(const Value& v) const {
  if (!v.is_ref) return v.literal;
  if (v.field == Value::Field::None) {
    auto it = state_.saved.find(v.name);
    if (it == state_.saved.end()) throw RefUnsupported("saved value \"" + v.name + "\" unset");
    return adjust(v, it->second);
  }
  uint64_t base = 0;
  if (auto b = state_.buffers.find(v.name); b != state_.buffers.end()) {
    if (v.field == Value::Field::Va) base = b->second.va;
    if (v.field == Value::Field::Length) base = b->second.size;
  } else if (auto m = state_.mpts.find(v.name); m != state_.mpts.end()) {
    const Mpt& o = m->second;
    switch (v.field) {
      case Value::Field::Token:
        base = token_of(o);
        break;
      case Value::Field::LocalToken:
        base = o.kind == MptKind::Mw ? 0 : token_of(o);  // windows have no local token
        break;
      case Value::Field::Va:
        base = base_va_of(o);
        break;
      case Value::Field::Length:
        base = o.exists && o.valid ? o.length : 0;
        break;
      case Value::Field::None:
        break;
    }
  }
  return adjust(v, base);
}

uint64_t ReferenceModel::adjust(const Value& v, uint64_t base) {
  uint64_t x = 0;
  if (!v.adjusted(base, &x)) throw RefUnsupported(v.text + " leaves the 64-bit range");
  return x;
}

uint32_t ReferenceModel::resolve32(const Value& v) const {
  const uint64_t x = resolve(v);
  if (x > UINT32_MAX) throw RefUnsupported(v.text + " does not fit in 32 bits");
  return uint32_t(x);
}

std::vector<uint8_t> ReferenceModel::memory(const std::string& buffer) const {
  const Buffer& b = state_.buffers.at(buffer);
  return std::vector<uint8_t>(b.bytes.begin(), b.bytes.begin() + long(b.size));
}

// --- steps ---

RefOutcome ReferenceModel::execute(const Step& s, bool poll_all) {
  RefOutcome out;
  switch (s.op) {
    case Op::Alloc:
      out.status = alloc(s);
      break;
    case Op::CreatePd:
      state_.pds[s.name] = s.node_index;
      out.status = STATUS_SUCCESS;
      break;
    case Op::CreateCq: {
      Cq& cq = state_.cqs[s.name];
      cq.node = s.node_index;
      cq.depth = uint32_t(s.depth);
      cq.exists = s.depth > 0 && s.depth <= kMaxCqDepth;
      out.status = cq.exists ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
      break;
    }
    case Op::CreateQp:
      out.status = create_qp(s);
      break;
    case Op::Connect:
      out.status = connect(s);
      break;
    case Op::CreateMr:
      out.status = create_mr(s);
      break;
    case Op::RegisterMr:
      out.status = register_mr(s);
      break;
    case Op::DeregisterMr:
      out.status = deregister_mr(s);
      break;
    case Op::CreateMw:
      out.status = create_mpt(s, MptKind::Mw);
      break;
    case Op::FastRegister:
    case Op::Bind:
    case Op::Invalidate:
    case Op::Read:
    case Op::Write:
    case Op::Send:
      out.status = post(s);
      break;
    case Op::Receive:
      out.status = post_receive(s);
      break;
    case Op::Flush:
      out.status = flush(s);
      break;
    case Op::Poll:
      return poll(s, poll_all);
    case Op::ExpectMemory:
    case Op::Wait:
      break;
    case Op::FillMemory:
      fill_memory(s);
      break;
    case Op::WaitAsync: {
      Mpt& m = state_.mpts.at(s.mr);
      if (!m.async_called)
        throw RefUnsupported("no asynchronous call was made on \"" + s.mr + "\"");
      m.async_pending = false;  // the registration has completed: its tokens are valid
      out.status = STATUS_SUCCESS;
      break;
    }
    case Op::Save:
      state_.saved[s.name] = resolve(s.value);
      break;
    default:
      throw RefUnsupported(std::string("op \"") + op_name(s.op) +
                           "\" is not covered by the reference model");
  }
  return out;
}

uint32_t ReferenceModel::alloc(const Step& s) {
  if (s.fill == Fill::Random)
    throw RefUnsupported("a random fill: its bytes come from the host's generator");
  Buffer b;
  b.node = s.node_index;
  b.size = s.size;
  b.page_size = uint32_t(s.page_size);
  const uint64_t pages = (s.size + s.page_size - 1) / s.page_size;
  uint64_t& next = state_.va_next[b.node];
  b.va = align_up(next, s.page_size);
  next = b.va + pages * s.page_size + s.page_size;
  b.bytes.assign(pages * s.page_size, 0);
  for (uint64_t i = 0; i < s.size; ++i) {
    b.bytes[i] = s.fill == Fill::Incrementing ? uint8_t(i)
                 : s.fill == Fill::Byte       ? s.fill_byte
                                              : uint8_t(0);
  }
  state_.buffers[s.name] = std::move(b);
  return STATUS_SUCCESS;
}

uint32_t ReferenceModel::create_qp(const Step& s) {
  Qp& qp = state_.qps[s.name];
  qp.node = s.node_index;
  qp.pd = s.pd;
  qp.cq = s.cq;
  qp.context = resolve(s.context);
  qp.send_depth = uint32_t(s.send_depth);
  qp.recv_depth = uint32_t(s.recv_depth);
  const uint64_t ord = s.ord.value_or(max_ord_), ird = s.ird.value_or(max_ird_);
  // A malformed call: an unknown CQ, depths outside the adapter's limits, ORD/IRD above them.
  if (!state_.cqs.at(s.cq).exists || s.send_depth == 0 || s.send_depth > kMaxQueueDepth ||
      s.recv_depth > kMaxQueueDepth || ord > max_ord_ || ird > max_ird_)
    return STATUS_INVALID_PARAMETER;
  qp.exists = true;
  return STATUS_SUCCESS;
}

uint32_t ReferenceModel::connect(const Step& s) {
  Qp& a = state_.qps.at(s.qp);
  Qp& b = state_.qps.at(s.peer);
  if (!a.exists || !b.exists) return STATUS_INVALID_PARAMETER;
  if (a.connected || b.connected) return STATUS_CONNECTION_INVALID;
  a.connected = b.connected = true;
  a.peer = s.peer;
  b.peer = s.qp;
  return STATUS_SUCCESS;
}

uint32_t ReferenceModel::create_mpt(const Step& s, MptKind kind) {
  Mpt& m = state_.mpts[s.name];
  m.name = s.name;
  m.node = s.node_index;
  m.kind = kind;
  m.pd = s.pd;
  if (state_.next_index[m.node] >= max_mpt_ || state_.next_index[m.node] > 0xffffff)
    return STATUS_INSUFFICIENT_RESOURCES;  // table full
  m.exists = true;
  m.index = state_.next_index[m.node]++;
  state_.by_index[m.node][m.index] = s.name;
  return STATUS_SUCCESS;
}

uint32_t ReferenceModel::create_mr(const Step& s) {
  const uint32_t status = create_mpt(s, s.fast_register ? MptKind::FastMr : MptKind::Mr);
  if (status != STATUS_SUCCESS || !s.fast_register) return status;
  // InitializeFastRegisterMr in the same step; no `pages`: the adapter's FRMRPageCount.
  Mpt& m = state_.mpts.at(s.name);
  const uint64_t pages = s.pages ? s.pages : max_fr_pages_;
  if (pages > max_fr_pages_) return STATUS_IMPLEMENTATION_LIMIT;  // R5.frinit.limit
  m.fr_initialized = true;
  m.fr_capacity = uint32_t(pages);
  m.fr_remote_access = s.remote_access;
  return STATUS_SUCCESS;
}

uint32_t ReferenceModel::register_mr(const Step& s) {
  Mpt& m = state_.mpts.at(s.mr);
  const Buffer& b = state_.buffers.at(s.buffer);
  const uint64_t offset = resolve(s.offset), length = resolve(s.length);
  // Only a created, normal, unregistered MR; zero-based addresses are not supported; zero
  // length and ranges outside the buffer are malformed (R5.reg.invalid, R5.reg.zero_based).
  if (!m.exists || m.kind != MptKind::Mr || m.registered || s.zero_based || length == 0 ||
      offset > b.size || length > b.size - offset)
    return STATUS_INVALID_PARAMETER;
  m.registered = true;
  m.registered_flags = s.flags;
  m.valid = true;
  m.tag = uint8_t(m.tag + 1);  // a new registration, a new tag: old tokens are stale
  m.rights = s.flags & (kLocalWrite | kRemoteRead | kRemoteWrite | kReadSink);
  m.base_va = b.va + offset;
  m.length = length;
  m.buffer = s.buffer;
  m.buffer_offset = offset;
  m.bound_windows = 0;
  if (s.async) {
    m.async_pending = m.async_called = true;  // valid once it completes (wait_async)
    return STATUS_PENDING;                    // R3.pending
  }
  return STATUS_SUCCESS;
}

uint32_t ReferenceModel::deregister_mr(const Step& s) {
  Mpt& m = state_.mpts.at(s.mr);
  if (!m.exists || !m.registered || m.async_pending) return STATUS_INVALID_PARAMETER;
  if (m.bound_windows > 0) return STATUS_DEVICE_BUSY;  // R5.dereg.busy
  m.registered = false;
  m.valid = false;
  return STATUS_SUCCESS;
}

void ReferenceModel::fill_memory(const Step& s) {
  Buffer& b = state_.buffers.at(s.buffer);
  const uint64_t offset = resolve(s.offset), length = s.length.literal;
  if (offset > b.size || length > b.size - offset)
    throw RefUnsupported("fill_memory outside buffer \"" + s.buffer + "\"");
  for (uint64_t i = 0; i < length; ++i) {
    b.bytes[offset + i] = s.fill == Fill::Incrementing ? uint8_t(offset + i)
                          : s.fill == Fill::Byte       ? s.fill_byte
                                                       : uint8_t(0);
  }
}

RefOutcome ReferenceModel::poll(const Step& s, bool poll_all) {
  RefOutcome out;
  Cq& cq = state_.cqs.at(s.cq);
  const size_t n = poll_all ? cq.pending.size() : std::min<size_t>(s.count, cq.pending.size());
  Batch& batch = state_.batch;
  for (size_t i = 0; i < n; ++i) {
    Completion c = cq.pending.front();
    cq.pending.pop_front();
    // The consumer frees ring slots up to the completed request (completions are in order).
    Qp& qp = state_.qps.at(c.qp);
    uint32_t& retired = c.send_queue ? qp.sq_retired : qp.rq_retired;
    if (int32_t(c.index + 1 - retired) > 0) retired = c.index + 1;
    if (c.qp == batch.qp && c.send_queue && int32_t(c.index - batch.quiet_index) > 0)
      batch.quiet = false;  // a later request of the batch completed: the quiet ones are done
    out.polled.push_back(std::move(c));
  }
  // A poll that waits its whole timeout and sees nothing: every request of the batch QP that
  // completes on this CQ has finished by then.
  if (n == 0 && !batch.qp.empty() && state_.qps.at(batch.qp).cq == s.cq) batch.quiet = false;
  if (settled()) state_.batch = Batch{};
  return out;
}

}  // namespace rnic::app
