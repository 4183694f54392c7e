#!/usr/bin/env bash
# Installs what kiln builds and tests with on Debian 12 (bookworm): LLVM/MLIR
# 22, clang 22 and clang-format 22 (check-format), the LLVM OpenMP runtime,
# CMake, Ninja, git, GoogleTest and Debian's python3 with numpy. Idempotent: installs only what is missing.
set -euo pipefail

packages=(cmake ninja-build git clang-22 clang-format-22 llvm-22-dev llvm-22-tools libmlir-22-dev
          mlir-22-tools libomp-22-dev libgtest-dev python3 python3-numpy
          python3-pytest pybind11-dev libopenblas-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
