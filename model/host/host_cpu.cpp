// SPDX-License-Identifier: Apache-2.0
#include "model/host/host_cpu.h"

#include "model/rnic/util/byte_order.h"
#include "tlm/payload_pool.h"
#include "tlm/timing.h"

namespace rnic {

HostCpu::HostCpu(sc_core::sc_module_name name, const Config& config)
    : sc_module(name),
      mem_isock("mem_isock"),
      mmio_isock("mmio_isock"),
      bench_isock("bench_isock"),
      msi_tsock("msi_tsock"),
      poll_(double(config.poll_ns), sc_core::SC_NS) {
  mem_isock.register_invalidate_direct_mem_ptr(this, &HostCpu::invalidate_dmi);
  msi_tsock.register_b_transport(this, &HostCpu::msi_b_transport);
  wake_ |= interrupt_event_;
  wake_ |= timeout_event_;
}

HostCpu::HostCpu(sc_core::sc_module_name name) : HostCpu(name, Config{}) {}

void HostCpu::msi_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  // A posted write: the message arrives `delay` from now; the spinning driver sees the
  // completion entry ahead of it poll_ later.
  ++interrupts_;
  interrupt_event_.notify(delay + poll_);
  gp.set_response_status(gp.is_write() ? tlm::TLM_OK_RESPONSE : tlm::TLM_COMMAND_ERROR_RESPONSE);
}

void HostCpu::run_dma_bench(DmaBenchRequest& request) {
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  bench_isock->run(request, delay);
  wait(delay);
}

namespace {
bool cpu_access(InitiatorSocket<HostCpu>& socket, tlm::tlm_generic_payload& gp,
                tlm::tlm_command command, uint64_t addr, void* data, uint64_t length) {
  gp.set_command(command);
  gp.set_address(addr);
  gp.set_data_ptr(static_cast<unsigned char*>(data));
  gp.set_data_length(unsigned(length));
  gp.set_streaming_width(unsigned(length));
  gp.set_byte_enable_ptr(nullptr);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
  socket->b_transport(gp, zero);
  return gp.is_response_ok();
}
}  // namespace

bool HostCpu::mem_write(uint64_t phys_addr, const void* data, uint64_t length) {
  if (length > 0xffffffffu) return false;
  if (dmi_.copy(mem_isock, true, phys_addr, const_cast<void*>(data), length)) return true;
  return cpu_access(mem_isock, mem_gp_, tlm::TLM_WRITE_COMMAND, phys_addr, const_cast<void*>(data),
                    length);
}

bool HostCpu::mem_read(uint64_t phys_addr, void* data, uint64_t length) {
  if (length > 0xffffffffu) return false;
  if (dmi_.copy(mem_isock, false, phys_addr, data, length)) return true;
  return cpu_access(mem_isock, mem_gp_, tlm::TLM_READ_COMMAND, phys_addr, data, length);
}

sc_core::sc_time HostCpu::mmio_write64(uint64_t bar_offset, uint64_t value) {
  uint8_t bytes[8];
  put_le<uint64_t>(bytes, value);
  return mmio_write(bar_offset, bytes, 8);
}

sc_core::sc_time HostCpu::mmio_write(uint64_t bar_offset, const uint8_t* data, uint32_t length) {
  tlm::tlm_generic_payload& gp = mmio_gp_;
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_address(bar_offset);
  gp.set_data_ptr(const_cast<uint8_t*>(data));  // a write: the target only reads it
  gp.set_data_length(length);
  gp.set_streaming_width(length);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  mmio_isock->b_transport(gp, delay);
  if (!gp.is_response_ok()) {
    SC_REPORT_WARNING("rnicsim/host_cpu", "MMIO write to an unmapped device register");
  }
  // A posted write: the CPU's store retires at once; the device applies the doorbell after
  // the annotated `delay` (link serialization + MMIO latency), so the CPU does not wait.
  return delay;
}

bool HostCpu::wait_for_interrupt(const sc_core::sc_time& timeout) {
  const sc_core::sc_time start = sim_time(*this);
  const sc_core::sc_time deadline = start + timeout;
  if (timeout_armed_ && timeout_at_ <= start) timeout_armed_ = false;  // it has fired
  if (!timeout_armed_ || timeout_at_ > deadline) {
    timeout_event_.notify(timeout);  // an earlier notification replaces a later one
    timeout_at_ = deadline;
    timeout_armed_ = true;
  }
  // An earlier deadline armed by a previous wait wakes this one early: callers re-check
  // their condition and wait again, as after any wakeup.
  wait(wake_);
  settle_current_time();
  return sim_time(*this) < deadline;
}

}  // namespace rnic
