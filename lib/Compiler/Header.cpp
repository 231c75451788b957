//===- Header.cpp - The C header of a compiled model ----------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The C header declares, for every public function of the compiled model,
//
//   void fn(void *arena);                      (io=arena, the default)
//   void fn(const T *in0, ..., T *out0, ..., void *arena);   (io=caller)
//   #define FN_ARENA_SIZE <bytes>
//   #define FN_ARENA_ALIGN <bytes>
//
// with the SRAM the device needs and the inputs' and outputs' sizes (and
// their offsets in the arena under io=arena), read from the attributes the
// arena plan left on the lowered functions. A function with states (the
// model's variables, kept in a caller-owned buffer outside the arena) takes
// `void *state` after the inputs (before the outputs under io=caller, before
// the arena under io=arena), and the header gives the state buffer's
// size, each state's offset and a function that resets them. The caller owns the arena, as in
// TensorFlow Lite Micro. Per input and output it gives the C type, element
// count and shape, and for a quantized one (the importer's argument and
// result attributes, MemOpt/Import/Import.h) the scale and zero point. The
// first comment names the model's file and mem-opt's version.
//
//===----------------------------------------------------------------------===//

#include "CompilerInternal.h"

#include "MemOpt/Support/Version.h"
#include "MemOpt/CostModel/States.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::memopt;

std::optional<int64_t> mlir::memopt::getIntAttr(Operation *op, StringRef name) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return std::nullopt;
}

std::string mlir::memopt::getShapeString(RankedTensorType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(type.getShape(), os, "x");
  return text;
}

int64_t mlir::memopt::getCallerBytes(RankedTensorType type) {
  return type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
}

SmallVector<int64_t> mlir::memopt::getOffsets(LLVM::LLVMFuncOp func,
                                              StringRef name) {
  if (func)
    if (auto attr = func->getAttrOfType<DenseI64ArrayAttr>(name))
      return SmallVector<int64_t>(attr.asArrayRef());
  return {};
}

MemoryFigures mlir::memopt::getMemoryFigures(LLVM::LLVMFuncOp func,
                                             const FunctionInfo &info,
                                             IOPlacement io) {
  MemoryFigures figures;
  if (!func)
    return figures;
  figures.modelPeak = getIntAttr(func, "memopt.peak_bytes");
  figures.arena = getIntAttr(func, "memplan.arena_size");
  figures.livenessBound = getIntAttr(func, "memplan.lower_bound");
  if (io == IOPlacement::Caller) {
    for (RankedTensorType type : info.inputs)
      figures.callerIO += getCallerBytes(type);
    for (RankedTensorType type : info.outputs)
      figures.callerIO += getCallerBytes(type);
  }
  return figures;
}

/// Returns \p value as a C float literal that reads back as the same float:
/// nine significant digits and an `f` suffix, e.g. `0.00392156886f`.
static std::string getFloatLiteral(float value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%.9g", static_cast<double>(value));
  // "1" would read as an int, "1f" not at all.
  if (StringRef(text).find_first_of(".e") == StringRef::npos)
    text += ".0";
  return text + "f";
}

/// Returns \p value as a C expression, in parentheses when negative.
static std::string getIntLiteral(int64_t value) {
  return value < 0 ? "(" + std::to_string(value) + ")" : std::to_string(value);
}

/// Returns the model's file name as the header's first comment names it
/// (`<stdin>` for `-`), with nothing that would end the comment.
static std::string getModelFileName(StringRef path) {
  std::string name =
      path == "-" ? "<stdin>" : llvm::sys::path::filename(path).str();
  for (size_t at = name.find("*/"); at != std::string::npos;
       at = name.find("*/"))
    name.replace(at, 2, "*_");
  return name;
}

