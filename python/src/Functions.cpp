//===- Functions.cpp - kiln.exp, kiln.matmul, kiln.grad, kiln.sync, ... ---===//
//
// The module's functions, numpy-style: axis arguments, negative dims,
// Python numbers wherever a tensor goes.
//
//===----------------------------------------------------------------------===//

#include "PyTensor.h"
#include "kiln/Lazy/Autocast.h"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

using namespace kiln;
using namespace kiln::python;

namespace {
/// The PyTensor `value` is, or TypeError naming `what`.
PyTensor &asTensor(nb::handle value, const char *what) {
  PyTensor *t = nullptr;
  if (!nb::try_cast<PyTensor *>(value, t, false) || !t)
    throw nb::type_error((std::string(what) + " must be a kiln.Tensor, not " +
                          toString(nb::handle(value.type()).attr("__name__")))
                             .c_str());
  return *t;
}

/// The tensors of a sequence (or one tensor); TypeError for anything else.
std::vector<PyTensor *> asTensors(nb::handle sequence, const char *what) {
  std::vector<PyTensor *> tensors;
  if (nb::isinstance<PyTensor>(sequence)) {
    tensors.push_back(&asTensor(sequence, what));
    return tensors;
  }
  for (nb::handle item : sequence)
    tensors.push_back(&asTensor(item, what));
  return tensors;
}

template <Tensor (*op)(const Tensor &)> PyTensor unaryFunction(nb::handle x) {
  PyTensor &t = asTensor(x, "x");
  return checked(op(t.value), t.requiresGrad);
}

template <Tensor (*op)(const Tensor &, const Tensor &)>
PyTensor binaryFunction(nb::handle a, nb::handle b) {
  std::vector<Operand> operands = promoteOperands({a, b});
  return checked(op(operands[0].value, operands[1].value),
                 operands[0].requiresGrad || operands[1].requiresGrad);
}

int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// numpy's matmul: 1-D operands as vectors, batch dims broadcast.
Tensor matmulLike(Tensor a, Tensor b) {
  if (!a.ok())
    return a;
  if (!b.ok())
    return b;
  if (a.getShape().empty() || b.getShape().empty())
    throw nb::value_error("matmul: operands must have at least one dim");
  bool vectorA = a.getShape().size() == 1, vectorB = b.getShape().size() == 1;
  if (vectorA)
    a = reshape(a, {1, a.getShape()[0]});
  if (vectorB)
    b = reshape(b, {b.getShape()[0], 1});
  llvm::SmallVector<int64_t, 4> sa(a.getShape()), sb(b.getShape());
  int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  llvm::ArrayRef<int64_t> batchA = llvm::ArrayRef(sa).drop_back(2),
                          batchB = llvm::ArrayRef(sb).drop_back(2);
  Tensor result;
  llvm::SmallVector<int64_t, 4> batch;
  if (batchB.empty()) {
    // (..., m, k) @ (k, n): one 2-D product over the stacked rows.
    batch.assign(batchA.begin(), batchA.end());
    Tensor rows = batchA.empty() ? a : reshape(a, {product(batchA) * m, k});
    result = matmul(rows, b);
  } else {
    size_t rank = std::max(batchA.size(), batchB.size());
    batch.assign(rank, 1);
    for (llvm::ArrayRef<int64_t> s : {batchA, batchB})
      for (size_t i = 0; i < s.size(); ++i) {
        int64_t &d = batch[rank - s.size() + i];
        if (s[i] != d && s[i] != 1 && d != 1)
          throw nb::value_error(("matmul: batch dims " + getListString(batchA) +
                                 " and " + getListString(batchB) +
                                 " do not broadcast")
                                    .c_str());
        d = std::max(d, s[i]);
      }
    auto batched = [&](const Tensor &t, int64_t rows, int64_t cols) {
      llvm::SmallVector<int64_t, 4> full(batch);
      full.append({rows, cols});
      Tensor wide = broadcastTo(t, full);
      return reshape(wide, {product(batch), rows, cols});
    };
    result = matmul(batched(a, m, k), batched(b, k, n));
  }
  llvm::SmallVector<int64_t, 4> shape(batch);
  if (!vectorA)
    shape.push_back(m);
  if (!vectorB)
    shape.push_back(n);
  if (result.ok() && result.getShape() != llvm::ArrayRef<int64_t>(shape))
    result = reshape(result, shape);
  return result;
}

} // namespace

