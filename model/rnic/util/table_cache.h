// SPDX-License-Identifier: Apache-2.0
// An on-chip cache in front of a table in host memory (ICM), plain C++, times in picoseconds:
// the QPC and CQC caches of QpContext, the MPT cache of ProtectionChecker and the MTT cache of
// Mtt are each one of these. The unit keeps the table read (a DMA) and its timing; this holds
// what every such cache does around it.
//
// - A set-associative LRU array (SetAssocCache).
// - Non-blocking: a finite set of miss-status registers (MSHRs). A miss takes the register
//   that frees first and holds it until its fill is in; with every register busy it waits,
//   and the wait is counted (1 register: a blocking cache). The askers' waiting misses are
//   granted registers round-robin, as a hardware input arbiter does (Dally and Towles,
//   "Principles and Practices of Interconnection Networks", Chapter 18): one asker's backlog
//   never holds back another's miss by more than one grant per miss of its own waiting. The
//   grants are booked as the lookups come (loosely timed), so a miss allowed ahead of misses
//   already booked takes the next register that frees and the pool pays the register back at
//   the slot first-come order would have given it: the pool's throughput is kept, the misses
//   booked earlier keep their times. Hits under misses: a present line
//   is answered at once, whatever is in flight. A line whose fill is still in flight when
//   another request asks for it is a merged miss: no second table read, the entry is ready
//   when the fill lands.
// - Units annotate delays (loosely timed), so a fill is known, with its landing time, as soon
//   as the miss is issued; the line is entered then, stamped with that time, and a lookup at
//   an earlier simulated time sees it in flight (merged) rather than present.
// - Statistics: hits, misses and merged misses of each asker (the caller's identity, an
//   index), optionally over all askers too; evictions and write-backs; the wait for a
//   register; the miss-fill latency; the misses in flight.
// - Write-back (Config::write_back): the units that ask change the running state of what they
//   asked for, so every line is dirty when it leaves and an evicted line goes back to the unit
//   to be written to its table.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <set>
#include <string>
#include <vector>

#include "model/rnic/util/set_assoc_cache.h"
#include "tlm/stats.h"

namespace rnic {

// The names and descriptions of a table cache's statistics (docs/generated/stats.md lists
// them). In the per-asker ones "{asker}" stands for the asker's name.
struct TableCacheLabels {
  struct Label {
    std::string name;  // empty: not kept (the optional ones)
    std::string description;
  };
  std::vector<std::string> askers;              // by index: who asks
  Label hits, misses, merged;                   // per asker, "lookups"
  Label all_hits, all_misses, all_merged;       // over every asker (optional), "lookups"
  Label evictions, write_backs;                 // optional, "entries"
  Label stall;                                  // ps misses waited for a register
  Label fill;                                   // histogram: a miss, asked to filled
  Label in_flight;                              // occupancy: misses holding a register
};

template <typename Entry>
class TableCache {
 public:
  struct Config {
    uint32_t entries = 1;
    uint32_t ways = 1;            // entries: fully associative
    uint32_t miss_registers = 1;  // 0 counts as 1
    bool write_back = false;      // an evicted line is handed back to be written to the table
  };
  using Labels = TableCacheLabels;

  // Declares the statistics in `stats`, in this order: the all-asker counters, each asker's
  // hits, misses and merged, evictions, write-backs, the stall; then the fill histogram and
  // the in-flight occupancy.
  TableCache(const Config& config, StatGroup& stats, const Labels& labels)
      : lines_(config.entries, config.ways), write_back_(config.write_back) {
    registers_ = config.miss_registers ? config.miss_registers : 1;
    for (uint32_t i = 0; i < registers_; ++i) free_at_.push(0);
    declare(stats, labels);
  }
  TableCache(const TableCache&) = delete;  // the counters may point into it
  TableCache& operator=(const TableCache&) = delete;

  enum class Outcome : uint8_t { Hit, Merged, Miss };
  // One lookup's answer.
  struct Access {
    Outcome outcome = Outcome::Miss;
    Entry* entry = nullptr;  // Hit and Merged: the line (valid until the next insert)
    uint64_t key = 0;
    uint64_t asked_ps = 0;
    // Hit: asked_ps. Merged: when the fill lands. Miss: when a register took it, the time
    // its table read starts.
    uint64_t ready_ps = 0;
    // Miss: the register slot first-come order gave it (>= ready_ps), where the pool pays
    // the register back.
    uint64_t slot_ps = 0;
  };

