//===- PyTensor.h - a lazy tensor as Python sees it -------------*- C++ -*-===//
//
// kiln._C's Tensor: a kiln::Tensor plus what PyTorch users expect of one,
// `requires_grad` and an accumulated `.grad`. Every op records in C++ and
// raises ValueError on the line that records a bad op (the C++ tensor
// carries the message; the binding turns it into the exception at once).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PYTHON_PYTENSOR_H
#define KILN_PYTHON_PYTENSOR_H

#include "kiln/Lazy/Tensor.h"

#include <nanobind/nanobind.h>

namespace kiln::python {

namespace nb = nanobind;

struct PyTensor {
  Tensor value;
  /// Whether backward() and the optimizers treat it as a parameter (a
  /// leaf) or as computed from one.
  bool requiresGrad = false;
  /// A leaf's accumulated gradient: a PyTensor, or None.
  nb::object grad = nb::none();
};

/// `t` as a PyTensor, or ValueError with its message when it is invalid.
PyTensor checked(Tensor t, bool requiresGrad = false);

/// The kiln dtype that numpy's `dtype` (a numpy dtype, a type such as
/// np.float32, or a name such as "float32") names; TypeError otherwise.
DType toDType(nb::handle dtype);
/// The numpy dtype of `dtype` (bfloat16, which numpy lacks, as "bfloat16").
nb::object fromDType(DType dtype);

/// `t`'s value as a numpy array over the tensor's own buffer (bfloat16 as a
/// float32 copy). Materializes `t` first.
nb::object toNumpy(const Tensor &t);

/// An operand of an op on `like`: a Tensor as it is, a Python number as a
/// rank-0 parameter of `like`'s dtype, anything else numpy accepts copied.
Tensor toOperand(nb::handle value, const Tensor &like);
/// Whether `value` makes its op's result require gradients.
bool requiresGrad(nb::handle value);

/// A dim of a rank-`rank` tensor, negative ones counted from the end;
/// IndexError when out of range.
int64_t normalizeDim(int64_t dim, int64_t rank);

void bindTensor(nb::module_ &m);
void bindArrays(nb::module_ &m);
void bindFunctions(nb::module_ &m);

} // namespace kiln::python

#endif // KILN_PYTHON_PYTENSOR_H
