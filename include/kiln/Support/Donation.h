//===- Donation.h - which inputs an entry's outputs may overwrite -*- C++
//-*-===//
//
// A caller that will drop an input after a run may donate its buffer: an
// output of the same dtype and shape is then written into it, and no new
// buffer is allocated (XLA's donated arguments). That is safe only where
// the entry reads the input for the last time no later than it first
// writes the output, and, where both happen in one operation, the
// operation reads each element before writing it and nothing else
// (-kiln-plan-donation finds both).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SUPPORT_DONATION_H
#define KILN_SUPPORT_DONATION_H

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace kiln {

struct DonationPlan {
  /// Per input: the position (in the entry's order of operations) of the
  /// last operation that reads it; -1 when none does.
  std::vector<int64_t> lastReads;
  /// Per output: the position of the first operation that writes it (or
  /// reads it: either way its buffer is the output's from then on).
  std::vector<int64_t> firstWrites;
  /// (input, output) pairs that one operation reads and writes element by
  /// element, each element read before it is written: in place is safe.
  /// Sorted.
  std::vector<std::pair<int32_t, int32_t>> inPlace;

  /// Whether output `output` may be written into input `input`'s buffer.
  bool allows(size_t input, size_t output) const {
    if (input >= lastReads.size() || output >= firstWrites.size())
      return false;
    if (lastReads[input] < firstWrites[output])
      return true;
    return lastReads[input] == firstWrites[output] &&
           std::binary_search(inPlace.begin(), inPlace.end(),
                              std::make_pair(static_cast<int32_t>(input),
                                             static_cast<int32_t>(output)));
  }
};

} // namespace kiln

#endif // KILN_SUPPORT_DONATION_H
