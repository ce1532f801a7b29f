// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/rnic.h"

namespace rnic {

namespace {

// Each unit gets its own parameter struct, cut from the device's (RnicConfig: what a scenario
// sets). The unit sees only what it uses.
Doorbells::Config doorbells_config(const RnicConfig& c) {
  return {c.timing.clock_mhz, c.timing.doorbell_cycles, c.timing.doorbell_ii_cycles, c.sim.fast};
}
QpContext::Config context_config(const RnicConfig& c) { return {c.context, c.timing.clock_mhz}; }
WqeFetcher::Config fetcher_config(const RnicConfig& c) {
  return {c.wqe, c.timing.clock_mhz, c.sim.fast};
}
ProtectionChecker::Config protection_config(const RnicConfig& c) {
  return {c.mpt, c.protection.implementation, c.timing.clock_mhz, c.sim.fast};
}
Mtt::Config mtt_config(const RnicConfig& c) { return {c.mtt, c.timing.clock_mhz, c.sim.fast}; }
DmaReadEngine::Config dma_read_config(const RnicConfig& c) {
  return {c.pcie.max_read_tags, c.pcie.mrrs_bytes, c.dma, c.timing.clock_mhz};
}
Requester::Config requester_config(const RnicConfig& c) {
  return {c.qp, c.adapter_flags, c.timing.clock_mhz, c.sim.fast};
}
Responder::Config responder_config(const RnicConfig& c) {
  return {c.qp, c.responder, c.timing.clock_mhz, c.timing.responder_cycles,
          c.timing.responder_ii_cycles, c.sim.fast};
}
CompletionEngine::Config completion_config(const RnicConfig& c) {
  return {c.timing.clock_mhz, c.timing.completion_cycles, c.timing.completion_ii_cycles,
          c.sim.fast};
}
Port::Config port_config(const RnicConfig& c) { return {c.port, c.timing.clock_mhz, c.sim.fast}; }

}  // namespace

template <typename From, typename To>
void Rnic::bind(From& from, To& to) {
  from.bind(to);
  // Names relative to the Rnic: "requester.check_isock", "mmio_tsock".
  const size_t prefix = std::string(name()).size() + 1;
  bindings_.push_back(
      {std::string(from.name()).substr(prefix), std::string(to.name()).substr(prefix)});
}

Rnic::Rnic(sc_core::sc_module_name name, const RnicConfig& config, uint32_t node_id)
    : sc_module(name),
      mmio_tsock("mmio_tsock"),
      pcie_isock("pcie_isock"),
      net_isock("net_isock"),
      net_tsock("net_tsock"),
      bench_tsock("bench_tsock"),
      config_(config),
      icm_(IcmLayout::from(config.qp)),
      node_id_(node_id),
      clock("clock"),
      endpoint("endpoint", &clock),
      doorbells("doorbells", doorbells_config(config), &clock),
      context("context", context_config(config), icm_, &clock),
      fetcher("fetcher", fetcher_config(config), icm_, &clock),
      protection("protection", protection_config(config), icm_, &clock),
      mtt("mtt", mtt_config(config), icm_, &clock),
      dma_read("dma_read", dma_read_config(config), &clock),
      dma_write("dma_write", &clock),
      requester("requester", requester_config(config), node_id, &clock),
      responder("responder", responder_config(config), icm_, node_id, &clock),
      completion("completion", completion_config(config), icm_, &clock),
      port("port", port_config(config), &clock),
      bench("bench") {
  // Outside faces (hierarchical binding).
  bind(mmio_tsock, doorbells.mmio_tsock);
  bind(endpoint.pcie_isock, pcie_isock);
  bind(port.wire_isock, net_isock);
  bind(net_tsock, port.wire_tsock);
  bind(bench_tsock, bench.control_tsock);
  bind(bench.read_isock, dma_read.read_tsock);

  // Doorbells and context changes.
  bind(doorbells.fetcher_isock, fetcher.doorbell_tsock);
  bind(doorbells.completion_isock, completion.doorbell_tsock);
  bind(doorbells.responder_isock, responder.doorbell_tsock);
  bind(doorbells.ctrl_isock, context.ctrl_tsock);
  bind(doorbells.ctrl_isock, fetcher.ctrl_tsock);
  bind(doorbells.ctrl_isock, protection.ctrl_tsock);
  bind(doorbells.ctrl_isock, mtt.ctrl_tsock);
  bind(doorbells.ctrl_isock, requester.ctrl_tsock);
  bind(doorbells.ctrl_isock, responder.ctrl_tsock);
  bind(doorbells.ctrl_isock, completion.ctrl_tsock);

  // The one QP/CQ context cache, asked by the fetcher, the responder and the completion engine
  // (the requester gets the QP context with each WQE from the fetcher).
  bind(fetcher.context_isock, context.lookup_tsock);
  bind(responder.context_isock, context.lookup_tsock);
  bind(completion.context_isock, context.lookup_tsock);

  // Every DMA master goes through the PCIe endpoint.
  bind(context.dma_isock, endpoint.dma_tsock);
  bind(fetcher.dma_isock, endpoint.dma_tsock);
  bind(protection.dma_isock, endpoint.dma_tsock);
  bind(mtt.dma_isock, endpoint.dma_tsock);
  bind(dma_read.dma_isock, endpoint.dma_tsock);
  bind(dma_write.dma_isock, endpoint.dma_tsock);
  bind(responder.dma_isock, endpoint.dma_tsock);
  bind(completion.dma_isock, endpoint.dma_tsock);

  // Send side.
  bind(fetcher.work_isock, requester.work_tsock);
  bind(requester.ready_isock, fetcher.ready_tsock);
  bind(requester.check_isock, protection.check_tsock);
  bind(requester.xlate_isock, mtt.xlate_tsock);
  bind(requester.write_isock, dma_write.write_tsock);
  bind(requester.read_isock, dma_read.read_tsock);
  bind(requester.tx_isock, port.tx_tsock);
  bind(requester.cq_isock, completion.cqe_tsock);

  // Receive side.
  bind(port.request_isock, responder.request_tsock);
  bind(port.response_isock, requester.response_tsock);
  bind(responder.check_isock, protection.check_tsock);
  bind(responder.xlate_isock, mtt.xlate_tsock);
  bind(responder.read_isock, dma_read.read_tsock);
  bind(responder.write_isock, dma_write.write_tsock);
  bind(responder.tx_isock, port.tx_tsock);
  bind(responder.qp_event_isock, requester.qp_event_tsock);
  bind(requester.qp_event_isock, responder.qp_event_tsock);
  bind(responder.cq_isock, completion.cqe_tsock);

  // The benchmark's translated reads ask the MTT third (its statistics count by caller).
  bind(bench.xlate_isock, mtt.xlate_tsock);
}

void Rnic::attach_decisions(DecisionSink* sink) {
  protection.attach_decisions(sink, node_id_);
  mtt.attach_decisions(sink, node_id_);
}

void Rnic::attach_trace(TraceSink* sink) {
  // Tracks are created in pipeline order: a viewer lists them so.
  fetcher.attach_trace(sink, node_id_);
  context.attach_trace(sink);
  requester.attach_trace(sink, dma_read.name());
  protection.attach_trace(sink);
  mtt.attach_trace(sink);
  dma_write.attach_trace(sink);
  port.attach_trace(sink);
  responder.attach_trace(sink, dma_read.name());
  completion.attach_trace(sink);
}

void Rnic::visit_groups(const StatGroupVisitor& visit) const {
  for (const StatGroup* group :
       {&endpoint.stats, &doorbells.stats, &context.stats, &fetcher.stats, &protection.stats,
        &mtt.stats, &dma_read.stats, &dma_write.stats, &requester.stats, &responder.stats,
        &completion.stats, &port.stats, &bench.stats}) {
    visit(*group);
  }
}

void Rnic::visit_stats(const StatVisitor& visit) const {
  visit_groups([&](const StatGroup& group) {
    for (const Counter& c : group.counters()) visit(group.owner(), c);
  });
}

}  // namespace rnic
