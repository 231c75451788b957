#!/bin/sh
# Installs mem-opt from build directory $1 into a temporary prefix and checks
# that the package stands alone:
# - nothing test-only is installed (libMemOptTestPasses.a);
# - a downstream project whose CMakeLists.txt only calls find_package(MemOpt)
#   and target_link_libraries(x PRIVATE MemOpt::MemOptInitAll) builds and
#   runs a mem-opt pass;
# - examples/downstream (source dir $2) builds and its `check` target runs
#   its lit tests, with lit found by the example itself;
# - the installed plugin loads in mlir-opt-22 ($3).
# $4 is the C++ compiler.
set -eu
build=$1 src=$2 mliropt=$3 cxx=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null

# Test-only libraries stay in the build tree.
if find "$tmp/prefix" -name '*TestPasses*' | grep .; then
  echo "error: test-only libraries are installed" >&2
  exit 1
fi

# The only tensor of @f, 4 x f32, is 16 bytes by hand.
printf 'func.func @f(%%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %%a : tensor<4xf32>\n}\n' >"$tmp/f.mlir"

# A downstream project with nothing but the two lines (and CMake's own
# preamble): no include directories, flags or MLIR set-up of its own.
mkdir "$tmp/minimal"
cp "$src/my-opt.cpp" "$tmp/minimal/x.cpp"
cat >"$tmp/minimal/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(minimal LANGUAGES CXX)
find_package(MemOpt)
add_executable(x x.cpp)
target_link_libraries(x PRIVATE MemOpt::MemOptInitAll)
CMAKE
cmake -G Ninja -S "$tmp/minimal" -B "$tmp/minimal-build" \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$tmp/minimal-build" >/dev/null
"$tmp/minimal-build/x" "$tmp/f.mlir" \
  --pass-pipeline="builtin.module(func.func(memory-schedule))" |
  grep -q "memopt.peak_bytes = 16"
echo "minimal downstream OK"

cmake -G Ninja -S "$src" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$tmp/build" --target check

# The installed plugin keeps its runpath and runs a function pass.
"$mliropt" "$tmp/f.mlir" --load-pass-plugin="$tmp/prefix/lib/MemOptPlugin.so" \
  --pass-pipeline="builtin.module(func.func(memory-schedule))" |
  grep -q "memopt.peak_bytes = 16"
echo "package OK"
