// SPDX-License-Identifier: Apache-2.0
// Declared statistics (gem5 ADD_STAT / DRAMSys stat groups): a unit owns named counters with
// a description and a unit; one walk over the groups writes them all out.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace rnic {

struct Counter {
  std::string name;
  std::string unit;
  std::string description;
  uint64_t value = 0;

  Counter& operator+=(uint64_t n) {
    value += n;
    return *this;
  }
  Counter& operator++() {
    ++value;
    return *this;
  }
};

// A unit's counters. A deque keeps references to earlier counters valid as more are added.
class StatGroup {
 public:
  explicit StatGroup(std::string owner) : owner_(std::move(owner)) {}
  Counter& add(const std::string& name, const std::string& unit, const std::string& description) {
    counters_.push_back(Counter{name, unit, description, 0});
    return counters_.back();
  }
  const std::string& owner() const { return owner_; }
  const std::deque<Counter>& counters() const { return counters_; }

 private:
  std::string owner_;
  std::deque<Counter> counters_;
};

// Visitor over every group of a model: (group owner path, counter).
using StatVisitor = std::function<void(const std::string& owner, const Counter& counter)>;

}  // namespace rnic
