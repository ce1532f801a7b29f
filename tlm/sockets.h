// SPDX-License-Identifier: Apache-2.0
// Socket aliases shared by all units. Units own their sockets as members named for what they
// connect (`dma_isock`, `doorbell_tsock`); the Rnic top is the only place binding units.
#pragma once

#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace rnic {

template <typename Module>
using InitiatorSocket = tlm_utils::simple_initiator_socket<Module>;
template <typename Module>
using TargetSocket = tlm_utils::simple_target_socket<Module>;

// A target shared by several initiators (the DMA port of the PCIe endpoint, the MTT...).
template <typename Module>
using SharedTargetSocket = tlm_utils::multi_passthrough_target_socket<Module>;
// An initiator fanning out to several targets (control broadcasts).
template <typename Module>
using BroadcastSocket = tlm_utils::multi_passthrough_initiator_socket<Module>;

}  // namespace rnic
