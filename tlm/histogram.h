// SPDX-License-Identifier: Apache-2.0
// Latency histogram with log-linear buckets (128 per power of two: under 1% error), so
// percentiles of 100 M samples cost a fixed 128 KiB, not a vector of samples. The buckets
// come from calloc: zero pages of the kernel until a bucket is written, so a histogram costs
// memory (and page faults, which are slow on virtual machines) only where samples land.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace rnic {

class LatencyHistogram {
 public:
  LatencyHistogram()
      : buckets_(static_cast<uint64_t*>(std::calloc(kBuckets, sizeof(uint64_t)))) {
    if (!buckets_) throw std::bad_alloc();
  }
  LatencyHistogram(const LatencyHistogram& other) : LatencyHistogram() { *this = other; }
  LatencyHistogram& operator=(const LatencyHistogram& other) {
    if (this == &other) return *this;
    std::memcpy(buckets_.get(), other.buckets_.get(), kBuckets * sizeof(uint64_t));
    count_ = other.count_;
    max_ = other.max_;
    min_ = other.min_;
    return *this;
  }

  void add(uint64_t value) {
    ++buckets_[index(value)];
    ++count_;
    max_ = std::max(max_, value);
    min_ = std::min(min_, value);
  }
  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  // The value at quantile q (0..1): the upper edge of the bucket holding it, capped at max.
  uint64_t percentile(double q) const {
    if (count_ == 0) return 0;
    const uint64_t rank = std::max<uint64_t>(1, uint64_t(q * double(count_) + 0.5));
    uint64_t seen = 0;
    // Only the buckets between the smallest and the largest sample: the others are empty
    // (and reading them would map pages for nothing).
    for (size_t i = index(min_), last = index(max_); i <= last; ++i) {
      seen += buckets_[i];
      if (seen >= rank) return std::min(std::max(upper(i), min_), max_);
    }
    return max_;
  }

 private:
  // Values below 2^kSubBits have a bucket each; above, a value keeps its top kSubBits bits,
  // so each power of two is split into 2^(kSubBits-1) = 128 buckets.
  static constexpr unsigned kSubBits = 8;
  static constexpr unsigned kSub = 1u << kSubBits;
  static constexpr size_t kBuckets = 64 * kSub;
  static size_t index(uint64_t v) {
    if (v < kSub) return size_t(v);
    const unsigned exponent = 63u - unsigned(__builtin_clzll(v)) - kSubBits + 1;
    return size_t(exponent) * kSub + size_t((v >> exponent) & (kSub - 1));
  }
  static uint64_t upper(size_t i) {
    if (i < kSub) return i;
    const unsigned exponent = unsigned(i / kSub);
    return ((uint64_t(i % kSub) + 1) << exponent) - 1;
  }
  struct Free {
    void operator()(uint64_t* p) const { std::free(p); }
  };
  // The fields every sample updates, together (the buckets live elsewhere).
  uint64_t count_ = 0;
  uint64_t max_ = 0;
  uint64_t min_ = UINT64_MAX;  // no sample yet
  std::unique_ptr<uint64_t[], Free> buckets_;
};

}  // namespace rnic
