//===- Philox.h - Philox4x32-10, the generator of kiln.rng_uniform -*- C++
//-*-===//
//
// Counter-based random numbers (Salmon, Moraes, Dror and Shaw, "Parallel
// random numbers: as easy as 1, 2, 3", SC 2011): the reference semantics of
// kiln.rng_uniform, shared by the interpreter and the tests. The lowerings
// emit the same rounds as arith ops.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_PHILOX_H
#define KILN_SUPPORT_PHILOX_H

#include <array>
#include <cstdint>

namespace kiln::philox {

inline constexpr uint32_t kMultiplier0 = 0xD2511F53u;
inline constexpr uint32_t kMultiplier1 = 0xCD9E8D57u;
inline constexpr uint32_t kWeyl0 = 0x9E3779B9u;
inline constexpr uint32_t kWeyl1 = 0xBB67AE85u;
inline constexpr int kRounds = 10;

using Counter = std::array<uint32_t, 4>;
using Key = std::array<uint32_t, 2>;

/// Philox4x32 with 10 rounds: the key is bumped between rounds.
constexpr Counter philox4x32_10(Counter c, Key k) {
  for (int round = 0; round < kRounds; ++round) {
    if (round > 0) {
      k[0] += kWeyl0;
      k[1] += kWeyl1;
    }
    uint64_t p0 = uint64_t(kMultiplier0) * c[0];
    uint64_t p1 = uint64_t(kMultiplier1) * c[2];
    c = {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1),
         uint32_t(p0 >> 32) ^ c[3] ^ k[1], uint32_t(p0)};
  }
  return c;
}

/// The 32-bit word kiln.rng_uniform draws for flat index `n` under key
/// (seed, offset): word `n mod 4` of Philox4x32-10 with key (seed mod 2^32,
/// seed >> 32) and counter (c mod 2^32, c >> 32, 0, 0), c = offset + n div 4
/// (mod 2^64).
constexpr uint32_t uniformWord(uint64_t seed, uint64_t offset, uint64_t n) {
  uint64_t c = offset + n / 4;
  Counter out = philox4x32_10({uint32_t(c), uint32_t(c >> 32), 0, 0},
                              {uint32_t(seed), uint32_t(seed >> 32)});
  return out[n % 4];
}

/// The value kiln.rng_uniform gives for flat index `n`: (word >> 8) * 2^-24,
/// in [0, 1), exact in f32.
constexpr float uniformValue(uint64_t seed, uint64_t offset, uint64_t n) {
  return float(uniformWord(seed, offset, n) >> 8) * (1.0f / 16777216.0f);
}

} // namespace kiln::philox

#endif // KILN_SUPPORT_PHILOX_H
