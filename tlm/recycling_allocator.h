// SPDX-License-Identifier: Apache-2.0
// An allocator that keeps freed blocks for reuse: a node-based container (std::deque, lists)
// stops calling the heap once it has reached its steady-state size. Meant for containers with
// few distinct block sizes (a deque's nodes and its map).
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace rnic {

template <typename T>
class RecyclingAllocator {
 public:
  using value_type = T;
  RecyclingAllocator() = default;
  template <typename U>
  RecyclingAllocator(const RecyclingAllocator<U>&) {}  // NOLINT: rebinding converts implicitly

  T* allocate(std::size_t n) {
    std::vector<Block>& free = free_list().blocks;
    for (std::size_t i = free.size(); i-- > 0;) {
      if (free[i].count != n) continue;
      void* block = free[i].memory;
      free[i] = free.back();
      free.pop_back();
      return static_cast<T*>(block);
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) { free_list().blocks.push_back(Block{n, p}); }
  template <typename U>
  bool operator==(const RecyclingAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const RecyclingAllocator<U>&) const { return false; }

 private:
  // One free list per element type, emptied at exit (no leak reports).
  struct Block {
    std::size_t count;
    void* memory;
  };
  struct FreeList {
    std::vector<Block> blocks;
    ~FreeList() {
      for (const Block& block : blocks) ::operator delete(block.memory);
    }
  };
  static FreeList& free_list() {
    static FreeList list;
    return list;
  }
};

}  // namespace rnic
