//===- Executable.h - a kiln function compiled for a device -----*- C++ -*-===//
//
// The compiler's facade: one options struct, one compile entry point and
// one executable type for every device. Executable::compile lowers a
// module's entry function with the device's pipeline (the CPU: kernels
// through LLVM's ORC JIT; CUDA: kernels as PTX through LLVM's NVPTX
// backend) and returns an Executable that runs it on host tensors.
// Compiling for CUDA needs no GPU; running does.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_EXECUTABLE_H
#define KILN_COMPILER_EXECUTABLE_H

#include "kiln/Compiler/Device.h"
#include "kiln/Compiler/MatmulPrecision.h"
#include "kiln/Support/Donation.h"
#include "kiln/Support/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// The type of one argument or result: element type and shape, with
/// mlir::ShapedType::kDynamic for dynamic dims.
struct TensorSignature {
  DType dtype;
  std::vector<int64_t> shape;
  std::string typeString; // "tensor<4x?xf32>"
};

/// What compilation found, for reports.
struct CompileStats {
  /// kiln.fusion_group ops in the entry's module before lowering.
  int64_t fusionGroups = 0;
  /// Distinct kernels compiled for them (0 until groups are deduplicated).
  int64_t uniqueKernels = 0;
  /// Loop nests (kernels) one call executes, counted after linalg fusion.
  int64_t kernelLaunches = 0;
  /// Steps of the host program (0 when the host code was compiled).
  int64_t hostSteps = 0;
  /// The host program's memory plan (kiln_rt_memory_plan): the arena its
  /// buffers of known sizes share in a run, how many it places there and
  /// how many come from the buffer cache (sizes known only at run time),
  /// the most bytes of the planned ones live at once, and their sum.
  int64_t arenaBytes = 0, plannedBuffers = 0, unplannedBuffers = 0,
          livePeakBytes = 0, bufferBytes = 0;
  /// The BLAS that matmuls call ("libopenblas.so.0", "cublas"), or "" when
  /// generated kernels compute them (none found, or not asked for).
  std::string blas;
  /// The compile cache: "hit" (loaded from it: compileMs is the load's
  /// time and the breakdown below is 0), "miss" (compiled, then stored
  /// when the executable is a host program) or "off".
  std::string cache = "off";
  double compileMs = 0;
  /// Where compileMs went (the CPU): kiln and linalg passes on tensors, the
  /// passes down to the LLVM dialect, LLVM IR translation and optimization,
  /// and machine code generation.
  double tensorPassesMs = 0, codegenPassesMs = 0, llvmOptMs = 0,
         machineCodeMs = 0;
};

/// How to compile. Options that only one device understands are refused
/// on the other.
struct CompileOptions {
  /// Where the executable runs; Auto is resolved when compiling.
  Device device = Device::Cpu;
  /// Dead-edge elimination in -kiln-autodiff; false is the naive derivation.
  bool autodiffPrune = true;
  /// Matmuls through the runtime's BLAS (cuBLAS on CUDA): by default when
  /// one was found; generated kernels otherwise.
  std::optional<bool> blas;
  /// Compile equal kernels once; false gives one function per launch.
  bool kernelDedup = true;
  /// CPU: transposes and batch reshapes around BLAS calls become strides
  /// (-kiln-fold-contraction-layouts); false copies them, for measuring.
  bool foldContractionLayouts = true;
  /// CPU: attention (a softmax row that feeds only a product) runs on the
  /// runtime's blockwise kernels, its scores never stored
  /// (-kiln-fuse-attention); false keeps the products and the softmax, for
  /// measuring.
  bool fuseAttention = true;
  /// What f32 matmuls may compute in (torch.set_float32_matmul_precision):
  /// on CUDA, High and Medium run them on tensor cores; the CPU computes
  /// them in f32 whatever this says. A kiln.matmul's own `precision` wins.
  Float32MatmulPrecision matmulPrecision = Float32MatmulPrecision::Highest;
  /// torch.autocast for a whole program: f32 matmuls (and their gradients')
  /// run in bf16 or f16 between converts (-kiln-autocast). Unset: in f32.
  /// The lazy tensors' kiln.autocast casts while recording instead.
  std::optional<DType> autocast;
  /// Automatic rematerialization (-kiln-autodiff's remat=auto): a forward
  /// value of cheap elementwise ops that the backward reads is recomputed
  /// there when that keeps fewer bytes from the forward to the backward.
  /// Unset: KILN_REMAT decides ("auto" or "none", read at each compile);
  /// unset too: on for the CPU, off for CUDA (resolveAutoRemat).
  std::optional<bool> autoRemat;
  /// With automatic rematerialization: the smallest value it recomputes
  /// (-kiln-autodiff's remat-min-bytes); unset: 64 KiB.
  std::optional<int64_t> rematMinBytes;
  /// Verify the IR after every pass, as kiln-opt does, instead of once
  /// after each stage (a third of the pass time on large programs).
  bool verifyEachPass = false;

