//===- PhiloxTest.cpp - kiln.rng_uniform's generator ----------------------===//

#include "kiln/Support/Philox.h"

#include <gtest/gtest.h>

#include <set>

using namespace kiln::philox;

// The known-answer vectors of Random123 (kat_vectors, philox4x32 10).
TEST(Philox, MatchesTheKnownAnswers) {
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (Counter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                          {0xffffffff, 0xffffffff}),
            (Counter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                          {0xa4093822, 0x299f31d0}),
            (Counter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Philox, WordsFollowTheContractsCounterAndKey) {
  uint64_t seed = 0x0123456789abcdefull, offset = (uint64_t(7) << 32) | 5;
  for (uint64_t n : {0ull, 1ull, 2ull, 3ull, 4ull, 1001ull}) {
    uint64_t c = offset + n / 4;
    Counter block = philox4x32_10({uint32_t(c), uint32_t(c >> 32), 0, 0},
                                  {0x89abcdef, 0x01234567});
    EXPECT_EQ(uniformWord(seed, offset, n), block[n % 4]) << n;
  }
  // An offset advanced by ceil(count / 4) counters starts a fresh stream.
  EXPECT_EQ(uniformWord(seed, offset + 1, 0), uniformWord(seed, offset, 4));
}

TEST(Philox, ValuesAreInTheUnitIntervalAndSpread) {
  std::set<float> seen;
  double sum = 0;
  const int count = 4096;
  for (int n = 0; n < count; ++n) {
    float v = uniformValue(42, 0, n);
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    seen.insert(v);
    sum += v;
  }
  EXPECT_GT(seen.size(), count - 8u);
  EXPECT_NEAR(sum / count, 0.5, 0.02);
  // The largest word gives the largest value below 1.
  EXPECT_EQ(float(0xffffffffu >> 8) * (1.0f / 16777216.0f),
            1.0f - 1.0f / 16777216.0f);
}
