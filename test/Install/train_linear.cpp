// Trains y = w x + b on data from y = 3x - 2 with kiln's lazy tensors and
// kiln::grad, and checks that the loss falls and w, b approach 3, -2; then
// trains again with the step under kiln::Jit, which must replay it and
// reach the same weights.
#include "kiln/Lazy/Jit.h"
#include "kiln/Lazy/Tensor.h"

#include <cmath>
#include <cstdio>

int main() {
  const int64_t n = 64;
  kiln::HostTensor xs(kiln::DType::F32, {n, 1}), ys(kiln::DType::F32, {n, 1});
  for (int64_t i = 0; i < n; ++i) {
    double x = -1.0 + 2.0 * static_cast<double>(i) / (n - 1);
    xs.setFromDouble(i, x);
    ys.setFromDouble(i, 3.0 * x - 2.0);
  }
  kiln::Tensor x = kiln::Tensor::fromHost(xs);
  kiln::Tensor y = kiln::Tensor::fromHost(ys);
  kiln::Tensor w = kiln::Tensor::zeros({1, 1});
  kiln::Tensor b = kiln::Tensor::zeros({1});

  double first = 0, last = 0;
  for (int step = 0; step < 200; ++step) {
    kiln::Tensor error = kiln::matmul(x, w) + b - y;
    kiln::Tensor loss = kiln::sum(error * error, {0, 1}) / double(n);
    std::vector<kiln::Tensor> g = kiln::grad({loss}, {w, b});
    w = w - 0.1 * g[0];
    b = b - 0.1 * g[1];
    // One program per step: the step's loss and new parameters, computed
    // together (else each step's trace would hold every step before it).
    if (llvm::Error error = kiln::sync({loss, w, b})) {
      std::fprintf(stderr, "error: %s\n",
                   llvm::toString(std::move(error)).c_str());
      return 1;
    }
    last = loss.toHost()->getAsDouble(0);
    if (step == 0)
      first = last;
  }
  double wv = w.toHost()->getAsDouble(0), bv = b.toHost()->getAsDouble(0);
  std::printf("loss %g -> %g, w = %g, b = %g\n", first, last, wv, bv);
  bool ok =
      last < 1e-3 * first && std::abs(wv - 3) < 0.05 && std::abs(bv + 2) < 0.05;

  // The same step, functional, under kiln::Jit: (w, b, x, y) -> (w', b').
  kiln::Jit step([&](llvm::ArrayRef<kiln::Tensor> in) {
    kiln::Tensor error = kiln::matmul(in[2], in[0]) + in[1] - in[3];
    kiln::Tensor loss = kiln::sum(error * error, {0, 1}) / double(n);
    std::vector<kiln::Tensor> g = kiln::grad({loss}, {in[0], in[1]});
    return std::vector<kiln::Tensor>{in[0] - 0.1 * g[0], in[1] - 0.1 * g[1]};
  });
  kiln::Tensor jw = kiln::Tensor::zeros({1, 1}), jb = kiln::Tensor::zeros({1});
  for (int i = 0; i < 200; ++i) {
    llvm::Expected<std::vector<kiln::Tensor>> next = step({jw, jb, x, y});
    if (!next) {
      std::fprintf(stderr, "error: %s\n",
                   llvm::toString(next.takeError()).c_str());
      return 1;
    }
    jw = (*next)[0], jb = (*next)[1];
  }
  double jwv = jw.toHost()->getAsDouble(0), jbv = jb.toHost()->getAsDouble(0);
  std::printf("jit: w = %g, b = %g, %lld replays\n", jwv, jbv,
              static_cast<long long>(step.getNumReplays()));
  ok = ok && jwv == wv && jbv == bv && step.getNumReplays() > 190;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
