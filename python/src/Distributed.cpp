//===- Distributed.cpp - kiln.distributed's collectives -------------------===//
//
// kiln._C's collectives (all_reduce, all_gather, reduce_scatter) and the
// job's ranks; python/kiln/distributed.py is the public module.
//
//===----------------------------------------------------------------------===//

#include "kiln/Lazy/Distributed.h"
#include "PyTensor.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

using namespace kiln;
using namespace kiln::python;

namespace {

Reduction parseReduction(const std::string &op) {
  if (op == "sum")
    return Reduction::Sum;
  if (op == "mean")
    return Reduction::Mean;
  if (op == "max")
    return Reduction::Max;
  throw nb::value_error(
      ("op must be 'sum', 'mean' or 'max', not '" + op + "'").c_str());
}

PyTensor &asTensor(nb::handle value) {
  PyTensor *t = nullptr;
  if (!nb::try_cast<PyTensor *>(value, t, false) || !t)
    throw nb::type_error("a collective takes a kiln.Tensor");
  return *t;
}

/// A dim of `t`, numpy-style (negative from the end).
int64_t normalizeAxis(const Tensor &t, int64_t axis) {
  int64_t rank = t.ok() ? static_cast<int64_t>(t.getShape().size()) : 0;
  return axis < 0 ? axis + rank : axis;
}

void initFunction() {
  if (llvm::Error e = distributed::init())
    throw nb::value_error(llvm::toString(std::move(e)).c_str());
}

} // namespace

void kiln::python::bindDistributed(nb::module_ &m) {
  m.def("_dist_init", &initFunction);
  m.def("_dist_rank", &distributed::rank);
  m.def("_dist_size", &distributed::size);
  m.def("_dist_backend", [] { return std::string(distributed::backend()); });
  m.def("_dist_finalize", &distributed::finalize);
  m.def("_dist_new_group", [](const std::vector<int> &ranks) {
    llvm::Expected<int64_t> group = distributed::newGroup(ranks);
    if (!group)
      throw nb::value_error(llvm::toString(group.takeError()).c_str());
    return *group;
  });
  m.def("_dist_group_size", &distributed::groupSize);
  m.def("_dist_group_rank", &distributed::groupRank);
  m.def("_dist_stats", [] {
    distributed::Stats s = distributed::stats();
    nb::dict d;
    d["collectives"] = s.collectives;
    d["bytes"] = s.bytes;
    d["wait_ms"] = s.waitMs;
    d["busy_ms"] = s.busyMs;
    return d;
  });
  m.def(
      "all_reduce",
      [](nb::handle x, const std::string &op, int64_t group) {
        PyTensor &t = asTensor(x);
        return checked(allReduce(t.value, parseReduction(op), group),
                       t.requiresGrad);
      },
      nb::arg("x"), nb::arg("op") = "sum", nb::arg("group") = 0,
      "Every rank's `x` combined elementwise ('sum', 'mean' or 'max'); "
      "every rank gets the result. Recorded like any op; differentiable.");
  m.def(
      "all_gather",
      [](nb::handle x, int64_t axis, int64_t group) {
        PyTensor &t = asTensor(x);
        return checked(allGather(t.value, normalizeAxis(t.value, axis), group),
                       t.requiresGrad);
      },
      nb::arg("x"), nb::arg("axis") = 0, nb::arg("group") = 0,
      "The ranks' `x` concatenated along `axis`, in rank order.");
  m.def(
      "reduce_scatter",
      [](nb::handle x, int64_t axis, const std::string &op, int64_t group) {
        PyTensor &t = asTensor(x);
        return checked(reduceScatter(t.value, normalizeAxis(t.value, axis),
                                     parseReduction(op), group),
                       t.requiresGrad);
      },
      nb::arg("x"), nb::arg("axis") = 0, nb::arg("op") = "sum",
      nb::arg("group") = 0,
      "The ranks' `x` combined, split into one part per rank along "
      "`axis`: this rank's part.");
  m.def(
      "_average_gradients",
      [](nb::handle grads, int64_t bucketBytes) {
        std::vector<Tensor> values;
        for (nb::handle g : grads)
          values.push_back(asTensor(g).value);
        std::vector<PyTensor> out;
        for (Tensor &t : distributed::averageGradients(values, bucketBytes))
          out.push_back(checked(std::move(t)));
        return out;
      },
      nb::arg("grads"), nb::arg("bucket_bytes"));
}
