//===- TensorClass.cpp - kiln.Tensor: operators, methods, indexing --------===//
//
// Every method records in C++: Python adds the call and nothing else.
// Python numbers are rank-0 parameters (a new value never recompiles);
// operands broadcast as numpy's do.
//
//===----------------------------------------------------------------------===//

#include "PyTensor.h"

#include <cmath>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

using namespace kiln;
using namespace kiln::python;
using namespace nb::literals;

PyTensor kiln::python::checked(Tensor t, bool requiresGrad) {
  if (!t.ok())
    throw nb::value_error(t.getError().c_str());
  // Under no_grad a result of tensors that require grad is detached: no
  // gradient taken later flows through it, as in PyTorch.
  if (requiresGrad && !isGradEnabled())
    t = stopGradient(t);
  requiresGrad = requiresGrad && isGradEnabled();
  return PyTensor(std::move(t), requiresGrad, /*isLeaf=*/!requiresGrad);
}

namespace {
/// PyTorch's categories of dtypes, in promotion order.
int getCategory(DType dtype) {
  return dtype == DType::I1 ? 0 : isIntegerDType(dtype) ? 1 : 2;
}

/// PyTorch's promote_types on kiln's dtypes.
DType promoteTypes(DType a, DType b) {
  if (a == b)
    return a;
  if (getCategory(a) != getCategory(b))
    return getCategory(a) > getCategory(b) ? a : b;
  if (getCategory(a) == 1)
    return DType::I64; // i32 with i64
  auto rank = [](DType d) {
    return d == DType::F64 ? 3 : d == DType::F32 ? 2 : 1;
  };
  if ((a == DType::F16 && b == DType::BF16) ||
      (a == DType::BF16 && b == DType::F16))
    return DType::F32;
  return rank(a) >= rank(b) ? a : b;
}

/// One priority class of PyTorch's result_type: its promoted dtype, if any.
struct Promoted {
  std::optional<DType> dtype;
  void add(DType d) { dtype = dtype ? promoteTypes(*dtype, d) : d; }
};

/// PyTorch's combine_categories(higher, lower).
std::optional<DType> combineCategories(std::optional<DType> higher,
                                       std::optional<DType> lower) {
  if (!higher)
    return lower;
  if (!lower || getCategory(*higher) == 2)
    return higher;
  if (*higher == DType::I1 || getCategory(*lower) == 2)
    return promoteTypes(*higher, *lower);
  return higher;
}

bool isPythonNumber(nb::handle value) {
  return PyFloat_Check(value.ptr()) || PyLong_Check(value.ptr());
}

/// The dtype a Python number stands for in promotion (PyTorch's wrapped
/// numbers: bool, int64 and the default float32).
DType getNumberDType(nb::handle value) {
  if (PyBool_Check(value.ptr()))
    return DType::I1;
  return PyLong_Check(value.ptr()) ? DType::I64 : DType::F32;
}

/// `value` as a tensor: a Tensor as it is, anything numpy accepts copied
/// (kiln.tensor's dtype rules).
Operand toTensorOperand(nb::handle value) {
  PyTensor *t = nullptr;
  if (nb::try_cast<PyTensor *>(value, t, false) && t)
    return {t->value, t->requiresGrad};
  nb::object made = nb::module_::import_("kiln._C").attr("tensor")(value);
  return {nb::cast<PyTensor &>(made).value};
}
} // namespace