  /// CPU: compile the host code even when the entry could run as a host
  /// program of steps.
  bool compileHostCode = false;
  /// CPU: map the kernels to the GPU (-kiln-map-kernels-to-gpu), then run
  /// those GPU kernels on the CPU, one thread after another
  /// (-kiln-emulate-gpu-launches): the GPU code's index arithmetic and
  /// vector paths, checked without a GPU. Matmuls are kernels then, as on
  /// the GPU.
  bool emulateGpuKernels = false;
  /// The persistent compile cache (CPU host programs): `noCache` skips it;
  /// `cacheDirectory` replaces the environment's (KILN_CACHE_DIR, else
  /// $XDG_CACHE_HOME/kiln or ~/.cache/kiln; KILN_CACHE=0 disables it).
  bool noCache = false;
  std::string cacheDirectory;
  /// CPU: when set, the machine code is written there as ELF objects, for
  /// profilers and disassemblers: PATH.kernels.o and PATH.host.o.
  std::string objectDumpPath;

  /// CUDA: the GPU to generate PTX for ("sm_90"); empty: the current GPU's,
  /// or sm_80 where none is usable.
  std::string chip;
  /// CUDA: libdevice.10.bc to link (f64 transcendentals); empty:
  /// $KILN_LIBDEVICE, and kernels that need it are refused where neither
  /// is set.
  std::string libdevice;
};

/// Time spent in a run's kernels, when asked for: the CPU's kernel and
/// runtime calls timed one by one, the GPU's steps between CUDA events (the
/// copies of inputs and results excluded).
struct RunProfile {
  int64_t launches = 0;
  double kernelNs = 0;
  /// With `perCall` set (CPU host programs): the time of each callee (a
  /// kernel, a runtime function, "copy"), in the order first called.
  bool perCall = false;
  struct Call {
    std::string name;
    int64_t calls = 0;
    double ns = 0;
  };
  std::vector<Call> calls;
  /// Adds one call of `name` taking `ns`.
  void addCall(llvm::StringRef name, double ns);
};

/// Whether a compile with `options` for `device` (Cpu or Cuda)
/// rematerializes automatically: their autoRemat, else KILN_REMAT, else on
/// the CPU only (the GPU's cost has not been measured); an error names a
/// KILN_REMAT that is neither "auto" nor "none".
llvm::Expected<bool> resolveAutoRemat(const CompileOptions &options,
                                      Device device);

/// The entry function of `module`: `name` if given, else `main`, else the
/// only public function.

llvm::Expected<std::string> findEntry(mlir::ModuleOp module,
                                      llvm::StringRef name);

class DeviceValue;

class Executable {
public:
  virtual ~Executable();

  /// Compiles `entry` of `module` (lowered in place) for `options.device`;
  /// `entry` as in findEntry.
  static llvm::Expected<std::unique_ptr<Executable>>
  compile(mlir::ModuleOp module, llvm::StringRef entry,
          const CompileOptions &options = {});

  /// As above, from MLIR source text (a module of func.func ops on kiln ops,
  /// as kiln-opt and kiln-run read), parsed in a context of the compile's
  /// own; a parse error names its line and column. The executable keeps no
  /// MLIR.
  static llvm::Expected<std::unique_ptr<Executable>>
  compileSource(llvm::StringRef source, llvm::StringRef entry,
                const CompileOptions &options = {});

