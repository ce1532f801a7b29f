// SPDX-License-Identifier: Apache-2.0
// The send-queue scheduler behind the WqeFetcher, plain C++ (no SystemC; times are picoseconds):
// per QP the WQEs rung, read and handed on, the shared WQE buffer, which reads go out next, and
// whose turn it is to hand a batch to the Requester. The WqeFetcher module does the I/O (doorbell
// timing, QP-context lookups, DMA, the hand-over) and the timing; it asks the scheduler what to do
// next and tells it what happened.
//
// - Fetch-ahead: QPs rung and not yet read wait in doorbell order; the first one's reads go out
//   while the WQE buffer has room for its next batch, and nothing behind it goes first.
// - Prefetch: per QP at most `prefetch_depth` batch reads in flight or buffered, each at most
//   `fetch_batch` WQEs and never past the ring's end; a BlueFlame WQE (written with its doorbell)
//   is its own batch when it is the QP's next to fetch.
// - WQE buffer: every WQE fetched and not yet handed on holds one of `cache_entries` slots.
//   Full, it either blocks the next read (`evict` false: the read waits for a slot) or evicts
//   (`evict` true): the WQE that entered the buffer first among those of other QPs that are on
//   chip goes (FIFO by fill, which is LRU here: a buffered WQE is used once, when it is handed
//   on, so nothing is touched between fill and use). An evicted WQE keeps its place in its
//   QP's order but no slot; when its QP's turn comes it is read again (refetch()) before it can
//   be handed on. A NIC's WQE cache thrashes this way when more work requests are outstanding
//   than it holds (SMART, Ren et al., ASPLOS'24: cache thrashing from excessive outstanding
//   work requests, ConnectX-6).
// - Turns: the QPs with WQEs on chip take turns round-robin, one batch per turn.
// - Stall: a QP whose WQE the Requester refused sits out the turns until it is resumed.
// - Epoch: a discarded QP (re-created, or a bad doorbell) drops what it buffered; the epoch
//   tells a hand-over in progress that its WQE is gone.
//
// The turn order (the rule a linear scan applied before, kept exactly):
//   The QPs with WQEs on chip form a list in the order they joined it. A QP joins at the back
//   when it first has a WQE buffered (and is not stalled), after each of its turns while it
//   still has WQEs buffered and is not stalled, and when it is resumed with WQEs buffered. A
//   turn at time `now` goes to the first QP of the list that is eligible: its front WQE's batch
//   read is in (ready_ps <= now), or its buffer is empty (discarded: the turn only takes it off
//   the list). The QP leaves the list for its turn. So a QP whose next batch is still being
//   read keeps its place and lets the next QP with a WQE on chip go first.
//
// The invariant that makes a turn O(1) amortized in the number of QPs instead of a scan:
//   every QP on the list holds a position (a number given when it joins: list order is position
//   order) and is in exactly one of two sets, chosen by its front WQE:
//   - ready: eligible; a FIFO sorted by position;
//   - waiting: its front WQE's read is still out; a radix heap keyed on that WQE's ready time.
//   A turn at `now` first moves the waiting QPs whose ready time has come to the ready set, then
//   takes the ready set's first. A QP's front WQE changes only when its empty buffer is refilled
//   or its buffer is discarded (its own hand-overs happen while it is off the list), and each
//   such change moves it to the set it now belongs to. An entry left behind in the other set
//   carries an old ticket and is dropped when met.
// Cost: a QP enters the ready set in position order (a push at the back) but when it was
// discarded or refilled while on the list (rare: a binary search, then a vector insert); the heap
// pushes in O(1) and moves each waiting QP at most once per bit of its wait, whatever the number
// of QPs.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "model/rnic/abi/icm.h"
#include "model/rnic/abi/wqe.h"
#include "tlm/recycling_allocator.h"

