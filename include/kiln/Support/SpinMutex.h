//===- SpinMutex.h - a one-byte lock for short critical sections -*- C++
//-*-===//
//
// Part of kiln's public headers (kiln/Trace/Trace.h holds one per node).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_SPINMUTEX_H
#define KILN_SUPPORT_SPINMUTEX_H

#include <atomic>
#include <thread>

namespace kiln {

/// A lock of one byte for critical sections that are nearly always short
/// and uncontended (a trace node's operands and value): taking it is one
/// atomic exchange, where std::mutex calls into pthreads and takes 40
/// bytes. A waiter spins on a plain load for a while, then yields its core
/// each round, so that a long holder (a device download) costs waiters no
/// CPU time to speak of. Meets the standard's Lockable requirements
/// (std::lock_guard works).
class SpinMutex {
public:
  void lock() noexcept {
    int spins = 0;
    while (locked.exchange(true, std::memory_order_acquire)) {
      while (locked.load(std::memory_order_relaxed)) {
        if (++spins > kSpinsBeforeYield)
          std::this_thread::yield();
      }
    }
  }
  bool try_lock() noexcept {
    return !locked.load(std::memory_order_relaxed) &&
           !locked.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { locked.store(false, std::memory_order_release); }

private:
  static constexpr int kSpinsBeforeYield = 64;
  std::atomic<bool> locked{false};
};

} // namespace kiln

#endif // KILN_SUPPORT_SPINMUTEX_H
