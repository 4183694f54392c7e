//===- PreparedEntry.cpp - a module's entry function, ready to compile ----===//

#include "Compiler/Compile/PreparedEntry.h"
#include "kiln/Compiler/Diagnostics.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Pipelines/Pipelines.h"
#include "kiln/Support/ElementTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace kiln;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static std::string typeToString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

llvm::Expected<std::string> kiln::findEntry(ModuleOp module, StringRef name) {
  if (!name.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func)
      return makeError("no function @" + name + " in the module");
    if (func.isExternal())
      return makeError("@" + name + " has no body");
    return name.str();
  }
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    if (!main.isExternal())
      return std::string("main");
  SmallVector<func::FuncOp> publicFuncs;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      publicFuncs.push_back(func);
  if (publicFuncs.size() != 1)
    return makeError("no @main and " + llvm::Twine(publicFuncs.size()) +
                     " public functions: name the entry with --entry");
  return publicFuncs.front().getSymName().str();
}

static llvm::Expected<TensorSignature>
getSignature(Type type, const llvm::Twine &what, bool requireStatic) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return makeError(what + " has type " + typeToString(type) +
                     ", not a ranked tensor");
  llvm::Expected<DType> dtype = getDType(tensor.getElementType());
  if (!dtype)
    return makeError(what + ": " + llvm::toString(dtype.takeError()));
  if (requireStatic && !tensor.hasStaticShape())
    return makeError(what + " has dynamic shape " + typeToString(type) +
                     "; results must have static shapes");
  return TensorSignature{*dtype, tensor.getShape().vec(), typeToString(type)};
}

/// The functions `entry` calls, directly or not, and `entry`, in call order.
static SmallVector<func::FuncOp> getReachableFunctions(ModuleOp module,
                                                       func::FuncOp entry) {
  SmallVector<func::FuncOp> order = {entry};
  llvm::SmallPtrSet<Operation *, 8> seen = {entry};
  for (size_t i = 0; i < order.size(); ++i)
    order[i].walk([&](func::CallOp call) {
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      if (callee && seen.insert(callee).second)
        order.push_back(callee);
    });
  return order;
}

/// Runs `pm` on `module`, turning the first error diagnostic into an Error.
/// The result is verified even when the passes were not each verified:
/// nothing invalid reaches the JIT.
llvm::Error kiln::runPasses(PassManager &pm, ModuleOp module,
                            bool verifyEachPass) {
  FirstErrorCollector errors(module.getContext());
  pm.enableVerifier(verifyEachPass);
  if (failed(pm.run(module)) || failed(verify(module)))
    return makeError(errors.getFirstErrorOr("compilation failed"));
  return llvm::Error::success();
}

