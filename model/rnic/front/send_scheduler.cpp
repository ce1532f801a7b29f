// SPDX-License-Identifier: Apache-2.0
#include "model/rnic/front/send_scheduler.h"

#include <algorithm>
#include <cstring>

namespace rnic {

SendScheduler::SendScheduler(const Config& config) : config_(config) {
  config_.fetch_batch = std::max<uint32_t>(1, config.fetch_batch);
  config_.prefetch_depth = std::max<uint32_t>(1, config.prefetch_depth);
}

SendScheduler::Queue& SendScheduler::queue(uint32_t qpn) {
  Queue& q = queues_[qpn];
  q.qpn_ = qpn;
  return q;
}

SendScheduler::Queue* SendScheduler::find(uint32_t qpn) {
  auto it = queues_.find(qpn);
  return it == queues_.end() ? nullptr : &it->second;
}

SendScheduler::Queue& SendScheduler::ring(uint32_t qpn, uint32_t producer,
                                          const uint8_t* blueflame_wqe) {
  Queue& q = queue(qpn);
  q.producer_ = producer;
  if (blueflame_wqe) {
    if (q.blueflame_) ++blueflame_discarded_;  // replaced before the device took it
    q.blueflame_ = true;
    q.bf_index_ = producer - 1;
    std::memcpy(q.bf_wqe_.data(), blueflame_wqe, kWqeBytes);
  }
  note_posted(q);
  return q;
}

void SendScheduler::discard(Queue& q) {
  buffered_ -= uint32_t(q.buffered_.size()) - q.evicted_;  // evicted entries hold no slot
  q.buffered_.clear();
  q.batches_ = 0;
  q.evicted_ = 0;
  ++q.epoch_;
  q.fetched_ = q.handed_ = q.producer_;
  if (q.blueflame_) ++blueflame_discarded_;
  q.blueflame_ = false;  // a re-created QP's indices start again: an old WQE must not match
  q.stalled_ = false;
  // Its buffer is empty: eligible, at its place in the turns (which only take it off them).
  if (q.place_ == Queue::Place::Waiting) make_ready(q);
}

void SendScheduler::recreate(Queue& q) {
  discard(q);
  q.producer_ = q.fetched_ = q.handed_ = 0;
}

void SendScheduler::close(uint32_t qpn) {
  Queue& q = queue(qpn);
  if (!q.closing_) {
    q.closing_ = true;
    closing_.push_back(qpn);
  }
}

SendScheduler::Queue* SendScheduler::take_drained(size_t& cursor) {
  while (cursor < closing_.size()) {
    Queue& q = queue(closing_[cursor]);
    if (q.producer_ != q.handed_) {
      ++cursor;
      continue;
    }
    closing_.erase(closing_.begin() + ptrdiff_t(cursor));
    q.closing_ = false;
    return &q;
  }
  return nullptr;
}

SendScheduler::Read SendScheduler::next_read(Queue& q, uint32_t sq_depth, uint64_t now_ps) {
  Read read;
  if (!wants_read(q)) return read;
  if (q.blueflame_ && int32_t(q.fetched_ - q.bf_index_) > 0) {
    q.blueflame_ = false;  // the ring read brought it already (an earlier WQE was unread)
    ++blueflame_discarded_;
  }
  if (q.blueflame_ && q.fetched_ == q.bf_index_) {
    // The WQE came with its doorbell: on chip once the context is, no ring read.
    uint64_t blocked_until = 0;
    if (!make_room(1, &q, now_ps, &blocked_until)) {
      read.kind = Read::Kind::NoRoom;
      return read;
    }
    q.blueflame_ = false;
    read.kind = Read::Kind::BlueFlame;
    read.count = 1;
    return read;
  }
  read.slot = q.fetched_ % sq_depth;
  read.count = std::min({q.producer_ - q.fetched_, config_.fetch_batch, sq_depth - read.slot});
  uint64_t blocked_until = 0;
  read.kind = make_room(read.count, &q, now_ps, &blocked_until) ? Read::Kind::Ring
                                                                : Read::Kind::NoRoom;
  return read;
}

SendScheduler::Read SendScheduler::refetch(Queue& q, uint32_t sq_depth, uint64_t now_ps,
                                           uint64_t retry_ps) {
  Read read;
  if (q.buffered_.empty() || !q.buffered_.front().evicted) return read;
  // The run of evicted WQEs at the front, at most a batch, within the ring.
  const uint32_t first = q.buffered_.front().index;
  read.slot = first % sq_depth;
  const uint32_t limit = std::min(config_.fetch_batch, sq_depth - read.slot);
  uint32_t count = 0;
  while (count < limit && count < q.buffered_.size() && q.buffered_[count].evicted) ++count;
  read.count = count;
  uint64_t blocked_until = 0;
  bool room = make_room(count, &q, now_ps, &blocked_until);
  // Only the QP's own entries left to evict (its later WQEs fill the buffer): they go, behind
  // its front, rather than nothing ever moving.
  if (!room && blocked_until == 0) room = make_room(count, nullptr, now_ps, &blocked_until);
  if (!room) {
    // Every slot is held by a WQE still being read (try again once the oldest is in) or read
    // again for its QP's turn (try again a little later: that turn frees it).
    const uint64_t retry_at = std::max(blocked_until, now_ps + std::max<uint64_t>(1, retry_ps));
    for (uint32_t i = 0; i < count; ++i) q.buffered_[i].ready_ps = retry_at;
    read.kind = Read::Kind::NoRoom;
    return read;
  }
  for (uint32_t i = 0; i < count; ++i) q.buffered_[i].evicted = false;
  q.evicted_ -= count;
  buffered_ += count;
  read.kind = Read::Kind::Ring;
  return read;
}

BufferedWqe& SendScheduler::refill(Queue& q, uint32_t i, uint64_t ready_ps) {
  BufferedWqe& f = q.buffered_[i];
  f.ready_ps = ready_ps;
  f.decoded = false;  // read again: decoded again
  // Read on demand for its QP's next turn, it is not a victim (no arrival): otherwise QPs
  // could evict each other's refetched WQEs before their turns forever.
  f.fill = ++next_fill_;
  return f;
}

void SendScheduler::note_arrival(Queue& q, BufferedWqe& f) {
  f.fill = ++next_fill_;
  // Entries handed on or dropped are skipped when met; those at the front go now, and the
  // whole list is swept when stale ones pile up behind a long-buffered entry.
  while (!arrivals_.empty() && !live(arrivals_.front())) arrivals_.pop_front();
  if (arrivals_.size() > 4 * size_t(config_.cache_entries) + 64) {
    arrivals_.erase(std::remove_if(arrivals_.begin(), arrivals_.end(),
                                   [this](const Arrival& a) { return !live(a); }),
                    arrivals_.end());
  }
  arrivals_.push_back({&q, q.epoch_, f.index, f.fill});
}

BufferedWqe* SendScheduler::live(const Arrival& a) const {
  Queue& q = *a.queue;
  if (a.epoch != q.epoch_) return nullptr;
  const uint32_t offset = a.index - q.handed_;  // modulo 2^32: handed on when "negative"
  if (offset >= q.buffered_.size()) return nullptr;
  BufferedWqe& f = q.buffered_[offset];
  return f.evicted || f.fill != a.fill ? nullptr : &f;
}

bool SendScheduler::make_room(uint32_t need, const Queue* exclude, uint64_t now_ps,
                              uint64_t* blocked_until) {
  *blocked_until = 0;
  if (buffered_ + need <= config_.cache_entries) return true;
  if (!config_.evict) return false;
  // `exclude`'s own entries keep their age order among themselves, moved behind the others.
  size_t own_left = arrivals_.size();
  while (buffered_ + need > config_.cache_entries && !arrivals_.empty()) {
    const Arrival a = arrivals_.front();
    BufferedWqe* f = live(a);
    if (!f) {
      arrivals_.pop_front();
      continue;
    }
    if (f->ready_ps > now_ps) {
      // The oldest is still being read: no slot can be taken from under a read in flight.
      *blocked_until = f->ready_ps;
      return false;
    }
    arrivals_.pop_front();
    if (a.queue == exclude) {
      arrivals_.push_back(a);
      if (--own_left == 0) return false;
      continue;
    }
    f->evicted = true;
    ++a.queue->evicted_;
    --buffered_;
    ++newly_evicted_;
  }
  return buffered_ + need <= config_.cache_entries;
}

void SendScheduler::ReadyFifo::insert(const Entry& entry) {
  auto at = std::upper_bound(entries_.begin() + ptrdiff_t(head_), entries_.end(), entry,
                             [](const Entry& a, const Entry& b) { return a.key < b.key; });
  entries_.insert(at, entry);
}

void SendScheduler::ReadyFifo::compact() {
  entries_.erase(entries_.begin(), entries_.begin() + ptrdiff_t(head_));
  head_ = 0;
}

void SendScheduler::collect_due(uint64_t now_ps) {
  waiting_.pop_due(now_ps, due_);
  for (const Entry& e : due_)
    if (e.ticket == e.queue->ticket_) make_ready(*e.queue);
  due_.clear();
}

bool SendScheduler::resume(uint32_t qpn, uint64_t now_ps) {
  Queue* q = find(qpn);
  if (!q || !q->stalled_) return false;
  q->stalled_ = false;
  if (q->place_ == Queue::Place::Off && !q->buffered_.empty()) join(*q, now_ps);
  return true;
}

// --- WaitHeap ---

void SendScheduler::WaitHeap::pop_due(uint64_t now, std::vector<Entry>& out) {
  for (;;) {
    if (!buckets_[0].empty()) {  // keys equal to base_, which is <= now
      out.insert(out.end(), buckets_[0].begin(), buckets_[0].end());
      buckets_[0].clear();  // empty again, as it is outside pop_due()
    }
    if (used_ == 0) return;
    const unsigned b = first_used();
    if (least_[b] > now) return;
    // The bucket's least key becomes the base: its entries go to lower buckets, the least to 0
    // (alone in its bucket, as it usually is, it is popped at once).
    base_ = least_[b];
    used_ &= ~(uint64_t(1) << (b - 1));
    std::vector<Entry>& from = buckets_[b];
    if (from.size() == 1) {
      out.push_back(from[0]);
    } else {
      for (const Entry& e : from) place(e);
    }
    from.clear();
  }
}

uint64_t SendScheduler::WaitHeap::least_live_slow() {
  while (used_ != 0) {
    const unsigned b = unsigned(__builtin_ctzll(used_)) + 1;
    std::vector<Entry>& bucket = buckets_[b];
    const Entry& least = bucket[least_at_[b]];
    if (least.ticket == least.queue->ticket_) return least.key;
    // Stale (its QP was discarded while it waited): dropped, and the bucket's least found again.
    bucket.erase(bucket.begin() + least_at_[b]);
    if (bucket.empty()) {
      used_ &= ~(uint64_t(1) << (b - 1));
      continue;
    }
    least_[b] = bucket[0].key;
    least_at_[b] = 0;
    for (uint32_t i = 1; i < bucket.size(); ++i) {
      if (bucket[i].key < least_[b]) {
        least_[b] = bucket[i].key;
        least_at_[b] = i;
      }
    }
  }
  return ~uint64_t(0);
}

}  // namespace rnic
