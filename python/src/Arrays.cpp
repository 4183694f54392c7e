//===- Arrays.cpp - numpy and DLPack data in and out of kiln --------------===//
//
// kiln.tensor copies; kiln.from_numpy and kiln.from_dlpack borrow the
// producer's buffer and keep the producer alive for as long as any trace
// node holds the data; Tensor.numpy() returns an array over the tensor's
// own result buffer.
//
//===----------------------------------------------------------------------===//

#include "PyTensor.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>

using namespace kiln;
using namespace kiln::python;
using namespace nb::literals;

namespace {
using CpuArray = nb::ndarray<nb::device::cpu>;
namespace dl = nb::dlpack;

/// numpy, imported once.
nb::module_ &getNumpy() {
  static nb::module_ *numpy = new nb::module_(nb::module_::import_("numpy"));
  return *numpy;
}

/// The kiln dtype of a DLPack dtype, if kiln has one.
std::optional<DType> fromDLPack(dl::dtype dtype) {
  if (dtype.lanes != 1)
    return std::nullopt;
  if (dtype.code == uint8_t(dl::dtype_code::Float)) {
    if (dtype.bits == 32)
      return DType::F32;
    if (dtype.bits == 64)
      return DType::F64;
    if (dtype.bits == 16)
      return DType::F16;
  }
  if (dtype.code == uint8_t(dl::dtype_code::Bfloat) && dtype.bits == 16)
    return DType::BF16;
  if (dtype.code == uint8_t(dl::dtype_code::Bool) && dtype.bits == 8)
    return DType::I1;
  if (dtype.code == uint8_t(dl::dtype_code::Int)) {
    if (dtype.bits == 32)
      return DType::I32;
    if (dtype.bits == 64)
      return DType::I64;
  }
  return std::nullopt;
}

dl::dtype toDLPack(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return nb::dtype<float>();
  case DType::F64:
    return nb::dtype<double>();
  case DType::F16:
    return {uint8_t(dl::dtype_code::Float), 16, 1};
  case DType::BF16:
    return {uint8_t(dl::dtype_code::Bfloat), 16, 1};
  case DType::I1:
    return nb::dtype<bool>();
  case DType::I32:
    return nb::dtype<int32_t>();
  case DType::I64:
    return nb::dtype<int64_t>();
  }
  return {};
}

/// The array's kiln dtype, or TypeError naming what it got.
DType arrayDType(const CpuArray &array, nb::handle source) {
  if (std::optional<DType> dtype = fromDLPack(array.dtype()))
    return *dtype;
  std::string got = toString(source.attr("dtype"));
  throw nb::type_error(("kiln tensors hold float32, float64, float16, "
                        "bfloat16, int32, int64 or bool, not " +
                        got +
                        ": convert it first, e.g. .astype(np.float32) or "
                        ".astype(np.int64)")
                           .c_str());
}

std::vector<int64_t> arrayShape(const CpuArray &array) {
  std::vector<int64_t> shape;
  for (size_t i = 0; i < array.ndim(); ++i)
    shape.push_back(static_cast<int64_t>(array.shape(i)));
  return shape;
}

/// Whether `array` is row-major and dense (strides are in elements).
bool isRowMajor(const CpuArray &array) {
  int64_t expected = 1;
  for (size_t i = array.ndim(); i-- > 0;) {
    if (array.shape(i) != 1 && array.stride(i) != expected)
      return false;
    expected *= static_cast<int64_t>(array.shape(i));
  }
  return true;
}

/// HostTensor data that keeps its Python owner alive.
struct Borrowed {
  HostTensor tensor;
  nb::object owner;
};

std::shared_ptr<const HostTensor> borrow(const CpuArray &array, DType dtype,
                                         nb::object owner) {
  llvm::Expected<HostTensor> tensor =
      HostTensor::borrow(dtype, arrayShape(array), array.data());
  if (!tensor)
    throw nb::value_error(llvm::toString(tensor.takeError()).c_str());
  auto *held = new Borrowed{std::move(*tensor), std::move(owner)};
  // The last node may let go on any thread, with or without the GIL.
  return std::shared_ptr<const HostTensor>(
      &held->tensor, [held](const HostTensor *) {
        if (!Py_IsInitialized()) {
          held->owner.release(); // the interpreter is gone: nothing to free
          delete held;
          return;
        }
        nb::gil_scoped_acquire gil;
        delete held;
      });
}

