// SPDX-License-Identifier: Apache-2.0
// The device's DMA benchmark engine (what pcie-bench runs on its NIC): reads host memory
// directly, no verbs, `size` bytes per request over a window of `window` bytes, sequentially
// or at random 64 B-aligned offsets, keeping `outstanding` requests in flight, and adds the
// latency of each (issue to last completion) to a histogram: what it keeps does not grow with
// the count (statistics, no record per request). Requests go through the DmaReadEngine, so
// MRRS splitting and the read-tag pool apply as for any device read. With `translate` each
// read's address is first translated by the MTT (pcie-bench's IOMMU runs: the
// pcie-bench-gen3x8 preset sizes the MTT's cache and walks as the IOMMU's); the read is
// issued once its translation is ready.
#pragma once

#include <vector>

#include <systemc>
#include <tlm>

#include "model/rnic/msg/messages.h"
#include "model/rnic/msg/protocols.h"
#include "tlm/histogram.h"
#include "tlm/stats.h"

namespace rnic {

struct DmaBenchRequest {
  uint64_t base = 0;    // physical address of a contiguous window
  uint64_t window = 0;  // bytes
  uint32_t size = 0;    // bytes per request
  uint64_t count = 0;
  uint32_t outstanding = 1;
  bool random = false;
  uint64_t seed = 1;
  // Translated reads: [va, va + window) maps through `region` (the MTT standing in for an
  // IOMMU); the window's physical pages need not be the ones `base` names.
  bool translate = false;
  Region region;
  uint64_t va = 0;
  // Results
  LatencyHistogram* latency_ps = nullptr;  // one sample per request
  sc_core::sc_time finished;               // absolute time the last request completed
  bool ok = false;
};

// Host -> DmaBench: run one benchmark (a bad request: ok false, nothing issued).
struct DmaBenchProtocol {
  struct fw_if : virtual sc_core::sc_interface {
    using protocol_types = DmaBenchProtocol;
    virtual void run(DmaBenchRequest& request, sc_core::sc_time& delay) = 0;
  };
  template <typename Target>
  struct forward final : fw_if, ForwardTo<Target> {
    using ForwardTo<Target>::ForwardTo;
    void run(DmaBenchRequest& m, sc_core::sc_time& d) override {
      this->target->run(this->caller, m, d);
    }
  };
};

class DmaBench : public sc_core::sc_module {
 public:
  ProtocolTargetSocket<DmaBenchProtocol, DmaBench> control_tsock;  // from the host
  ProtocolInitiatorSocket<DataMoveProtocol> read_isock;            // to the DmaReadEngine
  ProtocolInitiatorSocket<TranslationProtocol> xlate_isock;        // to the Mtt (translate)

  explicit DmaBench(sc_core::sc_module_name name);
  StatGroup stats;

 private:
  // Protocol target.
  void run(int caller, DmaBenchRequest& req, sc_core::sc_time& delay);
  template <typename> friend struct DmaBenchProtocol::forward;

  // Simulated time catches up with the issue times every this many requests or bytes.
  static constexpr uint64_t kSyncRequests = 4096;
  static constexpr uint64_t kSyncBytes = 4 << 20;
  // A landing buffer larger than this is freed after each run.
  static constexpr size_t kKeptBufferBytes = 1 << 20;

  std::vector<uint8_t> buffer_;  // where the read data lands (`size` bytes, reused)
  std::vector<PhysSegment> segment_;
  Counter& requests_;
  Counter& bytes_;
};

}  // namespace rnic
