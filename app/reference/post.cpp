// SPDX-License-Identifier: Apache-2.0
// The reference model's posting path: the inline checks of R4.inline.* (a verb that fails inline
// completes nothing, R4.inline.no_completion), DEFER, and what the consumer passes (tokens,
// addresses) as the runner builds it from a step (app/runner/objects.cpp, app/runner/verbs.cpp).
#include <algorithm>

#include "app/reference/model.h"
#include "host_api/ndk.h"
#include "model/rnic/abi/wqe.h"

namespace rnic::app {

using namespace refm;
using namespace ndk;

// The inline checks every send-queue verb makes (R4.inline.*), in this order.
uint32_t ReferenceModel::begin_post(const std::string& name) const {
  const Qp& qp = state_.qps.at(name);
  if (!qp.exists) return STATUS_INVALID_PARAMETER;
  if (!qp.connected) return STATUS_CONNECTION_INVALID;
  // Full: as many requests posted as the queue holds and not yet seen complete by the
  // consumer (a request that succeeded silently frees its slot when a later one is polled).
  if (qp.sq_posted - qp.sq_retired >= qp.send_depth) return STATUS_INSUFFICIENT_RESOURCES;
  return STATUS_SUCCESS;
}

std::vector<Sge> ReferenceModel::build_sgl(const Step& s) const {
  std::vector<Sge> sgl;
  for (const SgeSpec& spec : s.sgl) {
    Sge sge;
    if (!spec.mr.empty()) {
      // {mr, offset}: the MR's base VA and local token as the consumer reads them now.
      const Mpt& m = state_.mpts.at(spec.mr);
      sge.addr = base_va_of(m) + resolve(spec.offset);
      sge.token = m.kind == MptKind::Mw ? 0 : token_of(m);
    } else {
      sge.addr = resolve(spec.address);
      sge.token = resolve32(spec.token);
    }
    sge.length = resolve32(spec.length);
    sgl.push_back(sge);
  }
  return sgl;
}

void ReferenceModel::resolve_remote(const Step& s, uint64_t* address, uint32_t* token) const {
  if (s.remote.target.empty()) {
    *address = resolve(s.remote.address);
    *token = resolve32(s.remote.token);
    return;
  }
  const Mpt& m = state_.mpts.at(s.remote.target);
  *address = base_va_of(m) + resolve(s.remote.offset);
  *token = token_of(m);
}

// The request a post would queue, after the inline checks of R4.inline.* (in the host API's
// order); no side effects, so race() can look at a post before it happens.
uint32_t ReferenceModel::build_request(const Step& s, Request* out) const {
  const Qp& qp = state_.qps.at(s.qp);
  Request& r = *out;
  r.op = s.op;
  r.flags = s.flags;
  r.context = resolve(s.context);
  if (s.op == Op::Read || s.op == Op::Write || s.op == Op::Send) {
    r.sgl = build_sgl(s);
    uint64_t total = 0;
    for (const Sge& sge : r.sgl) total += sge.length;
    if (s.op == Op::Send) {
      if (s.invalidate_token) r.invalidate_token = resolve32(*s.invalidate_token);
    } else if (s.remote.descriptor) {
      // User-mode Read/Write through a window descriptor {Base 0, Length, Token}: a transfer
      // known to exceed the window is refused inline (R3.remote_resources).
      auto d = descriptors_.find(s.remote.target);
      if (d == descriptors_.end())
        throw RefUnsupported("MW " + s.remote.target + " has no descriptor");
      const uint32_t status = begin_post(s.qp);
      if (status != STATUS_SUCCESS) return status;
      const uint64_t offset = resolve(s.remote.offset);
      if (offset > d->second.length || total > d->second.length - offset)
        return STATUS_REMOTE_RESOURCES;
      r.remote_addr = offset;
      r.remote_token = d->second.token;
    } else {
      resolve_remote(s, &r.remote_addr, &r.remote_token);
    }
    const uint32_t status = begin_post(s.qp);
    if (status != STATUS_SUCCESS) return status;
    // SGE count and total length within the adapter's limits (R4.inline.sge_count,
    // R4.inline.total_length).
    if (r.sgl.size() > max_sge_ || total > max_transfer_) return STATUS_INVALID_PARAMETER;
    if ((s.flags & NDK_OP_FLAG_INLINE) && s.op != Op::Read) {
      // INLINE (R2.inline): the payload is copied from the process's memory now, at most
      // MaxInlineDataSize bytes; SGE tokens are ignored.
      if (total > kMaxInlineBytes) return STATUS_INVALID_PARAMETER;
      for (const Sge& sge : r.sgl) {
        if (sge.length == 0) continue;
        const Buffer* in = nullptr;
        for (const auto& [name, b] : state_.buffers) {
          if (b.node == qp.node && sge.addr >= b.va && sge.addr - b.va <= b.size &&
              sge.length <= b.size - (sge.addr - b.va))
            in = &b;
        }
        if (!in) return STATUS_INVALID_PARAMETER;  // not in the process's memory
        const uint64_t at = sge.addr - in->va;
        r.inline_data.insert(r.inline_data.end(), in->bytes.begin() + long(at),
                             in->bytes.begin() + long(at + sge.length));
      }
    }
    return STATUS_SUCCESS;
  }
  if (s.op == Op::Bind) {
    const Mpt& mr = state_.mpts.at(s.mr);
    const Mpt& mw = state_.mpts.at(s.mw);
    r.mr = s.mr;
    r.mw = s.mw;
    r.remote_addr = s.va ? resolve(*s.va) : base_va_of(mr) + resolve(s.offset);
    r.length = resolve(s.length);
    r.zero_based = s.zero_based;
    const uint32_t status = begin_post(s.qp);
    if (status != STATUS_SUCCESS) return status;
    if (!mr.exists || !mw.exists) return STATUS_INVALID_PARAMETER;
    // R4.inline.bind_remote_write: remote write through a window needs local write on the MR,
    // checked inline against the MR's rights (a normal MR: the flags of its registration).
    const bool local_write = mr.kind == MptKind::Mr ? (mr.registered_flags & kLocalWrite) != 0
                                                    : (mr.rights & kLocalWrite) != 0;
    if ((s.flags & kRemoteWriteBit) && !local_write) return STATUS_ACCESS_VIOLATION;
    r.new_tag = uint8_t(mw.consumer_tag + 1);  // the consumer picks the window's next tag
    r.mr_token = token_of(mr);
    return STATUS_SUCCESS;
  }
  if (s.op == Op::FastRegister) {
    const Mpt& mr = state_.mpts.at(s.mr);
    const Buffer& buffer = state_.buffers.at(s.buffer);
    const uint64_t offset = resolve(s.offset);
    const uint64_t length = resolve(s.length);
    // The page array the runner builds: the buffer's 4 KiB pages under [offset, +length)
    // (at least one), or the explicit `pages`; a larger page_count repeats the last page.
    std::vector<Page> pages;
    if (!s.page_list.empty()) {
      for (const PageSpec& spec : s.page_list) {
        const Buffer& b = state_.buffers.at(spec.buffer);
        const uint64_t index = resolve(spec.index);
        if (index >= (b.size + kPageSize - 1) / kPageSize)
          throw RefUnsupported("page " + std::to_string(index) + " is outside " + spec.buffer);
        pages.push_back(Page{spec.buffer, index * kPageSize + resolve(spec.offset)});
      }
    } else if (offset < buffer.size) {
      const uint64_t end = length > buffer.size - offset ? buffer.size : offset + length;
      for (uint64_t o = offset / kPageSize * kPageSize; o < end || pages.empty(); o += kPageSize)
        pages.push_back(Page{s.buffer, o});
    }
    const uint64_t count = s.page_count ? resolve32(*s.page_count) : pages.size();
    while (pages.size() < count) pages.push_back(pages.empty() ? Page{} : pages.back());
    pages.resize(count);
    r.mr = s.mr;
    r.pages = pages;
    r.fbo = offset % kPageSize;
    r.length = length;
    r.base_va = s.base_va ? resolve(*s.base_va) : buffer.va + offset;
    const uint32_t status = begin_post(s.qp);
    if (status != STATUS_SUCCESS) return status;
    if (!mr.exists || count == 0 || count > max_fr_pages_) return STATUS_INVALID_PARAMETER;
    // R4.inline.fr_remote_access: remote rights on an MR initialised without remote access fail
    // inline.
    if ((s.flags & (NDK_OP_FLAG_ALLOW_REMOTE_READ | kRemoteWriteBit)) && mr.fr_initialized &&
        !mr.fr_remote_access)
      return STATUS_ACCESS_VIOLATION;
    r.new_tag = uint8_t(mr.consumer_tag + 1);
    return STATUS_SUCCESS;
  }
  // Invalidate: the object's token as the consumer knows it.
  const Mpt& target = state_.mpts.at(s.target);
  const uint32_t status = begin_post(s.qp);
  if (status != STATUS_SUCCESS) return status;
  if (!target.exists) return STATUS_INVALID_PARAMETER;
  r.target_token = token_of(target);
  return STATUS_SUCCESS;
}

uint32_t ReferenceModel::post(const Step& s) {
  if (settled()) state_.batch = Batch{};
  Request r;
  const uint32_t status = build_request(s, &r);
  Qp& qp = state_.qps.at(s.qp);
  state_.batch.qp = s.qp;
  if (status != STATUS_SUCCESS) {
    // R2.defer.inline_failure: a post that fails inline first submits the earlier deferred
    // requests; it completes nothing itself.
    if (qp.exists) ring(s.qp);
    return status;
  }
  if (s.op == Op::Bind || s.op == Op::FastRegister)
    state_.mpts.at(s.op == Op::Bind ? s.mw : s.mr).consumer_tag = r.new_tag;
  r.index = qp.sq_posted++;
  if (s.op == Op::Read) state_.batch.reads.push_back(footprint(s.qp, r));
  if (s.op == Op::Bind && s.zero_based) {
    // The user-mode Bind returns a descriptor {Base 0, Length, Token} for the peer when it is
    // posted: the token of the tag it asks for, which stays stale if the device refuses it
    // (R5.bind.token_on_return, R1.token.refused).
    descriptors_[s.mw] = Descriptor{r.length, make_token(state_.mpts.at(s.mw).index, r.new_tag)};
  }
  // DEFER holds the request until a later post rings the doorbell. A bind step that waits
  // for its Bind (the default) rings it, as the runner does (R5.bind.executes_in_order).
  if ((s.flags & NDK_OP_FLAG_DEFER) && !(s.op == Op::Bind && s.wait)) {
    qp.held.push_back(r);
    return STATUS_SUCCESS;
  }
  ring(s.qp);
  execute_request(s.qp, r);
  return STATUS_SUCCESS;
}

// Rings the send queue's doorbell: the held (deferred) requests run, in posting order.
void ReferenceModel::ring(const std::string& name) {
  std::vector<Request> held;
  held.swap(state_.qps.at(name).held);
  for (const Request& h : held) execute_request(name, h);
}

uint32_t ReferenceModel::post_receive(const Step& s) {
  if (settled()) state_.batch = Batch{};
  Qp& qp = state_.qps.at(s.qp);
  const std::vector<Sge> sgl = build_sgl(s);
  if (!qp.exists || sgl.size() > max_sge_) return STATUS_INVALID_PARAMETER;
  if (qp.recv_depth == 0 || qp.rq_posted - qp.rq_retired >= qp.recv_depth)
    return STATUS_INSUFFICIENT_RESOURCES;
  Receive receive{qp.rq_posted++, resolve(s.context), sgl};
  if (qp.error) {
    // R4.error.flush_receives: a QP in error flushes its receives, those posted later too.
    complete(s.qp, Completion{STATUS_CANCELLED, NdkOperationTypeReceive, receive.context,
                              qp.context, 0, 0, s.qp, false, receive.index});
  } else {
    qp.receives.push_back(receive);
  }
  return STATUS_SUCCESS;
}

uint32_t ReferenceModel::flush(const Step& s) {
  if (settled()) state_.batch = Batch{};
  Qp& qp = state_.qps.at(s.qp);
  if (!qp.exists) return STATUS_INVALID_PARAMETER;
  // Deferred requests are submitted first; then every pending request completes CANCELLED
  // (R5.flush): with nothing in flight, that is the QP entering the error state.
  ring(s.qp);
  enter_error(s.qp);
  return STATUS_SUCCESS;
}

}  // namespace rnic::app
