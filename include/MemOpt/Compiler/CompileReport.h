//===- CompileReport.h - What a compile built -------------------*- C++ -*-===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The report of a compile (compileModule, `mem-opt-compile --report`): per
// function the arena, the inputs and outputs and where they live, the
// schedule's peak with its certificate and the layer at the peak, the
// multiply-accumulates and a table of the source model's layers (live bytes,
// weight bytes, MACs, estimated instructions; each layer's TOSA ops folded
// into its row); for the object, flash for code and constant data from its
// sections. One set of data is printed as text, JSON or CSV.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_COMPILER_COMPILEREPORT_H
#define MEMOPT_COMPILER_COMPILEREPORT_H

#include "MemOpt/Compiler/BudgetSearch.h"
#include "MemOpt/CostModel/CostModel.h"
#include "MemOpt/Transforms/PatchPrefix.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func

namespace memopt {
/// The target CPU (Compiler.h).
enum class CortexMCpu;

/// Version of the JSON layout of `--report=json`; bump it on incompatible
/// changes. 2: `layers` are the source model's layers, not TOSA ops.
constexpr int64_t kCompileReportFormatVersion = 2;

/// The work of ops by kernel kind: the units the instruction estimate
/// charges a rate per (docs/CortexM.md, "Instruction estimate").
struct KernelWork {
  /// Multiply-accumulates of int8 convolutions of at least 4 input channels
  /// and of fewer (first layers), of int8 depthwise convolutions of stride 1
  /// and of a larger stride, of int8 fully connected layers (matmuls and
  /// convolutions of one output pixel), and of float ops.
  int64_t convMacs = 0, narrowConvMacs = 0, depthwiseMacs = 0,
          stridedDepthwiseMacs = 0, fullyConnectedMacs = 0, floatMacs = 0;
  /// Output elements of the int8 ops with MACs: an accumulator each,
  /// requantized by the rescale after it (which is not charged again).
  int64_t accumulators = 0;
  /// Output elements of any other op (rescale, clamp, add, ...).
  int64_t elements = 0;
  /// Elements a pooling window or a reduction reads.
  int64_t windowElements = 0;

  KernelWork &operator+=(const KernelWork &other) {
    convMacs += other.convMacs;
    narrowConvMacs += other.narrowConvMacs;
    depthwiseMacs += other.depthwiseMacs;
    stridedDepthwiseMacs += other.stridedDepthwiseMacs;
    fullyConnectedMacs += other.fullyConnectedMacs;
    floatMacs += other.floatMacs;
    accumulators += other.accumulators;
    elements += other.elements;
    windowElements += other.windowElements;
    return *this;
  }
};

/// One layer of the source model (a TFLite operator, an ONNX node; for TOSA
/// input without layer locations, one op): the steps of the scheduled TOSA
/// function whose ops came from it (MemOpt/Support/Layers.h), in the order
/// of their first step.
struct LayerReport {
  /// The layer's name (its first output tensor's or node's name), or the
  /// op's location label.
  std::string name;
  /// The source operator's kind (`CONV_2D`, `Conv`), or the TOSA op's name.
  std::string kind;
  /// The operator's index in the model, if the ops carry it.
  std::optional<int64_t> sourceIndex;
  /// The TOSA ops of its steps (ops fused into a step first), in order.
  SmallVector<std::string> tosaOps;
  /// Its first step and how many steps it has.
  unsigned firstStep = 0, steps = 0;
  /// The most bytes live at one of its steps (lowering's memory model).
  int64_t liveBytes = 0;
  /// Multiply-accumulates of its ops.
  int64_t macs = 0;
  /// Bytes of the model's weight tensors it reads (the TOSA constants the
  /// importer marks; without marks, all constants it reads).
  int64_t weightBytes = 0;
  /// The work of its ops by kernel kind.
  KernelWork work;
  /// Estimated instructions on the report's CPU: the rates of the CPU times
  /// the work.
  int64_t instructions = 0;
};

/// One input or output of a compiled function.
struct TensorReport {
  /// `1x96x96x1`.
  std::string shape;
  /// The C element type.
  std::string cType;
  /// Bytes as the C caller stores them.
  int64_t bytes = 0;
  /// Offset in the arena under io=arena; std::nullopt when caller-owned.
  std::optional<int64_t> arenaOffset;
  /// A state's offset in the state buffer.
  std::optional<int64_t> stateOffset;
};

/// Everything the report says about one function.
struct FunctionReport {
  /// The function's C name.
  std::string name;
  /// Planned arena and its alignment (std::nullopt without a plan).
  std::optional<int64_t> arenaBytes;
  int64_t arenaAlignment = 0;
  /// Bytes of the caller-owned inputs and outputs (io=caller), else 0.
  int64_t callerIOBytes = 0;
  /// memopt.peak_bytes, memopt.lower_bound, memopt.optimal and the limit
  /// that stopped the exact search ("states", "clock" or empty).
  std::optional<int64_t> schedulePeak, scheduleLowerBound;
  bool optimal = false;
  std::string stoppedBy;
  /// memplan.lower_bound: the liveness bound of the lowered buffers.
  std::optional<int64_t> livenessLowerBound;
  SmallVector<TensorReport> inputs, outputs;
  /// The states (the model's variables) in the caller's state buffer,
  /// outside the arena and the SRAM above: the buffer's bytes, and each
  /// state with its offset in the buffer (stateOffset).
  int64_t stateBytes = 0;
  SmallVector<TensorReport> states;
  /// The layers of the scheduled TOSA function.
  SmallVector<LayerReport> layers;
  /// Steps of the scheduled TOSA function (what `memory-report` counts).
  unsigned steps = 0;
  /// Peak of the steps (equal to schedulePeak), its first step and the
  /// layer of that step.
  int64_t profilePeak = 0;
  unsigned peakStep = 0;
  unsigned peakLayer = 0;
  /// Multiply-accumulates of the function.
  int64_t macs = 0;
  /// Bytes of the function's constants (`tosa.const`) on TOSA.
  int64_t weightBytes = 0;
  /// The patch grid of patch-based inference, if the prefix was patched.
  std::optional<PatchSummary> patches;
  /// The blocks `patches=<...>+blocks` computes in bands, one line each.
  SmallVector<std::string> patchBlocks;