std::vector<Operand>
kiln::python::promoteOperands(llvm::ArrayRef<nb::handle> values,
                              PromoteFor purpose) {
  std::vector<Operand> tensors(values.size());
  Promoted dimensioned, zeroDim, numbers;
  bool allNumbers = true;
  for (size_t i = 0; i < values.size(); ++i) {
    if (isPythonNumber(values[i])) {
      numbers.add(getNumberDType(values[i]));
      continue;
    }
    allNumbers = false;
    tensors[i] = toTensorOperand(values[i]);
    const Tensor &t = tensors[i].value;
    if (!t.ok())
      return tensors; // the op reports the operand's error
    (t.getShape().empty() ? zeroDim : dimensioned).add(t.getDType());
  }
  DType result = *combineCategories(
      dimensioned.dtype, combineCategories(zeroDim.dtype, numbers.dtype));
  if (purpose == PromoteFor::TrueDivision && getCategory(result) < 2)
    result = DType::F32;
  (void)allNumbers;
  for (size_t i = 0; i < values.size(); ++i) {
    if (isPythonNumber(values[i])) {
      tensors[i] = {Tensor::scalar(nb::cast<double>(values[i]), result)};
      continue;
    }
    if (tensors[i].value.getDType() != result)
      tensors[i].value = convert(tensors[i].value, result);
  }
  return tensors;
}

namespace {
thread_local bool gradEnabled = true;
} // namespace

bool kiln::python::isGradEnabled() { return gradEnabled; }
void kiln::python::setGradEnabled(bool enabled) { gradEnabled = enabled; }

std::string kiln::python::toString(nb::handle value) {
  nb::object text = nb::steal(PyObject_Str(value.ptr()));
  if (!text.is_valid())
    throw nb::python_error();
  return nb::cast<std::string>(text);
}

int64_t kiln::python::normalizeDim(int64_t dim, int64_t rank) {
  int64_t normalized = dim < 0 ? dim + rank : dim;
  if (normalized < 0 || normalized >= std::max<int64_t>(rank, 1))
    throw nb::index_error(("dim " + std::to_string(dim) +
                           " is out of range for a tensor of rank " +
                           std::to_string(rank))
                              .c_str());
  return normalized;
}

namespace {
using Binary = Tensor (*)(const Tensor &, const Tensor &);

/// self OP other (or other OP self when `reflected`), promoted as
/// PyTorch's operators promote.
template <Binary op, bool reflected = false,
          PromoteFor purpose = PromoteFor::Arithmetic>
PyTensor binaryMethod(nb::handle self, nb::handle other) {
  std::vector<Operand> operands = reflected
                                      ? promoteOperands({other, self}, purpose)
                                      : promoteOperands({self, other}, purpose);
  return checked(op(operands[0].value, operands[1].value),
                 operands[0].requiresGrad || operands[1].requiresGrad);
}

template <Tensor (*op)(const Tensor &)>
PyTensor unaryMethod(const PyTensor &self) {
  return checked(op(self.value), self.requiresGrad);
}

Tensor addOp(const Tensor &a, const Tensor &b) { return a + b; }
Tensor subOp(const Tensor &a, const Tensor &b) { return a - b; }
Tensor mulOp(const Tensor &a, const Tensor &b) { return a * b; }
Tensor divOp(const Tensor &a, const Tensor &b) { return a / b; }

/// `axis` (None, an int or a sequence of ints) as sorted, unique dims.
std::vector<int64_t> toDims(nb::handle axis, int64_t rank) {
  std::vector<int64_t> dims;
  if (axis.is_none()) {
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
    return dims;
  }
  if (nb::isinstance<nb::int_>(axis)) {
    dims.push_back(normalizeDim(nb::cast<int64_t>(axis), rank));
    return dims;
  }
  for (nb::handle d : axis)
    dims.push_back(normalizeDim(nb::cast<int64_t>(d), rank));
  std::sort(dims.begin(), dims.end());
  if (std::adjacent_find(dims.begin(), dims.end()) != dims.end())
    throw nb::value_error("duplicate value in 'axis'");
  return dims;
}

/// A reduction over `axis`, keeping the reduced dims as size 1 when asked.
PyTensor reduceMethod(const PyTensor &self, nb::handle axis, bool keepdims,
                      Tensor (*reduce)(const Tensor &,
                                       llvm::ArrayRef<int64_t>)) {
  int64_t rank = self.value.getShape().size();
  std::vector<int64_t> dims = toDims(axis, rank);
  Tensor result = reduce(self.value, dims);
  if (keepdims && result.ok()) {
    std::vector<int64_t> kept(self.value.getShape().begin(),
                              self.value.getShape().end());
    for (int64_t d : dims)
      kept[d] = 1;
    result = reshape(result, kept);
  }
  return checked(std::move(result), self.requiresGrad);
}

/// A shape given as one sequence or as separate ints, with at most one -1.
std::vector<int64_t> toNewShape(nb::args args, llvm::ArrayRef<int64_t> old) {
  nb::handle spec = args;
  if (args.size() == 1 && !nb::isinstance<nb::int_>(args[0]))
    spec = args[0];
  std::vector<int64_t> shape;
  for (nb::handle d : spec)
    shape.push_back(nb::cast<int64_t>(d));
  int64_t known = 1, inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && inferred < 0) {
      inferred = static_cast<int64_t>(i);
      continue;
    }
    if (shape[i] < 0)
      throw nb::value_error(("invalid shape " + getListString(shape) +
                             ": one dim may be -1, no other negative")
                                .c_str());
    known *= shape[i];
  }
  if (inferred >= 0) {
    int64_t total = 1;
    for (int64_t d : old)
      total *= d;
    if (known == 0 || total % known != 0)
      throw nb::value_error(("cannot reshape " + getListString(old) + " into " +
                             getListString(shape))
                                .c_str());
    shape[inferred] = total / known;
  }
  return shape;
}

