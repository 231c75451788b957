#!/bin/sh
# Installs mem-opt from build directory $1 into a temporary prefix, builds
# examples/downstream (source dir $2) against it with find_package(MemOpt)
# and runs its lit test, then loads the installed plugin in mlir-opt-22.
set -eu
build=$1 src=$2 lit=$3 mliropt=$4 cxx=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -G Ninja -S "$src" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$tmp/build"
"$lit" -v "$tmp/build/test"
# The installed plugin keeps its runpath and runs a function pass: the
# only tensor, 4 x f32, is 16 bytes by hand.
printf 'func.func @f(%%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %%a : tensor<4xf32>\n}\n' >"$tmp/f.mlir"
"$mliropt" "$tmp/f.mlir" --load-pass-plugin="$tmp/prefix/lib/MemOptPlugin.so" \
  --pass-pipeline="builtin.module(func.func(memory-schedule))" |
  grep -q "memopt.peak_bytes = 16"
echo "package OK"
