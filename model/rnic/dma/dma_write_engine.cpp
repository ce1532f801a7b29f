// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/dma/dma_write_engine.h"

namespace rnic {

DmaWriteEngine::DmaWriteEngine(sc_core::sc_module_name name, DeviceClock* clock)
    : sc_module(name),
      write_tsock("write_tsock", this),
      dma_isock("dma_isock"),
      stats(std::string(this->name())),
      requests_(stats.add("requests", "requests", "write requests from the engines")),
      bytes_(stats.add("bytes", "bytes", "bytes written")),
      device_(clock) {
}

void DmaWriteEngine::move(int, DmaRequest& request, sc_core::sc_time& delay) {
  DmaRequest* req = &request;
  if (!req->segments) {
    req->ok = false;
    return;
  }
  ++requests_;
  const TraceScope slice(trace_, "DMA write", req->trace_id, delay);
  req->ok = true;
  uint64_t offset = 0;
  // Posted writes, one per page segment (the link splits them at MPS); in order on the link.
  for (const PhysSegment& seg : *req->segments) {
    if (!dma_transfer(pool_, dma_isock, tlm::TLM_WRITE_COMMAND, seg.addr, req->data + offset,
                      seg.length, DmaSource::WriteData, req->authority, delay, offset))
      req->ok = false;
    offset += seg.length;
    bytes_ += seg.length;
  }
}

}  // namespace rnic
