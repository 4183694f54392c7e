// Compiles a kiln module from source through the installed facade
// (kiln/Compiler/Executable.h), runs it on the CPU and checks the result;
// a program with a parse error is refused, naming the line.
#include "kiln/Compiler/Executable.h"

#include <cmath>
#include <cstdio>

static const char *kSource = R"mlir(
  func.func @main(%x: tensor<3x4xf32>) -> tensor<3xf32> {
    %t = kiln.tanh %x : tensor<3x4xf32>
    %s = kiln.reduce_sum %t, dims = [1] : tensor<3x4xf32> -> tensor<3xf32>
    return %s : tensor<3xf32>
  }
)mlir";

int main() {
  kiln::CompileOptions options;
  options.device = kiln::Device::Cpu;
  auto exe = kiln::Executable::compileSource(kSource, "main", options);
  if (!exe) {
    std::fprintf(stderr, "FAIL: %s\n", llvm::toString(exe.takeError()).c_str());
    return 1;
  }
  kiln::HostTensor x(kiln::DType::F32, {3, 4});
  for (int64_t i = 0; i < x.getNumElements(); ++i)
    x.setFromDouble(i, 0.25 * static_cast<double>(i) - 1.0);
  auto results = (*exe)->run({x});
  if (!results) {
    std::fprintf(stderr, "FAIL: %s\n",
                 llvm::toString(results.takeError()).c_str());
    return 1;
  }
  for (int64_t row = 0; row < 3; ++row) {
    double want = 0;
    for (int64_t col = 0; col < 4; ++col)
      want += std::tanh(x.getAsDouble(row * 4 + col));
    double got = (*results)[0].getAsDouble(row);
    if (std::fabs(got - want) > 1e-5) {
      std::fprintf(stderr, "FAIL: row %lld: %g, expected %g\n",
                   static_cast<long long>(row), got, want);
      return 1;
    }
  }
  auto bad = kiln::Executable::compileSource("func.func @main(", "main");
  if (bad) {
    std::fprintf(stderr, "FAIL: a truncated module compiled\n");
    return 1;
  }
  std::string message = llvm::toString(bad.takeError());
  if (message.find(":1:") == std::string::npos) {
    std::fprintf(stderr, "FAIL: the parse error names no line: %s\n",
                 message.c_str());
    return 1;
  }
  std::printf("compile_module: ok (%lld launches)\n",
              static_cast<long long>((*exe)->getStats().kernelLaunches));
  return 0;
}