  // `key` as seen by `asker` (an asker past the labels' list counts as the first) at
  // `asked_ps`, counted. A miss takes a register, waiting for one to free if need be; the
  // unit then reads the table from ready_ps on and calls fill() or end_miss() with the time
  // the read is over.
  Access lookup(uint64_t key, uint32_t asker, uint64_t asked_ps) {
    const AskerCounters& by = askers_[asker < askers_.size() ? asker : 0];
    Access a;
    a.key = key;
    a.asked_ps = asked_ps;
    if (Line* line = lines_.lookup(key)) {
      a.entry = &line->entry;
      if (line->ready_ps <= asked_ps) {
        a.outcome = Outcome::Hit;
        a.ready_ps = asked_ps;
        ++*by.hits;
        ++*all_hits_;
      } else {
        a.outcome = Outcome::Merged;
        a.ready_ps = line->ready_ps;
        ++*by.merged;
        ++*all_merged_;
      }
      return a;
    }
    ++*by.misses;
    ++*all_misses_;
    const uint64_t free_at = free_at_.top();
    free_at_.pop();
    a.slot_ps = std::max(free_at, asked_ps);
    a.ready_ps = round_robin_grant(asker < askers_.size() ? asker : 0, asked_ps, a.slot_ps);
    *stall_ps_ += a.ready_ps - asked_ps;
    return a;
  }

  // The table read of `miss` is over at `filled_ps` (`ok`: the entry came in), `now_ps` being
  // the unit's current time: frees its register. The unit then enters what it read (a line
  // of several entries: insert() and insert_if_absent()); fill() does both for one entry.
  void end_miss(const Access& miss, uint64_t now_ps, uint64_t filled_ps, bool ok) {
    // The register is the pool's again after the read's length from its first-come slot.
    const uint64_t released = filled_ps + (miss.slot_ps - miss.ready_ps);
    free_at_.push(released);
    if (waiting_.size() > 1) {
      while (!releases_.empty() && *releases_.begin() < now_ps) releases_.erase(releases_.begin());
      releases_.insert(released);
    }
    // Occupancy as the pool holds its registers: a miss granted ahead of earlier bookings
    // counts at its first-come slot, as if the two had swapped (never above the registers).
    in_flight_->hold(now_ps, miss.slot_ps, released);
    if (ok) fill_->add_ps(filled_ps - miss.asked_ps);
  }

  // A line that left to make room, for the unit to write back (write-back tables only).
  struct Victim {
    bool happened = false;
    uint64_t key = 0;
    Entry entry{};
  };
  // The entry of `miss` came in at `filled_ps`: enters it, usable from then on.
  Entry& fill(const Access& miss, uint64_t now_ps, uint64_t filled_ps, const Entry& entry,
              Victim* victim = nullptr) {
    end_miss(miss, now_ps, filled_ps, true);
    return insert(miss.key, entry, filled_ps, victim);
  }

  // Enters `key`, usable from `ready_ps` on (0: at once, e.g. an entry the unit changed and
  // writes through to the table). In a write-back table the line it evicts goes to `victim`.
  Entry& insert(uint64_t key, const Entry& entry, uint64_t ready_ps = 0,
                Victim* victim = nullptr) {
    const uint64_t evicted_before = lines_.evictions();
    if (write_back_ && victim) {
      typename SetAssocCache<Line>::Eviction lost;
      Entry& entered = lines_.insert(key, Line{entry, ready_ps}, &lost).entry;
      if (lost.happened) {
        ++*evictions_;
        ++*write_backs_;
        *victim = Victim{true, lost.key, lost.value.entry};
      }
      return entered;
    }
    Entry& entered = lines_.insert(key, Line{entry, ready_ps}).entry;
    if (lines_.evictions() != evicted_before) ++*evictions_;
    return entered;
  }
  // Enters `key` only if absent: the neighbours a line fill brings in keep newer copies. Not
  // for write-back tables (no victim is handed back).
  void insert_if_absent(uint64_t key, const Entry& entry, uint64_t ready_ps) {
    if (!lines_.lookup(key)) insert(key, entry, ready_ps);
  }
  // Drops `key` (the driver changed the entry in its table).
  void invalidate(uint64_t key) { lines_.invalidate(key); }