PyTensor kiln::python::matmulTensors(nb::handle a, nb::handle b) {
  // Two matrices, the common case, go straight to the 2-D product.
  PyTensor *ta = nullptr, *tb = nullptr;
  if (nb::try_cast<PyTensor *>(a, ta, false) && ta &&
      nb::try_cast<PyTensor *>(b, tb, false) && tb && ta->value.ok() &&
      tb->value.ok() && ta->value.getShape().size() == 2 &&
      tb->value.getShape().size() == 2)
    return checked(matmul(ta->value, tb->value),
                   ta->requiresGrad || tb->requiresGrad);
  // An array-like operand (a numpy array beside a Tensor) is copied in, as
  // for the other operators; numbers are not matrices.
  if (PyFloat_Check(a.ptr()) || PyLong_Check(a.ptr()) ||
      PyFloat_Check(b.ptr()) || PyLong_Check(b.ptr()))
    throw nb::type_error("matmul: operands must be tensors or arrays, not "
                         "numbers");
  std::vector<Operand> operands = promoteOperands({a, b});
  return checked(matmulLike(operands[0].value, operands[1].value),
                 operands[0].requiresGrad || operands[1].requiresGrad);
}

namespace {

PyTensor concatenate(nb::handle tensors, int64_t axis) {
  std::vector<PyTensor *> parts = asTensors(tensors, "each part");
  if (parts.empty())
    throw nb::value_error("need at least one tensor to concatenate");
  std::vector<Tensor> values;
  bool grad = false;
  for (PyTensor *p : parts) {
    values.push_back(p->value);
    grad |= p->requiresGrad;
  }
  int64_t dim = normalizeDim(axis, parts[0]->value.getShape().size());
  return checked(cat(values, dim), grad);
}

PyTensor stack(nb::handle tensors, int64_t axis) {
  std::vector<PyTensor *> parts = asTensors(tensors, "each part");
  if (parts.empty())
    throw nb::value_error("need at least one tensor to stack");
  int64_t rank = parts[0]->value.getShape().size();
  int64_t dim = normalizeDim(axis, rank + 1);
  std::vector<Tensor> values;
  bool grad = false;
  for (PyTensor *p : parts) {
    if (p->value.getShape() != parts[0]->value.getShape())
      throw nb::value_error(("stack: all tensors need one shape, got " +
                             getListString(parts[0]->value.getShape()) +
                             " and " + getListString(p->value.getShape()))
                                .c_str());
    llvm::SmallVector<int64_t, 4> shape(p->value.getShape());
    shape.insert(shape.begin() + dim, 1);
    values.push_back(reshape(p->value, shape));
    grad |= p->requiresGrad;
  }
  return checked(cat(values, dim), grad);
}

/// numpy.split: `sections` equal parts, or cuts at the given indices.
std::vector<PyTensor> split(nb::handle x, nb::handle sections, int64_t axis) {
  PyTensor &t = asTensor(x, "x");
  int64_t dim = normalizeDim(axis, t.value.getShape().size());
  int64_t size = t.value.getShape()[dim];
  std::vector<int64_t> cuts;
  if (nb::isinstance<nb::int_>(sections)) {
    int64_t count = nb::cast<int64_t>(sections);
    if (count <= 0 || size % count != 0)
      throw nb::value_error(("split: " + std::to_string(count) +
                             " sections do not divide dim " +
                             std::to_string(dim) + " of size " +
                             std::to_string(size) + " equally")
                                .c_str());
    for (int64_t i = 1; i < count; ++i)
      cuts.push_back(i * (size / count));
  } else {
    for (nb::handle c : sections) {
      int64_t cut = nb::cast<int64_t>(c);
      cuts.push_back(std::clamp<int64_t>(cut < 0 ? cut + size : cut, 0, size));
    }
  }
  std::vector<PyTensor> parts;
  int64_t start = 0;
  cuts.push_back(size);
  for (int64_t cut : cuts) {
    int64_t length = std::max<int64_t>(cut - start, 0);
    parts.push_back(checked(narrow(t.value, dim, std::min(start, size), length),
                            t.requiresGrad));
    start = std::max(start, cut);
  }
  return parts;
}

template <Tensor (*op)(const Tensor &, int64_t)>
PyTensor alongAxis(nb::handle x, int64_t axis) {
  PyTensor &t = asTensor(x, "x");
  return checked(op(t.value, normalizeDim(axis, t.value.getShape().size())),
                 t.requiresGrad);
}

PyTensor whereFunction(nb::handle cond, nb::handle a, nb::handle b) {
  PyTensor &c = asTensor(cond, "condition");
  std::vector<Operand> operands = promoteOperands({a, b});
  return checked(where(c.value, operands[0].value, operands[1].value),
                 operands[0].requiresGrad || operands[1].requiresGrad);
}

/// kiln.grad(outputs, inputs, grad_outputs=None), as torch.autograd.grad.
std::vector<PyTensor> gradFunction(nb::handle outputs, nb::handle inputs,
                                   nb::handle gradOutputs, bool createGraph) {
  std::vector<Tensor> outs, ins, cotangents;
  for (PyTensor *t : asTensors(outputs, "each output"))
    outs.push_back(t->value);
  for (PyTensor *t : asTensors(inputs, "each input"))
    ins.push_back(t->value);
  if (!gradOutputs.is_none())
    for (PyTensor *t : asTensors(gradOutputs, "each grad_output"))
      cotangents.push_back(t->value);
  if (!cotangents.empty() && cotangents.size() != outs.size())
    throw nb::value_error(("grad: " + std::to_string(outs.size()) +
                           " outputs but " + std::to_string(cotangents.size()) +
                           " grad_outputs")
                              .c_str());
  flushPending();
  std::vector<PyTensor> result;
  for (Tensor &g : grad(outs, ins, cotangents))
    result.push_back(checked(std::move(g), createGraph));
  return result;
}

/// `indices` as an index operand: a Tensor as it is, or an int64 copy of
/// whatever numpy accepts.
Tensor toIndices(nb::handle indices) {
  PyTensor *t = nullptr;
  if (nb::try_cast<PyTensor *>(indices, t, false) && t)
    return t->value;
  nb::object made = nb::module_::import_("kiln._C").attr("tensor")(indices);
  return nb::cast<PyTensor &>(made).value;
}

PyTensor takeFunction(nb::handle x, nb::handle indices, int64_t dim) {
  PyTensor &t = asTensor(x, "x");
  return checked(take(t.value, toIndices(indices),
                      normalizeDim(dim, t.value.getShape().size())),
                 t.requiresGrad);
}

PyTensor scatterAddFunction(nb::handle x, nb::handle indices,
                            nb::handle updates, int64_t dim) {
  PyTensor &t = asTensor(x, "x");
  PyTensor &u = asTensor(updates, "updates");
  return checked(scatterAdd(t.value, toIndices(indices), u.value,
                            normalizeDim(dim, t.value.getShape().size())),
                 t.requiresGrad || u.requiresGrad);
}

PyTensor argmaxFunction(nb::handle x, int64_t dim) {
  PyTensor &t = asTensor(x, "x");
  return checked(argmax(t.value, normalizeDim(dim, t.value.getShape().size())));
}

PyTensor iotaFunction(std::vector<int64_t> shape, int64_t dim,
                      nb::handle dtype) {
  return checked(iota(shape, normalizeDim(dim, shape.size()),
                      dtype.is_none() ? DType::I64 : toDType(dtype)));
}

PyTensor rngUniformFunction(nb::handle key, std::vector<int64_t> shape) {
  return checked(rngUniform(asTensor(key, "key").value, shape));
}

PyTensor constantFunction(std::vector<int64_t> shape, double value,
                          nb::handle dtype) {
  return checked(Tensor::full(shape, value, toDType(dtype)));
}

void syncFunction(nb::args tensors) {
  std::vector<Tensor> values;
  for (nb::handle t : tensors)
    values.push_back(asTensor(t, "each argument").value);
  materialize(values);
}

void markDynamicFunction(nb::handle x, int64_t dim) {
  PyTensor &t = asTensor(x, "x");
  int64_t rank = static_cast<int64_t>(t.value.getShape().size());
  if (dim < 0)
    dim += rank;
  if (llvm::Error e = markDynamic(t.value, dim))
    throw nb::index_error(llvm::toString(std::move(e)).c_str());
}

nb::dict metricsFunction() {
  Metrics m = metrics();
  nb::dict d;
  d["traced_ops"] = m.tracedOps;
  d["replays"] = m.replays;
  d["donated_buffers"] = m.donatedBuffers;
  d["donated_bytes"] = m.donatedBytes;
  d["compiles"] = m.compiles;
  d["cache_hits"] = m.cacheHits;
  d["cache_misses"] = m.cacheMisses;
  d["compile_ms"] = m.compileMs;
  d["runs"] = m.runs;
  d["run_ms"] = m.runMs;
  d["kernel_ms"] = m.kernelMs;
  d["kernel_launches"] = m.kernelLaunches;
  d["live_bytes"] = m.liveBytes;
  d["peak_bytes"] = m.peakBytes;
  d["device_peak_bytes"] = m.devicePeakBytes;
  d["h2d_bytes"] = m.h2dBytes;
  d["d2h_bytes"] = m.d2hBytes;
  d["device_live_bytes"] = m.deviceLiveBytes;
  d["graph_launches"] = m.graphLaunches;
  d["graph_captures"] = m.graphCaptures;
  d["graph_node_updates"] = m.graphNodeUpdates;
  d["disk_hits"] = m.diskHits;
  d["disk_misses"] = m.diskMisses;
  d["disk_writes"] = m.diskWrites;
  d["disk_evictions"] = m.diskEvictions;
  d["disk_corrupt"] = m.diskCorrupt;
  d["disk_bytes_read"] = m.diskBytesRead;
  d["disk_bytes_written"] = m.diskBytesWritten;
  d["mlir_contexts"] = m.mlirContexts;
  d["generic_compiles"] = m.genericCompiles;
  d["generic_hits"] = m.genericHits;
  return d;
}

void synchronizeFunction() {
  llvm::Error error = [] {
    nb::gil_scoped_release noGil; // the device may take a while
    return synchronize();
  }();
  if (error)
    throw nb::value_error(llvm::toString(std::move(error)).c_str());
}

void setDeviceFunction(const std::string &name) {
  llvm::Expected<Device> device = parseDevice(name);
  if (!device)
    throw nb::value_error(llvm::toString(device.takeError()).c_str());
  if (llvm::Error e = setDevice(*device))
    throw nb::value_error(llvm::toString(std::move(e)).c_str());
}

// torch.set_float32_matmul_precision, whose bad names PyTorch only warns
// about (the call has no effect): kiln refuses them.
void setFloat32MatmulPrecisionFunction(nb::handle precision) {
  if (!nb::isinstance<nb::str>(precision))
    throw nb::type_error(
        ("set_float32_matmul_precision expects a str, but got " +
         std::string(nb::type_name(precision.type()).c_str()))
            .c_str());
  llvm::Expected<Float32MatmulPrecision> parsed =
      parseFloat32MatmulPrecision(nb::cast<std::string>(precision));
  if (!parsed)
    throw nb::value_error(llvm::toString(parsed.takeError()).c_str());
  setFloat32MatmulPrecision(*parsed);
}

Device parseAutocastDevice(const std::string &name) {
  llvm::Expected<Device> device = parseDevice(name);
  if (!device)
    throw nb::value_error(llvm::toString(device.takeError()).c_str());
  return *device;
}

std::string getAutocastDTypeName(DType dtype) {
  return dtype == DType::BF16 ? "bfloat16" : "float16";
}

/// kiln.autocast's entry and exit: sets the state of `deviceType` on this
/// thread, returning the previous (enabled, dtype name).
std::pair<bool, std::string> setAutocastFunction(const std::string &deviceType,
                                                 bool enabled,
                                                 const std::string &dtype) {
  if (dtype != "bfloat16" && dtype != "float16")
    throw nb::value_error(
        ("autocast: dtype must be bfloat16 or float16, not " + dtype).c_str());
  llvm::Expected<AutocastState> previous = setAutocastState(
      parseAutocastDevice(deviceType),
      {enabled, dtype == "bfloat16" ? DType::BF16 : DType::F16});
  if (!previous)
    throw nb::value_error(llvm::toString(previous.takeError()).c_str());
  return {previous->enabled, getAutocastDTypeName(previous->dtype)};
}
} // namespace