llvm::Expected<PreparedEntry> kiln::prepareEntry(ModuleOp module,
                                                 StringRef entry) {
  DialectRegistry registry;
  kiln::registerAllKilnDialects(registry);
  kiln::registerKilnTranslations(registry);
  module.getContext()->appendDialectRegistry(registry);

  PreparedEntry prepared;
  llvm::Expected<std::string> name = findEntry(module, entry);
  if (!name)
    return name.takeError();
  prepared.name = *name;
  auto func = module.lookupSymbol<func::FuncOp>(prepared.name);
  FunctionType type = func.getFunctionType();
  for (auto [i, input] : llvm::enumerate(type.getInputs())) {
    auto sig = getSignature(input, "argument " + llvm::Twine(i), false);
    if (!sig)
      return sig.takeError();
    prepared.inputs.push_back(std::move(*sig));
  }
  bool dynamic = false;
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    if (auto tensor = dyn_cast<RankedTensorType>(t))
      dynamic |= !tensor.hasStaticShape();
  std::string whyNoShapes;
  if (dynamic) {
    // Before lowering: the kiln-level program says how sizes flow.
    llvm::Expected<ShapeFunction> shapes = inferShapeFunction(func);
    if (shapes)
      prepared.shapes = std::move(*shapes);
    else
      whyNoShapes = llvm::toString(shapes.takeError());
  }
  for (auto [i, result] : llvm::enumerate(type.getResults())) {
    auto sig = getSignature(result, "result " + llvm::Twine(i),
                            /*requireStatic=*/!prepared.shapes);
    if (!sig)
      return whyNoShapes.empty() ? sig.takeError()
                                 : makeError(llvm::toString(sig.takeError()) +
                                             " (" + whyNoShapes + ")");
    prepared.outputs.push_back(std::move(*sig));
  }
  // Only the entry stays public, so that symbol DCE drops what it does not
  // call and nothing else is compiled.
  for (auto other : module.getOps<func::FuncOp>())
    if (other != func && !other.isExternal())
      other.setPrivate();
  func.setPublic();
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                UnitAttr::get(module.getContext()));

  // Groups written in the program count (-kiln-fuse records the ones it
  // forms on the module).
  for (func::FuncOp reachable : getReachableFunctions(module, func))
    reachable.walk([&](FusionGroupOp) { ++prepared.writtenFusionGroups; });
  return prepared;
}

/// Success when argument `i` (`dtype`, `shape`) fits `sig`.
static llvm::Error checkArgument(StringRef entryName, size_t i, DType dtype,
                                 llvm::ArrayRef<int64_t> shape,
                                 const TensorSignature &sig) {
  bool ok = dtype == sig.dtype && shape.size() == sig.shape.size();
  for (size_t d = 0; ok && d < sig.shape.size(); ++d)
    ok = ShapedType::isDynamic(sig.shape[d]) || sig.shape[d] == shape[d];
  if (ok)
    return llvm::Error::success();
  return makeError("input " + llvm::Twine(i) + " is " +
                   getTensorTypeString(dtype, shape) + " but @" + entryName +
                   " expects " + sig.typeString);
}

/// Fails when `count` arguments are not one per input.
static llvm::Error checkArgumentCount(StringRef entryName,
                                      llvm::ArrayRef<TensorSignature> inputs,
                                      size_t count) {
  if (count == inputs.size())
    return llvm::Error::success();
  return makeError("@" + entryName + " takes " + llvm::Twine(inputs.size()) +
                   " inputs, got " + llvm::Twine(count));
}

llvm::Error kiln::checkArgumentTypes(StringRef entryName,
                                     llvm::ArrayRef<TensorSignature> inputs,
                                     llvm::ArrayRef<ArgumentType> args) {
  if (llvm::Error e = checkArgumentCount(entryName, inputs, args.size()))
    return e;
  for (auto [i, arg, sig] : llvm::enumerate(args, inputs))
    if (llvm::Error e = checkArgument(entryName, i, arg.dtype, arg.shape, sig))
      return e;
  return llvm::Error::success();
}

llvm::Error kiln::checkArguments(StringRef entryName,
                                 llvm::ArrayRef<TensorSignature> inputs,
                                 llvm::ArrayRef<const HostTensor *> args) {
  // Every run checks its arguments: no vector of their types is built.
  if (llvm::Error e = checkArgumentCount(entryName, inputs, args.size()))
    return e;
  for (auto [i, arg, sig] : llvm::enumerate(args, inputs))
    if (llvm::Error e =
            checkArgument(entryName, i, arg->getDType(), arg->getShape(), sig))
      return e;
  return llvm::Error::success();
}

MatmulPrecision kiln::getPipelinePrecision(Float32MatmulPrecision precision) {
  switch (precision) {
  case Float32MatmulPrecision::Highest:
    return MatmulPrecision::highest;
  case Float32MatmulPrecision::High:
    return MatmulPrecision::high;
  case Float32MatmulPrecision::Medium:
    return MatmulPrecision::medium;
  }
  return MatmulPrecision::highest;
}
