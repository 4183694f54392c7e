//===- LazyTestHelpers.h - data in and out of lazy tensors -----*- C++ -*-===//

#ifndef KILN_UNITTESTS_LAZY_LAZYTESTHELPERS_H
#define KILN_UNITTESTS_LAZY_LAZYTESTHELPERS_H

#include "kiln/Lazy/Tensor.h"

#include "gtest/gtest.h"

#include <vector>

namespace kiln {

/// An f32 tensor of `values`, copied in.
inline Tensor input(std::vector<int64_t> shape, std::vector<float> values) {
  HostTensor data(DType::F32, shape);
  for (size_t i = 0; i < values.size(); ++i)
    data.setFromDouble(static_cast<int64_t>(i), values[i]);
  return Tensor::fromHost(std::move(data));
}

/// `t`'s elements, materialized; a test failure (and nothing) on an error.
template <typename T = float> std::vector<T> values(const Tensor &t) {
  llvm::Expected<HostTensor> host = t.toHost();
  if (!host) {
    ADD_FAILURE() << llvm::toString(host.takeError());
    return {};
  }
  std::vector<T> out;
  for (int64_t i = 0; i < host->getNumElements(); ++i)
    out.push_back(static_cast<T>(host->getAsDouble(i)));
  return out;
}

} // namespace kiln

#endif // KILN_UNITTESTS_LAZY_LAZYTESTHELPERS_H