/// A tensor copied from whatever numpy.asarray accepts, of `dtype` (None:
/// PyTorch's rule: numpy data keeps its dtype; Python floats give float32,
/// ints int64 and bools bool).
Tensor copyFrom(nb::handle value, nb::handle dtype) {
  nb::module_ &numpy = getNumpy();
  bool fromNumpy = nb::isinstance(value, numpy.attr("ndarray")) ||
                   nb::isinstance(value, numpy.attr("generic"));
  nb::object array = numpy.attr("asarray")(value, "order"_a = "C");
  std::optional<DType> target;
  if (!dtype.is_none())
    target = toDType(dtype);
  else if (!fromNumpy) {
    std::string kind = nb::cast<std::string>(array.attr("dtype").attr("kind"));
    if (kind == "f")
      target = DType::F32;
    else if (kind == "i" || kind == "u")
      target = DType::I64;
  }
  if (target)
    array = numpy.attr("asarray")(
        array, *target == DType::BF16 ? nb::str("float32") : fromDType(*target),
        "order"_a = "C");
  toDType(array.attr("dtype")); // TypeError for a dtype kiln lacks
  CpuArray view = nb::cast<CpuArray>(array);
  DType arrayType = arrayDType(view, array);
  llvm::Expected<HostTensor> tensor =
      HostTensor::createUninitialized(arrayType, arrayShape(view));
  if (!tensor)
    throw nb::value_error(llvm::toString(tensor.takeError()).c_str());
  if (tensor->getByteSize())
    std::memcpy(tensor->getData(), view.data(), tensor->getByteSize());
  if (target == DType::BF16) {
    HostTensor narrowed(DType::BF16, tensor->getShape().vec());
    for (int64_t i = 0; i < tensor->getNumElements(); ++i)
      narrowed.setFromDouble(i, tensor->getAsDouble(i));
    return Tensor::fromHost(std::move(narrowed));
  }
  return Tensor::fromHost(std::move(*tensor));
}

std::vector<int64_t> toShape(nb::handle shape) {
  if (nb::isinstance<nb::int_>(shape))
    return {nb::cast<int64_t>(shape)};
  std::vector<int64_t> dims;
  for (nb::handle d : shape)
    dims.push_back(nb::cast<int64_t>(d));
  int64_t bytes = 8;
  for (int64_t d : dims) {
    if (d < 0)
      throw nb::value_error(
          ("negative dimension in shape " + getListString(dims)).c_str());
    if (__builtin_mul_overflow(bytes, d, &bytes))
      throw nb::value_error(("size " + getListString(dims) +
                             " overflows: its byte count is above 2^63")
                                .c_str());
  }
  return dims;
}

/// A leaf of Python's: registered when it requires grad.
nb::object makeLeaf(Tensor t, bool requiresGrad = false) {
  if (!t.ok())
    throw nb::value_error(t.getError().c_str());
  if (requiresGrad && !isFloatDType(t.getDType()))
    throw std::runtime_error("Only Tensors of floating point dtype can "
                             "require gradients");
  nb::object made = nb::cast(PyTensor(std::move(t), requiresGrad, true));
  updateRegistration(*nb::inst_ptr<PyTensor>(made));
  return made;
}

nb::object filled(nb::handle shape, double value, nb::handle dtype,
                  bool requiresGrad) {
  DType kind = dtype.is_none() ? DType::F32 : toDType(dtype);
  std::vector<int64_t> dims = toShape(shape);
  if (!requiresGrad || !isFloatDType(kind))
    return makeLeaf(Tensor::full(dims, value, kind), requiresGrad);
  // A parameter is data, not a constant: the first training step then
  // compiles into the program every later step (whose parameters are
  // data) runs, and nothing folds its value into the code.
  HostTensor data(kind, dims);
  for (int64_t i = 0; i < data.getNumElements(); ++i)
    data.setFromDouble(i, value);
  return makeLeaf(Tensor::fromHost(std::move(data)), requiresGrad);
}
} // namespace

DType kiln::python::toDType(nb::handle dtype) {
  if (nb::isinstance<nb::str>(dtype) &&
      nb::cast<std::string>(dtype) == "bfloat16")
    return DType::BF16;
  nb::object numpyType = getNumpy().attr("dtype")(dtype);
  std::string name = nb::cast<std::string>(numpyType.attr("name"));
  if (std::optional<DType> kind = parseDTypeName(name == "float32"   ? "f32"
                                                 : name == "float64" ? "f64"
                                                 : name == "float16" ? "f16"
                                                 : name == "bool"    ? "i1"
                                                 : name == "int32"   ? "i32"
                                                 : name == "int64"   ? "i64"
                                                                     : name))
    return *kind;
  throw nb::type_error(("kiln tensors hold float32, float64, float16, "
                        "bfloat16, int32, int64 or bool, not " +
                        name)
                           .c_str());
}

