#!/usr/bin/env bash
#===- setup.sh - Install what mem-opt needs and build it --------------------===#
#
# On Debian 12 (bookworm), as root: installs the missing apt packages (LLVM/MLIR
# 22 come from bookworm-security), configures the build once and builds. When
# nothing changed it installs nothing, configures nothing and builds nothing,
# and prints nothing.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build g++
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 lld-22
  libgtest-dev librapidcheck-dev
  # Cortex-M cross compiler, C library and emulator.
  gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
  # Importers: ONNX (protobuf) and TFLite (flatbuffers); libFuzzer runtime.
  libonnx-dev libprotobuf-dev protobuf-compiler
  libflatbuffers-dev flatbuffers-compiler libclang-rt-22-dev
  # Reference execution of torchvision models (run with /usr/bin/python3).
  python3-torch python3-torchvision python3-onnx python3-numpy
  # xmllint: the SVG timeline tests check that the output is well-formed XML.
  libxml2-utils
)

missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

BUILD_DIR="${MEMOPT_BUILD_DIR:-build}"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
if ! ninja -C "$BUILD_DIR" -n 2>/dev/null | grep -q "^ninja: no work to do"; then
  ninja -C "$BUILD_DIR" --quiet
fi
