// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/rnic.h"

namespace rnic {

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
      endpoint("endpoint"),
      doorbells("doorbells", config.timing, config.sim),
      context("context", config.context, icm_, config.timing.clock_mhz),
      fetcher("fetcher", config, icm_),
      protection("protection", config, icm_),
      mtt("mtt", config, icm_),
      dma_read("dma_read", config.pcie, config.dma, config.timing.clock_mhz),
      dma_write("dma_write"),
      requester("requester", config, icm_, node_id),
      responder("responder", config, icm_, node_id),
      completion("completion", config, icm_),
      port("port", config),
      bench("bench") {
  // Outside faces (hierarchical binding).
  mmio_tsock.bind(doorbells.mmio_tsock);
  endpoint.pcie_isock.bind(pcie_isock);
  port.wire_isock.bind(net_isock);
  net_tsock.bind(port.wire_tsock);
  bench_tsock.bind(bench.control_tsock);
  bench.read_isock.bind(dma_read.read_tsock);

  // Doorbells and context changes.
  doorbells.fetcher_isock.bind(fetcher.doorbell_tsock);
  doorbells.completion_isock.bind(completion.doorbell_tsock);
  doorbells.responder_isock.bind(responder.doorbell_tsock);
  doorbells.ctrl_isock.bind(context.ctrl_tsock);
  doorbells.ctrl_isock.bind(fetcher.ctrl_tsock);
  doorbells.ctrl_isock.bind(protection.ctrl_tsock);
  doorbells.ctrl_isock.bind(mtt.ctrl_tsock);
  doorbells.ctrl_isock.bind(requester.ctrl_tsock);
  doorbells.ctrl_isock.bind(responder.ctrl_tsock);
  doorbells.ctrl_isock.bind(completion.ctrl_tsock);

  // The one QP/CQ context cache, asked by the fetcher, both engines and the completion engine.
  fetcher.context_isock.bind(context.lookup_tsock);
  requester.context_isock.bind(context.lookup_tsock);
  responder.context_isock.bind(context.lookup_tsock);
  completion.context_isock.bind(context.lookup_tsock);

  // Every DMA master goes through the PCIe endpoint.
  context.dma_isock.bind(endpoint.dma_tsock);
  fetcher.dma_isock.bind(endpoint.dma_tsock);
  protection.dma_isock.bind(endpoint.dma_tsock);
  mtt.dma_isock.bind(endpoint.dma_tsock);
  dma_read.dma_isock.bind(endpoint.dma_tsock);
  dma_write.dma_isock.bind(endpoint.dma_tsock);
  requester.dma_isock.bind(endpoint.dma_tsock);
  responder.dma_isock.bind(endpoint.dma_tsock);
  completion.dma_isock.bind(endpoint.dma_tsock);

  // Send side.
  fetcher.work_isock.bind(requester.work_tsock);
  requester.check_isock.bind(protection.check_tsock);
  requester.xlate_isock.bind(mtt.xlate_tsock);
  requester.write_isock.bind(dma_write.write_tsock);
  requester.read_isock.bind(dma_read.read_tsock);
  requester.tx_isock.bind(port.tx_tsock);
  requester.cq_isock.bind(completion.cqe_tsock);

  // Receive side.
  port.request_isock.bind(responder.request_tsock);
  port.response_isock.bind(requester.response_tsock);
  responder.check_isock.bind(protection.check_tsock);
  responder.xlate_isock.bind(mtt.xlate_tsock);
  responder.read_isock.bind(dma_read.read_tsock);
  responder.write_isock.bind(dma_write.write_tsock);
  responder.tx_isock.bind(port.tx_tsock);
  responder.qp_event_isock.bind(requester.qp_event_tsock);
  requester.qp_event_isock.bind(responder.qp_event_tsock);
  responder.cq_isock.bind(completion.cqe_tsock);
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
       {&endpoint.stats, &doorbells.stats, &context.stats, &fetcher.stats, &protection.stats, &mtt.stats,
        &dma_read.stats, &dma_write.stats, &requester.stats, &responder.stats, &completion.stats,
        &port.stats, &bench.stats}) {
    visit(*group);
  }
}

void Rnic::visit_stats(const StatVisitor& visit) const {
  visit_groups([&](const StatGroup& group) {
    for (const Counter& c : group.counters()) visit(group.owner(), c);
  });
}

}  // namespace rnic
