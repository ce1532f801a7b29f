// SPDX-License-Identifier: Apache-2.0
#include "model/host/host_memory.h"

#include <algorithm>
#include <cstring>

#include "tlm/timing.h"

namespace rnic {

HostMemory::HostMemory(sc_core::sc_module_name name, const Config& config)
    : sc_module(name),
      dev_tsock("dev_tsock"),
      cpu_tsock("cpu_tsock"),
      stats(std::string(this->name())),
      config_(config.host),
      fast_(config.fast),
      line_service_({config.host.line_service_ns, config.host.lines_in_service}),
      line_busy_ps_(line_service_.line_share_ps()),
      extra_latency_(double(config.host.extra_latency_ns), sc_core::SC_NS),
      dev_reads_(stats.add("dev_reads", "transactions", "device read requests served")),
      dev_writes_(stats.add("dev_writes", "transactions", "device writes served")),
      dev_read_lines_(stats.add("dev_read_lines", "lines", "64 B cache lines read by the device")),
      dev_write_lines_(
          stats.add("dev_write_lines", "lines", "64 B cache lines written by the device")),
      address_errors_(stats.add("address_errors", "transactions", "accesses outside memory")),
      capacity_waits_(stats.add("read_capacity_waits", "transactions",
                                "device reads that waited for the host's read capacity "
                                "(host.lines_in_service lines per host.line_service_ns)")),
      line_conflicts_(stats.add("read_line_conflicts", "lines",
                                "device-read lines that waited for an earlier access to the "
                                "same line (concurrent accesses to a line serialize)")),
      read_wait_ps_(stats.add("read_wait_ps", "ps",
                              "device reads' total wait for slots and lines, beyond one line "
                              "service")),
      read_service_busy_ps_(stats.add("read_service_busy_ps", "ps",
                                      "host read capacity used: lines read x "
                                      "host.line_service_ns / host.lines_in_service")) {
  dev_tsock.register_b_transport(this, &HostMemory::dev_b_transport);
  dev_tsock.register_transport_dbg(this, &HostMemory::transport_dbg);
  cpu_tsock.register_b_transport(this, &HostMemory::cpu_b_transport);
  cpu_tsock.register_transport_dbg(this, &HostMemory::transport_dbg);
  dev_tsock.register_get_direct_mem_ptr(this, &HostMemory::get_direct_mem_ptr);
  cpu_tsock.register_get_direct_mem_ptr(this, &HostMemory::get_direct_mem_ptr);
}

uint8_t* HostMemory::page(uint64_t page_number, bool create) {
  RecentPage& recent = recent_[page_number % kRecentPages];
  if (recent.number == page_number) return recent.data;
  auto it = pages_.find(page_number);
  uint8_t* p = nullptr;
  if (it != pages_.end()) {
    p = it->second.get();
  } else {
    if (!create) return nullptr;
    auto fresh = std::make_unique<uint8_t[]>(kPageBytes);
    std::memset(fresh.get(), 0, kPageBytes);
    p = fresh.get();
    pages_.emplace(page_number, std::move(fresh));
  }
  recent.number = page_number;
  recent.data = p;
  return p;
}

bool HostMemory::access(tlm::tlm_generic_payload& gp) {
  const uint64_t addr = gp.get_address();
  const uint64_t len = gp.get_data_length();
  if (gp.get_byte_enable_ptr() || gp.get_streaming_width() < len) {
    gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  if (addr >= config_.size_bytes || len > config_.size_bytes - addr) {
    ++address_errors_;
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  const bool write = gp.is_write();
  if (!write && !gp.is_read()) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);  // IGNORE: nothing to move
    return true;
  }
  uint8_t* data = gp.get_data_ptr();
  uint64_t done = 0;
  while (done < len) {
    const uint64_t a = addr + done;
    const uint64_t in_page = a % kPageBytes;
    const uint64_t n = std::min(len - done, kPageBytes - in_page);
    uint8_t* p = page(a / kPageBytes, write);
    if (write) {
      std::memcpy(p + in_page, data + done, n);
    } else if (p) {
      std::memcpy(data + done, p + in_page, n);
    } else {
      std::memset(data + done, 0, n);  // never written: reads as zero, no page created
    }
    done += n;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

void HostMemory::dev_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (!access(gp)) return;
  const uint64_t first = gp.get_address() / kLineBytes;
  const uint64_t lines =
      gp.get_data_length() ? (gp.get_address() + gp.get_data_length() - 1) / kLineBytes - first + 1
                           : 0;
  if (gp.is_write()) {
    ++dev_writes_;
    dev_write_lines_ += lines;
    const uint64_t start = gp.get_address(), length = gp.get_data_length();
    for (const Watch& w : watches_) {
      if (start < w.address + w.length && w.address < start + length) {
        written_.notify(delay);  // lands `delay` from now
        break;
      }
    }
  } else {
    ++dev_reads_;
    dev_read_lines_ += lines;
    read_service_busy_ps_ += lines * line_busy_ps_;
    if (!fast_) {
      const uint64_t now = to_ps(sim_time(*this));
      const LineService::Result served =
          line_service_.serve(now, now + to_ps(delay), gp.get_address(), gp.get_data_length());
      capacity_waits_ += served.capacity_wait;
      line_conflicts_ += served.line_conflicts;
      read_wait_ps_ += served.wait_ps;
      if (served.wait_ps) delay += ps(served.wait_ps);  // mostly none: skip building a time
    }
    delay += extra_latency_;
  }
}

void HostMemory::cpu_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) { access(gp); }

bool HostMemory::get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
  const uint64_t addr = gp.get_address();
  const uint64_t first = addr / kPageBytes * kPageBytes;
  if (addr >= config_.size_bytes) {
    // Refused: the range says where DMI is not available (IEEE 1666-2011 11.2.5).
    dmi.set_start_address(config_.size_bytes);
    dmi.set_end_address(~uint64_t(0));
    dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_NONE);
    return false;
  }
  // The page is created now (zero-filled) so that the pointer stays valid for later writes.
  dmi.set_dmi_ptr(page(addr / kPageBytes, true));
  dmi.set_start_address(first);
  dmi.set_end_address(std::min(first + kPageBytes, config_.size_bytes) - 1);
  dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
  dmi.set_read_latency(extra_latency_);
  dmi.set_write_latency(sc_core::SC_ZERO_TIME);
  return true;
}

unsigned HostMemory::transport_dbg(tlm::tlm_generic_payload& gp) {
  return access(gp) ? unsigned(gp.get_data_length()) : 0;
}

}  // namespace rnic