namespace rnic {

// A WQE in the WQE buffer: fetched (or being fetched) and not yet handed on.
struct BufferedWqe {
  Wqe wqe;                  // decoded when its batch read was issued
  uint32_t index = 0;       // its position in the send queue (modulo 2^32)
  uint64_t issued_ps = 0;   // its batch read started
  uint64_t ready_ps = 0;    // its batch read completed: on chip from then on
  bool last_of_batch = false;
  uint64_t trace_id = 0;    // its request's timeline id
  bool decoded = false;     // the module's: refused once, decoded at decoded_at_ps already
  bool evicted = false;     // its slot went to another QP's WQE: to be read again
  uint32_t fill = 0;        // which fill of a slot this is (evict: arrivals of stale fills)
  uint64_t decoded_at_ps = 0;
};

class SendScheduler {
 public:
  struct Config {
    uint32_t fetch_batch = 4;     // wqe.fetch_batch (0 reads as 1)
    uint32_t prefetch_depth = 4;  // wqe.prefetch_depth (0 reads as 1)
    uint32_t cache_entries = 64;  // wqe.cache_entries
    bool evict = false;           // wqe.cache_policy: evict (true) or block (false) when full
  };

  // One send queue. The module reads it; only the scheduler changes it (the front WQE's decode
  // fields and the context are the module's to write). Never erased: references stay valid.
  class Queue {
   public:
    uint32_t qpn() const { return qpn_; }
    uint32_t handed() const { return handed_; }
    // WQEs posted and not yet handed on (modulo 2^32).
    uint32_t posted() const { return producer_ - handed_; }
    uint32_t epoch() const { return epoch_; }
    bool stalled() const { return stalled_; }
    bool has_buffered() const { return !buffered_.empty(); }
    // Its WQEs in the buffer's order that were evicted and not yet read again.
    uint32_t evicted() const { return evicted_; }
    const std::deque<BufferedWqe, RecyclingAllocator<BufferedWqe>>& buffered() const {
      return buffered_;
    }
    BufferedWqe& front() { return buffered_.front(); }
    // The WQE its latest BlueFlame doorbell carried.
    const uint8_t* blueflame_wqe() const { return bf_wqe_.data(); }
    // The QP context as read for the latest batch: handed on with its WQEs.
    QpcEntry context;

   private:
    friend class SendScheduler;
    enum class Place : uint8_t { Off, Ready, Waiting, Turn };
    uint32_t qpn_ = 0;
    uint32_t producer_ = 0;  // from the latest doorbell
    uint32_t fetched_ = 0;   // WQEs read (or being read)
    uint32_t handed_ = 0;    // WQEs handed on
    uint32_t batches_ = 0;   // batch reads in flight or buffered
    uint32_t evicted_ = 0;   // entries of buffered_ evicted (no slot held)
    uint32_t epoch_ = 0;     // bumped by a discard: buffered WQEs are gone
    bool waiting_fetch_ = false;  // in the fetch-ahead list
    bool closing_ = false;        // close marker due once everything rung is handed on
    bool stalled_ = false;        // its front WQE was refused: out of the turns until resumed
    bool blueflame_ = false;      // bf_wqe_ is WQE bf_index_, written with its doorbell
    Place place_ = Place::Off;    // on the turn list (Ready, Waiting) or taking its turn
    uint32_t bf_index_ = 0;
    uint32_t ticket_ = 0;         // bumped whenever it changes set: older entries are stale
    uint64_t position_ = 0;       // on the list: its place in the turn order
    std::array<uint8_t, kWqeBytes> bf_wqe_{};
    // A BufferedWqe holds its WQE: a deque node keeps two, so nodes are recycled, not freed.
    std::deque<BufferedWqe, RecyclingAllocator<BufferedWqe>> buffered_;
  };

  // What the fetch-ahead of a QP does next.
  struct Read {
    enum class Kind : uint8_t {
      None,       // nothing left to read, or its prefetch depth is reached
      NoRoom,     // the next batch does not fit in the WQE buffer (nothing to evict)
      BlueFlame,  // the next WQE came with its doorbell: take it from there
      Ring,       // read `count` WQEs from ring slot `slot`
    };
    Kind kind = Kind::None;
    uint32_t slot = 0;
    uint32_t count = 0;
  };

