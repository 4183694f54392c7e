//===- EmulateGpuLaunches.cpp - the -kiln-emulate-gpu-launches pass -------===//
//
// gpu.func + gpu.launch_func -> a kiln.kernel function looping over the
// launch's threads, each a block of its own, and a call. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "kiln/Codegen/Common/Passes.h"
#include "kiln/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

namespace kiln {
#define GEN_PASS_DEF_KILNEMULATEGPULAUNCHES
#include "kiln/Codegen/GPU/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// A launch's grid and block sizes along x (y and z must be 1); blocks is
/// -1 for a grid computed at the launch (from dynamic sizes).
struct LaunchShape {
  int64_t blocks, threads;
  bool isDynamic() const { return blocks < 0; }
  bool operator==(const LaunchShape &other) const {
    return blocks == other.blocks && threads == other.threads;
  }
};

FailureOr<LaunchShape> getLaunchShape(gpu::LaunchFuncOp launch) {
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  std::optional<int64_t> gx = getConstantIntValue(grid.x),
                         gy = getConstantIntValue(grid.y),
                         gz = getConstantIntValue(grid.z),
                         bx = getConstantIntValue(block.x),
                         by = getConstantIntValue(block.y),
                         bz = getConstantIntValue(block.z);
  if (!bx || gy != 1 || gz != 1 || by != 1 || bz != 1)
    return launch.emitError("only launches of 1-D grids and constant blocks "
                            "can be emulated");
  return LaunchShape{gx.value_or(-1), *bx};
}

struct KilnEmulateGpuLaunchesPass
    : kiln::impl::KilnEmulateGpuLaunchesBase<KilnEmulateGpuLaunchesPass> {
  void runOnOperation() override;
};

} // namespace

/// The body of `kernel` as a function looping over `shape`.
static LogicalResult emulate(gpu::GPUFuncOp kernel, LaunchShape shape,
                             ModuleOp module) {
  if (!kernel.getBody().hasOneBlock())
    return kernel.emitError("only single-block GPU kernels can be emulated");
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = kernel.getLoc();
  // A grid computed at the launch: the threads it has come as one more
  // argument.
  FunctionType type = kernel.getFunctionType();
  if (shape.isDynamic()) {
    SmallVector<Type> inputs(type.getInputs());
    inputs.push_back(b.getIndexType());
    type = b.getFunctionType(inputs, type.getResults());
  }
  auto func = func::FuncOp::create(b, loc, kernel.getName(), type);
  kiln::markAsKernel(func);
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // Every thread is a block of its own: the grid covers the same threads
  // (blockIdx * blockDim + threadIdx and the grid-stride loops are those of
  // the launch), and a block's barriers and shared memory then need no
  // other thread.
  Value blocks =
      shape.isDynamic()
          ? entry->getArguments().back()
          : arith::ConstantIndexOp::create(b, loc, shape.blocks * shape.threads)
                .getResult();
  IRMapping mapping;
  for (auto [from, to] :
       llvm::zip(kernel.getArguments(), entry->getArguments()))
    mapping.map(from, to);
  // Shared memory: a buffer of the thread's own, without the GPU's address
  // space.
  for (BlockArgument attribution : kernel.getWorkgroupAttributions()) {
    auto type = dyn_cast<MemRefType>(attribution.getType());
    if (!type || !type.hasStaticShape())
      return kernel.emitError("only static shared buffers can be emulated");
    mapping.map(
        attribution,
        memref::AllocaOp::create(
            b, loc, MemRefType::get(type.getShape(), type.getElementType())));
  }
  if (!kernel.getPrivateAttributions().empty())
    return kernel.emitError("private attributions cannot be emulated");
  auto blockLoop = scf::ForOp::create(b, loc, zero, blocks, one);
  b.setInsertionPointToStart(blockLoop.getBody());
  for (Operation &op : kernel.getBody().front().without_terminator())
    b.clone(op, mapping);

  // The GPU's ids and sizes become the loops' values, wherever they are
  // (warp ops sit inside the kernels' loops).
  SmallVector<Operation *> gpuOps;
  func.walk([&](Operation *op) {
    if (op->getDialect() == op->getContext()->getLoadedDialect("gpu"))
      gpuOps.push_back(op);
  });
  for (Operation *op : gpuOps) {
    auto dimension = [&](auto idOp, Value x, Value yz) -> Value {
      return idOp.getDimension() == gpu::Dimension::x ? x : yz;
    };
    // A block of one thread waits for no other.
    if (isa<gpu::BarrierOp>(op)) {
      op->erase();
      continue;
    }
    Value replacement;
    if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      replacement = dimension(id, blockLoop.getInductionVar(), zero);
    else if (isa<gpu::ThreadIdOp>(op))
      replacement = zero; // the block's only thread
    else if (isa<gpu::BlockDimOp>(op))
      replacement = one;
    else if (auto dim = dyn_cast<gpu::GridDimOp>(op))
      replacement = dimension(dim, blocks, one);
    // One thread at a time is a warp of one lane: its own reduction.
    else if (isa<gpu::LaneIdOp>(op))
      replacement = zero;
    else if (isa<gpu::SubgroupSizeOp>(op))
      replacement = one;
    else if (auto reduce = dyn_cast<gpu::SubgroupReduceOp>(op))
      replacement = reduce.getValue();
    if (!replacement)
      return op->emitError("this GPU op cannot be emulated");
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, loc);
  return success();
}

void KilnEmulateGpuLaunchesPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<gpu::LaunchFuncOp> launches;
  module.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
  // One shape per kernel, in program order.
  llvm::MapVector<gpu::GPUFuncOp, LaunchShape> shapes;
  for (gpu::LaunchFuncOp launch : launches) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    if (!kernel) {
      launch.emitError("the launched kernel is not in the module");
      return signalPassFailure();
    }
    FailureOr<LaunchShape> shape = getLaunchShape(launch);
    if (failed(shape))
      return signalPassFailure();
    auto [it, inserted] = shapes.insert({kernel, *shape});
    if (!inserted && !(it->second == *shape)) {
      launch.emitError("a kernel launched with two shapes cannot be emulated");
      return signalPassFailure();
    }
  }
  for (auto [kernel, shape] : shapes)
    if (failed(emulate(kernel, shape, module)))
      return signalPassFailure();
  for (gpu::LaunchFuncOp launch : launches) {
    OpBuilder b(launch);
    SmallVector<Value> operands(launch.getKernelOperands());
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    if (!getConstantIntValue(grid.x))
      operands.push_back(arith::MulIOp::create(
          b, launch.getLoc(), grid.x, launch.getBlockSizeOperandValues().x));
    func::CallOp::create(b, launch.getLoc(),
                         launch.getKernel().getLeafReference(), TypeRange(),
                         operands);
    launch.erase();
  }
  for (auto gpuModule :
       llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>()))
    gpuModule.erase();
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
}
