// SPDX-License-Identifier: Apache-2.0
#include "model/instruments/dma_bench.h"

#include <algorithm>
#include <random>

#include "tlm/timing.h"

namespace rnic {

DmaBench::DmaBench(sc_core::sc_module_name name)
    : sc_module(name),
      control_tsock("control_tsock", this),
      read_isock("read_isock"),
      xlate_isock("xlate_isock"),
      stats(std::string(this->name())),
      segment_(1),
      requests_(stats.add("requests", "requests", "benchmark DMA reads issued")),
      bytes_(stats.add("bytes", "bytes", "benchmark bytes read")) {
}

void DmaBench::run(int, DmaBenchRequest& request, sc_core::sc_time& delay) {
  DmaBenchRequest* req = &request;
  if (req->size == 0 || req->window < req->size || req->outstanding == 0) {
    req->ok = false;
    return;
  }
  buffer_.resize(req->size);
  std::mt19937_64 rng(req->seed);
  // No wait() per request: each request's issue time comes from the slot it gets, its
  // completion from the annotated delay of the read path (LT timing, busy-until resources).
  // But simulated time catches up every kSyncRequests requests or kSyncBytes bytes (from a
  // thread; a method cannot wait): the read path books the resources of each request ahead
  // (read tags, occupancies, about 32 bytes per MRRS read) and drops a booking only once time
  // has passed it, so 10^8 requests issued at one instant kept about 20 bytes each (2 GB).
  // Every delay comes from absolute times, so the waits change no result.
  const bool can_wait =
      sc_core::sc_get_current_process_handle().proc_kind() == sc_core::SC_THREAD_PROC_;
  SlotPool in_flight(req->outstanding);
  uint64_t unsynced = 0;  // requests issued since time last caught up
  sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time start = now + delay;
  sc_core::sc_time last = start;
  const uint64_t slots = req->window / req->size;
  const uint64_t random_lines = (req->window - req->size) / 64 + 1;
  TranslateRequest xlate;
  xlate.region = req->region;
  DmaRequest read;
  read.segments = req->translate ? &xlate.segments : &segment_;
  read.data = buffer_.data();
  read.source = DmaSource::Dma;
  req->ok = true;
  for (uint64_t i = 0; i < req->count; ++i) {
    const uint64_t offset = req->random ? (rng() % random_lines) * 64 : (i % slots) * req->size;
    segment_[0] = PhysSegment{req->base + offset, req->size};
    const sc_core::sc_time issue = in_flight.acquire(start);
    if (can_wait && (unsynced >= kSyncRequests || unsynced * req->size >= kSyncBytes) &&
        issue > now) {
      sc_core::wait(issue - now);
      now = sc_core::sc_time_stamp();
      unsynced = 0;
    }
    ++unsynced;
    sc_core::sc_time d = issue - now;
    if (req->translate) {
      xlate.va = req->va + offset;
      xlate.length = req->size;
      xlate_isock->translate(xlate, d);
      if (!xlate.ok) {
        req->ok = false;
        break;
      }
    }
    read_isock->move(read, d);
    const sc_core::sc_time done = now + d;
    in_flight.release(done);
    last = std::max(last, done);
    if (req->latency_ps) req->latency_ps->add((done - issue).value());
    if (!read.ok) req->ok = false;
    ++requests_;
    bytes_ += req->size;
  }
  req->finished = last;
  delay = last - now;
  // The data itself is never looked at: a large landing buffer is not kept between runs.
  if (buffer_.capacity() > kKeptBufferBytes) std::vector<uint8_t>().swap(buffer_);
}

}  // namespace rnic