  /// Cpu or Cuda.
  Device getDevice() const { return device; }
  const std::string &getEntryName() const { return entryName; }
  const std::vector<TensorSignature> &getInputs() const { return inputs; }
  const std::vector<TensorSignature> &getOutputs() const { return outputs; }
  const CompileStats &getStats() const { return stats; }
  /// The kernels' device code: one PTX module on CUDA, empty on the CPU.
  virtual llvm::StringRef getPtx() const { return {}; }

  /// Checks `args` against the signature and runs the function on its
  /// device; the results are allocated here. A `profile` gets the time
  /// spent in kernels added to it (on the CPU, when the host code runs as
  /// a host program; compiled host code is not timed). Fails with the
  /// runtime's message, naming the failing call, where a device call fails.
  virtual llvm::Expected<std::vector<HostTensor>>
  run(llvm::ArrayRef<const HostTensor *> args,
      RunProfile *profile = nullptr) const = 0;
  /// As above, on tensors held by the caller.
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::ArrayRef<HostTensor> args, RunProfile *profile = nullptr) const;

  /// Which inputs each output may be written into (a donated buffer): by
  /// the last read of each input and the first write of each output
  /// (-kiln-plan-donation). Empty where the executable cannot tell (the
  /// cuda device, ahead-of-time modules): nothing is written in place.
  const DonationPlan &getDonation() const { return donation; }

  /// As run(), but output `r` is written into `into[r]` where that is not
  /// null: a tensor of the output's dtype and shape, which the caller keeps
  /// (its place in the returned vector is left empty). Outputs without one
  /// are allocated, as run() allocates them. A tensor in `into` may hold an
  /// input's buffer: the caller donates the input, whose value is then
  /// lost. Where getDonation() allows it, the output is written there
  /// directly, without a buffer of its own; otherwise into a temporary
  /// copied there after the run, so that no input is ever read after it
  /// was overwritten. `direct`, when given (one per output), is what
  /// findDirectWrites says of these arguments and destinations: a caller
  /// that runs again with the same buffers keeps it instead of having it
  /// worked out on every run.
  virtual llvm::Expected<std::vector<HostTensor>>
  runInto(llvm::ArrayRef<const HostTensor *> args,
          llvm::ArrayRef<HostTensor *> into, RunProfile *profile = nullptr,
          const std::vector<bool> *direct = nullptr) const;

  /// Which outputs runInto writes straight into `into[r]`: those whose
  /// destination shares no byte with an argument or another destination,
  /// and those whose destination is exactly one argument's buffer that
  /// getDonation() lets them overwrite. The destinations are sorted once;
  /// each argument then looks up those it may overlap (O(n log k)).
  std::vector<bool> findDirectWrites(llvm::ArrayRef<const HostTensor *> args,
                                     llvm::ArrayRef<HostTensor *> into) const;

  /// Runs the function on values already in its device's memory (CUDA):
  /// the arguments are passed by address, with no copy, and the results
  /// are allocated there and stay there. The run is queued, not waited
  /// for: reading a result (DeviceValue::download) or kiln::synchronize()
  /// waits, and reports an error of the run's work there, after `label`
  /// (by default "@entry"). Fails for a CPU executable, and for arguments
  /// of another signature or lost with their runtime.
  virtual llvm::Expected<std::vector<std::shared_ptr<const DeviceValue>>>
  runOnDevice(llvm::ArrayRef<const DeviceValue *> args,
              RunProfile *profile = nullptr, llvm::StringRef label = {}) const;

protected:
  explicit Executable(Device device) : device(device) {}
  /// Checks runInto's `into`: one tensor (or null) per output, each of the
  /// output's dtype and rank.
  llvm::Error checkDestinations(llvm::ArrayRef<HostTensor *> into) const;

  Device device;
  std::string entryName;
  std::vector<TensorSignature> inputs, outputs;
  CompileStats stats;
  DonationPlan donation;
};

} // namespace kiln

#endif // KILN_COMPILER_EXECUTABLE_H
