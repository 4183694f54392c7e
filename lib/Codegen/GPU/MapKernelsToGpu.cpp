//===- MapKernelsToGpu.cpp - the -kiln-map-kernels-to-gpu pass ------------===//
//
// Outlined kernels (linalg ops on buffers) -> gpu.func with a grid-stride
// loop per op, a vector path of 128-bit accesses where every operand allows
// it, and gpu.launch_func at the call sites. See Passes.td. The parts:
//   BufferAliases     which buffers a kernel's calls may share
//   StageSplitting    a kernel's ops in launches
//   KernelBuilder     the loops of one GPU kernel (scalar and vector paths)
//   GpuReductions     warp and block reductions
//   ReductionSplitting  long reductions with few outputs across the grid
//   this file         the pass: kernels to gpu.funcs, calls to launches
//
//===----------------------------------------------------------------------===//

#include "BufferAliases.h"
#include "KernelBuilder.h"
#include "ReductionSplitting.h"
#include "StageSplitting.h"
#include "Support/PassStatistics.h"
#include "kiln/Codegen/GPU/Passes.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include <algorithm>

namespace kiln {
#define GEN_PASS_DEF_KILNMAPKERNELSTOGPU
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace kiln

#include "kiln/Codegen/GPU/PassStatistics.h.inc"

using namespace mlir;
using namespace kiln::gpu_mapper;

namespace {
/// The name of the gpu.module that holds every kernel.
constexpr StringLiteral kGpuModuleName = "kiln_gpu";

/// One launch of a kernel: its grid, or for a kernel with dynamic sizes
/// the work the host computes it from at the launch.
struct Launch {
  gpu::GPUFuncOp func;
  int64_t blocks = 1;
  int64_t staticWork = 0;
  SmallVector<KernelBuilder::DynamicWork> dynamicWork;
};

struct KilnMapKernelsToGpuPass
    : kiln::impl::KilnMapKernelsToGpuBase<KilnMapKernelsToGpuPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// The GPU kernels of `kernel`, one per stage, with their grid sizes.
  LogicalResult mapKernel(func::FuncOp kernel, ArrayRef<func::CallOp> calls,
                          gpu::GPUModuleOp gpuModule,
                          SmallVectorImpl<Launch> &launches);
  /// The grid of `launch` at `call`: a constant, or computed from the
  /// sizes of the call's buffers.
  Value emitGrid(OpBuilder &at, func::CallOp call, const Launch &launch);
};
} // namespace

LogicalResult KilnMapKernelsToGpuPass::mapKernel(
    func::FuncOp kernel, ArrayRef<func::CallOp> calls,
    gpu::GPUModuleOp gpuModule, SmallVectorImpl<Launch> &launches) {
  // Dynamic sizes are read from the buffers, in the kernel and at the
  // launch; such kernels have no row-kernel form.
  bool dynamic = false;
  for (BlockArgument arg : kernel.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type)
      return kernel.emitError("a GPU kernel takes buffers, got ")
             << arg.getType();
    dynamic |= !type.hasStaticShape();
  }
  ArgumentAliases aliases = getArgumentAliases(kernel, calls);
  // Long reductions with few outputs: two launches through partials, a
  // new argument of the kernel.
  llvm::DenseMap<Operation *, ReductionSplit> splits;
  if (splitReductions && !dynamic) {
    splits = splitLongReductions(kernel, calls, aliases, blockSize);
    if (!splits.empty()) {
      aliases = getArgumentAliases(kernel, calls);
      kiln::addPassStatistic(*this, numSplitReductions, splits.size(),
                             kPassStatistics);
    }
  }
  OpBuilder b(gpuModule.getBodyRegion());
  b.setInsertionPointToEnd(gpuModule.getBody());
  Location loc = kernel.getLoc();
  // A GPU kernel with the kernel's arguments and constants, and its
  // builder.
  auto createFunc = [&](StringRef name, OpBuilder &body, IRMapping &mapping) {
    auto func = gpu::GPUFuncOp::create(b, loc, name, kernel.getFunctionType());
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
        {static_cast<int32_t>(blockSize.getValue()), 1, 1}));
    body.setInsertionPointToEnd(&func.getBody().front());
    for (auto [from, to] :
         llvm::zip(kernel.getArguments(), func.getArguments()))
      mapping.map(from, to);
    // The kernel's other ops are constants its loops use.
    for (Operation &op : kernel.getBody().front().without_terminator())
      if (!isa<linalg::LinalgOp>(op))
        body.clone(op, mapping);
    return func;
  };
  auto finish = [&](gpu::GPUFuncOp func, OpBuilder &body,
                    const KernelBuilder &builder) {
    gpu::ReturnOp::create(body, loc);
    kiln::addPassStatistic(*this, numKernels, 1, kPassStatistics);
    int64_t blocks = (builder.getWork() + blockSize - 1) / blockSize;
    Launch launch;
    launch.func = func;
    launch.blocks = std::clamp<int64_t>(blocks, 1, maxBlocks);
    launch.staticWork = builder.getWork();
    launch.dynamicWork.assign(builder.getDynamicWork().begin(),
                              builder.getDynamicWork().end());
    launches.push_back(std::move(launch));
  };

  // A row kernel: one launch, a warp or a block per row.
  if (std::optional<kiln::row_kernels::RowKernel> rowKernel =
          dynamic ? std::nullopt
                  : getGpuRowKernel(kernel, aliases, blockSize)) {
    OpBuilder body(b.getContext());
    IRMapping mapping;
    gpu::GPUFuncOp func = createFunc(kernel.getSymName(), body, mapping);
    KernelBuilder builder(body, func, blockSize, vectorWidth);
    builder.emitThreadIndex();
    builder.emitRowKernel(*rowKernel, mapping);
    finish(func, body, builder);
    kiln::addPassStatistic(*this, numRowKernels, 1, kPassStatistics);
    return success();
  }

  FailureOr<SmallVector<Stage>> stages = splitIntoStages(kernel, aliases);
  if (failed(stages))
    return failure();
  applyReductionSplits(*stages, splits);
  for (auto [index, stage] : llvm::enumerate(*stages)) {
    std::string name = kernel.getSymName().str();
    if (stages->size() > 1)
      name += "_" + std::to_string(index);
    OpBuilder body(b.getContext());
    IRMapping mapping;
    gpu::GPUFuncOp func = createFunc(name, body, mapping);
    KernelBuilder builder(body, func, blockSize, vectorWidth);
    builder.emitThreadIndex();
    for (const Nest &nest : stage) {
      FailureOr<bool> vectorized = builder.emitNest(nest, mapping);
      if (failed(vectorized))
        return failure();
      if (*vectorized)
        kiln::addPassStatistic(*this, numVectorized, 1, kPassStatistics);
    }
    finish(func, body, builder);
  }
  return success();
}

