// SPDX-License-Identifier: Apache-2.0
// The driver's side of a timeline: what the host does for a work request (writes its WQE,
// rings the doorbell, sees its completion). The application implements the sink (the trace
// writer in app/observe); nothing here formats text or touches files. The device numbers a
// request (tlm/trace.h make_trace_id) only when it fetches the WQE, so these events name the
// WQE by QP and ring index and the sink links them to the device's slices.
#pragma once

#include <cstdint>

#include <systemc>

namespace rnic::host {

struct HostTraceSink {
  enum class Queue { Send, Receive };
  virtual ~HostTraceSink() = default;
  // The WQE at running ring index `index` of QP `qpn` is written into its ring at `at`.
  virtual void host_post(uint32_t node, uint32_t qpn, Queue queue, uint32_t index,
                         const sc_core::sc_time& at) = 0;
  // A doorbell (MMIO write) of producer index `producer`: stored at `at`, applied by the
  // device at `seen` (a posted write: the CPU does not wait for it).
  virtual void host_doorbell(uint32_t node, uint32_t qpn, Queue queue, uint32_t producer,
                             const sc_core::sc_time& at, const sc_core::sc_time& seen) = 0;
  // The completion of WQE `index` of QP `qpn` is read from its CQ ring at `at`.
  virtual void host_poll(uint32_t node, uint32_t qpn, Queue queue, uint32_t index,
                         const sc_core::sc_time& at) = 0;
};

}  // namespace rnic::host
