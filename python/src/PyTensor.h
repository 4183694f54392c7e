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

#include <string>

namespace kiln::python {

namespace nb = nanobind;

struct PyTensor {
  PyTensor() { link(); }
  PyTensor(Tensor value, bool requiresGrad, bool isLeaf)
      : value(std::move(value)), requiresGrad(requiresGrad), isLeaf(isLeaf) {
    link();
  }
  /// A copy (copy.copy) is not in the registry of leaves.
  PyTensor(const PyTensor &other)
      : value(other.value), requiresGrad(other.requiresGrad),
        isLeaf(other.isLeaf), grad(other.grad), snapshot(other.snapshot) {
    link();
  }
  PyTensor(PyTensor &&other) noexcept
      : value(std::move(other.value)), requiresGrad(other.requiresGrad),
        isLeaf(other.isLeaf), grad(std::move(other.grad)),
        snapshot(std::move(other.snapshot)) {
    link();
  }
  PyTensor &operator=(const PyTensor &) = delete;
  ~PyTensor();

  /// Called before `value`, `grad` or the flags change: a kiln.jit capture
  /// under way keeps what a tensor made before it began was.
  void willChange() {
    if (serial < changeWatchSerial)
      noteChange();
  }

  Tensor value;
  /// Whether gradients flow to it: a leaf that asks for them (a parameter),
  /// or a tensor computed from one.
  bool requiresGrad = false;
  /// Made by the user (not computed from a tensor that requires grad).
  bool isLeaf = true;
  /// A leaf's accumulated gradient: a PyTensor, or None.
  nb::object grad = nb::none();
  /// For a computed tensor that requires grad: a copy of it whose value is
  /// read (numpy, item), so that computing it keeps `value`'s recipe, which
  /// backward() still needs.
  Tensor snapshot;
  /// In the registry of requires-grad leaves that backward() searches.
  bool registered = false;

  /// Creation order: tensors made before a kiln.jit capture began have
  /// smaller serials.
  uint64_t serial = 0;
  /// Every PyTensor alive, oldest first (guarded by the GIL): a capture
  /// looks here for the tensors a step reads that are not its arguments.
  PyTensor *prevLive = nullptr, *nextLive = nullptr;
  static PyTensor *firstLive, *lastLive;
  static uint64_t nextSerial;
  /// Tensors with a serial below this are watched for changes (0: none).
  static uint64_t changeWatchSerial;
  /// The last capture that noted this tensor's change.
  uint64_t notedBy = 0;

private:
  void link();
  void unlink();
  void noteChange();
};

/// `t` as a PyTensor (a leaf unless it requires grad), or ValueError with
/// its message when it is invalid.
PyTensor checked(Tensor t, bool requiresGrad = false);

/// Adds the PyTensor of Python object `self` to the registry of leaves that
/// require grad, or takes it out, as its flags say.
void updateRegistration(PyTensor &self);
/// d(output)/d(leaf) for every registered leaf that `output` depends on,
/// added into the leaves' `.grad` (as PyTorch's backward()).
void backward(PyTensor &output, nb::handle gradient, bool createGraph);

/// Tensors an optimizer step rebound (parameters, moments, gradients):
/// computed along with whatever is materialized next, so that a training
/// step is one program and the trace never grows from step to step.
void markPending(const Tensor &t);
/// Computes the pending tensors still alive, if any (before a gradient is
/// recorded, so that no step's program nests the previous one's).
void flushPending();
/// Computes `tensors` and every pending tensor still alive, in one program.
void materialize(llvm::ArrayRef<Tensor> tensors);
/// The value `t` shows (numpy, item), computed. A read inside a kiln.jit
/// recording is noted (the replay will not run the Python that used it)
/// unless `noteRead` is false: a check of values already known.
std::shared_ptr<const HostTensor> materializedValue(PyTensor &t,
                                                    bool noteRead = true);

/// The kiln dtype that numpy's `dtype` (a numpy dtype, a type such as
/// np.float32, or a name such as "float32") names; TypeError otherwise.
DType toDType(nb::handle dtype);
/// The numpy dtype of `dtype` (bfloat16, which numpy lacks, as "bfloat16").
nb::object fromDType(DType dtype);

/// `t`'s value as a numpy array over the tensor's own buffer (bfloat16 as a
/// float32 copy). Materializes `t` first; `noteRead` as materializedValue.
nb::object toNumpy(PyTensor &t, bool noteRead = true);

/// An operand of an op, and whether it makes the result require grad.
struct Operand {
  Tensor value;
  bool requiresGrad = false;
};
/// Why operands are promoted: true division gives a float even for ints.
enum class PromoteFor { Arithmetic, TrueDivision };
/// The operands of one op (tensors, Python numbers, arrays) converted to
/// the dtype PyTorch's type promotion gives them: Python numbers weigh
/// less than rank-0 tensors, which weigh less than others, unless they are
/// of a higher category (bool < integer < float).
std::vector<Operand>
promoteOperands(llvm::ArrayRef<nb::handle> values,
                PromoteFor purpose = PromoteFor::Arithmetic);

/// torch.is_grad_enabled(): off under kiln.no_grad(); ops then make
/// tensors that do not require grad.
bool isGradEnabled();
void setGradEnabled(bool enabled);

/// a @ b as numpy's matmul (1-D operands, broadcast batch dims).
PyTensor matmulTensors(nb::handle a, nb::handle b);

/// Python's str(value).
std::string toString(nb::handle value);

/// A dim of a rank-`rank` tensor, negative ones counted from the end;
/// IndexError when out of range.
int64_t normalizeDim(int64_t dim, int64_t rank);

void bindTensor(nb::module_ &m);
void bindArrays(nb::module_ &m);
void bindFunctions(nb::module_ &m);
void bindAutograd(nb::module_ &m);
void bindJit(nb::module_ &m);
void bindDistributed(nb::module_ &m);

/// Whether a kiln.jit capture is recording on this thread (reads of values
/// are then noted, for a warning).
void noteValueRead();

} // namespace kiln::python

#endif // KILN_PYTHON_PYTENSOR_H
