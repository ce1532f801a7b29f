// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/dma/dma_read_engine.h"

#include <algorithm>

namespace rnic {

DmaReadEngine::DmaReadEngine(sc_core::sc_module_name name, const Config& config,
                             DeviceClock* clock)
    : sc_module(name),
      read_tsock("read_tsock", this),
      dma_isock("dma_isock"),
      stats(std::string(this->name())),
      config_(config),
      tags_(config.max_read_tags),
      channels_(config.dma.read_channels),
      line_time_(sc_core::sc_time(1000.0 / config.clock_mhz, sc_core::SC_NS) *
                 double((64 + std::max<uint32_t>(config.dma.read_bytes_per_cycle, 1) - 1) /
                        std::max<uint32_t>(config.dma.read_bytes_per_cycle, 1))),
      requests_(stats.add("requests", "requests", "read requests from the engines")),
      read_tlps_(stats.add("read_tlps", "TLPs", "memory read requests issued (MRRS/4K split)")),
      bytes_(stats.add("bytes", "bytes", "bytes read")),
      tag_stall_ps_(stats.add("tag_stall_ps", "ps", "time requests waited for a free read tag")),
      lines_(stats.add("lines", "lines", "64 B lines moved through the read channels")),
      channel_stall_ps_(stats.add("channel_stall_ps", "ps",
                                  "time arrived data waited for its channel")),
      channel_wait_ps_(stats.add("channel_wait_ps", "ps",
                                 "time transfers' first data waited for a free read channel "
                                 "(every channel held by another transfer)")),
      latency_(stats.add_histogram("request_latency_ns",
                                   "read request: issue to its last byte moved into the device")),
      tags_in_use_(stats.add_occupancy("tags_in_use", "tags",
                                       "PCIe read tags held (at most pcie.max_read_tags)")),
      channels_in_use_(stats.add_occupancy(
          "channels_in_use", "channels",
          "read channels holding a transfer's data: from its first completion in (or the "
          "channel freeing, if later) to its last line moved (at most dma.read_channels)")),
      device_(clock) {
}

void DmaReadEngine::move(int, DmaRequest& request, sc_core::sc_time& delay) {
  DmaRequest* req = &request;
  if (!req->segments) {
    req->ok = false;
    return;
  }
  ++requests_;
  const sc_core::sc_time now = device_->now();
  const sc_core::sc_time issue = now + delay;
  sc_core::sc_time last_done = issue;
  const uint64_t mrrs = std::max<uint32_t>(config_.mrrs_bytes, 64);
  // The channel this transfer is reassembled in; `moved` is when it has moved everything so far.
  const sc_core::sc_time channel = channels_.acquire(issue);
  sc_core::sc_time moved = channel;
  // The channel holds data from the first completion in (or its freeing, if later) to the
  // last line moved: channels_in_use. Its booking before that data is in delays nothing.
  bool first = true;
  sc_core::sc_time holds_from = channel;
  req->ok = true;
  uint64_t offset = 0;
  for (const PhysSegment& seg : *req->segments) {
    uint64_t addr = seg.addr;
    uint64_t left = seg.length;
    while (left > 0) {
      const uint64_t to_4k = 4096 - (addr & 4095);
      const uint32_t n = uint32_t(std::min({left, mrrs, to_4k}));
      const sc_core::sc_time start = tags_.acquire(issue);
      tag_stall_ps_ += (start - issue).value();
      sc_core::sc_time d = start - now;
      if (!dma_transfer(pool_, dma_isock, tlm::TLM_READ_COMMAND, addr, req->data + offset, n,
                        req->source, req->authority, d, offset))
        req->ok = false;
      const sc_core::sc_time done = now + d;
      tags_.release(done);
      tags_in_use_.hold(now.value(), start.value(), done.value());
      // Data moves once the request's last completion is in and the channel is free.
      if (moved > done) channel_stall_ps_ += (moved - done).value();
      // The first data in waits for a channel only while every channel is another's.
      if (first) {
        if (channel > done) channel_wait_ps_ += (channel - done).value();
        holds_from = std::max(channel, done);
        first = false;
      }
      const uint64_t lines = (addr + n - 1) / 64 - addr / 64 + 1;
      lines_ += lines;
      moved = std::max(moved, done) + line_time_ * double(lines);
      last_done = std::max(last_done, moved);
      ++read_tlps_;
      bytes_ += n;
      addr += n;
      offset += n;
      left -= n;
    }
  }
  channels_.release(moved);
  channels_in_use_.hold(now.value(), holds_from.value(), moved.value());
  latency_.add_ps((last_done - issue).value());
  delay = last_done - now;
}

}  // namespace rnic