/// x[index]: integers, unit-step slices, `...` and None.
PyTensor getItem(const PyTensor &self, nb::handle index) {
  nb::tuple items = nb::isinstance<nb::tuple>(index)
                        ? nb::borrow<nb::tuple>(index)
                        : nb::make_tuple(index);
  llvm::ArrayRef<int64_t> shape = self.value.getShape();
  int64_t rank = shape.size();
  int64_t consumed = 0; // items that take a dim (not None, not ...)
  bool sawEllipsis = false;
  for (nb::handle item : items) {
    if (item.is_none())
      continue;
    if (item.ptr() == Py_Ellipsis) {
      if (sawEllipsis)
        throw nb::index_error("an index can only have one ellipsis ('...')");
      sawEllipsis = true;
      continue;
    }
    ++consumed;
  }
  if (consumed > rank)
    throw nb::index_error(
        ("too many indices for a tensor of rank " + std::to_string(rank))
            .c_str());
  std::vector<int64_t> offsets(rank, 0), sizes(shape.begin(), shape.end());
  std::vector<int64_t> resultShape;
  int64_t dim = 0;
  for (nb::handle item : items) {
    if (item.is_none()) {
      resultShape.push_back(1);
      continue;
    }
    if (item.ptr() == Py_Ellipsis) {
      for (int64_t n = rank - consumed; n > 0; --n, ++dim)
        resultShape.push_back(shape[dim]);
      continue;
    }
    if (PySlice_Check(item.ptr())) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(item.ptr(), &start, &stop, &step) < 0)
        throw nb::python_error();
      if (step != 1)
        throw nb::index_error("kiln tensors take unit-step slices only");
      Py_ssize_t length =
          PySlice_AdjustIndices(shape[dim], &start, &stop, step);
      offsets[dim] = length ? start : 0;
      sizes[dim] = length;
      resultShape.push_back(length);
      ++dim;
      continue;
    }
    if (PyLong_Check(item.ptr()) || PyIndex_Check(item.ptr())) {
      int64_t i = nb::cast<int64_t>(item);
      int64_t at = i < 0 ? i + shape[dim] : i;
      if (at < 0 || at >= shape[dim])
        throw nb::index_error(
            ("index " + std::to_string(i) + " is out of bounds for dim " +
             std::to_string(dim) + " of size " + std::to_string(shape[dim]))
                .c_str());
      offsets[dim] = at;
      sizes[dim] = 1;
      ++dim;
      continue;
    }
    throw nb::type_error("kiln tensors take integers, unit-step slices, "
                         "'...' and None as indices (no tensor or list "
                         "indices): use kiln.where for masks");
  }
  for (; dim < rank; ++dim)
    resultShape.push_back(shape[dim]);
  Tensor result = self.value;
  if (llvm::ArrayRef<int64_t>(sizes) != shape)
    result = slice(result, offsets, sizes);
  if (result.ok() && result.getShape() != llvm::ArrayRef<int64_t>(resultShape))
    result = reshape(result, resultShape);
  return checked(std::move(result), self.requiresGrad);
}