  explicit SendScheduler(const Config& config);

  // --- Doorbells and context changes ---
  // A doorbell took effect: WQEs up to `producer` are posted; with `blueflame_wqe` (kWqeBytes),
  // the last of them came with it. The QP joins the fetch-ahead list if it has WQEs to read.
  Queue& ring(uint32_t qpn, uint32_t producer, const uint8_t* blueflame_wqe = nullptr);
  Queue* find(uint32_t qpn);
  // Drops the QP's buffered WQEs and forgets its posted ones (a bad doorbell); the WQEs the
  // module still accounts for are queue.buffered(), to be read before.
  void discard(Queue& queue);
  // The QP was re-created: discard, and its ring indices start again from zero.
  void recreate(Queue& queue);
  // The QP is closing: its close marker is due once everything rung has been handed on.
  void close(uint32_t qpn);
  // Some QP is closing.
  bool closing() const { return !closing_.empty(); }
  // The next closing QP at or after `cursor` whose WQEs have all been handed on, now no longer
  // closing (its marker is the module's to send), or null. Call again with the same cursor.
  Queue* take_drained(size_t& cursor);

  // --- Fetch-ahead, in doorbell order ---
  // The first QP with WQEs rung and not yet read, or null.
  Queue* fetch_ahead_head() { return fetch_ahead_.empty() ? nullptr : fetch_ahead_.front(); }
  // The WQE buffer has room for the QP's next batch (as far as it is known before its context).
  // Evicting, room can be made: next_read() decides.
  bool room_for_next_batch(const Queue& queue) const {
    return config_.evict ||
           buffered_ + std::min(queue.producer_ - queue.fetched_, config_.fetch_batch) <=
               config_.cache_entries;
  }
  // The QP has WQEs to read and prefetch depth for them.
  bool wants_read(const Queue& queue) const {
    return queue.producer_ != queue.fetched_ && queue.batches_ < config_.prefetch_depth;
  }
  // The QP's next read; its ring holds `sq_depth` WQEs. Evicting, it makes room at `now_ps`
  // (entries of other QPs on chip by then).
  Read next_read(Queue& queue, uint32_t sq_depth, uint64_t now_ps = 0);
  // A WQE of the read just decided enters the buffer at the back of its QP's (the module fills
  // in the rest). `last_of_batch` ends the batch: it counts against the prefetch depth.
  inline BufferedWqe& add(Queue& queue, uint64_t ready_ps, bool last_of_batch, uint64_t now_ps);
  // The head's reads are issued (`all_issued`), or stopped for lack of buffer room. Either way a
  // QP with WQEs on chip joins the turns (handing them on is what makes room); only when all
  // were issued does it leave the fetch-ahead list.
  inline void end_fetch_ahead(bool all_issued, uint64_t now_ps);

  // --- Turns ---
  // No QP has WQEs on chip (or a turn to take).
  bool idle() const { return members_ == 0; }
  // The QP whose turn it is at `now_ps` (off the list until end_turn), or null when every QP on
  // the list waits for a read (next_ready_ps() then says until when). `now_ps` never goes back.
  inline Queue* take_turn(uint64_t now_ps);
  // When the first read that the QPs on the list wait for completes (not idle, no turn).
  uint64_t next_ready_ps() { return waiting_.least_live(); }
  // The front WQE went to the Requester.
  inline void handed(Queue& queue);
  // The Requester refused the front WQE: the QP sits out the turns until resume().
  void refused(Queue& queue) { queue.stalled_ = true; }
  // The turn is over: its next reads join the fetch-ahead list; it goes to the back of the
  // turns if it still has WQEs buffered and is not stalled.
  inline void end_turn(Queue& queue, uint64_t now_ps);
  // The Requester can take the QP's WQEs again. False when the QP was not stalled.
  bool resume(uint32_t qpn, uint64_t now_ps);

