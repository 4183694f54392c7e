//===- NodeAllocator.h - a per-thread free list for trace nodes -*- C++ -*-===//
//
// Every recorded op allocates a node and every step frees a few dozen.
// glibc's per-thread cache keeps 7 blocks of a size, so a step's worth of
// nodes went through malloc's slow paths both ways. NodeAllocator keeps up
// to `kMaxCached` freed blocks of each size on a per-thread list: a node
// freed on another thread than it was made on joins that thread's list.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_TRACE_NODEALLOCATOR_H
#define KILN_LIB_TRACE_NODEALLOCATOR_H

#include <cstddef>
#include <new>

// Under AddressSanitizer every node is its own allocation, so that a use
// after free is caught rather than reading a reused node.
#if defined(__SANITIZE_ADDRESS__)
#define KILN_NODE_FREE_LIST 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_NODE_FREE_LIST 0
#endif
#endif
#ifndef KILN_NODE_FREE_LIST
#define KILN_NODE_FREE_LIST 1
#endif

namespace kiln {
namespace detail {

/// The free blocks of `Size` bytes (aligned to `Align`) of this thread.
template <size_t Size, size_t Align> class NodeFreeList {
  struct Block {
    Block *next;
  };
  static_assert(Size >= sizeof(Block) && Align >= alignof(Block));
  static constexpr size_t kMaxCached = 4096;

  /// Trivially destructible, so that blocks freed by destructors that run
  /// after this thread's `Owner` are freed at once, not cached.
  struct State {
    Block *head = nullptr;
    size_t count = 0;
    bool alive = false;
  };
  /// Frees the cached blocks when the thread ends.
  struct Owner {
    Owner() { state().alive = true; }
    ~Owner() {
      State &s = state();
      s.alive = false;
      while (s.head) {
        Block *next = s.head->next;
        ::operator delete(s.head, std::align_val_t(Align));
        s.head = next;
      }
      s.count = 0;
    }
  };
  static State &state() {
    static thread_local State s;
    return s;
  }

public:
  static void *take() {
    if (!KILN_NODE_FREE_LIST)
      return ::operator new(Size, std::align_val_t(Align));
    static thread_local Owner owner;
    State &s = state();
    if (Block *block = s.head) {
      s.head = block->next;
      --s.count;
      return block;
    }
    return ::operator new(Size, std::align_val_t(Align));
  }
  static void give(void *memory) {
    State &s = state();
    if (!s.alive || s.count >= kMaxCached) {
      ::operator delete(memory, std::align_val_t(Align));
      return;
    }
    s.head = new (memory) Block{s.head};
    ++s.count;
  }
};

/// An allocator for std::allocate_shared: single objects come from the
/// free list of their size, arrays from operator new.
template <typename T> struct NodeAllocator {
  using value_type = T;
  NodeAllocator() = default;
  template <typename U> NodeAllocator(const NodeAllocator<U> &) {}

  T *allocate(size_t n) {
    if (n == 1)
      return static_cast<T *>(NodeFreeList<sizeof(T), alignof(T)>::take());
    return static_cast<T *>(
        ::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
  }
  void deallocate(T *p, size_t n) {
    if (n == 1)
      return NodeFreeList<sizeof(T), alignof(T)>::give(p);
    ::operator delete(p, std::align_val_t(alignof(T)));
  }
  template <typename U> bool operator==(const NodeAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const NodeAllocator<U> &) const {
    return false;
  }
};

} // namespace detail
} // namespace kiln

#endif // KILN_LIB_TRACE_NODEALLOCATOR_H
