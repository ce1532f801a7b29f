// SPDX-License-Identifier: Apache-2.0
// The modeled platform: N nodes (host memory + PCIe link + RNIC + host CPU port), their ports
// all connected to one switch. Built during elaboration (SystemC elaborates once); a process
// may hold several, each under a parent module of its own (rnicsim run with several files).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "model/config/config.h"
#include "model/fabric/switch.h"
#include "model/host/host_cpu.h"
#include "model/host/host_memory.h"
#include "model/host/pcie_link.h"
#include "model/instruments/protection_monitor.h"
#include "model/rnic/rnic.h"
#include "tlm/stats.h"

namespace rnic {

class Node : public sc_core::sc_module {
 public:
  Node(sc_core::sc_module_name name, uint32_t node_id, const SystemConfig& config);

  uint32_t node_id() const { return node_id_; }
  HostMemory memory;
  PcieLink pcie;
  Rnic rnic;
  HostCpu cpu;
  std::unique_ptr<ProtectionMonitor> monitor;  // null unless SystemConfig::protection_monitor

 private:
  uint32_t node_id_;
};

class System {
 public:
  // Node names become module names ("A" -> module "A"); node ids are their indices.
  System(const SystemConfig& config, const std::vector<std::string>& node_names);

  size_t node_count() const { return nodes_.size(); }
  Node& node(size_t index) { return *nodes_.at(index); }
  const SystemConfig& config() const { return config_; }

  // Every unit's counters: owner is the unit's hierarchical name ("A.rnic.mtt").
  void visit_stats(const StatVisitor& visit) const;
  // Every stat group (counters, histograms, occupancies) in the same order.
  // visit_node_groups: one node's groups, in that order; the switch's is no node's.
  void visit_groups(const StatGroupVisitor& visit) const;
  void visit_node_groups(size_t node, const StatGroupVisitor& visit) const;
  // Every node's device traces into `sink` (tlm/trace.h; null: off). Call before simulating.
  void attach_trace(TraceSink* sink);
  // Every node's device decisions into `sink` (coverage; null: off). Call before simulating.
  void attach_decisions(DecisionSink* sink);
  // DMAs the protection monitors flagged, over all nodes (0 when no monitor is fitted).
  uint64_t protection_violations() const;
  // The first violation a monitor logged (the first node's that has one): "" when none.
  std::string first_protection_violation() const;

 private:
  SystemConfig config_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unique_ptr<Switch> switch_;
};

}  // namespace rnic
