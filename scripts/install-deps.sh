#!/usr/bin/env bash
# Installs what kiln builds and tests with on Debian 12 (bookworm): LLVM/MLIR
# 22, clang 22 with its sanitizer and libFuzzer runtimes, clang-format 22
# (check-format), the LLVM OpenMP runtime,
# CMake, Ninja, git, GoogleTest, Debian's python3 with numpy, pytest and
# scikit-learn, and its headers for the Python module, and OpenMPI and
# MPICH (the data-parallel tests run ranks under each one's launcher; kiln
# loads libmpi at run time and links none). Idempotent: installs
# only what is missing.
#
# nanobind (the Python binding) comes from PyPI, pinned, into a build-local
# prefix, .deps/python (KILN_DEPS_DIR overrides .deps), never into the system
# python; CMake finds it there.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"

packages=(cmake ninja-build git clang-22 clang-format-22 llvm-22-dev llvm-22-tools libmlir-22-dev
          mlir-22-tools libomp-22-dev libclang-rt-22-dev libgtest-dev python3 python3-dev python3-numpy
          python3-pytest python3-pip python3-venv python3-sklearn python3-torch libopenblas-dev
          openmpi-bin libopenmpi-dev mpich)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: every Debian package is installed"
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python packages from PyPI, pinned (the versions are part of kiln's build).
python_prefix="${KILN_DEPS_DIR:-$repo/.deps}/python"
# nanobind builds kiln._C; scikit-build-core (with the two packages it
# needs) builds `pip install .` without build isolation (CI's pip test).
pinned=(nanobind==2.9.2 scikit-build-core==0.11.6 pathspec==0.12.1
  packaging==24.2)
for requirement in "${pinned[@]}"; do
  name="${requirement%%==*}"
  version="${requirement##*==}"
  if [ -d "$python_prefix/$name-$version.dist-info" ]; then
    continue
  fi
  echo "install-deps: installing $requirement into $python_prefix"
  /usr/bin/python3 -m pip install --quiet --disable-pip-version-check \
    --no-deps --upgrade --target "$python_prefix" "$requirement"
done
echo "install-deps: python packages in $python_prefix"

# kiln's pinned runtime packages (kiln.save and kiln.load use safetensors),
# in their own prefix, which the build tree's kiln adds to its path.
runtime_prefix="${KILN_DEPS_DIR:-$repo/.deps}/python-runtime"
for requirement in safetensors==0.5.3; do
  name="${requirement%%==*}"
  version="${requirement##*==}"
  if [ -d "$runtime_prefix/$name-$version.dist-info" ]; then
    continue
  fi
  echo "install-deps: installing $requirement into $runtime_prefix"
  /usr/bin/python3 -m pip install --quiet --disable-pip-version-check \
    --no-deps --upgrade --target "$runtime_prefix" "$requirement"
done
# Their wheels too, for test/Python/pip-install.sh's venv (pip installs a
# package's dependencies; that test installs them from here, offline).
wheels="${KILN_DEPS_DIR:-$repo/.deps}/wheels"
if ! ls "$wheels"/safetensors-0.5.3-*.whl >/dev/null 2>&1; then
  /usr/bin/python3 -m pip download --quiet --disable-pip-version-check \
    --no-deps --dest "$wheels" safetensors==0.5.3
fi

# ptxas, for the tests that assemble kiln's PTX (lit feature `ptxas`): the
# CUDA toolkit's where one is installed, else the one in NVIDIA's pinned
# nvidia-cuda-nvcc-cu12 wheel (a binary, no GPU or driver needed) under
# .deps/cuda-nvcc, where test/lit.cfg.py looks for it.
ptxas_wheel=nvidia-cuda-nvcc-cu12==12.8.93
ptxas_prefix="${KILN_DEPS_DIR:-$repo/.deps}/cuda-nvcc"
if command -v ptxas >/dev/null || [ -x "${CUDA_HOME:-/nonexistent}/bin/ptxas" ] ||
   [ -x /usr/local/cuda/bin/ptxas ]; then
  echo "install-deps: ptxas from the CUDA toolkit"
elif [ -x "$ptxas_prefix/nvidia/cuda_nvcc/bin/ptxas" ]; then
  echo "install-deps: ptxas in $ptxas_prefix"
else
  echo "install-deps: no CUDA toolkit: installing $ptxas_wheel's ptxas into $ptxas_prefix"
  /usr/bin/python3 -m pip install --quiet --disable-pip-version-check \
    --no-deps --only-binary=:all: --target "$ptxas_prefix" "$ptxas_wheel" ||
    echo "install-deps: warning: no ptxas (the ptxas tests will be unsupported)"
fi
