# -*- Python -*-
# lit configuration of the kiln test suite.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "KILN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "corpus", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "runner.test.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%kiln_src_root", config.kiln_src_root))
config.substitutions.append(("%host_python", config.host_python))
config.substitutions.append(("%kiln_obj_root", config.kiln_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# The CPU model the JIT compiles for and OpenBLAS's kernel set: CI runs the
# numeric suites again with both forced to another CPU.
llvm_config.with_system_environment(["KILN_CPU", "OPENBLAS_CORETYPE"])
# One compile cache for the suite, in the build: a second run of a test
# loads what the first compiled. Tests of the cache itself name their own.
config.environment["KILN_CACHE_DIR"] = os.path.join(config.kiln_obj_root,
                                                    "test", "kiln-cache")
llvm_config.use_default_substitutions()

# In a -DKILN_SANITIZE=ON build, ASan's manual poisoning is off: LLVM's
# headers poison BumpPtrAllocator slabs in kiln's instrumented code that
# Debian's uninstrumented LLVM/MLIR then hand out (a false use-after-poison;
# see tools/kiln-fuzz-targets/AsanOptions.cpp). Other binaries ignore it.
# use_sigaltstack=0: LLVM gives the thread that first registers its signal
# handlers (writing a JIT object file for the compile cache does) an
# alternate signal stack of its own, from malloc; ASan unmaps a thread's
# alternate stack when the thread ends, and dies on that one.
config.environment["ASAN_OPTIONS"] = ":".join(
    filter(None, ["allow_user_poisoning=0", "use_sigaltstack=0",
                  os.environ.get("ASAN_OPTIONS")]))

tool_dirs = [config.kiln_tools_dir, config.llvm_tools_dir]
tools = ["kiln-opt", "kiln-run", "kiln-compile", "kiln-bench-trace", "kiln-lstm-train", "kiln-gpt-train", "kiln-fuzz-diff",
         "kiln-fuzz-parse", "kiln-fuzz-npy", "kiln-fuzz-trace", "llvm-as"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# `import kiln` finds the package the build assembled (with kiln._C).
llvm_config.with_environment("PYTHONPATH",
                             os.path.join(config.kiln_obj_root, "python"),
                             append_path=True)

# numpy on Debian's python, for tests that compare with known values.
if shutil.which(config.host_python):
    import subprocess
    if subprocess.call([config.host_python, "-c", "import numpy"],
                       stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL) == 0:
        config.available_features.add("numpy")

# The Python package (kiln._C), when the build made it.
if config.kiln_python_module.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("python-module")

# OpenMPI's launcher and library (CI installs openmpi-bin libopenmpi-dev):
# the data-parallel tests run ranks under `%mpirun -np N`. As root (CI's
# containers), mpirun needs --allow-run-as-root; --oversubscribe lets N
# exceed the cores. Debian names OpenMPI's own launcher mpirun.openmpi
# (`mpirun` is whichever MPI the alternatives chose).
mpirun = shutil.which("mpirun.openmpi") or shutil.which("mpirun")
if mpirun:
    import ctypes
    try:
        ctypes.CDLL("libmpi.so.40")
        flags = " --oversubscribe"
        if os.geteuid() == 0:
            flags += " --allow-run-as-root"
        # In a sanitized build, LeakSanitizer would report what OpenMPI's
        # plugins keep until exit, from code unloaded by then (no module to
        # suppress by): no leak checks in the ranks. kiln's collectives run
        # with leak checks on one rank (OpCoverageTest, the lit tests).
        flags += " -x ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0"
        config.available_features.add("mpi")
        config.substitutions.append(("%mpirun", mpirun + flags))
        # OpenMPI under root in a container: no ptrace-based shared memory
        # checks, and no warnings about a missing high-speed network.
        for name, value in [("OMPI_MCA_btl_vader_single_copy_mechanism", "none"),
                            ("OMPI_MCA_btl", "self,vader,tcp"),
                            ("OMPI_MCA_rmaps_base_oversubscribe", "1")]:
            config.environment[name] = value
    except OSError:
        pass

# MPICH's launcher (Hydra) and library (CI installs mpich): the same ranks
# under `%mpich_run -np N`, kiln loading libmpich.so.12 (KILN_MPI_LIBRARY),
# whose handles are integers where OpenMPI's are pointers. Debian's MPICH
# runs over UCX, whose libucm patches mmap's code at load: in a sanitized
# build that patch jumps into AddressSanitizer's interceptor and crashes, so
# the ranks keep UCX's memory hooks off (one machine needs none of them).
mpich_run = shutil.which("mpirun.mpich")
if mpich_run:
    import ctypes
    try:
        ctypes.CDLL("libmpich.so.12")
        config.available_features.add("mpich")
        config.substitutions.append(
            ("%mpich_run", mpich_run + " -genv KILN_MPI_LIBRARY libmpich.so.12"
             " -genv ASAN_OPTIONS allow_user_poisoning=0:detect_leaks=0"
             " -genv UCX_MEM_MMAP_HOOK_MODE none"))
    except OSError:
        pass

# The GPU suite runs only where a CUDA driver and device are visible.
if os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0"):
    config.available_features.add("cuda")

# libdevice, for the GPU tests that link it: $KILN_LIBDEVICE, or a CUDA
# toolkit's. (The kernels themselves never depend on whether one is found.)
libdevice_candidates = [os.environ.get("KILN_LIBDEVICE", "")]
for root in [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"]:
    if root:
        libdevice_candidates.append(
            os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc"))
for candidate in libdevice_candidates:
    if candidate and os.path.isfile(candidate):
        config.available_features.add("libdevice")
        config.substitutions.append(("%libdevice", candidate))
        break

# ptxas assembles PTX without a GPU or a driver: $KILN_PTXAS if set, else
# the toolkit's (on PATH, or under $CUDA_HOME or /usr/local/cuda), else the
# one scripts/install-deps.sh takes from the pinned nvidia-cuda-nvcc-cu12
# wheel into .deps/cuda-nvcc.
ptxas = os.environ.get("KILN_PTXAS") or shutil.which("ptxas")
deps = os.environ.get("KILN_DEPS_DIR") or os.path.join(config.kiln_src_root, ".deps")
for candidate in [os.path.join(os.environ.get("CUDA_HOME", "/nonexistent"), "bin", "ptxas"),
                  "/usr/local/cuda/bin/ptxas",
                  os.path.join(deps, "cuda-nvcc", "nvidia", "cuda_nvcc", "bin", "ptxas")]:
    if not ptxas and os.path.isfile(candidate):
        ptxas = candidate
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
