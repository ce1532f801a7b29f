// SPDX-License-Identifier: Apache-2.0
// Lands incoming data in host memory: one posted write per physical page segment (the link
// splits them at MPS): read-response data at the requester, write data at the responder.
#pragma once

#include <systemc>
#include <tlm>

#include "model/rnic/device_clock.h"
#include "model/rnic/msg/messages.h"
#include "model/rnic/msg/protocols.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/trace.h"

namespace rnic {

class DmaWriteEngine : public sc_core::sc_module {
 public:
  ProtocolTargetSocket<DataMoveProtocol, DmaWriteEngine> write_tsock;  // data moves of the engines
  InitiatorSocket<DmaWriteEngine> dma_isock;  // to the PCIe endpoint

  // `clock`: the device's (null: one of its own, for a bench of this unit alone).
  explicit DmaWriteEngine(sc_core::sc_module_name name, DeviceClock* clock = nullptr);
  StatGroup stats;
  void attach_trace(TraceSink* sink) { trace_.attach(sink, name(), &*device_); }

 private:
  // Protocol target (msg/protocols.h).
  void move(int caller, DmaRequest& req, sc_core::sc_time& delay);
  template <typename> friend struct DataMoveProtocol::forward;

  PayloadPool pool_;
  TraceTrack trace_;
  Counter& requests_;
  Counter& bytes_;
  ClockRef device_;  // the device's time (device_clock.h)
};

}  // namespace rnic
