//===- CollectiveCalls.h - the runtime calls collectives become -*- C++ -*-===//
//
// -kiln-lower-to-linalg lowers each collective to a call of an external
// function on two buffers (operand, result), which the host program makes
// a collective step of (the runtime's executor runs it with kiln_rt_dist).
// The callee's name holds the whole op:
//
//   kiln_rt_<op>_<f32|f64>_r<rank>_<sum|mean|max>_d<dim>_g<group>
//
// so that nothing a pass may drop (a discardable attribute) carries it.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_COLLECTIVECALLS_H
#define KILN_CONVERSION_COLLECTIVECALLS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln {

/// A collective as its call names it. `kind` and `reduction` number as
/// kiln_rt_dist's kinds (0 all_reduce, 1 all_gather, 2 reduce_scatter)
/// and reductions (0 sum, 1 mean, 2 max).
struct CollectiveCall {
  int kind = 0;
  bool isF64 = false;
  int64_t rank = 0, reduction = 0, dim = 0, group = 0;
};

/// The callee name of `call`.
std::string getCollectiveCallName(const CollectiveCall &call);

/// The collective that a callee `name` names; none for any other name.
std::optional<CollectiveCall> parseCollectiveCallName(llvm::StringRef name);

} // namespace kiln

#endif // KILN_CONVERSION_COLLECTIVECALLS_H