nb::object kiln::python::fromDType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return getNumpy().attr("dtype")("float32");
  case DType::F64:
    return getNumpy().attr("dtype")("float64");
  case DType::F16:
    return getNumpy().attr("dtype")("float16");
  case DType::BF16:
    return nb::str("bfloat16");
  case DType::I1:
    return getNumpy().attr("dtype")("bool");
  case DType::I32:
    return getNumpy().attr("dtype")("int32");
  case DType::I64:
    return getNumpy().attr("dtype")("int64");
  }
  return nb::none();
}

nb::object kiln::python::toNumpy(PyTensor &t, bool noteRead) {
  std::shared_ptr<const HostTensor> value = materializedValue(t, noteRead);
  if (value->getDType() == DType::BF16) {
    // numpy has no bfloat16: a float32 copy.
    HostTensor widened(DType::F32, value->getShape().vec());
    for (int64_t i = 0; i < value->getNumElements(); ++i)
      widened.setFromDouble(i, value->getAsDouble(i));
    value = std::make_shared<const HostTensor>(std::move(widened));
  }
  std::vector<size_t> shape(value->getShape().begin(), value->getShape().end());
  auto *keep = new std::shared_ptr<const HostTensor>(value);
  nb::capsule owner(keep, [](void *p) noexcept {
    delete static_cast<std::shared_ptr<const HostTensor> *>(p);
  });
  // Writable, as PyTorch's .numpy(): writes change the tensor's value.
  return nb::ndarray<nb::numpy>(const_cast<void *>(value->getData()),
                                shape.size(), shape.data(), owner, nullptr,
                                toDLPack(value->getDType()))
      .cast();
}

void kiln::python::bindArrays(nb::module_ &m) {
  m.def(
      "tensor",
      [](nb::handle data, nb::handle dtype, bool requiresGrad) {
        if (!nb::isinstance<PyTensor>(data))
          return makeLeaf(copyFrom(data, dtype), requiresGrad);
        Tensor value = nb::cast<PyTensor &>(data).value;
        if (!dtype.is_none() && value.ok() &&
            toDType(dtype) != value.getDType())
          value = convert(value, toDType(dtype));
        return makeLeaf(std::move(value), requiresGrad);
      },
      nb::arg("data"), nb::arg("dtype") = nb::none(),
      nb::arg("requires_grad") = false,
      "A tensor holding a copy of `data` (a numpy array, or anything "
      "numpy.asarray accepts). Its dtype, unless `dtype` names one, is "
      "PyTorch's: a numpy array's own; float32 for Python floats, int64 "
      "for ints, bool for bools.");
  m.def(
      "from_numpy",
      [](nb::handle array) {
        if (!nb::isinstance(array, getNumpy().attr("ndarray")))
          throw nb::type_error("from_numpy expects a numpy.ndarray");
        toDType(array.attr("dtype")); // TypeError for a dtype kiln lacks
        CpuArray view = nb::cast<CpuArray>(array, /*convert=*/false);
        if (!isRowMajor(view))
          throw nb::value_error("from_numpy needs a C-contiguous array: "
                                "use numpy.ascontiguousarray or kiln.tensor");
        DType dtype = arrayDType(view, array);
        return makeLeaf(
            Tensor::fromHost(borrow(view, dtype, nb::borrow(array))));
      },
      nb::arg("array"),
      "A tensor over `array`'s buffer, which it keeps alive: no copy. "
      "Writes to the array before the tensor is used change its value.");
  m.def(
      "from_dlpack",
      [](nb::handle producer) {
        nb::object source = nb::borrow(producer);
        CpuArray view;
        if (!nb::try_cast(source, view, /*convert=*/false)) {
          std::string what =
              nb::hasattr(source, "dtype")
                  ? " (got dtype " + toString(source.attr("dtype")) + ")"
                  : "";
          throw nb::type_error(("from_dlpack expects an object with "
                                "__dlpack__ (numpy, torch, JAX) on the CPU, "
                                "of a float or bool dtype" +
                                what)
                                   .c_str());
        }
        if (!isRowMajor(view))
          throw nb::value_error("from_dlpack needs a row-major, dense "
                                "tensor; make it contiguous first");
        DType dtype = arrayDType(view, source);
        nb::object owner = nb::cast(view);
        return makeLeaf(Tensor::fromHost(borrow(view, dtype, owner)));
      },
      nb::arg("producer"),
      "A tensor over the producer's buffer (anything with __dlpack__), "
      "zero-copy.");
  m.def("_filled", &filled, nb::arg("shape"), nb::arg("fill_value"),
        nb::arg("dtype") = nb::none(), nb::arg("requires_grad") = false);
}