  // WQE buffer slots in use, all QPs.
  uint32_t buffered() const { return buffered_; }

  // --- Eviction and refetch (evict) ---
  // The QP's front WQE was evicted: the read that brings it back, `count` evicted WQEs from
  // ring slot `slot` (at most a batch, never past the ring's end), their slots taken now;
  // NoRoom when no slot can be made (the others being read, or read again for their QPs'
  // turns): the run's ready_ps is then set to when the oldest read is in, or `retry_ps` on,
  // and the QP waits on the turn list like one whose read is out, to try again at its turn.
  Read refetch(Queue& queue, uint32_t sq_depth, uint64_t now_ps, uint64_t retry_ps = 1);
  // Entry `i` of the refetch just decided: its read completes at `ready_ps`; the module fills
  // in the WQE (decoded again). A WQE read again is never evicted before it is handed on.
  BufferedWqe& refill(Queue& queue, uint32_t i, uint64_t ready_ps);
  // BlueFlame WQEs the device did not take from their doorbell since the last call: the ring
  // read brought them (an earlier WQE of the QP was still unread), a later BlueFlame write
  // replaced them, or their QP was discarded.
  uint32_t take_blueflame_discarded() {
    const uint32_t n = blueflame_discarded_;
    blueflame_discarded_ = 0;
    return n;
  }
  // WQEs evicted since the last call (the module's occupancy statistic).
  uint32_t take_evicted() {
    const uint32_t n = newly_evicted_;
    newly_evicted_ = 0;
    return n;
  }

 private:
  // An entry of the ready FIFO or the waiting heap: stale when its ticket is not the queue's.
  struct Entry {
    uint64_t key;  // ready FIFO: the position; waiting heap: the ready time
    Queue* queue;
    uint32_t ticket;
  };
  // The ready set: a FIFO in a vector, sorted by position; emptied often, so the vector is
  // reused from its start (no node allocation per entry).
  class ReadyFifo {
   public:
    bool empty() const { return head_ == entries_.size(); }
    const Entry& front() const { return entries_[head_]; }
    const Entry& back() const { return entries_.back(); }
    void pop_front() {
      if (++head_ == entries_.size()) {
        entries_.clear();
        head_ = 0;
      }
    }
    void push_back(const Entry& entry) {
      if (head_ >= 64 && head_ * 2 >= entries_.size()) compact();
      entries_.push_back(entry);
    }
    // At its place by key, behind equal keys.
    void insert(const Entry& entry);

   private:
    void compact();
    std::vector<Entry> entries_;
    size_t head_ = 0;  // entries_[0, head_) are popped
  };

  // A radix heap (monotone priority queue over uint64 keys): every key pushed is greater than
  // the last key popped (`base_`). Bucket b > 0 holds the keys whose highest bit differing from
  // base_ is b - 1, so every key of a bucket is below every key of a higher one; bucket 0 (keys
  // equal to base_) is used only while pop_due() runs. Pushing is O(1); popping the least key
  // empties its bucket into lower ones, so an entry moves at most 64 times, whatever the number
  // of entries.
  class WaitHeap {
   public:
    WaitHeap() { least_.fill(~uint64_t(0)); }
    void push(const Entry& entry) {
      assert(entry.key > base_);
      place(entry);
    }
    // Some entry has key <= now.
    bool due(uint64_t now) const { return used_ != 0 && least_[first_used()] <= now; }
    // Pops the least entry if its key is <= now and it is alone in its bucket, as it usually is.
    bool pop_lone_due(uint64_t now, Entry& out) {
      if (used_ == 0) return false;
      const unsigned b = first_used();
      std::vector<Entry>& bucket = buckets_[b];
      if (least_[b] > now || bucket.size() != 1) return false;
      base_ = least_[b];  // every other key is in a higher bucket: larger
      used_ &= ~(uint64_t(1) << (b - 1));
      out = bucket[0];
      bucket.clear();
      return true;
    }
    // Pops every entry with key <= now, in key order (ties in push order), into `out`.
    void pop_due(uint64_t now, std::vector<Entry>& out);
    // The least key of a live entry; stale entries found there are dropped. ~0 when none.
    uint64_t least_live() {
      if (used_ != 0) {
        const unsigned b = first_used();
        const Entry& least = buckets_[b][least_at_[b]];
        if (least.ticket == least.queue->ticket_) return least.key;
      }
      return least_live_slow();
    }

