// SPDX-License-Identifier: Apache-2.0
// The RNIC: instantiates its units and binds them; the only place that does. Outside, it has
// a PCIe face (BAR target, DMA initiator) and a network face (to and from the fabric).
#pragma once

#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/completion/completion_engine.h"
#include "model/rnic/device_clock.h"
#include "model/instruments/dma_bench.h"
#include "model/rnic/dma/dma_read_engine.h"
#include "model/rnic/dma/dma_write_engine.h"
#include "model/rnic/front/doorbells.h"
#include "model/rnic/front/qp_context.h"
#include "model/rnic/abi/icm.h"
#include "model/rnic/translation/mtt.h"
#include "model/rnic/dma/pcie_endpoint.h"
#include "model/rnic/net/port.h"
#include "model/rnic/protection/protection_checker.h"
#include "model/rnic/engines/requester.h"
#include "model/rnic/engines/responder.h"
#include "model/rnic/front/wqe_fetcher.h"
#include "tlm/stats.h"
#include "tlm/trace.h"

namespace rnic {

class Rnic : public sc_core::sc_module {
 public:
  tlm::tlm_target_socket<> mmio_tsock;     // BAR 0, from the PCIe link
  tlm::tlm_initiator_socket<> pcie_isock;  // DMA, to the PCIe link
  ProtocolInitiatorFace<WireProtocol> net_isock;  // packets to the fabric
  ProtocolTargetFace<WireProtocol> net_tsock;     // packets from the fabric
  ProtocolTargetFace<DmaBenchProtocol> bench_tsock;  // the DMA benchmark engine's control

  Rnic(sc_core::sc_module_name name, const RnicConfig& config, uint32_t node_id);

  const IcmLayout& icm() const { return icm_; }
  const RnicConfig& config() const { return config_; }
  void visit_stats(const StatVisitor& visit) const;
  // Every unit's stat group (counters, histograms, occupancies), in pipeline order.
  void visit_groups(const StatGroupVisitor& visit) const;
  // A socket binding inside the Rnic, by names relative to it ("requester.check_isock" to
  // "protection.check_tsock"; a face binds its unit's socket: "mmio_tsock" to
  // "doorbells.mmio_tsock"). In binding order; docs/architecture.md lists them, and
  // tests/tlm/test_rnic.cpp keeps that list honest.
  struct Binding {
    std::string from, to;
  };
  const std::vector<Binding>& bindings() const { return bindings_; }
  // Timeline slices of every traced unit go to `sink` (null: off). Call before simulating.
  void attach_trace(TraceSink* sink);
  // The units' decisions to `sink` (coverage; null: off).
  void attach_decisions(DecisionSink* sink);

 private:
  RnicConfig config_;
  IcmLayout icm_;
  uint32_t node_id_;
  std::vector<Binding> bindings_;

  // Binds `from` to `to` and records the binding.
  template <typename From, typename To>
  void bind(From& from, To& to);

 public:  // units, for tests and statistics
  // The device's one kernel event and method: every unit's timed stages and its time.
  DeviceClock clock;
  PcieEndpoint endpoint;
  Doorbells doorbells;
  QpContext context;
  WqeFetcher fetcher;
  ProtectionChecker protection;
  Mtt mtt;
  DmaReadEngine dma_read;
  DmaWriteEngine dma_write;
  Requester requester;
  Responder responder;
  CompletionEngine completion;
  Port port;
  DmaBench bench;
};

}  // namespace rnic
