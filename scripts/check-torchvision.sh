#!/usr/bin/env bash
#===- check-torchvision.sh - Import a torchvision model and check it ---------===#
#
# usage: scripts/check-torchvision.sh MODEL [export-torchvision.py options]
#
# End-to-end check of the ONNX importer on one torchvision model, in
# $MEMOPT_BUILD_DIR/onnx/<MODEL>[-<options>]/ (default build dir: build):
#   1. exports the model with random seeded weights, a seeded input and
#      PyTorch's output (scripts/export-torchvision.py, Debian's python3);
#   2. imports it with mem-opt-import (timed);
#   3. verifies the TOSA with Debian's mlir-opt-22;
#   4. runs memory-report and memory-schedule on it, and checks the one
#      number: through cortex-m-pipeline, in both io= modes, the proven peak
#      equals what the lowering allocates (test/Pipelines/one-number.py);
#   5. runs the imported function on the host on the same input and compares
#      with PyTorch: max |ours - torch| <= 1e-4 * max |torch| (float32).
# The host run uses `mem-opt-run` when the build has it; otherwise the
# TOSA -> LLVM host flow of TOOLCHAIN.md into a shared object called through
# Python's ctypes (bare-pointer calling convention: main(in, out)).
# The function keeps the ONNX (NCHW) argument shape, so PyTorch's input is
# fed as is; the NHWC transposes are inside the function, at its boundary.
#
# SKIP_RUN=1 skips step 5 (the error fields then read nan).
# Prints one line: RESULT model=... import_ms=... ops=... report_peak=...
# schedule_peak=... optimal=... max_abs_err=... rel_err=...
# and exits non-zero if any step fails or the outputs differ.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="$(cd "${MEMOPT_BUILD_DIR:-build}" && pwd)"
LLVM_BIN=/usr/lib/llvm-22/bin
PYTHON=/usr/bin/python3

model="$1"
shift
tag="$model$(printf -- '%s' "$@" | tr -c 'A-Za-z0-9.' '-' | sed 's/^-*/-/; s/^-$//')"
out="$BUILD_DIR/onnx/$tag"
mkdir -p "$out"

"$PYTHON" scripts/export-torchvision.py --model "$model" --out "$out" "$@" \
  >"$out/export.log" 2>&1 || { cat "$out/export.log"; exit 1; }

start=$(date +%s%N)
"$BUILD_DIR/bin/mem-opt-import" "$out/model.onnx" -o "$out/model.mlir"
import_ms=$((($(date +%s%N) - start) / 1000000))

"$LLVM_BIN/mlir-opt" "$out/model.mlir" -o /dev/null
# TOSA ops other than constants (tosa.const prints in generic form).
ops=$(grep '= tosa\.' "$out/model.mlir" | grep -vc 'tosa.const_shape' || true)
"$BUILD_DIR/bin/mem-opt" "$out/model.mlir" \
  --memory-report="format=json output=$out/report.json" -o /dev/null
report_peak=$("$PYTHON" -c "import json,sys; print(json.load(open(sys.argv[1]))['functions'][0]['peak_bytes'])" "$out/report.json")
"$BUILD_DIR/bin/mem-opt" "$out/model.mlir" \
  --memory-schedule="time-limit-ms=${SCHEDULE_TIME_LIMIT_MS:-20000}" \
  --mlir-elide-elementsattrs-if-larger=16 -o "$out/scheduled.mlir"
schedule_peak=$(grep -o 'memopt.peak_bytes = [0-9]*' "$out/scheduled.mlir" | grep -o '[0-9]*$')
optimal=$(grep -q 'memopt.optimal = true' "$out/scheduled.mlir" && echo yes || echo no)
# The one number: the proven peak is the device's SRAM, in both io= modes.
"$PYTHON" test/Pipelines/one-number.py "$BUILD_DIR/bin/mem-opt" \
  "$out/model.mlir" >"$out/one-number.log" ||
  { cat "$out/one-number.log"; exit 1; }

if [ -n "${SKIP_RUN:-}" ]; then
  cp "$out/output.bin" "$out/result.bin"
  echo "check-torchvision: SKIP_RUN set, no host run" >&2
elif [ -x "$BUILD_DIR/bin/mem-opt-run" ]; then
  "$BUILD_DIR/bin/mem-opt-run" "$out/model.mlir" --entry=main \
    --inputs="$out/input.bin" --outputs="$out/result.bin"
else
  "$LLVM_BIN/mlir-opt" "$out/model.mlir" --tosa-to-linalg-pipeline \
    --tosa-to-tensor --tosa-to-arith --canonicalize \
    --linalg-fuse-elementwise-ops |
    "$LLVM_BIN/mlir-opt" --eliminate-empty-tensors \
      --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
      --canonicalize \
      --buffer-results-to-out-params="hoist-static-allocs modify-public-functions" \
      --buffer-deallocation-pipeline --canonicalize |
    "$LLVM_BIN/mlir-opt" --convert-linalg-to-loops --expand-strided-metadata \
      --lower-affine --convert-scf-to-cf --finalize-memref-to-llvm \
      --convert-arith-to-llvm --convert-math-to-llvm --convert-cf-to-llvm \
      --convert-func-to-llvm="use-bare-ptr-memref-call-conv" \
      --convert-index-to-llvm --reconcile-unrealized-casts |
    "$LLVM_BIN/mlir-translate" --mlir-to-llvmir |
    "$LLVM_BIN/llc" -O2 -relocation-model=pic -filetype=obj -o "$out/model.o"
  "$LLVM_BIN/clang" -shared -o "$out/model.so" "$out/model.o" \
    -L/usr/lib/llvm-22/lib -lmlir_c_runner_utils -Wl,-rpath,/usr/lib/llvm-22/lib
  "$PYTHON" - "$out" <<'PY'
import ctypes, sys
import numpy as np
out = sys.argv[1]
shapes = [tuple(map(int, l.split("x"))) for l in open(out + "/shape.txt").read().split()]
x = np.fromfile(out + "/input.bin", dtype="<f4").reshape(shapes[0])
y = np.zeros(shapes[1], dtype=np.float32)
lib = ctypes.CDLL(out + "/model.so")
lib.main(x.ctypes.data_as(ctypes.c_void_p), y.ctypes.data_as(ctypes.c_void_p))
y.tofile(out + "/result.bin")
PY
fi

"$PYTHON" - "$out" "$tag" "$import_ms" "$ops" "$report_peak" \
  "$schedule_peak" "$optimal" <<'PY'
import os
import sys
import numpy as np
out, tag, import_ms, ops, report_peak, schedule_peak, optimal = sys.argv[1:]
ref = np.fromfile(out + "/output.bin", dtype="<f4")
got = np.fromfile(out + "/result.bin", dtype="<f4")
if got.shape != ref.shape:
    sys.exit(f"{tag}: {got.size} outputs, PyTorch gives {ref.size}")
err = float(np.abs(got.astype(np.float64) - ref).max())
scale = float(np.abs(ref).max())
rel = err / scale if scale > 0 else err
if os.environ.get("SKIP_RUN"):
    err = rel = float("nan")
print(f"RESULT model={tag} import_ms={import_ms} ops={ops} "
      f"report_peak={report_peak} schedule_peak={schedule_peak} "
      f"optimal={optimal} max_abs_err={err:.3g} rel_err={rel:.3g}")
if not os.environ.get("SKIP_RUN") and (not np.isfinite(got).all() or rel > 1e-4):
    sys.exit(f"{tag}: output differs from PyTorch (relative error {rel:.3g})")
PY