   private:
    static unsigned bucket_of(uint64_t key, uint64_t base) {
      return key == base ? 0u : 64u - unsigned(__builtin_clzll(key ^ base));
    }
    unsigned first_used() const { return unsigned(__builtin_ctzll(used_)) + 1; }
    void place(const Entry& entry) {
      const unsigned b = bucket_of(entry.key, base_);
      std::vector<Entry>& bucket = buckets_[b];
      if (b != 0) {
        if (bucket.empty()) {
          used_ |= uint64_t(1) << (b - 1);
          least_[b] = entry.key;
          least_at_[b] = 0;
        } else if (entry.key < least_[b]) {
          least_[b] = entry.key;
          least_at_[b] = uint32_t(bucket.size());
        }
      }
      bucket.push_back(entry);
    }
    uint64_t least_live_slow();
    uint64_t base_ = 0;  // the last key popped: every key is >= base_
    uint64_t used_ = 0;  // bit b - 1 set: bucket b (1..64) is not empty
    std::array<std::vector<Entry>, 65> buckets_;
    std::array<uint64_t, 65> least_;       // bucket b's least key
    std::array<uint32_t, 65> least_at_{};  // its index in the bucket
  };

  Queue& queue(uint32_t qpn);
  void note_posted(Queue& queue) {
    if (!queue.waiting_fetch_ && queue.producer_ != queue.fetched_) {
      queue.waiting_fetch_ = true;
      fetch_ahead_.push_back(&queue);
    }
  }
  // Appends the queue to the turn list.
  inline void join(Queue& queue, uint64_t now_ps);
  // Puts a queue on the list into the ready set, at its place.
  void make_ready(Queue& queue) {
    ++queue.ticket_;
    queue.place_ = Queue::Place::Ready;
    const Entry entry{queue.position_, &queue, queue.ticket_};
    if (ready_.empty() || ready_.back().key < entry.key) {
      ready_.push_back(entry);
    } else {
      // Behind a QP that joined later: it was discarded or refilled while on the list, or
      // reads came in at once and out of list order.
      ready_.insert(entry);
    }
  }
  void collect_due(uint64_t now_ps);
  // A WQE entered the buffer (evict): its place in the eviction order.
  struct Arrival {
    Queue* queue;
    uint32_t epoch;
    uint32_t index;
    uint32_t fill;
  };
  void note_arrival(Queue& queue, BufferedWqe& wqe);
  // The entry an arrival names if it still holds a slot, else null.
  BufferedWqe* live(const Arrival& arrival) const;
  // Evicts until `need` more slots fit, never `exclude`'s entries nor one still being read.
  // False when it could not; *blocked_until is then the ready time of the oldest entry, still
  // being read, that stopped it (0: none did).
  bool make_room(uint32_t need, const Queue* exclude, uint64_t now_ps, uint64_t* blocked_until);
  // The queue leaves the list for its turn.
  inline Queue* start_turn(Queue& queue);