  /// The SRAM the device uses: the arena plus the caller's buffers.
  std::optional<int64_t> getDeviceBytes() const {
    if (!arenaBytes)
      return std::nullopt;
    return *arenaBytes + callerIOBytes;
  }
};

/// Sizes of the allocated sections of an object file, by kind.
struct ObjectSizes {
  /// Executable sections (flash).
  int64_t codeBytes = 0;
  /// Read-only data: weights and other constants (flash).
  int64_t constantBytes = 0;
  /// Initialized writable data (flash for the image, and RAM).
  int64_t dataBytes = 0;
  /// Zero-initialized data (RAM only).
  int64_t bssBytes = 0;
  /// The ARM unwind index (.ARM.exidx): an 8-byte "cannot unwind" entry
  /// per function, which the GNU linker merges into one; not counted in
  /// flash.
  int64_t unwindIndexBytes = 0;

  /// Flash the object takes: code, constants and the data image.
  int64_t getFlashBytes() const {
    return codeBytes + constantBytes + dataBytes;
  }
};

/// Reads the allocated sections of the ELF object \p object.
llvm::Expected<ObjectSizes> getObjectSizes(llvm::MemoryBufferRef object);

/// Fills the layers, peak, MACs and weight bytes of \p report from the
/// scheduled TOSA function \p func under the cost model \p options, with
/// instructions estimated for \p cpu. Returns failure (after a diagnostic)
/// if the function cannot be modelled.
LogicalResult analyzeScheduledFunction(func::FuncOp func,
                                       const CostModelOptions &options,
                                       CortexMCpu cpu, FunctionReport &report);

/// The whole report.
struct CompileReport {
  /// The target CPU's name and where the inputs and outputs live.
  std::string cpu;
  IOPlacement io = IOPlacement::Arena;
  /// Absent when no object was emitted.
  std::optional<ObjectSizes> object;
  std::vector<FunctionReport> functions;
  /// The configurations an SRAM budget weighed, if one chose the program.
  std::optional<BudgetReport> candidates;

  /// Prints the report as text.
  void printText(raw_ostream &os) const;
  /// Returns the report as JSON, with `format_version` and mem-opt's
  /// version.
  llvm::json::Value toJSON() const;
  /// Prints the layers of every function as CSV (RFC 4180), a header row
  /// first (docs/CortexM.md, "The compile report").
  void printCSV(raw_ostream &os) const;
};

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_COMPILER_COMPILEREPORT_H
