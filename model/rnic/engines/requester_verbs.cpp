// SPDX-License-Identifier: Apache-2.0
// The Requester's crossings for each verb: the checks, translations, DMA and packets the send
// engine's steps need, in the order of docs/behaviour.md.
#include "model/rnic/engines/requester.h"
#include "model/rnic/protection/protection_rules.h"

namespace rnic {

namespace {

Region region_of(const CheckedSge& sge) {
  return Region{sge.mtt_index, sge.page_shift, sge.page_base_va};
}

void set_region(CheckedSge& sge, const Region& region) {
  sge.mtt_index = region.mtt_index;
  sge.page_shift = region.page_shift;
  sge.page_base_va = region.page_base_va;
}

}  // namespace

Decision Requester::check_sgl(const WorkRequest& work, uint16_t access, CheckList checks,
                              SendRequest& request, uint64_t* total, sc_core::sc_time& delay) {
  const auto check = [&](const Sge& sge, CheckedSge* checked, uint64_t* generation) {
    ProtectionRequest req;
    req.op = ProtectionOp::LocalAccess;
    req.token = sge.token;
    req.pd = work.context.pd;
    req.qpn = work.qpn;
    req.va = sge.addr;
    req.length = sge.length;
    req.access = access;
    req.checks = checks;
    req.verb = data_verb(work.wqe.opcode);
    req.trace_id = request.trace_id;
    check_isock->check(req, delay);
    set_region(*checked, req.region);
    *generation = req.generation;
    return Decision{req.status, req.rule};
  };
  return engine_.check_sgl(request, work.wqe, work.context.pd, access, checks, total, check);
}

void Requester::execute_read(Qp& qp, uint64_t sequence, const WorkRequest& work,
                             sc_core::sc_time& delay, SendEngine::Actions& out) {
  // Sink checks (R5.read.sink.*, requester side): VALID local MR of this PD, local write,
  // inside the MR, and RDMA_READ_SINK unless the adapter does not require it.
  uint64_t total = 0;
  const Decision checked = check_sgl(work, engine_.sink_access(), CheckList::ReadSink,
                                     *SendEngine::find(qp, sequence), &total, delay);
  SendRequest* request = SendEngine::find(qp, sequence);
  const uint64_t now = now_ps();
  if (checked.failed()) {
    engine_.finish(qp, *request, checked, now, out);
    return;
  }
  const uint64_t ready = now + delay.value();
  const uint64_t sent = engine_.issue_read(qp, *request, work.context, total, ready, now);
  if (sent != ready) delay = ps(sent - now);  // held back by the ORD slots (fast mode)
  start_request(PacketKind::ReadRequest, work, sequence, total);
  tx_packet_.trace_id = request->trace_id;
  tx_packet_.payload.clear();
  ++reads_;
  tx_isock->packet(tx_packet_, delay);
}

void Requester::start_request(PacketKind kind, const WorkRequest& work, uint64_t sequence,
                              uint64_t length) {
  tx_packet_.kind = kind;
  tx_packet_.src_node = node_id_;
  tx_packet_.dst_node = work.context.peer_node;
  tx_packet_.src_qpn = work.qpn;
  tx_packet_.dst_qpn = work.context.peer_qpn;
  tx_packet_.sequence = sequence;
  tx_packet_.remote_addr = work.wqe.remote_addr;
  tx_packet_.remote_token = work.wqe.remote_token;
  tx_packet_.length = uint32_t(length);
  tx_packet_.syndrome = CqeStatus::Success;
  tx_packet_.rule = RuleId::None;
  tx_packet_.invalidate = false;
}

void Requester::execute_outbound(Qp& qp, uint64_t sequence, const WorkRequest& work,
                                 sc_core::sc_time& delay, SendEngine::Actions& out) {
  const Wqe& wqe = work.wqe;
  SendRequest* request = SendEngine::find(qp, sequence);
  uint64_t total = 0;
  if (wqe.is_inline()) {
    // INLINE (R2.inline): the payload was copied into the WQE at post time; there are no
    // SGEs, so no local key check and no DMA read of the source buffer.
    total = wqe.length;  // <= kMaxInlineBytes: wqe_well_formed() checked it
    tx_packet_.payload.assign(wqe.inline_data.begin(), wqe.inline_data.begin() + total);
  } else {
    // Source SGEs: local read is always granted, so only key, PD and range are checked.
    const Decision checked = check_sgl(work, 0, CheckList::Source, *request, &total, delay);
    if (checked.failed()) {
      engine_.finish(qp, *request, checked, now_ps(), out);
      return;
    }
    tx_packet_.payload.resize(total);
  }
  uint64_t offset = 0;
  for (uint32_t i = 0; i < request->sges; ++i) {
    const CheckedSge& source = request->sge[i];
    const bool translated = translate(source, request->trace_id, delay);
    const DmaAuthority authority = sge_authority(work.qpn, *request, source);
    DmaRequest read;
    read.authority = &authority;
    read.segments = &translate_.segments;
    read.data = tx_packet_.payload.data() + offset;
    read.trace_id = request->trace_id;
    if (translated) {
      const TraceScope slice(dma_read_trace_, "DMA read", request->trace_id, delay);
      read_isock->move(read, delay);
    }
    if (!translated || !read.ok) {  // a model error: no rule
      engine_.finish(qp, *request, Decision::fail(CqeStatus::LocalProtection, RuleId::None),
                     now_ps(), out);
      return;
    }
    offset += source.length;
  }
  const bool send = wqe.opcode == WqeOpcode::Send || wqe.opcode == WqeOpcode::SendInvalidate;
  start_request(send ? PacketKind::SendRequest : PacketKind::WriteRequest, work, sequence, total);
  tx_packet_.invalidate = wqe.opcode == WqeOpcode::SendInvalidate;
  tx_packet_.trace_id = request->trace_id;
  SendEngine::issue_outbound(*request, total);
  if (send) {
    request->retry = tx_packet_;  // kept for RNR retries
    ++sends_;
  } else {
    ++writes_;
  }
  tx_isock->packet(tx_packet_, delay);
}

bool Requester::translate(const CheckedSge& sge, uint64_t trace_id, sc_core::sc_time& delay) {
  translate_.region = region_of(sge);
  translate_.va = sge.va;
  translate_.length = sge.length;
  translate_.trace_id = trace_id;
  xlate_isock->translate(translate_, delay);
  return translate_.ok;
}

DmaAuthority Requester::sge_authority(uint32_t qpn, const SendRequest& request,
                                      const CheckedSge& sge) {
  DmaAuthority a;
  a.kind = DmaAuthority::Kind::Data;
  a.checks = request.sge_checks;
  a.verb = data_verb(request.opcode);
  a.access = request.sge_access;
  a.token = sge.token;
  a.pd = request.pd;
  a.qpn = qpn;
  a.va = sge.va;
  a.length = sge.length;
  a.trace_id = request.trace_id;
  return a;
}

Decision Requester::sinks_still_allowed(uint32_t qpn, SendRequest& request,
                                        sc_core::sc_time& delay) {
  if (request.sges == 0) return Decision::ok();
  // The sinks were checked in full when the read started. Their MRs may have been
  // deregistered, invalidated or re-registered since (R6.no_touch: no byte lands in memory the
  // token no longer allows): the checker's MPT generation says whether anything changed.
  ProtectionRequest recheck;
  recheck.op = ProtectionOp::Recheck;
  recheck.generation = request.mpt_generation;
  recheck.trace_id = request.trace_id;
  check_isock->check(recheck, delay);
  if (!recheck.mpt_changed) return Decision::ok();
  for (uint32_t i = 0; i < request.sges; ++i) {
    CheckedSge& sink = request.sge[i];
    ProtectionRequest check;
    check.op = ProtectionOp::LocalAccess;
    check.token = sink.token;
    check.pd = request.pd;
    check.qpn = qpn;
    check.va = sink.va;
    check.length = sink.length;
    check.access = request.sge_access;
    check.checks = request.sge_checks;
    check.verb = RequestVerb::Read;
    check.trace_id = request.trace_id;
    check_isock->check(check, delay);
    if (check.status != CqeStatus::Success) return {check.status, check.rule};
    set_region(sink, check.region);
  }
  return Decision::ok();
}

Decision Requester::land_response(uint32_t qpn, SendRequest& request, const Packet& packet,
                                  sc_core::sc_time& delay) {
  const Decision sinks = sinks_still_allowed(qpn, request, delay);
  if (sinks.failed()) return sinks;
  uint64_t offset = 0;
  for (uint32_t i = 0; i < request.sges; ++i) {
    const CheckedSge& sink = request.sge[i];
    if (!translate(sink, request.trace_id, delay))
      return Decision::fail(CqeStatus::LocalProtection, RuleId::None);
    const DmaAuthority authority = sge_authority(qpn, request, sink);
    DmaRequest write;
    write.authority = &authority;
    write.trace_id = request.trace_id;
    write.segments = &translate_.segments;
    write.data = const_cast<uint8_t*>(packet.payload.data()) + offset;
    write_isock->move(write, delay);
    if (!write.ok) return Decision::fail(CqeStatus::LocalProtection, RuleId::None);
    offset += sink.length;
  }
  read_bytes_ += offset;
  return Decision::ok();
}

Decision Requester::invalidate_first_sink(uint32_t qpn, const SendRequest& request,
                                          sc_core::sc_time& delay) {
  // RDMA_READ_LOCAL_INVALIDATE: the read's success invalidates its first sink's token.
  ProtectionRequest invalidate;
  invalidate.op = ProtectionOp::Invalidate;
  invalidate.token = request.first_sink_token;
  invalidate.pd = request.pd;
  invalidate.qpn = qpn;
  invalidate.verb = RequestVerb::ReadLocalInvalidate;
  invalidate.trace_id = request.trace_id;
  check_isock->check(invalidate, delay);
  if (invalidate.status != CqeStatus::Success) return {invalidate.status, invalidate.rule};
  return Decision::ok();
}

Decision Requester::execute_bind(const WorkRequest& work, sc_core::sc_time& delay) {
  const Wqe& wqe = work.wqe;
  ProtectionRequest bind;
  bind.trace_id = work.trace_id;
  bind.op = ProtectionOp::Bind;
  bind.token = wqe.remote_token;
  bind.mr_token = wqe.aux_token;
  bind.pd = work.context.pd;
  bind.qpn = work.qpn;
  bind.va = wqe.remote_addr;
  bind.length = wqe.length;
  bind.rights = access_from_op_flags(wqe.access) & (kAccessRemoteRead | kAccessRemoteWrite);
  bind.zero_based = wqe.zero_based ? 1 : 0;
  bind.verb = RequestVerb::Bind;
  check_isock->check(bind, delay);
  if (bind.status == CqeStatus::Success) ++binds_;
  return {bind.status, bind.rule};
}

Decision Requester::execute_fast_register(const WorkRequest& work, sc_core::sc_time& delay) {
  const Wqe& wqe = work.wqe;
  ProtectionRequest req;
  req.trace_id = work.trace_id;
  req.op = ProtectionOp::FastRegisterCheck;
  req.token = wqe.remote_token;
  req.pd = work.context.pd;
  req.qpn = work.qpn;
  req.va = wqe.remote_addr;
  req.length = wqe.length;
  req.rights = access_from_op_flags(wqe.access);
  req.page_count = wqe.page_count;
  req.fbo = wqe.fbo;
  req.verb = RequestVerb::FastRegister;
  check_isock->check(req, delay);
  if (req.status != CqeStatus::Success) return {req.status, req.rule};
  // The device reads the page array by DMA and writes the translation entries; an unaligned
  // page address, the last check, fails it there (R5.fr.page_align).
  PageListLoad load;
  load.page_list = wqe.page_list;
  load.count = wqe.page_count;
  load.mtt_index = req.region.mtt_index;
  load.page_shift = 12;
  load.trace_id = work.trace_id;
  DmaAuthority authority;
  authority.kind = DmaAuthority::Kind::PageList;
  authority.verb = RequestVerb::FastRegister;
  authority.token = wqe.remote_token;
  authority.pd = work.context.pd;
  authority.qpn = work.qpn;
  authority.va = wqe.page_list;
  authority.number = wqe.page_count;
  authority.trace_id = work.trace_id;
  load.authority = &authority;
  xlate_isock->load_page_list(load, delay);
  if (!load.ok) return Decision::fail(CqeStatus::LocalProtection, load.rule);
  req.op = ProtectionOp::FastRegisterCommit;
  check_isock->check(req, delay);
  if (req.status != CqeStatus::Success) return {req.status, req.rule};
  ++fast_registers_;
  return Decision::ok(RuleId::R5_fr_success);
}

Decision Requester::execute_invalidate(const WorkRequest& work, sc_core::sc_time& delay) {
  // Every earlier request of the QP has finished: the engine lets it start only then.
  ProtectionRequest req;
  req.trace_id = work.trace_id;
  req.op = ProtectionOp::Invalidate;
  req.token = work.wqe.remote_token;
  req.by_object = true;  // the Invalidate verb names the object (R5.inv.token)
  req.verb = RequestVerb::Invalidate;
  req.pd = work.context.pd;
  req.qpn = work.qpn;
  check_isock->check(req, delay);
  if (req.status == CqeStatus::Success) ++invalidates_;
  return {req.status, req.rule};
}

}  // namespace rnic
