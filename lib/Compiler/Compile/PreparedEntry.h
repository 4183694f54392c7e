//===- PreparedEntry.h - an entry function, ready to compile --*- C++ -*-===//
//
// What the CPU and CUDA executables share before their pipelines diverge:
// picking the entry, its tensor signature, making it the only public
// function, and running pass pipelines with the first error as an Error.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_COMPILE_PREPAREDENTRY_H
#define KILN_COMPILER_COMPILE_PREPAREDENTRY_H

#include "Compiler/Compile/ShapeFunction.h"
#include "kiln/Compiler/Executable.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir {
class PassManager;
} // namespace mlir

namespace kiln {

/// An entry ready for a pipeline.
struct PreparedEntry {
  std::string name;
  std::vector<TensorSignature> inputs, outputs;
  /// kiln.fusion_group ops written in the program (reachable from it).
  int64_t writtenFusionGroups = 0;
  /// For entries with dynamic dims: their results' shapes and the checks
  /// between dynamic dims, before a run.
  std::optional<ShapeFunction> shapes;
};

/// Registers kiln's dialects and translations with the module's context,
/// finds the entry (findEntry), checks its signature (ranked tensors of
/// kiln's element types; dynamic result dims only where the shape function
/// computes them), and makes it the module's only public function, with a C
/// interface.
llvm::Expected<PreparedEntry> prepareEntry(mlir::ModuleOp module,
                                           llvm::StringRef entry);

/// The pipelines' `matmul-precision` for CompileOptions::matmulPrecision.
MatmulPrecision getPipelinePrecision(Float32MatmulPrecision precision);

/// Checks `args` against an entry's input signatures (dynamic dims take
/// any size); the error names the entry and the first mismatch.
llvm::Error checkArguments(llvm::StringRef entryName,
                           llvm::ArrayRef<TensorSignature> inputs,
                           llvm::ArrayRef<const HostTensor *> args);
/// As above, for arguments of these dtypes and shapes (on a device).
struct ArgumentType {
  DType dtype;
  llvm::ArrayRef<int64_t> shape;
};
llvm::Error checkArgumentTypes(llvm::StringRef entryName,
                               llvm::ArrayRef<TensorSignature> inputs,
                               llvm::ArrayRef<ArgumentType> args);

/// Runs `pm` on `module`; the first error diagnostic becomes the Error. The
/// result is verified even when the passes were not each verified.
llvm::Error runPasses(mlir::PassManager &pm, mlir::ModuleOp module,
                      bool verifyEachPass);

} // namespace kiln

#endif // KILN_COMPILER_COMPILE_PREPAREDENTRY_H
