// SPDX-License-Identifier: Apache-2.0
#include "model/host/pcie_link.h"

#include <algorithm>

namespace rnic {

double pcie_bytes_per_ns(uint32_t gen, uint32_t lanes) {
  // GT/s per lane and encoding efficiency (8b/10b up to gen2, 128b/130b from gen3).
  double gts = 8.0, efficiency = 128.0 / 130.0;
  switch (gen) {
    case 1: gts = 2.5; efficiency = 0.8; break;
    case 2: gts = 5.0; efficiency = 0.8; break;
    case 3: gts = 8.0; break;
    case 4: gts = 16.0; break;
    default: gts = 32.0; break;
  }
  return gts * efficiency * lanes / 8.0;  // Gbit/s -> bytes per ns
}

uint32_t pcie_completion_count(uint64_t address, uint64_t length, uint32_t rcb_bytes,
                               uint32_t mps_bytes) {
  if (length == 0) return 1;
  // The first completion ends at an RCB boundary; later ones carry up to MPS, ending on
  // RCB-aligned addresses (PCIe base spec 2.3.1.1).
  uint32_t count = 0;
  uint64_t a = address, end = address + length;
  const uint64_t first_end = std::min(end, (a / rcb_bytes + 1) * rcb_bytes);
  if (a % rcb_bytes) {
    ++count;
    a = first_end;
  }
  while (a < end) {
    ++count;
    a = std::min(end, a + mps_bytes);
  }
  return count;
}

PcieLink::PcieLink(sc_core::sc_module_name name, const Config& config)
    : sc_module(name),
      dev_tsock("dev_tsock"),
      mem_isock("mem_isock"),
      host_tsock("host_tsock"),
      mmio_isock("mmio_isock"),
      msi_isock("msi_isock"),
      stats(std::string(this->name())),
      config_(config.pcie),
      read_requests_(stats.add("read_requests", "TLPs", "memory read request TLPs upstream")),
      completion_tlps_(stats.add("completion_tlps", "TLPs", "completion TLPs downstream")),
      write_tlps_(stats.add("write_tlps", "TLPs", "posted write TLPs upstream")),
      mmio_tlps_(stats.add("mmio_tlps", "TLPs", "MMIO write TLPs downstream")),
      msi_tlps_(stats.add("msi_tlps", "TLPs",
                          "of the posted writes, interrupt messages (MSI-X) to the host CPU")),
      upstream_bytes_(stats.add("upstream_bytes", "bytes", "bytes on the wire device->host")),
      downstream_bytes_(stats.add("downstream_bytes", "bytes", "bytes on the wire host->device")) {
  const double rate = pcie_bytes_per_ns(config_.gen, config_.lanes);
  upstream_.set_rate(rate);
  downstream_.set_rate(rate);
  upstream_.set_contention(!config.fast);
  downstream_.set_contention(!config.fast);
  // TLPs cross the link in the order they reach it in simulated time: a table-miss read
  // issued before an earlier-booked data read goes first (see BandwidthPipe).
  upstream_.set_time_ordered(true);
  downstream_.set_time_ordered(true);
  upstream_.count_busy(
      &stats.add("upstream_busy_ps", "ps", "time device->host carried TLPs").value);
  downstream_.count_busy(
      &stats.add("downstream_busy_ps", "ps", "time host->device carried TLPs").value);
  const sc_core::sc_time minimal = upstream_.duration(config_.tlp_overhead_bytes) +
                                   downstream_.duration(64 + config_.tlp_overhead_bytes);
  const sc_core::sc_time round_trip(double(config_.read_latency_ns), sc_core::SC_NS);
  read_fixed_ = round_trip > minimal ? round_trip - minimal : sc_core::SC_ZERO_TIME;
  write_flight_ = sc_core::sc_time(double(config_.write_latency_ns), sc_core::SC_NS);
  mmio_latency_ = sc_core::sc_time(double(config_.mmio_latency_ns), sc_core::SC_NS);
  dev_tsock.register_b_transport(this, &PcieLink::dev_b_transport);
  dev_tsock.register_transport_dbg(this, &PcieLink::dev_transport_dbg);
  dev_tsock.register_get_direct_mem_ptr(this, &PcieLink::dev_get_direct_mem_ptr);
  mem_isock.register_invalidate_direct_mem_ptr(this, &PcieLink::mem_invalidate_direct_mem_ptr);
  host_tsock.register_b_transport(this, &PcieLink::host_b_transport);
}

void PcieLink::dev_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const sc_core::sc_time now = sim_time(*this);
  const uint64_t len = gp.get_data_length();
  const uint32_t overhead = config_.tlp_overhead_bytes;
  if (gp.is_read()) {
    ++read_requests_;
    upstream_bytes_ += overhead;
    const sc_core::sc_time request_sent = upstream_.reserve(now + delay, overhead);
    // The host sees the request when it has crossed the link; it returns its own wait
    // (cache lines, host.extra_latency_ns) on top. The completions leave once the read's last
    // line is ready.
    sc_core::sc_time memory_delay = request_sent - now;
    mem_isock->b_transport(gp, memory_delay);
    memory_delay -= request_sent - now;
    const uint32_t cpls =
        pcie_completion_count(gp.get_address(), len, config_.rcb_bytes, config_.mps_bytes);
    completion_tlps_ += cpls;
    downstream_bytes_ += len + uint64_t(cpls) * overhead;
    const sc_core::sc_time done = downstream_.reserve(request_sent + read_fixed_ + memory_delay,
                                                      len + uint64_t(cpls) * overhead);
    delay = done - now;
  } else {
    const uint64_t tlps = std::max<uint64_t>(1, (len + config_.mps_bytes - 1) / config_.mps_bytes);
    write_tlps_ += tlps;
    upstream_bytes_ += len + tlps * overhead;
    const sc_core::sc_time sent = upstream_.reserve(now + delay, len + tlps * overhead);
    // Posted: the device is done once its TLPs are on the link; the root complex makes the
    // write visible write_latency later. Every posted write takes the same time, so they
    // stay in order (PCIe ordering: a CQE or an interrupt never passes the data before it).
    sc_core::sc_time landing = sent - now + write_flight_;
    const uint64_t addr = gp.get_address();
    if (addr >= kMsiWindowBase && addr - kMsiWindowBase < kMsiWindowBytes) {
      ++msi_tlps_;
      msi_isock->b_transport(gp, landing);
    } else {
      mem_isock->b_transport(gp, landing);
    }
    delay = sent - now;
  }
}

unsigned PcieLink::dev_transport_dbg(tlm::tlm_generic_payload& gp) {
  return mem_isock->transport_dbg(gp);
}

bool PcieLink::dev_get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
  return mem_isock->get_direct_mem_ptr(gp, dmi);
}

void PcieLink::mem_invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  dev_tsock->invalidate_direct_mem_ptr(start, end);
}

void PcieLink::host_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const sc_core::sc_time now = sim_time(*this);
  ++mmio_tlps_;
  const uint64_t bytes = gp.get_data_length() + config_.tlp_overhead_bytes;
  downstream_bytes_ += bytes;
  const sc_core::sc_time sent = downstream_.reserve(now + delay, bytes);
  delay = sent - now + mmio_latency_;
  mmio_isock->b_transport(gp, delay);
}

}  // namespace rnic