/// Prints the defines of the tensors \p types, named \p prefix and their
/// number (`FN_IN0_...`): bytes, C type, elements, rank, shape, and the
/// scale and zero point of a quantized one (\p quantizations).
static void
describeTensors(raw_ostream &os, StringRef prefix,
                ArrayRef<RankedTensorType> types,
                ArrayRef<std::optional<IOQuantization>> quantizations) {
  for (auto [i, type] : llvm::enumerate(types)) {
    std::string name = (prefix + Twine(i)).str();
    StringRef cType = getCType(type.getElementType());
    os << "#define " << name << "_BYTES " << getCallerBytes(type) << " /* "
       << getShapeString(type) << " " << cType << " */\n";
    os << "#define " << name << "_TYPE " << cType << "\n";
    os << "#define " << name << "_ELEMENTS " << type.getNumElements() << "\n";
    os << "#define " << name << "_RANK " << type.getRank() << "\n";
    if (type.getRank() > 0) {
      os << "#define " << name << "_SHAPE {";
      llvm::interleaveComma(type.getShape(), os);
      os << "}\n";
    }
    if (i < quantizations.size() && quantizations[i]) {
      os << "#define " << name << "_SCALE "
         << getFloatLiteral(quantizations[i]->scale) << "\n";
      os << "#define " << name << "_ZERO_POINT "
         << getIntLiteral(quantizations[i]->zeroPoint) << "\n";
    }
  }
}

int64_t mlir::memopt::getStateResetByte(
    RankedTensorType type, const std::optional<IOQuantization> &quantization) {
  if (type.getElementType().isInteger(8) && quantization)
    return static_cast<int8_t>(quantization->zeroPoint);
  return 0;
}

/// Prints the state buffer of \p info (the lowered \p func's layout): its
/// size and alignment, each state's defines and offset, and the function
/// that resets the states.
static void printStates(raw_ostream &os, LLVM::LLVMFuncOp func,
                        const FunctionInfo &info, StringRef upper) {
  SmallVector<int64_t> offsets = getOffsets(func, kStateOffsetsAttrName);
  std::optional<int64_t> size =
      func ? getIntAttr(func, kStateSizeAttrName) : std::nullopt;
  std::optional<int64_t> alignment =
      func ? getIntAttr(func, kStateAlignmentAttrName) : std::nullopt;
  os << "/* The model's state (its variables, such as SVDF activation "
        "states):\n   "
     << upper << "_STATE_BYTES bytes that the caller owns, aligned to " << upper
     << "_STATE_ALIGN,\n   outside the arena and kept from call to call. "
        "Reset it with\n   "
     << info.name
     << "_reset_state() before the first call (an int8 state to its zero\n"
        "   point, the real value 0, anything else to 0, as TensorFlow Lite "
        "Micro\n   resets its variable tensors); each call reads it and "
        "writes the new\n   state over it. */\n";
  os << "#define " << upper << "_STATE_BYTES " << size.value_or(0) << "\n";
  os << "#define " << upper << "_STATE_ALIGN " << alignment.value_or(1)
     << "\n";
  os << "#define " << upper << "_NUM_STATES " << info.states.size() << "\n";
  describeTensors(os, (upper + "_STATE").str(), info.states,
                  info.stateQuantization);
  for (auto [i, offset] : llvm::enumerate(offsets))
    os << "#define " << upper << "_STATE" << i << "_OFFSET " << offset << "\n";
  os << "static inline void " << info.name << "_reset_state(void *state) {\n";
  for (auto [i, type] : llvm::enumerate(info.states)) {
    if (i >= offsets.size())
      break;
    os << "  memset((char *)state + " << offsets[i] << ", "
       << getStateResetByte(type, info.stateQuantization[i]) << ", "
       << getCallerBytes(type) << ");\n";
  }
  os << "}\n";
}

