// SPDX-License-Identifier: Apache-2.0
// The reference model's device: each request runs to its end at once, in posting order,
// with the checks of docs/behaviour.md ("Verbs and their checks", R5.*) in the order written
// there, then its error rules ("Posting rules", R4.error.*).
#include "app/reference/model.h"
#include "host_api/ndk.h"

namespace rnic::app {

using namespace refm;
using namespace ndk;

namespace {

uint32_t type_of(Op op) {
  switch (op) {
    case Op::Read:
      return NdkOperationTypeRead;
    case Op::Write:
      return NdkOperationTypeWrite;
    case Op::Send:
      return NdkOperationTypeSend;
    case Op::Bind:
      return NdkOperationTypeBind;
    case Op::FastRegister:
      return NdkOperationTypeFastRegister;
    default:
      return NdkOperationTypeInvalidate;
  }
}

// R2.solicit, R2.inline: SEND_AND_SOLICIT_EVENT belongs to sends, INLINE to sends and writes;
// on any other verb the request is malformed (docs/user-guide.md: a local QP operation error).
RuleId malformed(const Request& r) {
  if ((r.flags & NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT) && r.op != Op::Send) return RuleId::R2_solicit;
  if ((r.flags & NDK_OP_FLAG_INLINE) && r.op != Op::Send && r.op != Op::Write)
    return RuleId::R2_inline;
  return RuleId::None;
}

// The k-th check of `list` failed.
Verdict failed(CheckList list, size_t k, uint32_t status = STATUS_ACCESS_VIOLATION) {
  return Verdict{status, checks_of(list)[k]};
}

}  // namespace

void ReferenceModel::complete(const std::string& qp, Completion c) {
  Cq& cq = state_.cqs.at(state_.qps.at(qp).cq);
  if (cq.pending.size() >= cq.depth)
    throw RefUnsupported("CQ \"" + state_.qps.at(qp).cq + "\" would overflow");
  cq.pending.push_back(std::move(c));
}

// R4.error.flush_later, R4.error.flush_receives: after its first error the QP is in the
// error state; its posted receives are flushed CANCELLED in posting order (after the error's
// own completion, which the caller has queued already); requests that run later complete
// CANCELLED (execute_request).
void ReferenceModel::enter_error(const std::string& name) {
  Qp& qp = state_.qps.at(name);
  if (qp.error) return;
  qp.error = true;
  while (!qp.receives.empty()) {
    const Receive r = qp.receives.front();
    qp.receives.pop_front();
    complete(name, Completion{STATUS_CANCELLED, NdkOperationTypeReceive, r.context, qp.context, 0,
                              0, name, false, r.index, RuleId::R4_error_flush_receives});
  }
}

void ReferenceModel::execute_request(const std::string& name, const Request& r) {
  Qp& qp = state_.qps.at(name);
  Completion c{STATUS_SUCCESS, type_of(r.op), r.context, qp.context, 0, 0, name, true, r.index};
  if (qp.error) {
    c.status = STATUS_CANCELLED;  // R4.error.flush_later, R4.error.posted_later
    c.rule = RuleId::R4_error_flush_later;
    // R4.cancelled.undefined: a CANCELLED Bind, FastRegister or Invalidate may or may not
    // have taken effect: the objects it changes are undefined (a window's region: its bound
    // windows).
    auto undefine = [this](const std::string& object) {
      if (object.empty() || !state_.mpts.count(object)) return;
      Mpt& m = state_.mpts.at(object);
      m.undefined = true;
      if (m.kind == MptKind::Mw && !m.region.empty()) state_.mpts.at(m.region).undefined = true;
    };
    if (r.op == Op::Bind) {
      undefine(r.mw);
      undefine(r.mr);
    } else if (r.op == Op::FastRegister) {
      undefine(r.mr);
    } else if (r.op == Op::Invalidate) {
      if (const Mpt* m = object_of(qp.node, r.target_token)) undefine(m->name);
    }
    complete(name, c);
    return;
  }
  // Barriers end a batch (ReferenceModel::race): requests that change objects the next posts
  // may name, and outcomes after which later requests of the batch could race.
  bool barrier = r.op == Op::FastRegister || r.op == Op::Invalidate ||
                 (r.op == Op::Send && r.invalidate_token) ||
                 (r.op == Op::Read && (r.flags & NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE));
  const bool had_receives = !qp.receives.empty();
  Verdict verdict;
  if (const RuleId bad = malformed(r); bad != RuleId::None) {
    verdict = Verdict{STATUS_INTERNAL_ERROR, bad};
  } else {
    switch (r.op) {
      case Op::Bind:
        verdict = exec_bind(name, r);
        break;
      case Op::FastRegister:
        verdict = exec_fast_register(name, r);
        break;
      case Op::Invalidate:
        verdict = invalidate(name, r.target_token, true);  // R5.inv.*
        break;
      case Op::Read:
      case Op::Write:
        verdict = exec_rdma(name, r);
        break;
      default:
        verdict = exec_send(name, r);
        break;
    }
  }
  const uint32_t status = verdict.status;
  c.rule = verdict.rule;
  // A lost peer or a missing receive: the requester retries while later requests of the
  // batch may reach the healthy responder. An error on a QP with posted receives: its flush
  // completions would interleave with those of later requests.
  if (status == STATUS_IO_TIMEOUT || (status != STATUS_SUCCESS && had_receives)) barrier = true;
  Batch& batch = state_.batch;
  if (barrier) batch.closed = true;
  if (status == STATUS_SUCCESS) {
    // R2.silent_success: no completion when the request succeeds.
    if (!(r.flags & NDK_OP_FLAG_SILENT_SUCCESS) || options_.broken_rule == "silent-success") {
      complete(name, c);
    } else {
      batch.quiet = true;
      batch.quiet_index = r.index;
    }
    return;
  }
  // A refused FastRegister or Bind keeps the object's tag: the consumer's token is the old
  // one again (R1.token.refused).
  if (r.op == Op::Bind || r.op == Op::FastRegister) {
    Mpt& m = state_.mpts.at(r.op == Op::Bind ? r.mw : r.mr);
    if (m.consumer_tag == r.new_tag) m.consumer_tag = m.tag;
  }
  // A failure always completes (R2.silent_success.failure), then the QP is in error
  // (R4.error.flush_later).
  batch.failed = true;
  c.status = status;
  complete(name, c);
  enter_error(name);
}

// Bind (docs/behaviour.md, R5.bind.*), checks in order; any failure -> ACCESS_VIOLATION (MW
// bind error, R3.map.mw_bind). The first repeats the inline check (R4.inline.bind_remote_write)
// against the region's rights as they are when the Bind runs.
Verdict ReferenceModel::exec_bind(const std::string& name, const Request& r) {
  const Qp& qp = state_.qps.at(name);
  Mpt& mw = state_.mpts.at(r.mw);
  Mpt& mr = state_.mpts.at(r.mr);
  const CheckList list = CheckList::Bind;
  if ((r.flags & kRemoteWriteBit) && !(mr.rights & kLocalWrite)) return failed(list, 0);
  if (mw.valid) return failed(list, 1);  // rebinding without invalidating
  // The region is named by its token as the consumer knows it: a stale one fails (R6.stale;
  // after a failed FastRegister the consumer's tag is one the region never got).
  if (mr.kind == MptKind::Mw || !mr.valid || uint8_t(r.mr_token) != mr.tag)
    return failed(list, 2);
  if (mw.pd != qp.pd || mr.pd != qp.pd) return failed(list, 3);
  if (r.remote_addr == 0) return failed(list, 4);
  if (!inside(r.remote_addr, r.length, mr.base_va, mr.length)) return failed(list, 5);
  if (!(r.flags & (NDK_OP_FLAG_ALLOW_REMOTE_READ | kRemoteWriteBit)))
    return failed(list, 6);  // no remote right asked for
  // Success: VALID with the new tag, bound to this QP; the window's own rights.
  mw.valid = true;
  mw.tag = r.new_tag;
  mw.bound_qp = name;
  mw.region = r.mr;
  mw.base_va = r.remote_addr;
  mw.length = r.length;
  mw.zero_based = r.zero_based;
  mw.rights = (r.flags & NDK_OP_FLAG_ALLOW_REMOTE_READ ? kRemoteRead : 0) |
              (r.flags & kRemoteWriteBit ? kRemoteWrite : 0);
  ++mr.bound_windows;
  return Verdict{STATUS_SUCCESS, RuleId::R5_bind_token_on_return};
}

// FastRegister (docs/behaviour.md, R5.fr.*), checks in order; any failure -> ACCESS_VIOLATION.
// The first repeats the inline check (R4.inline.fr_remote_access); the page list's alignment
// comes last, as the device reads the list only once its count has passed.
Verdict ReferenceModel::exec_fast_register(const std::string& name, const Request& r) {
  const Qp& qp = state_.qps.at(name);
  Mpt& mr = state_.mpts.at(r.mr);
  const uint64_t count = r.pages.size();
  const CheckList list = CheckList::FastRegister;
  if ((r.flags & (NDK_OP_FLAG_ALLOW_REMOTE_READ | kRemoteWriteBit)) &&
      mr.kind == MptKind::FastMr && mr.fr_initialized && !mr.fr_remote_access)
    return failed(list, 0);
  if (mr.kind != MptKind::FastMr) return failed(list, 1);
  if (mr.valid) return failed(list, 2);
  if (mr.pd != qp.pd) return failed(list, 3);
  if (!mr.fr_initialized || count == 0 || count > mr.fr_capacity) return failed(list, 4);
  // BaseVA % PAGE_SIZE == FBO: BaseVA 0 is valid exactly when FBO is 0.
  if (r.fbo >= kPageSize || r.base_va % kPageSize != r.fbo) return failed(list, 5);
  if (r.length > count * kPageSize - r.fbo) return failed(list, 6);
  // ALLOW_REMOTE_WRITE carries LOCAL_WRITE (R2.remote_write_implies_local).
  if ((r.flags & kRemoteWriteBit) && !(r.flags & NDK_OP_FLAG_ALLOW_LOCAL_WRITE))
    return failed(list, 7);
  for (const Page& page : r.pages) {
    if (page.offset % kPageSize != 0) return failed(list, 8);  // misaligned page
  }
  for (const Page& page : r.pages) {
    if (page.buffer.empty())
      throw RefUnsupported("a fast-register page array naming memory outside every buffer");
  }
  // Success: VALID with the new tag; the request's flags are the region's rights.
  mr.valid = true;
  mr.tag = r.new_tag;
  mr.rights = (r.flags & NDK_OP_FLAG_ALLOW_LOCAL_WRITE ? kLocalWrite : 0) |
              (r.flags & NDK_OP_FLAG_ALLOW_REMOTE_READ ? kRemoteRead : 0) |
              (r.flags & kRemoteWriteBit ? kRemoteWrite : 0) |
              (r.flags & NDK_OP_FLAG_RDMA_READ_SINK ? kReadSink : 0);
  mr.base_va = r.base_va;
  mr.length = r.length;
  mr.fbo = r.fbo;
  mr.pages = r.pages;
  return Verdict{STATUS_SUCCESS, RuleId::R5_fr_success};
}

// Invalidate (R5.inv.*; also SendAndInvalidate at the receiver and RDMA_READ_LOCAL_INVALIDATE),
// on QP `qp`, in order: only fast-register regions and windows, VALID, the current token where
// one is carried, a region without bound windows, then InfiniBand's QP and PD rule
// (R5.inv.pd_qp; the NDK pages are silent): the object is in the QP's PD, and a window is
// invalidated through the QP it is bound to (a type 2B window). Success: FREE; a window lets
// go of its region.
Verdict ReferenceModel::invalidate(const std::string& qp, uint32_t token, bool by_object) {
  const Qp& on = state_.qps.at(qp);
  const Mpt* found = object_of(on.node, token);
  const CheckList list = CheckList::Invalidate;
  if (!found || found->kind == MptKind::Mr) return failed(list, 0);
  Mpt& m = state_.mpts.at(found->name);
  if (!m.valid) return failed(list, 1);
  // The Invalidate verb names the object (its tag is not checked); a token carried by
  // SendAndInvalidate or RDMA_READ_LOCAL_INVALIDATE must be current (R5.inv.token).
  if (!by_object && uint8_t(token) != m.tag) return failed(list, 2);
  if (m.kind == MptKind::FastMr && m.bound_windows > 0) return failed(list, 3);
  if (m.pd != on.pd || (m.kind == MptKind::Mw && m.bound_qp != qp)) return failed(list, 4);
  m.valid = false;
  if (m.kind == MptKind::Mw) {
    --state_.mpts.at(m.region).bound_windows;
    m.bound_qp.clear();
    m.region.clear();
  }
  return Verdict{STATUS_SUCCESS, RuleId::R5_inv_success};
}

// Read and Write (R5.read.*, R5.write.*): the requester's checks, then the responder's; data
// moves only after every check passed (R6.no_touch).
Verdict ReferenceModel::exec_rdma(const std::string& name, const Request& r) {
  const Qp& qp = state_.qps.at(name);
  const bool write = r.op == Op::Write;
  const bool inline_data = write && (r.flags & NDK_OP_FLAG_INLINE);
  const uint64_t total = total_of(r.sgl);
  // Sinks need local write and, unless the adapter says otherwise, RDMA_READ_SINK; a write's
  // sources need only local read, which is always granted (R2.mr.local_read).
  const uint32_t rights =
      write ? 0
            : kLocalWrite |
                  (adapter_flags_ & NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED ? 0 : kReadSink);
  if (!inline_data) {
    for (const Sge& sge : r.sgl) {
      // An SGE of zero bytes names no memory: not checked (R5.read.sink.zero_length; a
      // write's sources likewise, as InfiniBand does not validate zero-length data segments).
      if (sge.length == 0) continue;
      const Verdict local =
          check_local(qp, sge, rights, write ? CheckList::Source : CheckList::ReadSink);
      if (!local.ok()) return local;
    }
  }
  const Qp& peer = state_.qps.at(qp.peer);
  // A QP in the error state drops what arrives: the requester's retries run out
  // (R5.peer_error, R3.map.rnr: IO_TIMEOUT, "lost peer").
  if (peer.error) return Verdict{STATUS_IO_TIMEOUT, RuleId::R5_peer_error};
  std::vector<Footprint> remote;
  if (total > 0) {  // a zero-length transfer skips the key checks
    const Verdict checked = check_remote(qp.peer, r.remote_token, r.remote_addr, total,
                                         write ? kRemoteWrite : kRemoteRead);
    if (!checked.ok()) {
      enter_error(qp.peer);  // both QPs to error, the responder's receives flushed
      return checked;
    }
    remote = pieces(*object_of(peer.node, r.remote_token), r.remote_addr, total);
  }
  if (write) {
    scatter(remote, inline_data ? r.inline_data : gather(local_pieces(qp, r.sgl)));
  } else {
    scatter(local_pieces(qp, r.sgl), gather(remote));  // the sinks in order
  }
  // RDMA_READ_LOCAL_INVALIDATE (adapter capability; ignored otherwise): the read then
  // invalidates its first sink's token; failing that is a local protection error. The first
  // sink is the first SGE with bytes: zero-length SGEs name no memory (as above).
  if (!write && (r.flags & NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE) &&
      (adapter_flags_ & NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED)) {
    for (const Sge& sge : r.sgl) {
      if (sge.length == 0) continue;
      const Verdict invalidated = invalidate(name, sge.token);
      return invalidated.ok() ? Verdict{} : invalidated;
    }
  }
  return Verdict{STATUS_SUCCESS, write ? RuleId::R5_write_success : RuleId::None};
}

// Send / Receive / SendAndInvalidate (R5.send.*, R5.recv.key, R5.send_inv.*). The receive's
// completion and the sender's name the same rule.
Verdict ReferenceModel::exec_send(const std::string& name, const Request& r) {
  const Qp& qp = state_.qps.at(name);
  const bool inline_data = (r.flags & NDK_OP_FLAG_INLINE) != 0;
  if (!inline_data) {
    for (const Sge& sge : r.sgl) {
      if (sge.length == 0) continue;  // zero-length SGEs unchecked, as for reads
      const Verdict local = check_local(qp, sge, 0, CheckList::Source);
      if (!local.ok()) return local;
    }
  }
  Qp& peer = state_.qps.at(qp.peer);
  if (peer.error) return Verdict{STATUS_IO_TIMEOUT, RuleId::R5_peer_error};
  // No receive posted: retries, then IO_TIMEOUT; the receiver is untouched.
  if (peer.receives.empty()) return Verdict{STATUS_IO_TIMEOUT, RuleId::R5_send_no_receive};
  const Receive receive = peer.receives.front();
  peer.receives.pop_front();
  const std::vector<uint8_t> data = inline_data ? r.inline_data : gather(local_pieces(qp, r.sgl));
  Completion c{
      STATUS_SUCCESS, NdkOperationTypeReceive, receive.context, peer.context, 0, 0, qp.peer, false,
      receive.index};
  Verdict verdict{STATUS_SUCCESS, RuleId::R5_send_success};
  if (data.size() > total_of(receive.sgl)) {
    // Receive buffer too small: the receiver's local length error, the sender's remote
    // invalid request (R3.map.local_length, R3.map.remote_op).
    c.status = STATUS_DATA_OVERRUN;
    verdict = Verdict{STATUS_DATA_ERROR, RuleId::R5_send_overrun};
  } else {
    // The receive SGEs the data reaches follow the local key rules with local write.
    std::vector<Sge> used;
    uint64_t left = data.size();
    for (const Sge& sge : receive.sgl) {
      if (left == 0) break;
      if (sge.length == 0) continue;
      const Verdict key = check_local(peer, sge, kLocalWrite, CheckList::ReceiveSge);
      if (!key.ok()) {
        c.status = STATUS_ACCESS_VIOLATION;
        verdict = Verdict{STATUS_DATA_ERROR, key.rule};
        break;
      }
      used.push_back(sge);
      used.back().length = uint32_t(std::min<uint64_t>(sge.length, left));
      left -= used.back().length;
    }
    if (verdict.ok()) {
      scatter(local_pieces(peer, used), data);
      c.bytes = uint32_t(data.size());
      if (r.invalidate_token) {
        // An invalid token fails the receiver's QP (R5.send_inv.invalid); the data has landed.
        const Verdict invalidated = invalidate(qp.peer, *r.invalidate_token);
        if (!invalidated.ok()) {
          c.status = STATUS_ACCESS_VIOLATION;
          verdict = Verdict{STATUS_DATA_ERROR, invalidated.rule};
        } else {
          c.type = NdkOperationTypeReceiveAndInvalidate;
          c.type_specific = *r.invalidate_token;
          verdict.rule = RuleId::R5_send_inv_success;
        }
      }
    }
  }
  c.rule = verdict.rule;
  complete(qp.peer, c);
  if (c.status != STATUS_SUCCESS) enter_error(qp.peer);
  return verdict;
}

}  // namespace rnic::app
