// SPDX-License-Identifier: Apache-2.0
// Lands incoming data in host memory: one posted write per physical page segment (the link
// splits them at MPS). Used by the requester for read-response data.
#pragma once

#include <systemc>
#include <tlm>

#include "model/rnic/messages.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"

namespace rnic {

class DmaWriteEngine : public sc_core::sc_module {
 public:
  TargetSocket<DmaWriteEngine> write_tsock;   // DmaRequest messages
  InitiatorSocket<DmaWriteEngine> dma_isock;  // to the PCIe endpoint

  explicit DmaWriteEngine(sc_core::sc_module_name name);
  StatGroup stats;

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  PayloadPool pool_;
  Counter& requests_;
  Counter& bytes_;
};

}  // namespace rnic
