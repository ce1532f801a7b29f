// SPDX-License-Identifier: Apache-2.0
// Executors of the control ops and verbs: each turns one step into one Adapter call and
// checks the inline status against the step's `expect`.
#include <vector>

#include "app/runner/context.h"
#include "app/scenario/text.h"

namespace rnic::app {

namespace {

host::BufferFill buffer_fill(Fill fill) {
  switch (fill) {
    case Fill::Incrementing:
      return host::BufferFill::Incrementing;
    case Fill::Random:
      return host::BufferFill::Random;
    case Fill::Byte:
      return host::BufferFill::Byte;
    default:
      return host::BufferFill::Zero;
  }
}

// Records a created object; a failed creation (expected or not) still records the name so
// later references resolve to an invalid handle, as a real consumer's would.
void remember(RunContext& ctx, const Step& step, ObjectKind kind, uint32_t handle) {
  RtObject o;
  o.kind = kind;
  o.node = step.node_index;
  o.handle = handle;
  ctx.objects[step.name] = o;
}

}  // namespace

void exec_alloc(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter(step.node_index);
  RtObject o;
  o.kind = ObjectKind::Buffer;
  o.node = step.node_index;
  const uint32_t status = a.AllocBuffer(step.size, uint32_t(step.page_size), step.scatter,
                                        buffer_fill(step.fill), step.fill_byte, &o.buffer);
  ctx.objects[step.name] = o;
  ctx.check_status(step, status, a, result);
}

void exec_create_pd(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter(step.node_index);
  host::PdHandle pd = 0;
  const uint32_t status = a.CreatePd(&pd);
  remember(ctx, step, ObjectKind::Pd, pd);
  ctx.check_status(step, status, a, result);
}

void exec_create_cq(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter(step.node_index);
  host::CqHandle cq = 0;
  const uint32_t status = a.CreateCq(uint32_t(step.depth), &cq);
  remember(ctx, step, ObjectKind::Cq, cq);
  ctx.check_status(step, status, a, result);
}

void exec_create_qp(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter(step.node_index);
  const QpConfig& limits = ctx.scenario.config.rnic.qp;
  // ORD/IRD default to the adapter's limits, as a consumer reading NDK_ADAPTER_INFO would pick.
  const uint32_t ord = uint32_t(step.ord.value_or(limits.max_ord));
  const uint32_t ird = uint32_t(step.ird.value_or(limits.max_ird));
  host::QpHandle qp = 0;
  const uint32_t status =
      a.CreateQp(ctx.handle(step.pd), ctx.handle(step.cq), uint32_t(step.send_depth),
                 uint32_t(step.recv_depth), ord, ird, ctx.resolve(step.context), &qp);
  remember(ctx, step, ObjectKind::Qp, qp);
  ctx.check_status(step, status, a, result);
}

void exec_connect(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter_of(step.qp);
  host::Adapter& b = ctx.adapter_of(step.peer);
  const uint32_t status = host::Adapter::Connect(a, ctx.handle(step.qp), b, ctx.handle(step.peer));
  ctx.check_status(step, status, a, result);
}

void exec_create_mr(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter(step.node_index);
  host::MrHandle mr = 0;
  uint32_t status = a.CreateMr(ctx.handle(step.pd), step.fast_register, &mr);
  // A fast-register MR is initialised with its page capacity in the same step.
  if (status == ndk::STATUS_SUCCESS && step.fast_register) {
    // No `pages`: the adapter's FRMRPageCount, what a consumer reading NDK_ADAPTER_INFO picks.
    const uint32_t pages = step.pages ? uint32_t(step.pages) : a.QueryAdapterInfo().FRMRPageCount;
    status = a.InitializeFastRegisterMr(mr, pages, step.remote_access);
  }
  remember(ctx, step, ObjectKind::Mr, mr);
  ctx.check_status(step, status, a, result);
}

void exec_register_mr(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter_of(step.mr);
  host::AsyncRequest* async = nullptr;
  if (step.async) {
    // A call still in flight keeps its request (the device thread writes into it).
    auto& slot = ctx.async_calls[step.mr];
    if (slot && !slot->done)
      throw StepInvalid(JsonPath(), "MR " + step.mr + " has an asynchronous call in flight");
    slot = std::make_unique<host::AsyncRequest>();
    async = slot.get();
  }
  const uint32_t status =
      a.RegisterMr(ctx.handle(step.mr), ctx.object(step.buffer).buffer, ctx.resolve(step.offset),
                   ctx.resolve(step.length), step.flags, step.zero_based, async);
  if (async && status != ndk::STATUS_PENDING) ctx.async_calls.erase(step.mr);  // not started
  ctx.check_status(step, status, a, result);
}

void exec_deregister_mr(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter_of(step.mr);
  ctx.check_status(step, a.DeregisterMr(ctx.handle(step.mr)), a, result);
}

void exec_create_mw(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter(step.node_index);
  host::MwHandle mw = 0;
  const uint32_t status = a.CreateMw(ctx.handle(step.pd), &mw);
  remember(ctx, step, ObjectKind::Mw, mw);
  ctx.check_status(step, status, a, result);
}

namespace {

// The step name of QP `qpn` on `node`, or its number.
std::string qp_name(const RunContext& ctx, uint32_t node, uint32_t qpn) {
  for (const auto& [name, o] : ctx.objects) {
    if (o.kind == ObjectKind::Qp && o.node == node && o.handle == qpn) return name;
  }
  return "QP " + std::to_string(qpn);
}

// A bind that waits (R5.bind.executes_in_order; the `bind` step's "wait": true) ends once the
// device has decided it: run it (the window's table entry shows its tag), or completed it
// without effect, refused or flushed (its completion is in the CQ ring, for the file's poll).
// The CPU spins on what the device writes when it decides (the table entry, the CQ ring), so
// the wait has no time limit: every request ahead of the bind completes or fails in bounded
// time. One outcome is a wait that could not end as the file meant: a Send ahead of the bind
// with no receive at its peer, which a later step cannot post while this one waits, ends
// IO_TIMEOUT and flushes the bind; the step fails naming that send.
void wait_for_bind(RunContext& ctx, const Step& step, host::Adapter& a, uint32_t qp, uint32_t mw,
                   bool error_known, StepResult& result) {
  using Progress = host::Adapter::BindProgress;
  if (a.BindState(mw) == Progress::Held) a.SubmitDeferred(qp);  // waiting submits DEFER's hold
  const uint32_t node = ctx.object(step.qp).node;
  HostMemory& memory = ctx.system.node(node).memory;
  Progress state = a.BindState(mw);
  if (state == Progress::Posted) {
    for (const host::Adapter::MemoryRange& r : a.BindSignals(mw)) memory.watch(r.address, r.length);
    while ((state = a.BindState(mw)) == Progress::Posted) sc_core::wait(memory.written_event());
    memory.unwatch();
    // The spinning CPU sees the line this long after it lands (host.poll_ns).
    sc_core::wait(
        sc_core::sc_time(double(ctx.scenario.config.host_memory.poll_ns), sc_core::SC_NS));
  }
  ndk::NDK_RESULT_EX first;
  if (state != Progress::Completed || error_known || !a.QueuedError(qp, &first)) return;
  uint32_t peer_node = 0, peer_qpn = 0;
  if (first.Type != ndk::NdkOperationTypeSend || first.Status != ndk::STATUS_IO_TIMEOUT ||
      !a.QpPeer(qp, &peer_node, &peer_qpn))
    return;
  const uint64_t sends = a.SendsPosted(qp);
  const uint64_t receives = ctx.adapter(peer_node).ReceivesPosted(peer_qpn);
  if (receives >= sends) return;  // the send found its peer in error, not without a receive
  const std::string peer = qp_name(ctx, peer_node, peer_qpn);
  fail_step(result, "the Bind run on the device", "flushed (STATUS_CANCELLED) before it ran",
            "the Bind was flushed before it ran: the Send (context " +
                std::to_string(first.RequestContext) + ") ahead of it on " + step.qp +
                " ended STATUS_IO_TIMEOUT, as " + peer + " had no receive posted for it (" +
                step.qp + " has posted " + std::to_string(sends) + " sends, " + peer + " " +
                std::to_string(receives) +
                " receives). A receive that a later step posts comes too late for a bind that "
                "waits: post it before the bind, or give the bind \"wait\": false");
}

}  // namespace

void exec_bind(RunContext& ctx, const Step& step, StepResult& result) {
  host::Adapter& a = ctx.adapter_of(step.qp);
  const uint32_t qp = ctx.handle(step.qp);
  const uint32_t mr = ctx.handle(step.mr);
  const uint32_t mw = ctx.handle(step.mw);
  // `offset` counts from the MR's base VA; `va` is absolute (for out-of-range negatives).
  const uint64_t va =
      step.va ? ctx.resolve(*step.va) : a.ObjectBaseVa(mr) + ctx.resolve(step.offset);
  const bool error_known = a.QpErrorKnown(qp);
  uint32_t status;
  if (step.zero_based) {
    // The user-mode Bind: the descriptor it returns is what the peer addresses the window by.
    ndk::ND_MW_DESCRIPTOR descriptor;
    status = a.NdBind(qp, ctx.resolve(step.context), mr, mw, va, ctx.resolve(step.length),
                      step.flags, &descriptor);
    if (status == ndk::STATUS_SUCCESS) {
      RtObject& window = ctx.objects.at(step.mw);
      window.has_descriptor = true;
      window.descriptor = descriptor;
    }
  } else {
    status =
        a.NdkBind(qp, ctx.resolve(step.context), mr, mw, va, ctx.resolve(step.length), step.flags);
  }
  if (!ctx.check_status(step, status, a, result)) return;
  if (status == ndk::STATUS_SUCCESS && step.wait)
    wait_for_bind(ctx, step, a, qp, mw, error_known, result);
}

// SGEs of a data verb: {mr, offset, length} names the MR's base VA and local token.
std::vector<ndk::NDK_SGE> build_sgl(RunContext& ctx, const Step& step) {
  std::vector<ndk::NDK_SGE> sgl;
  for (const SgeSpec& spec : step.sgl) {
    ndk::NDK_SGE sge;
    if (!spec.mr.empty()) {
      host::Adapter& a = ctx.adapter_of(spec.mr);
      const uint32_t mr = ctx.handle(spec.mr);
      sge.Buffer = a.ObjectBaseVa(mr) + ctx.resolve(spec.offset);
      sge.MemoryRegionToken = a.GetLocalTokenFromMr(mr);
    } else {
      sge.Buffer = ctx.resolve(spec.address);
      sge.MemoryRegionToken = ctx.resolve32(spec.token);
    }
    sge.BufferLength = ctx.resolve32(spec.length);
    sgl.push_back(sge);
  }
  return sgl;
}

// Remote side: {target, offset} -> the target's base VA + offset and its current remote token.
void resolve_remote(RunContext& ctx, const RemoteSpec& remote, uint64_t* address, uint32_t* token) {
  if (remote.target.empty()) {
    *address = ctx.resolve(remote.address);
    *token = ctx.resolve32(remote.token);
    return;
  }
  const RtObject& o = ctx.object(remote.target);
  host::Adapter& a = ctx.adapter(o.node);
  *address = a.ObjectBaseVa(o.handle) + ctx.resolve(remote.offset);
  *token = o.kind == ObjectKind::Mw ? a.GetRemoteTokenFromMw(o.handle)
                                    : a.GetRemoteTokenFromMr(o.handle);
}

// Read and Write take the same fields: the local SGL and the remote side.
void exec_rdma(RunContext& ctx, const Step& step, StepResult& result, bool write) {
  host::Adapter& a = ctx.adapter_of(step.qp);
  const std::vector<ndk::NDK_SGE> sgl = build_sgl(ctx, step);
  const ndk::NDK_SGE* list = sgl.empty() ? nullptr : sgl.data();
  const uint32_t n = uint32_t(sgl.size());
  const uint64_t context = ctx.resolve(step.context);
  if (step.remote.descriptor) {
    // The user-mode Read/Write through the window's descriptor: an offset inside it.
    const RtObject& mw = ctx.object(step.remote.target);
    if (!mw.has_descriptor) {
      throw StepInvalid(step.remote.offset.path,
                        "MW " + step.remote.target +
                            " has no descriptor: bind it with \"zero_based\": true first");
    }
    const uint64_t offset = ctx.resolve(step.remote.offset);
    const uint32_t status =
        write ? a.NdWrite(ctx.handle(step.qp), context, list, n, mw.descriptor, offset, step.flags)
              : a.NdRead(ctx.handle(step.qp), context, list, n, mw.descriptor, offset, step.flags);
    ctx.check_status(step, status, a, result);
    return;
  }
  uint64_t address = 0;
  uint32_t token = 0;
  resolve_remote(ctx, step.remote, &address, &token);
  const uint32_t status =
      write ? a.NdkWrite(ctx.handle(step.qp), context, list, n, address, token, step.flags)
            : a.NdkRead(ctx.handle(step.qp), context, list, n, address, token, step.flags);
  ctx.check_status(step, status, a, result);
}

void exec_read(RunContext& ctx, const Step& step, StepResult& result) {
  exec_rdma(ctx, step, result, false);
}

}  // namespace rnic::app