  uint32_t registers() const { return registers_; }
  uint32_t sets() const { return lines_.sets(); }
  uint32_t ways() const { return lines_.ways(); }
  uint64_t evictions() const { return lines_.evictions(); }

 private:
  struct Line {
    Entry entry{};
    uint64_t ready_ps = 0;  // when its fill lands
  };
  struct AskerCounters {
    Counter* hits;
    Counter* misses;
    Counter* merged;
  };

  void declare(StatGroup& stats, const Labels& labels) {
    auto optional = [&](const Labels::Label& l, const char* unit) {
      return l.name.empty() ? &unused_ : &stats.add(l.name, unit, l.description);
    };
    all_hits_ = optional(labels.all_hits, "lookups");
    all_misses_ = optional(labels.all_misses, "lookups");
    all_merged_ = optional(labels.all_merged, "lookups");
    for (const std::string& asker : labels.askers) {
      auto add = [&](const Labels::Label& l) {
        return &stats.add(named(l.name, asker), "lookups", named(l.description, asker));
      };
      AskerCounters by;
      by.hits = add(labels.hits);
      by.misses = add(labels.misses);
      by.merged = add(labels.merged);
      askers_.push_back(by);
    }
    if (askers_.empty()) askers_.push_back(AskerCounters{&unused_, &unused_, &unused_});
    if (askers_.size() > 1) waiting_.resize(askers_.size());
    evictions_ = optional(labels.evictions, "entries");
    write_backs_ = optional(labels.write_backs, "entries");
    stall_ps_ = &stats.add(labels.stall.name, "ps", labels.stall.description);
    fill_ = &stats.add_histogram(labels.fill.name, labels.fill.description);
    in_flight_ = &stats.add_occupancy(labels.in_flight.name, "misses", labels.in_flight.description);
  }
  // When `asker`'s miss asked at `asked_ps` gets a register, first-come order giving it
  // `slot_ps`: with other askers' misses waiting too, after at most one of theirs per miss of
  // its own already waiting (round-robin), i.e. the k-th register release after `asked_ps`.
  uint64_t round_robin_grant(uint32_t asker, uint64_t asked_ps, uint64_t slot_ps) {
    if (waiting_.size() < 2 || slot_ps == asked_ps) return slot_ps;
    uint64_t others = 0;  // askers with a miss still waiting at asked_ps
    uint64_t own = 0;
    for (uint32_t i = 0; i < waiting_.size(); ++i) {
      std::multiset<uint64_t>& w = waiting_[i];
      while (!w.empty() && *w.begin() <= asked_ps) w.erase(w.begin());
      if (i == asker) {
        own = w.size();
      } else if (!w.empty()) {
        ++others;
      }
    }
    uint64_t grant = slot_ps;
    if (others > 0) {
      uint64_t k = own * (others + 1);  // releases to skip
      for (auto it = releases_.upper_bound(asked_ps); it != releases_.end() && *it < slot_ps;
           ++it) {
        if (k-- == 0) {
          grant = *it;
          break;
        }
      }
    }
    waiting_[asker].insert(grant);
    return grant;
  }

  // `text` with "{asker}" replaced by `asker`.
  static std::string named(std::string text, const std::string& asker) {
    static const std::string kAsker = "{asker}";
    for (size_t at = text.find(kAsker); at != std::string::npos;
         at = text.find(kAsker, at + asker.size()))
      text.replace(at, kAsker.size(), asker);
    return text;
  }

  SetAssocCache<Line> lines_;
  bool write_back_ = false;
  uint32_t registers_ = 1;
  // When each register frees, earliest first.
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> free_at_;
  std::vector<AskerCounters> askers_;
  // Round-robin among askers (two or more): each asker's waiting misses by grant time, and
  // the register releases booked from now on.
  std::vector<std::multiset<uint64_t>> waiting_;
  std::multiset<uint64_t> releases_;
  Counter unused_;  // what a statistic left out of the labels counts into
  Counter* all_hits_ = nullptr;
  Counter* all_misses_ = nullptr;
  Counter* all_merged_ = nullptr;
  Counter* evictions_ = nullptr;
  Counter* write_backs_ = nullptr;
  Counter* stall_ps_ = nullptr;
  Histogram* fill_ = nullptr;
  Occupancy* in_flight_ = nullptr;
};

}  // namespace rnic
