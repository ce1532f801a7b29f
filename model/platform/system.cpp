// SPDX-License-Identifier: Apache-2.0
#include "model/platform/system.h"

namespace rnic {

Node::Node(sc_core::sc_module_name name, uint32_t node_id, const SystemConfig& config)
    : sc_module(name),
      memory("memory", HostMemory::Config{config.host_memory, config.rnic.sim.fast}),
      pcie("pcie", PcieLink::Config{config.rnic.pcie, config.rnic.sim.fast}),
      rnic("rnic", config.rnic, node_id),
      cpu("cpu", HostCpu::Config{config.host_memory.poll_ns}),
      node_id_(node_id) {
  cpu.mem_isock.bind(memory.cpu_tsock);
  cpu.mmio_isock.bind(pcie.host_tsock);
  cpu.bench_isock.bind(rnic.bench_tsock);
  pcie.mmio_isock.bind(rnic.mmio_tsock);
  if (config.protection_monitor) {
    monitor = std::make_unique<ProtectionMonitor>("monitor", rnic.icm(), config.rnic.adapter_flags);
    rnic.pcie_isock.bind(monitor->device_tsock);
    monitor->link_isock.bind(pcie.dev_tsock);
  } else {
    rnic.pcie_isock.bind(pcie.dev_tsock);
  }
  pcie.mem_isock.bind(memory.dev_tsock);
  // The root complex hands the device's interrupt messages to the CPU.
  pcie.msi_isock.bind(cpu.msi_tsock);
}

System::System(const SystemConfig& config, const std::vector<std::string>& node_names)
    : config_(config) {
  for (size_t i = 0; i < node_names.size(); ++i) {
    nodes_.push_back(std::make_unique<Node>(node_names[i].c_str(), uint32_t(i), config_));
  }
  switch_ = std::make_unique<Switch>(
      "switch", Switch::Config{config_.fabric, config_.rnic.port, config_.rnic.sim.fast});
  for (auto& node : nodes_) {
    node->rnic.net_isock.bind(switch_->port_tsock);
    switch_->port_isock.bind(node->rnic.net_tsock);
  }
}

void System::visit_groups(const StatGroupVisitor& visit) const {
  for (size_t i = 0; i < nodes_.size(); ++i) visit_node_groups(i, visit);
  visit(switch_->stats);
}

void System::visit_node_groups(size_t index, const StatGroupVisitor& visit) const {
  const Node& node = *nodes_.at(index);
  visit(node.memory.stats);
  visit(node.pcie.stats);
  node.rnic.visit_groups(visit);
  if (node.monitor) visit(node.monitor->stats);
}

void System::visit_stats(const StatVisitor& visit) const {
  visit_groups([&](const StatGroup& group) {
    for (const Counter& c : group.counters()) visit(group.owner(), c);
  });
}

void System::attach_trace(TraceSink* sink) {
  for (auto& node : nodes_) node->rnic.attach_trace(sink);
}

void System::attach_decisions(DecisionSink* sink) {
  for (auto& node : nodes_) node->rnic.attach_decisions(sink);
}

uint64_t System::protection_violations() const {
  uint64_t total = 0;
  for (const auto& node : nodes_) {
    if (node->monitor) total += node->monitor->violations();
  }
  return total;
}

std::string System::first_protection_violation() const {
  for (const auto& node : nodes_) {
    if (node->monitor && !node->monitor->violation_log().empty())
      return node->monitor->violation_log().front();
  }
  return "";
}

}  // namespace rnic
