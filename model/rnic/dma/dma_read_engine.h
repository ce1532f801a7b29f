// SPDX-License-Identifier: Apache-2.0
// Reads host memory for outgoing data: splits each physical segment at MRRS and at 4 KiB
// boundaries (a read request may not cross one), and issues the requests with at most
// pcie.max_read_tags outstanding (a tag is held from issue until its last completion).
// Each transfer then goes through one of dma.read_channels channels: a read request's data is
// usable once its last completion has arrived (reassembly), and the channel moves it into the
// device one beat per cycle, request after request. A channel narrower than the link makes a
// transfer's latency grow by about one line time per 64 B line, while parallel transfers on
// other channels still fill the link.
#pragma once

#include <systemc>
#include <tlm>

#include "model/config/config.h"
#include "model/rnic/device_clock.h"
#include "model/rnic/msg/messages.h"
#include "model/rnic/msg/protocols.h"
#include "tlm/payload_pool.h"
#include "tlm/sockets.h"
#include "tlm/stats.h"
#include "tlm/timing.h"

namespace rnic {

class DmaReadEngine : public sc_core::sc_module {
 public:
  ProtocolTargetSocket<DataMoveProtocol, DmaReadEngine> read_tsock;  // data moves of the engines
  InitiatorSocket<DmaReadEngine> dma_isock;      // to the PCIe endpoint

  struct Config {
    uint32_t max_read_tags = PcieConfig{}.max_read_tags;  // pcie.max_read_tags
    uint32_t mrrs_bytes = PcieConfig{}.mrrs_bytes;        // pcie.mrrs
    DmaConfig dma;                                        // dma.*: read channels
    double clock_mhz = DeviceTiming{}.clock_mhz;          // device.clock_mhz
  };
  // `clock`: the device's (null: one of its own, for a bench of this unit alone).
  DmaReadEngine(sc_core::sc_module_name name, const Config& config, DeviceClock* clock = nullptr);
  StatGroup stats;

 private:
  // Protocol target (msg/protocols.h).
  void move(int caller, DmaRequest& req, sc_core::sc_time& delay);
  template <typename> friend struct DataMoveProtocol::forward;

  Config config_;
  PayloadPool pool_;
  SlotPool tags_;
  SlotPool channels_;
  sc_core::sc_time line_time_;  // one 64 B line through a channel
  Counter& requests_;
  Counter& read_tlps_;
  Counter& bytes_;
  Counter& tag_stall_ps_;
  Counter& lines_;
  Counter& channel_stall_ps_;
  Counter& channel_wait_ps_;
  Histogram& latency_;
  Occupancy& tags_in_use_;
  Occupancy& channels_in_use_;
  ClockRef device_;  // the device's time (device_clock.h)
};

}  // namespace rnic
