// SPDX-License-Identifier: Apache-2.0
// Payload pooling (tlm_mm_interface) for the generic payloads units issue on the PCIe side
// (DMA reads and writes, MMIO). No heap allocation per transaction once the pool is warm.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>

namespace rnic {

class PayloadPool : public tlm::tlm_mm_interface {
 public:
  PayloadPool() = default;
  PayloadPool(const PayloadPool&) = delete;
  PayloadPool& operator=(const PayloadPool&) = delete;
  // A payload still in use at teardown (its thread was blocked in a call when the simulation
  // ended) may point at an extension on that thread's stack: drop such pointers, never delete
  // them (tlm_generic_payload's destructor would).
  ~PayloadPool() override {
    for (auto& gp : all_) {
      for (unsigned id = 0; id < tlm::max_num_extensions(); ++id) gp->set_extension(id, nullptr);
    }
  }

  tlm::tlm_generic_payload* acquire() {
    tlm::tlm_generic_payload* gp;
    if (free_.empty()) {
      all_.push_back(std::make_unique<tlm::tlm_generic_payload>(this));
      gp = all_.back().get();
    } else {
      gp = free_.back();
      free_.pop_back();
    }
    gp->acquire();
    return gp;
  }
  void free(tlm::tlm_generic_payload* gp) override {
    gp->reset();
    free_.push_back(gp);
  }
  size_t allocated() const { return all_.size(); }

 private:
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> all_;
  std::vector<tlm::tlm_generic_payload*> free_;
};

// A pooled payload held for one scope.
class ScopedPayload {
 public:
  explicit ScopedPayload(PayloadPool& pool) : gp_(pool.acquire()) {}
  ~ScopedPayload() { gp_->release(); }
  ScopedPayload(const ScopedPayload&) = delete;
  ScopedPayload& operator=(const ScopedPayload&) = delete;
  tlm::tlm_generic_payload& operator*() { return *gp_; }
  tlm::tlm_generic_payload* operator->() { return gp_; }

 private:
  tlm::tlm_generic_payload* gp_;
};

}  // namespace rnic