/// The tensor's one element, materialized.
double getItemValue(PyTensor &self) {
  if (self.value.ok() && self.value.getNode()->getNumElements() != 1)
    throw nb::value_error(
        ("only a tensor of one element converts to a "
         "Python scalar, not " +
         getTensorTypeString(self.value.getDType(), self.value.getShape()))
            .c_str());
  return materializedValue(self)->getAsDouble(0);
}

nb::tuple getShapeTuple(const PyTensor &self) {
  nb::list dims;
  for (int64_t d : self.value.getShape())
    dims.append(d);
  return nb::tuple(dims);
}

/// The exponent as an integer when it is one (a Python int, or a float of
/// integral value), for exact powers.
std::optional<int64_t> getIntegralExponent(nb::handle exponent) {
  if (PyLong_Check(exponent.ptr())) {
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(exponent.ptr(), &overflow);
    if (overflow)
      return std::nullopt;
    return n;
  }
  if (PyFloat_Check(exponent.ptr())) {
    double d = PyFloat_AsDouble(exponent.ptr());
    if (std::trunc(d) == d && std::abs(d) <= (1 << 20))
      return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

/// x ** n by repeated squaring: exact where multiplication is (11**2 is
/// 121), with the gradient of the products.
Tensor integerPower(const Tensor &x, int64_t n) {
  if (n == 0)
    return Tensor::full(x.getShape(), 1.0, x.getDType());
  uint64_t count = n < 0 ? 0 - static_cast<uint64_t>(n) : n;
  Tensor result, base = x;
  while (count) {
    if (count & 1)
      result = result.ok() ? result * base : base;
    count >>= 1;
    if (count)
      base = base * base;
  }
  return n < 0 ? reciprocal(result) : result;
}

/// self = result, as PyTorch's in-place ops leave `self`: its dtype and
/// shape (result broadcast, and converted unless that would drop a
/// category), a leaf still under no_grad (an optimizer's update).
void assignInPlace(PyTensor &self, const PyTensor &result) {
  if (isGradEnabled() && self.isLeaf && self.requiresGrad)
    throw std::runtime_error("a leaf Variable that requires grad is being "
                             "used in an in-place operation.");
  Tensor value = result.value;
  if (!value.ok() || !self.value.ok())
    throw nb::value_error((value.ok() ? self.value : value).getError().c_str());
  DType dtype = self.value.getDType();
  if (getCategory(value.getDType()) > getCategory(dtype))
    throw std::runtime_error(("result type " +
                              getDTypeName(value.getDType()).str() +
                              " can't be cast to the desired output type " +
                              getDTypeName(dtype).str())
                                 .c_str());
  if (value.getDType() != dtype)
    value = convert(value, dtype);
  if (value.getShape() != self.value.getShape()) {
    Tensor widened = broadcastTo(value, self.value.getShape());
    if (!widened.ok())
      throw std::runtime_error(("output with shape " +
                                getListString(self.value.getShape()) +
                                " doesn't match the broadcast shape " +
                                getListString(value.getShape()))
                                   .c_str());
    value = widened;
  }
  if (!value.ok())
    throw nb::value_error(value.getError().c_str());
  self.willChange();
  self.value = std::move(value);
  self.snapshot = Tensor();
  if (isGradEnabled() && result.requiresGrad && !self.requiresGrad) {
    self.requiresGrad = true;
    self.isLeaf = false;
  }
  // A parameter updated under no_grad is computed with the next read, as
  // an optimizer step's are, so its trace never grows from step to step.
  if (self.registered)
    markPending(self.value);
}

PyTensor powOp(nb::handle self, nb::handle other, nb::handle modulo) {
  if (!modulo.is_none())
    throw nb::type_error("pow() with a modulus is not supported");
  const PyTensor &x = nb::cast<const PyTensor &>(self);
  if (std::optional<int64_t> n = getIntegralExponent(other);
      n && x.value.ok()) {
    if (isIntegerDType(x.value.getDType()) && *n < 0)
      throw nb::value_error("Integers to negative integer powers are not "
                            "allowed.");
    bool exactDType =
        x.value.getDType() != DType::I1 &&
        (PyLong_Check(other.ptr()) || isFloatDType(x.value.getDType()));
    if (exactDType)
      return checked(integerPower(x.value, *n), x.requiresGrad);
  }
  return binaryMethod<pow>(self, other);
}
} // namespace

void kiln::python::bindTensor(nb::module_ &m) {
  nb::class_<PyTensor> tensor(
      m, "Tensor", nb::is_weak_referenceable(),
      "A lazy tensor: ops record; .numpy(), .item() and kiln.sync compute.");
  // numpy's binary operators defer to ours (ndarray @ Tensor records
  // Tensor.__rmatmul__ instead of converting the tensor), as torch's do.
  tensor.attr("__array_priority__") = 1000;
  tensor.def_prop_ro("shape", &getShapeTuple)
      .def_prop_ro(
          "dtype",
          [](const PyTensor &t) { return fromDType(t.value.getDType()); })
      .def_prop_ro("ndim",
                   [](const PyTensor &t) {
                     return static_cast<int64_t>(t.value.getShape().size());
                   })
      .def("__len__",
           [](const PyTensor &t) {
             if (t.value.getShape().empty())
               throw nb::type_error("len() of a 0-d tensor");
             return t.value.getShape()[0];
           })
      .def_prop_rw(
          "requires_grad", [](const PyTensor &t) { return t.requiresGrad; },
          [](PyTensor &t, bool value) {
            if (value && t.value.ok() && !isFloatDType(t.value.getDType()))
              throw std::runtime_error("only Tensors of floating point "
                                       "dtype can require gradients");
            if (!value && !t.isLeaf)
              throw nb::value_error("requires_grad can be turned off only "
                                    "on a leaf: use .detach()");
            t.willChange();
            t.requiresGrad = value;
            updateRegistration(t);
          })
      .def(
          "requires_grad_",
          [](nb::handle self, bool value) {
            nb::setattr(self, "requires_grad", nb::bool_(value));
            return nb::borrow(self);
          },
          nb::arg("requires_grad") = true)
      .def_prop_ro("is_leaf", [](const PyTensor &t) { return t.isLeaf; })
      .def(
          "backward",
          [](PyTensor &t, nb::handle gradient, nb::handle, bool createGraph) {
            backward(t, gradient, createGraph);
          },
          nb::arg("gradient") = nb::none(),
          nb::arg("retain_graph") = nb::none(), nb::arg("create_graph") = false,
          "Adds d(self)/d(leaf) into `.grad` of every leaf that requires "
          "grad and that this tensor is computed from (recorded, not run).")
      .def(
          "_rebind",
          [](PyTensor &t, const PyTensor &value) {
            if (value.value.getDType() != t.value.getDType() ||
                value.value.getShape() != t.value.getShape())
              throw nb::value_error("_rebind: the new value has another "
                                    "dtype or shape");
            t.willChange();
            t.value = value.value;
            t.snapshot = Tensor();
          },
          "Internal (optimizers): give this tensor a new value, keeping its "
          "flags and gradient.")
      .def_prop_rw(
          "grad", [](const PyTensor &t) { return t.grad; },
          [](PyTensor &t, nb::handle value) {
            if (!value.is_none() && !nb::isinstance<PyTensor>(value))
              throw nb::type_error("grad must be a kiln.Tensor or None");
            if (!value.is_none()) {
              const Tensor &g = nb::cast<PyTensor &>(value).value;
              if (g.ok() && t.value.ok() &&
                  (g.getDType() != t.value.getDType() ||
                   g.getShape() != t.value.getShape()))
                throw nb::value_error(
                    ("assigned grad is " +
                     getTensorTypeString(g.getDType(), g.getShape()) +
                     ", but the tensor is " +
                     getTensorTypeString(t.value.getDType(),
                                         t.value.getShape()))
                        .c_str());
            }
            t.willChange();
            t.grad = nb::borrow(value);
          },
          nb::arg("value").none())
      .def(
          "_assign_",
          [](nb::handle self, const PyTensor &result) {
            assignInPlace(nb::cast<PyTensor &>(self), result);
            return nb::borrow(self);
          },
          "Internal (in-place ops): `self` takes `result`'s value, as "
          "PyTorch's in-place ops leave it; returns self.")
      .def_prop_ro("_has_value",
                   [](const PyTensor &t) {
                     return t.value.ok() && t.value.getNode()->hasValue();
                   })
      .def(
          "detach",
          [](const PyTensor &t) {
            bool computed = t.value.ok() && t.value.getNode()->hasValue();
            return PyTensor(computed ? t.value : stopGradient(t.value), false,
                            true);
          },
          "This tensor's value as a leaf: no gradient flows through it.")
      // Arithmetic, with Python numbers on either side.
      .def("__add__", &binaryMethod<addOp>)
      .def("__radd__", &binaryMethod<addOp, true>)
      .def("__sub__", &binaryMethod<subOp>)
      .def("__rsub__", &binaryMethod<subOp, true>)
      .def("__mul__", &binaryMethod<mulOp>)
      .def("__rmul__", &binaryMethod<mulOp, true>)
      .def("__truediv__", &binaryMethod<divOp, false, PromoteFor::TrueDivision>)
      .def("__rtruediv__", &binaryMethod<divOp, true, PromoteFor::TrueDivision>)
      .def("__pow__", &powOp, nb::arg("other"), nb::arg("modulo") = nb::none())
      .def("__rpow__",
           [](nb::handle self, nb::handle other) {
             return binaryMethod<pow, true>(self, other);
           })
      .def("__neg__", &unaryMethod<neg>)
      .def("__pos__", [](const PyTensor &t) { return t; })
      .def("__abs__", &unaryMethod<abs>)
      .def("__matmul__",
           [](nb::handle a, nb::handle b) { return matmulTensors(a, b); })
      .def("__rmatmul__",
           [](nb::handle b, nb::handle a) { return matmulTensors(a, b); })
      // Comparisons give bool tensors.
      .def("__lt__", &binaryMethod<lt>)
      .def("__le__", &binaryMethod<le>)
      .def("__gt__", &binaryMethod<gt>)
      .def("__ge__", &binaryMethod<ge>)
      .def("__eq__", &binaryMethod<eq>)
      .def("__ne__", &binaryMethod<ne>)
      .def("__hash__", [](nb::handle self) { return (intptr_t)self.ptr(); })
      .def("__getitem__", &getItem)
      .def("__setitem__",
           [](PyTensor &, nb::handle, nb::handle) {
             throw nb::type_error("kiln tensors are values and cannot be "
                                  "assigned into: build the new tensor with "
                                  "kiln.where or kiln.concatenate");
           })
      // Values.
      .def("numpy", [](PyTensor &t) { return toNumpy(t); })
      // The values of a tensor already computed, for checks made while
      // recording (an index's range): not a read that kiln.jit warns of.
      .def("_known_numpy",
           [](PyTensor &t) {
             if (!t.value.ok() || !t.value.getNode()->hasValue())
               throw nb::value_error("_known_numpy: the tensor has no value "
                                     "yet");
             return toNumpy(t, /*noteRead=*/false);
           })
      .def(
          "__array__",
          [](PyTensor &t, nb::handle dtype, nb::handle copy) {
            nb::object array = toNumpy(t);
            if (!dtype.is_none())
              array = array.attr("astype")(dtype, "copy"_a = false);
            if (nb::isinstance<nb::bool_>(copy) && nb::cast<bool>(copy))
              array = array.attr("copy")();
            return array;
          },
          nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none())
      .def("item",
           [](PyTensor &t) -> nb::object {
             double value = getItemValue(t);
             if (t.value.getDType() == DType::I1)
               return nb::bool_(value != 0);
             return nb::float_(value);
           })
      .def("__float__", &getItemValue)
      .def("__int__",
           [](PyTensor &t) { return static_cast<int64_t>(getItemValue(t)); })
      .def("__bool__", [](PyTensor &t) { return getItemValue(t) != 0; })
      .def("__repr__",
           [](PyTensor &t) {
             std::string body = nb::cast<std::string>(nb::repr(toNumpy(t)));
             // "array(...)" -> "tensor(...)", numpy's layout otherwise.
             if (body.rfind("array(", 0) == 0)
               body = "tensor(" + body.substr(6);
             return body;
           })
      .def("__dlpack_device__",
           [](const PyTensor &) { return nb::make_tuple(1, 0); })
      .def(
          "__dlpack__",
          [](PyTensor &t, nb::handle stream) {
            if (!stream.is_none())
              throw nb::value_error("kiln tensors live on the CPU: "
                                    "__dlpack__ takes stream=None");
            return toNumpy(t).attr("__dlpack__")();
          },
          nb::kw_only(), nb::arg("stream") = nb::none())
      // Shapes.
      .def("reshape",
           [](const PyTensor &t, nb::args shape) {
             return checked(
                 reshape(t.value, toNewShape(shape, t.value.getShape())),
                 t.requiresGrad);
           })
      .def("transpose",
           [](const PyTensor &t, nb::args axes) {
             int64_t rank = t.value.getShape().size();
             std::vector<int64_t> perm;
             nb::handle spec = axes;
             if (axes.size() == 1 && !nb::isinstance<nb::int_>(axes[0]))
               spec = axes[0];
             for (nb::handle a : spec)
               perm.push_back(normalizeDim(nb::cast<int64_t>(a), rank));
             if (perm.empty())
               for (int64_t d = rank - 1; d >= 0; --d)
                 perm.push_back(d);
             return checked(transpose(t.value, perm), t.requiresGrad);
           })
      .def_prop_ro("T",
                   [](const PyTensor &t) {
                     std::vector<int64_t> perm;
                     for (int64_t d = t.value.getShape().size() - 1; d >= 0;
                          --d)
                       perm.push_back(d);
                     return checked(transpose(t.value, perm), t.requiresGrad);
                   })
      .def("astype",
           [](const PyTensor &t, nb::handle dtype) {
             DType to = toDType(dtype);
             if (to == t.value.getDType())
               return t;
             return checked(convert(t.value, to), t.requiresGrad);
           })
      // Reductions.
      .def(
          "sum",
          [](const PyTensor &t, nb::handle axis, bool keepdims) {
            return reduceMethod(t, axis, keepdims, sum);
          },
          nb::arg("axis") = nb::none(), nb::arg("keepdims") = false)
      .def(
          "mean",
          [](const PyTensor &t, nb::handle axis, bool keepdims) {
            return reduceMethod(t, axis, keepdims, mean);
          },
          nb::arg("axis") = nb::none(), nb::arg("keepdims") = false)
      .def(
          "max",
          [](const PyTensor &t, nb::handle axis, bool keepdims) {
            return reduceMethod(t, axis, keepdims, amax);
          },
          nb::arg("axis") = nb::none(), nb::arg("keepdims") = false);
  // The elementwise ops of TraceOps.def as methods (kiln/_tensor.py gives
  // add, sub, mul, div and pow PyTorch's alpha and exact integer powers).
#define KILN_TRACE_UNARY(Name, OpName, Function)                               \
  tensor.def(#Function, &unaryMethod<kiln::Function>);
#define KILN_TRACE_UNARY_FLAG(Name, OpName, Function, Flag)                    \
  tensor.def(                                                                  \
      #Function,                                                               \
      [](const PyTensor &self, bool flag) {                                    \
        return checked(kiln::Function(self.value, flag), self.requiresGrad);   \
      },                                                                       \
      nb::arg(#Flag) = false);
#define KILN_TRACE_BINARY(Name, OpName, Function)                              \
  tensor.def(#Function, &binaryMethod<kiln::Function>);
#include "kiln/Trace/TraceOps.def"
}