Value KilnMapKernelsToGpuPass::emitGrid(OpBuilder &at, func::CallOp call,
                                        const Launch &launch) {
  Location loc = call.getLoc();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(at, loc, value);
  };
  if (launch.dynamicWork.empty())
    return constant(launch.blocks);
  // The widest nest's elements, from the buffers' sizes; as many blocks as
  // they need, up to max-blocks (none for no elements).
  Value work = constant(launch.staticWork);
  for (const KernelBuilder::DynamicWork &nest : launch.dynamicWork) {
    Value elements = constant(nest.constant);
    for (auto [arg, dim] : nest.dims) {
      Value size =
          memref::DimOp::create(at, loc, call.getArgOperands()[arg], dim);
      elements = arith::MulIOp::create(at, loc, elements, size);
    }
    work = arith::MaxUIOp::create(at, loc, work, elements);
  }
  Value blocks = arith::CeilDivUIOp::create(at, loc, work, constant(blockSize));
  return arith::MinUIOp::create(at, loc, blocks, constant(maxBlocks));
}

void KilnMapKernelsToGpuPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (blockSize == 0 || blockSize > 1024 ||
      (vectorWidth != 1 && vectorWidth != 2 && vectorWidth != 4) ||
      maxBlocks == 0) {
    module.emitError("kiln-map-kernels-to-gpu: block-size must be in "
                     "[1, 1024], vector-width 1, 2 or 4 (at most 128 bits), "
                     "max-blocks positive");
    return signalPassFailure();
  }
  SmallVector<func::FuncOp> kernels;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(kiln::KilnDialect::KernelAttrHelper::getNameStr()))
      kernels.push_back(func);
  if (kernels.empty())
    return;

  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(&getContext()));
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), kGpuModuleName);

  // Each kernel's calls, in program order.
  llvm::StringMap<SmallVector<func::CallOp>> callsOf;
  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) {
    if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
        callee &&
        callee->hasAttr(kiln::KilnDialect::KernelAttrHelper::getNameStr())) {
      callsOf[call.getCallee()].push_back(call);
      calls.push_back(call);
    }
  });

  // Each kernel's launches, by its name.
  llvm::StringMap<SmallVector<Launch>> launchesOf;
  for (func::FuncOp kernel : kernels)
    if (failed(mapKernel(kernel, callsOf[kernel.getSymName()], gpuModule,
                         launchesOf[kernel.getSymName()])))
      return signalPassFailure();

  // Calls become launches: a kernel split in stages is launched once per
  // stage, which the count of launches (-kiln-outline-kernels') says.
  auto launchesName = kiln::KilnDialect::KernelLaunchesAttrHelper::getNameStr();
  if (auto counted = module->getAttrOfType<IntegerAttr>(launchesName)) {
    int64_t launches = counted.getInt();
    for (func::CallOp call : calls)
      launches += static_cast<int64_t>(launchesOf[call.getCallee()].size()) - 1;
    module->setAttr(launchesName, b.getI64IntegerAttr(launches));
  }
  for (func::CallOp call : calls) {
    OpBuilder at(call);
    Location loc = call.getLoc();
    Value one = arith::ConstantIndexOp::create(at, loc, 1);
    Value threads = arith::ConstantIndexOp::create(at, loc, blockSize);
    for (const Launch &launch : launchesOf[call.getCallee()]) {
      Value grid = emitGrid(at, call, launch);
      gpu::LaunchFuncOp::create(
          at, loc, launch.func, gpu::KernelDim3{grid, one, one},
          gpu::KernelDim3{threads, one, one},
          /*dynamicSharedMemorySize=*/Value(), call.getArgOperands());
    }
    call.erase();
  }
  for (func::FuncOp kernel : kernels)
    kernel.erase();
}
