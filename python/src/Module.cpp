//===- Module.cpp - the kiln._C extension module --------------------------===//

#include "PyTensor.h"

NB_MODULE(_C, m) {
  m.doc() = "kiln's lazy tensors (the compiled part of the kiln package)";
  kiln::python::bindTensor(m);
  kiln::python::bindArrays(m);
  kiln::python::bindFunctions(m);
  kiln::python::bindAutograd(m);
  kiln::python::bindJit(m);
  kiln::python::bindDistributed(m);
}
