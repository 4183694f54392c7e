//===- GenericShapes.h - trace programs that differ only in sizes -*- C++
//-*-===//
//
// Automatic dynamic dims for the lazy tensors. Two programs of one
// structure (the same ops, operands, dtypes, ranks and attributes; only
// sizes differ) compile to one shape-generic program: the dims whose sizes
// differ become dynamic, each named by the pair of sizes it had (a
// "symbol"). A dim of a computed node must have the sizes of some
// parameter's dim (from which the program reads its size); otherwise the
// programs are not made generic. A later program of the structure runs on
// the generic executable when its sizes fit the pattern: the static dims
// as they were, and the dims of one symbol of one size.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_FRONTEND_GENERICSHAPES_H
#define KILN_COMPILER_FRONTEND_GENERICSHAPES_H

#include "kiln/Trace/Trace.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// `program` as text that determines it: each entry's op, dtype, shape
/// (or, without sizes, rank), attributes, scalar bits, whether it is a
/// parameter, its operands and a Vjp's callee; then the parameters and
/// outputs. With sizes it keys the compile cache (equal text, an equal
/// program); without, it names a structure (a slice's whole-dim sizes
/// written "whole").
void appendProgramText(const TraceProgram &program, llvm::raw_ostream &os,
                       bool withSizes);

/// `program` as text with its sizes left out (a slice's whole-dim sizes
/// written as "whole"): equal text, one structure.
std::string getStructuralForm(const TraceProgram &program);

/// Which dims are dynamic, per node of the program it was derived for
/// (callees' included): -1 for a static dim, else the dim's symbol.
using DynamicDims =
    llvm::DenseMap<const TraceNode *, llvm::SmallVector<int32_t, 4>>;

/// What a generic program computes: for each node, in the order of a walk
/// of the program and its callees, each dim's symbol or, for a static dim,
/// -1 and its size.
struct GenericPattern {
  struct Dim {
    int32_t symbol; // -1: static
    int64_t size;   // a static dim's
  };
  std::vector<std::vector<Dim>> nodes;
  int32_t numSymbols = 0;
};

/// The shapes of a program's nodes, in the walk's order, and whether each
/// is a parameter: what a later program is compared with (the nodes, and
/// the data they may hold, are not kept).
struct ShapeRecord {
  std::vector<std::pair<llvm::SmallVector<int64_t, 4>, bool>> nodes;
};
ShapeRecord recordShapes(const TraceProgram &program);

/// The pattern of the program `first` records and `second` (one
/// structure), and `second`'s dynamic dims; none when no generic program
/// can compute both.
std::optional<std::pair<GenericPattern, DynamicDims>>
derivePattern(const ShapeRecord &first, const TraceProgram &second);

/// The pattern of `program` alone, where its parameters' dims marked
/// dynamic (kiln::markDynamic) are: those dims, and every computed node's
/// dim of one of their sizes, are dynamic. None without marks.
std::optional<std::pair<GenericPattern, DynamicDims>>
derivePatternFromMarks(const TraceProgram &program);

/// Whether `program` (of the pattern's structure) fits `pattern`.
bool fitsPattern(const GenericPattern &pattern, const TraceProgram &program);

/// `pattern` as bytes (the header of a generic program in the compile
/// cache), and back: none for bytes serializePattern did not write.
std::string serializePattern(const GenericPattern &pattern);
std::optional<GenericPattern> parsePattern(llvm::StringRef bytes);

} // namespace kiln

#endif // KILN_COMPILER_FRONTEND_GENERICSHAPES_H
