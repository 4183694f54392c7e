//===- LoweringUtils.h - shared helpers of the kiln lowering ---*- C++ -*-===//
//
// Private to lib/Conversion/KilnToLinalg: the population functions of each
// pattern category and the helpers they share.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CONVERSION_KILNTOLINALG_LOWERINGUTILS_H
#define KILN_LIB_CONVERSION_KILNTOLINALG_LOWERINGUTILS_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

#include <functional>

namespace kiln {

struct KilnToLinalgOptions;

using llvm::ArrayRef;
using llvm::function_ref;
using mlir::Location;
using mlir::OpBuilder;
using mlir::RankedTensorType;
using mlir::RewritePatternSet;
using mlir::Type;
using mlir::Value;
using mlir::ValueRange;

void populateElementwiseLoweringPatterns(RewritePatternSet &patterns);
void populateShapeLoweringPatterns(RewritePatternSet &patterns);
void populateReductionLoweringPatterns(RewritePatternSet &patterns);
/// iota, take, scatter_add, argmax and rng_uniform (Indexing.cpp);
/// `parallelScatters` as KilnToLinalgOptions says.
void populateIndexingLoweringPatterns(RewritePatternSet &patterns,
                                      bool parallelScatters);
void populateLinearLoweringPatterns(RewritePatternSet &patterns,
                                    const KilnToLinalgOptions &options);

/// Lowers each add under `root` that accumulates a matmul's product
/// (getAccumulatedMatmul) with that matmul, as one contraction whose init
/// is the add's other operand.
/// Replaces every kiln.all_reduce, kiln.all_gather and kiln.reduce_scatter
/// of `module` by a call of the runtime on buffers (Collectives.cpp).
/// Fails, with an error on the op, for element types or dynamic dims that
/// the runtime cannot take.
mlir::LogicalResult lowerCollectives(mlir::RewriterBase &rewriter,
                                     mlir::ModuleOp module);

/// memref<?x...x?xT, strided<[?, ...], offset: ?>> of `rank`: how the
/// runtime's calls take any view.
mlir::MemRefType getAnyStridedView(int64_t rank, Type element);

/// `shape` with a strided layout of unknown strides and offset.
mlir::MemRefType getStridedView(ArrayRef<int64_t> shape, Type element);

/// The private declaration of the runtime function `name` taking `args`,
/// made at the top of the symbol table's module when it is new.
mlir::func::FuncOp getOrDeclareRuntimeCall(mlir::RewriterBase &rewriter,
                                           mlir::SymbolTable &symbols,
                                           Location loc, llvm::StringRef name,
                                           mlir::TypeRange args);

/// Replaces every kiln.attention and kiln.attention_grad of `module` by a
/// call of the CPU runtime's blockwise kernels (Attention.cpp), or by the
/// ops that compute it where the call cannot take its score operands.
void lowerAttention(mlir::RewriterBase &rewriter, mlir::ModuleOp module,
                    bool forGpu);

void lowerMatmulEpilogues(mlir::RewriterBase &rewriter, mlir::Operation *root,
                          const KilnToLinalgOptions &options);

/// Lowers `group` to one linalg.generic over its iteration domain when its
/// ops share one static domain, or to one per output shape, tagged
/// `kiln.kernel_id` = `nextKernelId`++, when a concat exit has parts of
/// several (see FusionGroup.cpp); fails, changing nothing the caller sees,
/// otherwise.
mlir::LogicalResult lowerFusionGroupToKernel(mlir::RewriterBase &rewriter,
                                             FusionGroupOp group,
                                             int64_t &nextKernelId);

/// Lowers a row group (-kiln-fuse: reductions over trailing dims read back
/// in the group) to its phase and result nests, tagged `kiln.kernel_id` =
/// `nextKernelId`++ (see RowKernel.cpp); fails, changing nothing, when
/// `group` is not one.
mlir::LogicalResult lowerRowGroupToKernel(mlir::RewriterBase &rewriter,
                                          FusionGroupOp group,
                                          int64_t &nextKernelId);

/// The value of a float splat constant, or none.
std::optional<double> getSplatValue(Value v);

/// Whether `op` is a kiln op with the Elementwise trait (the unary and
/// binary math ops, cmp, select, convert).
bool isElementwiseKilnOp(mlir::Operation *op);

/// Builds the scalar computation of an elementwise op on the scalars `args`
/// (one per operand, in the operands' element types); the result is in the
/// op's element type.
using ScalarLowering = std::function<Value(OpBuilder &, Location, ValueRange)>;

/// An index converted to integer or float element type `type`.
mlir::Value indexToElement(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value index, mlir::Type type);

/// A static kiln.iota inside a kernel body: its element at the loop
/// indices, shifted by `offset` along its dim (a slice of it).
mlir::Value emitIotaElement(mlir::OpBuilder &b, mlir::Location loc, IotaOp iota,
                            int64_t offset);

/// The scalar computation of elementwise kiln op `op`; fails when `op` is
/// not elementwise or has no lowering (the caller reports it).
mlir::FailureOr<ScalarLowering> getScalarLowering(mlir::Operation *op);

/// The element type arithmetic runs in: f16 and bf16 compute in f32.
Type getComputeType(Type elementType);

/// Extends an f16/bf16 scalar to f32; other scalars are returned as they are.
Value extendToCompute(OpBuilder &b, Location loc, Value scalar);

/// Converts a scalar to `elementType` (float <-> float, i1 <-> float).
Value convertScalar(OpBuilder &b, Location loc, Value scalar, Type elementType);

/// createDestination() of `type`, whose dynamic dims are taken from the dims
/// of `shapeSource` listed in `sourceDims` (one entry per dim of `type`).
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                  Value shapeSource, ArrayRef<int64_t> sourceDims);

/// A fresh tensor for an op to write (every init kiln's lowering makes:
/// results, concat destinations, accumulators). `bufferization.alloc_tensor`
/// rather than `tensor.empty`: CSE would merge equal empties (and their
/// fills), and copy-before-write bufferization would then copy the shared
/// buffer for every user; distinct, each is written in place once
/// -kiln-elide-copies forwards the copies.
Value createDestination(OpBuilder &b, Location loc, RankedTensorType type,
                        mlir::ValueRange dynamicSizes);

/// The reductions kiln lowers: reduce_sum and reduce_max.
enum class ReductionKind { Sum, Max };

/// createDestination() filled with the identity of `kind` (0 or -inf).
Value createFilledAccumulator(OpBuilder &b, Location loc, ReductionKind kind,
                              RankedTensorType type,
                              mlir::ValueRange dynamicSizes);

/// One step of `kind`: lhs + rhs, or the NaN-propagating max of the two.
Value combineReduction(OpBuilder &b, Location loc, ReductionKind kind,
                       Value lhs, Value rhs);

/// createDestination() with the shape of `like` (same rank) and `type`'s
/// element type.
Value createEmptyLike(OpBuilder &b, Location loc, RankedTensorType type,
                      Value like);

using ScalarBodyFn =
    function_ref<Value(OpBuilder &b, Location loc, ValueRange args)>;

/// A parallel `linalg.generic` over `resultType` whose inputs all have the
/// result's shape; `body` maps the input scalars to the result scalar.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarBodyFn body);

} // namespace kiln

#endif // KILN_LIB_CONVERSION_KILNTOLINALG_LOWERINGUTILS_H