void mlir::memopt::printHeader(raw_ostream &os, ModuleOp module,
                               ArrayRef<FunctionInfo> infos,
                               const CompileOptions &options) {
  std::string guard = StringRef(options.headerName).upper() + "_H";
  for (char &c : guard)
    if (!llvm::isAlnum(c))
      c = '_';
  os << "/* Generated by mem-opt-compile " MEMOPT_VERSION " from "
     << getModelFileName(options.modelPath) << " for "
     << stringifyCortexMCpu(options.cpu) << ". Do not edit. */\n";
  os << "#ifndef " << guard << "\n#define " << guard << "\n\n";
  os << "#include <stdint.h>\n";
  // The reset functions of the states fill them with memset.
  if (llvm::any_of(infos,
                   [](const FunctionInfo &info) { return !info.states.empty(); }))
    os << "#include <string.h>\n";
  os << "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (const FunctionInfo &info : infos) {
    auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(info.name);
    std::string upper = StringRef(info.name).upper();
    std::optional<int64_t> arena =
        func ? getIntAttr(func, "memplan.arena_size") : std::nullopt;
    std::optional<int64_t> arenaAlign =
        func ? getIntAttr(func, "memplan.arena_alignment") : std::nullopt;
    os << "\n";
    if (!arena)
      os << "/* No arena plan: buffers are allocated with malloc. */\n";
    os << "#define " << upper << "_ARENA_SIZE " << arena.value_or(0) << "\n";
    os << "#define " << upper << "_ARENA_ALIGN "
       << arenaAlign.value_or(options.alignment) << "\n";
    // The one number: the SRAM the device uses. It is the schedule's proven
    // peak unless the placement could not reach the liveness bound.
    MemoryFigures figures = getMemoryFigures(func, info, options.io);
    if (std::optional<int64_t> device = figures.getDeviceBytes()) {
      os << "/* SRAM for activations: the arena";
      if (figures.callerIO)
        os << " plus the caller's input and output buffers";
      os << ". */\n#define " << upper << "_PREDICTED_PEAK " << *device << "\n";
      if (figures.modelPeak && *figures.modelPeak != *device)
        os << "/* The placement is above the liveness bound: */\n#define "
           << upper << "_LIVENESS_BOUND " << *figures.modelPeak << "\n";
    }
    os << "#define " << upper << "_NUM_INPUTS " << info.inputs.size() << "\n";
    os << "#define " << upper << "_NUM_OUTPUTS " << info.outputs.size() << "\n";
    describeTensors(os, upper + "_IN", info.inputs, info.inputQuantization);
    describeTensors(os, upper + "_OUT", info.outputs,
                    info.outputQuantization);
    SmallVector<int64_t> inOffsets = getOffsets(func, "memplan.input_offsets");
    SmallVector<int64_t> outOffsets =
        getOffsets(func, "memplan.output_offsets");
    bool ioInArena = func && func->hasAttr("memplan.io_in_arena");
    if (ioInArena) {
      os << "/* Inputs and outputs live in the arena: write input i at\n"
            "   arena + "
         << upper << "_IN<i>_OFFSET before the call, read output i at\n"
         << "   arena + " << upper
         << "_OUT<i>_OFFSET after it. The call overwrites the inputs. */\n";
      for (auto [i, offset] : llvm::enumerate(inOffsets))
        os << "#define " << upper << "_IN" << i << "_OFFSET " << offset << "\n";
      for (auto [i, offset] : llvm::enumerate(outOffsets))
        os << "#define " << upper << "_OUT" << i << "_OFFSET " << offset
           << "\n";
    }
    if (!info.states.empty())
      printStates(os, func, info, upper);
    os << "void " << info.name << "(";
    bool first = true;
    auto separate = [&] {
      if (!first)
        os << ", ";
      first = false;
    };
    for (auto [i, type] : llvm::enumerate(info.inputs)) {
      if (ioInArena)
        break;
      separate();
      os << "const " << getCType(type.getElementType()) << " *in" << i;
    }
    // The state buffer follows the inputs: bind-state-buffers appends it
    // before the outputs become arguments (io=caller).
    if (!info.states.empty()) {
      separate();
      os << "void *state";
    }
    for (auto [i, type] : llvm::enumerate(info.outputs)) {
      if (ioInArena)
        break;
      separate();
      os << getCType(type.getElementType()) << " *out" << i;
    }
    if (arena) {
      separate();
      os << "void *arena";
    }
    if (first)
      os << "void";
    os << ");\n";
  }
  os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
}