void kiln::python::bindFunctions(nb::module_ &m) {
  // The elementwise ops of TraceOps.def, by their C++ names, and the
  // names as tuples (kiln/__init__.py exports them; Tensor has them as
  // methods too).
  nb::list unaryNames, binaryNames;
#define KILN_TRACE_UNARY(Name, OpName, Function)                               \
  m.def(#Function, &unaryFunction<kiln::Function>, nb::arg("x"));              \
  unaryNames.append(#Function);
#define KILN_TRACE_UNARY_FLAG(Name, OpName, Function, Flag)                    \
  m.def(                                                                       \
      #Function,                                                               \
      [](nb::handle x, bool flag) {                                            \
        PyTensor &t = asTensor(x, "x");                                        \
        return checked(kiln::Function(t.value, flag), t.requiresGrad);         \
      },                                                                       \
      nb::arg("x"), nb::arg(#Flag) = false);                                   \
  unaryNames.append(#Function);
#define KILN_TRACE_BINARY(Name, OpName, Function)                              \
  m.def(#Function, &binaryFunction<kiln::Function>, nb::arg("a"),              \
        nb::arg("b"));                                                         \
  binaryNames.append(#Function);
#include "kiln/Trace/TraceOps.def"
  m.attr("unary_functions") = nb::tuple(unaryNames);
  m.attr("binary_functions") = nb::tuple(binaryNames);
  m.def("power", &binaryFunction<pow>, nb::arg("a"), nb::arg("b"));
  m.def("where", &whereFunction, nb::arg("condition"), nb::arg("x"),
        nb::arg("y"));
  m.def("matmul", &matmulTensors, nb::arg("a"), nb::arg("b"));
  m.def("concatenate", &concatenate, nb::arg("tensors"), nb::arg("axis") = 0);
  m.def("stack", &stack, nb::arg("tensors"), nb::arg("axis") = 0);
  m.def("split", &split, nb::arg("x"), nb::arg("indices_or_sections"),
        nb::arg("axis") = 0);
  m.def("softmax", &alongAxis<softmax>, nb::arg("x"), nb::arg("axis") = -1);
  m.def("log_softmax", &alongAxis<logSoftmax>, nb::arg("x"),
        nb::arg("axis") = -1);
  m.def("grad", &gradFunction, nb::arg("outputs"), nb::arg("inputs"),
        nb::arg("grad_outputs") = nb::none(), nb::arg("create_graph") = false,
        "The gradients of `outputs` with respect to `inputs`, weighted by "
        "`grad_outputs`, as torch.autograd.grad: a list, one per input. "
        "Recorded lazily, so gradients of gradients work.");
  m.def("take", &takeFunction, nb::arg("x"), nb::arg("indices"),
        nb::arg("dim") = 0,
        "numpy.take along `dim` (kiln.take): an index out of range gives "
        "NaN (0 in an integer result).");
  m.def("scatter_add", &scatterAddFunction, nb::arg("x"), nb::arg("indices"),
        nb::arg("updates"), nb::arg("dim") = 0,
        "`x` with each slice of `updates` added at the index `indices` "
        "names along `dim` (kiln.scatter_add): out-of-range updates are "
        "dropped; repeated indices add up in row-major order, the same "
        "bits on every run.");
  m.def("_argmax", &argmaxFunction, nb::arg("x"), nb::arg("dim"));
  m.def("_iota", &iotaFunction, nb::arg("shape"), nb::arg("dim"),
        nb::arg("dtype") = nb::none());
  m.def("_rng_uniform", &rngUniformFunction, nb::arg("key"), nb::arg("shape"));
  m.def("_constant", &constantFunction, nb::arg("shape"), nb::arg("value"),
        nb::arg("dtype"));
  m.def("is_grad_enabled", &isGradEnabled,
        "Whether ops record gradients (False under kiln.no_grad()).");
  m.def("_set_grad_enabled", &setGradEnabled, nb::arg("enabled"));
  m.def("sync", &syncFunction, "Computes every tensor given, in one program.");
  m.def("mark_dynamic", &markDynamicFunction, nb::arg("x"), nb::arg("dim"),
        "Marks dim `dim` of `x` dynamic: a program that reads `x` compiles "
        "shape-generic in it from its first size (without marks, at its "
        "second size).");
  m.def("synchronize", &synchronizeFunction,
        "Waits for the work queued on the device (a step on the cuda device "
        "returns once queued); raises the error of a program whose work "
        "failed, naming it.");
  m.def("metrics", &metricsFunction);
  m.def("reset_peak_memory_stats", &resetPeakMemoryStats);
  m.def("set_device", &setDeviceFunction, nb::arg("device"));
  m.def("get_device", [] { return getDeviceName(getDevice()).str(); });
  m.def("explain_misses", &setExplainMisses, nb::arg("enabled") = true);
  m.def("set_kernel_timing", &setKernelTiming, nb::arg("enabled") = true);
  m.def("set_float32_matmul_precision", &setFloat32MatmulPrecisionFunction,
        nb::arg("precision"));
  m.def("_set_autocast_state", &setAutocastFunction, nb::arg("device_type"),
        nb::arg("enabled"), nb::arg("dtype"));
  m.def("_get_autocast_state", [](const std::string &deviceType) {
    AutocastState state = getAutocastState(parseAutocastDevice(deviceType));
    return std::make_pair(state.enabled, getAutocastDTypeName(state.dtype));
  });
  m.def("_autocast_active",
        [] { return getActiveAutocastDType().has_value(); });
  m.def("_autocast_widening_math", &isAutocastWideningMath);
  m.def("get_float32_matmul_precision", [] {
    return getFloat32MatmulPrecisionName(getFloat32MatmulPrecision()).str();
  });
}