  Config config_;
  std::unordered_map<uint32_t, Queue> queues_;
  std::deque<Queue*> fetch_ahead_;  // QPs with WQEs rung and not yet read, in doorbell order
  std::vector<uint32_t> closing_;   // QPs closed whose close marker is not sent yet
  uint32_t buffered_ = 0;           // WQE buffer slots in use, all QPs
  uint64_t next_position_ = 0;
  uint32_t members_ = 0;            // QPs on the turn list
  ReadyFifo ready_;
  WaitHeap waiting_;
  std::vector<Entry> due_;          // scratch of take_turn
  std::deque<Arrival> arrivals_;    // evict: entries in the order they took their slots
  uint32_t next_fill_ = 0;
  uint32_t newly_evicted_ = 0;
  uint32_t blueflame_discarded_ = 0;
};

// --- The hot paths, inline: a few per WQE ---

inline BufferedWqe& SendScheduler::add(Queue& q, uint64_t ready_ps, bool last_of_batch,
                                       uint64_t now_ps) {
  const bool was_empty = q.buffered_.empty();
  BufferedWqe& f = q.buffered_.emplace_back();
  f.index = q.fetched_++;
  f.ready_ps = ready_ps;
  f.last_of_batch = last_of_batch;
  ++buffered_;
  if (config_.evict) note_arrival(q, f);
  if (last_of_batch) ++q.batches_;
  // A QP on the list whose empty buffer is refilled is eligible only once this WQE is in.
  if (was_empty && q.place_ == Queue::Place::Ready && ready_ps > now_ps) {
    ++q.ticket_;
    q.place_ = Queue::Place::Waiting;
    waiting_.push({ready_ps, &q, q.ticket_});
  }
  return f;
}

inline void SendScheduler::end_fetch_ahead(bool all_issued, uint64_t now_ps) {
  Queue& q = *fetch_ahead_.front();
  // WQEs on chip (or on their way) make the QP eligible for the turns, even when its later
  // batches still wait for room: handing them on is what makes room.
  if (q.place_ == Queue::Place::Off && !q.stalled_ && !q.buffered_.empty()) join(q, now_ps);
  if (!all_issued) return;
  fetch_ahead_.pop_front();
  q.waiting_fetch_ = false;
}

inline void SendScheduler::join(Queue& q, uint64_t now_ps) {
  q.position_ = ++next_position_;
  ++q.ticket_;
  ++members_;
  if (q.buffered_.empty() || q.buffered_.front().ready_ps <= now_ps) {
    q.place_ = Queue::Place::Ready;
    ready_.push_back({q.position_, &q, q.ticket_});  // the newest position: the back
  } else {
    q.place_ = Queue::Place::Waiting;
    waiting_.push({q.buffered_.front().ready_ps, &q, q.ticket_});
  }
}

inline SendScheduler::Queue* SendScheduler::take_turn(uint64_t now_ps) {
  // Waiting QPs whose front read is in become eligible, at their place.
  if (waiting_.due(now_ps)) {
    Entry due;
    while (waiting_.pop_lone_due(now_ps, due)) {
      if (due.ticket != due.queue->ticket_) continue;  // it moved on since
      // The only eligible QP: its turn, without a pass through the ready set.
      if (ready_.empty() && !waiting_.due(now_ps)) return start_turn(*due.queue);
      make_ready(*due.queue);
    }
    if (waiting_.due(now_ps)) collect_due(now_ps);
  }
  while (!ready_.empty()) {
    const Entry e = ready_.front();
    ready_.pop_front();
    if (e.ticket == e.queue->ticket_) return start_turn(*e.queue);
  }
  return nullptr;
}

inline SendScheduler::Queue* SendScheduler::start_turn(Queue& q) {
  ++q.ticket_;
  q.place_ = Queue::Place::Turn;
  --members_;
  return &q;
}

inline void SendScheduler::handed(Queue& q) {
  if (q.buffered_.front().last_of_batch) --q.batches_;
  q.buffered_.pop_front();
  --buffered_;
  ++q.handed_;
}

inline void SendScheduler::end_turn(Queue& q, uint64_t now_ps) {
  // Its next reads go out at once (the fetch-ahead list, in turn with the other QPs), so they
  // are read while the requester works on this batch.
  note_posted(q);
  if (!q.buffered_.empty() && !q.stalled_) {
    join(q, now_ps);
  } else {
    q.place_ = Queue::Place::Off;
  }
}

}  // namespace rnic
