//===- mem-opt-run.cpp - Run TOSA functions on the host and compare them --===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The `mem-opt-run` tool is mem-opt's differential execution harness. It
// lowers a TOSA module (MLIR, or a TFLite or ONNX model imported as
// mem-opt-import does, the format recognized from the content) to the LLVM
// dialect through the upstream host flow (tosa-to-linalg-pipeline,
// tosa-to-tensor, tosa-to-arith, one-shot bufferization with results turned
// into out-parameters, loops, LLVM), JIT compiles it in-process with
// mlir::ExecutionEngine and calls one or several of its functions on seeded
// random or given inputs:
//
//   mem-opt-run model.mlir --entry=NAME [--seed=S] [--inputs=in.bin]
//                          [--write-inputs=in.bin] [--outputs=out.bin]
//                          [--print]
//   mem-opt-run --compare a.mlir b.mlir [--entry=N1,N2,...] --seeds=N
//                          [--rtol=R] [--atol=A]
//
// Binary files hold the raw little-endian, row-major element data of every
// argument (or result) in order, with no header. Random inputs are a pure
// function of the seed: integers are uniform over their whole range, floats
// uniform in [-1, 1). `--compare` runs both modules on seeds 0..N-1 (offset by
// --seed) and checks every result: integers bit-exact, floats within
// |a - b| <= atol + rtol * |b|. It exits with 1 on a mismatch and 2 on any
// other error (bad input, unknown entry, unsupported signature).
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Import/Import.h"
#include "MemOpt/InitAll.h"
#include "MemOpt/Support/Diagnostics.h"
#include "MemOpt/Support/Version.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;

namespace cl = llvm::cl;

static cl::OptionCategory runCategory("mem-opt-run options");

static cl::list<std::string>
    inputFiles(cl::Positional, cl::OneOrMore,
               cl::desc("<model.mlir|.tflite|.onnx> [<b.mlir|.tflite|.onnx>]"),
               cl::cat(runCategory));
static cl::list<std::string>
    entries("entry", cl::CommaSeparated,
            cl::desc("Function(s) to run (comma separated). Required unless "
                     "--compare, which then runs every public function"),
            cl::cat(runCategory));
static cl::opt<uint64_t>
    seed("seed", cl::init(0),
         cl::desc("Seed of the random inputs (with "
                  "--compare: the first seed; default: 0)"),
         cl::cat(runCategory));
static cl::opt<std::string>
    inputsPath("inputs", cl::desc("Read the arguments from this binary file"),
               cl::value_desc("file"), cl::cat(runCategory));
static cl::opt<std::string>
    writeInputsPath("write-inputs",
                    cl::desc("Write the arguments used to this binary file"),
                    cl::value_desc("file"), cl::cat(runCategory));
static cl::opt<std::string>
    outputsPath("outputs", cl::desc("Write the results to this binary file"),
                cl::value_desc("file"), cl::cat(runCategory));
static cl::opt<bool> printResults("print", cl::desc("Print the results"),
                                  cl::cat(runCategory));
static cl::opt<bool>
    printLowered("print-lowered",
                 cl::desc("Print the module lowered to the LLVM dialect"),
                 cl::Hidden, cl::cat(runCategory));
static cl::opt<bool> printTiming("timing",
                                 cl::desc("Print the time of each lowering "
                                          "pass"),
                                 cl::Hidden, cl::cat(runCategory));
static cl::opt<bool>
    compareMode("compare",
                cl::desc("Run two modules on the same seeded inputs and "
                         "compare their results"),
                cl::cat(runCategory));
static cl::opt<unsigned>
    numSeeds("seeds", cl::init(10),
             cl::desc("Number of seeds for --compare (default: 10)"),
             cl::cat(runCategory));
static cl::opt<double> relTol("rtol", cl::init(1e-4),
                              cl::desc("Relative float tolerance of --compare "
                                       "(default: 1e-4)"),
                              cl::cat(runCategory));
static cl::opt<double> absTol("atol", cl::init(1e-5),
                              cl::desc("Absolute float tolerance of --compare "
                                       "(default: 1e-5)"),
                              cl::cat(runCategory));

//===----------------------------------------------------------------------===//
// Signatures and buffers
//===----------------------------------------------------------------------===//

namespace {

/// A static-shaped tensor argument or result of an entry function.
struct TensorSlot {
  /// The tensor type.
  RankedTensorType type;
  /// Number of elements.
  int64_t numElements = 0;
  /// Bytes per element in memory (i1 takes one byte).
  unsigned elementBytes = 0;

  /// Total size in bytes.
  int64_t bytes() const { return numElements * elementBytes; }
};

/// The argument and result tensors of an entry function.
struct EntrySignature {
  /// Function name.
  std::string name;
  /// Arguments, in order.
  SmallVector<TensorSlot> args;
  /// Results, in order.
  SmallVector<TensorSlot> results;

  /// Total byte size of the arguments.
  int64_t argBytes() const {
    int64_t sum = 0;
    for (const TensorSlot &slot : args)
      sum += slot.bytes();
    return sum;
  }
};

/// An owned, 64-byte aligned byte buffer.
struct AlignedBuffer {
  /// Storage, in 64-bit words so that every element type is aligned.
  std::vector<uint64_t> words;
  /// Size in bytes.
  int64_t size = 0;

  explicit AlignedBuffer(int64_t bytes)
      : words((bytes + 7) / 8 + 1, 0), size(bytes) {}
  /// Pointer to the first byte.
  char *data() { return reinterpret_cast<char *>(words.data()); }
  /// Pointer to the first byte.
  const char *data() const {
    return reinterpret_cast<const char *>(words.data());
  }
};

/// Deterministic 64-bit generator (SplitMix64): the same seed gives the same
/// inputs on every platform, unlike the std distributions.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  /// Returns the next 64 random bits.
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

private:
  uint64_t state;
};

/// A JIT-compiled module and the signatures of its entries.
struct CompiledModule {
  /// Path of the source.
  std::string path;
  /// The JIT.
  std::unique_ptr<ExecutionEngine> engine;
  /// Entry signatures, by name, in the order requested.
  SmallVector<EntrySignature> signatures;

  /// Returns the signature of \p name, or null.
  const EntrySignature *find(StringRef name) const {
    for (const EntrySignature &sig : signatures)
      if (sig.name == name)
        return &sig;
    return nullptr;
  }
};

} // namespace

/// Prints an error prefixed with the tool name.
static llvm::raw_ostream &error() {
  return llvm::errs() << "mem-opt-run: error: ";
}

/// Returns the in-memory size of a supported element type, or 0.
static unsigned getElementBytes(Type type) {
  if (type.isF32())
    return 4;
  if (type.isF64())
    return 8;
  if (auto intType = dyn_cast<IntegerType>(type)) {
    switch (intType.getWidth()) {
    case 1:
    case 8:
      return 1;
    case 16:
      return 2;
    case 32:
      return 4;
    case 64:
      return 8;
    default:
      return 0;
    }
  }
  return 0;
}

/// Checks that \p type is a static tensor of a supported element type and
/// describes it; \p what names it in the error.
static FailureOr<TensorSlot> getSlot(Type type, StringRef funcName,
                                     const llvm::Twine &what) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType) {
    error() << what << " of @" << funcName << " has type " << type
            << ": only ranked tensors are supported\n";
    return failure();
  }
  if (!tensorType.hasStaticShape()) {
    error() << what << " of @" << funcName << " has dynamic shape "
            << tensorType << ": only static shapes are supported\n";
    return failure();
  }
  TensorSlot slot;
  slot.type = tensorType;
  slot.numElements = tensorType.getNumElements();
  slot.elementBytes = getElementBytes(tensorType.getElementType());
  if (slot.elementBytes == 0) {
    error() << what << " of @" << funcName << " has unsupported element type "
            << tensorType.getElementType()
            << " (supported: f32, f64, i1, i8, i16, i32, i64)\n";
    return failure();
  }
  return slot;
}

/// Returns the signature of function \p name in \p module.
static FailureOr<EntrySignature> getSignature(ModuleOp module, StringRef name,
                                              StringRef path) {
  auto func = module.lookupSymbol<func::FuncOp>(name);
  if (!func || func.isExternal()) {
    error() << "no function @" << name << " with a body in " << path << "\n";
    return failure();
  }
  EntrySignature sig;
  sig.name = name.str();
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    FailureOr<TensorSlot> slot =
        getSlot(type, name, "argument #" + llvm::Twine(i));
    if (failed(slot))
      return failure();
    sig.args.push_back(*slot);
  }
  for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
    FailureOr<TensorSlot> slot =
        getSlot(type, name, "result #" + llvm::Twine(i));
    if (failed(slot))
      return failure();
    sig.results.push_back(*slot);
  }
  return sig;
}

/// Attaches a TOSA target with every profile and extension.
static constexpr const char *kFullTosaTarget =
    "tosa-attach-target{profiles=pro_int,pro_fp "
    "extensions=int16,int4,bf16,fp8e4m3,fp8e5m2,fft,variable,controlflow,"
    "doubleround,inexactround,dynamic level=none}";

/// The host lowering: the flow of docs/TOOLCHAIN.md with 64-bit indices and
/// bare-pointer memref arguments, so that every argument and out-parameter is
/// one pointer. It is nested in the module's pass manager.
static constexpr const char *kHostPipeline =
    "tosa-to-linalg-pipeline,"
    "func.func(tosa-to-tensor,tosa-to-arith{include-apply-rescale=true}),"
    "canonicalize,func.func(linalg-fuse-elementwise-ops),"
    "eliminate-empty-tensors,"
    // A value returned twice gets a copy, one buffer per result, as
    // cortex-m-pipeline does for io=caller: buffer-results-to-out-params
    // crashes on a buffer returned twice (found by the pass fuzzer).
    "func.func(prepare-bufferization{copy-duplicate-results=true "
    "in-place-elementwise=false}),"
    "one-shot-bufferize{bufferize-function-boundaries=true "
    "function-boundary-type-conversion=identity-layout-map},"
    "canonicalize,"
    "buffer-results-to-out-params{hoist-static-allocs=true "
    "modify-public-functions=true},"
    "buffer-deallocation-pipeline,canonicalize,"
    "func.func(convert-linalg-to-loops),expand-strided-metadata,lower-affine,"
    "convert-math-to-funcs{convert-ctlz=true},"
    "convert-scf-to-cf,arith-expand,convert-math-to-libm,"
    "finalize-memref-to-llvm,convert-arith-to-llvm,convert-math-to-llvm,"
    "convert-cf-to-llvm,"
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv=true},"
    "convert-index-to-llvm,reconcile-unrealized-casts";

/// Parses \p path, checks the entries, lowers the module and JIT-compiles it.
/// An empty \p names selects every public function with a body.
static FailureOr<CompiledModule> compileModule(MLIRContext &context,
                                               StringRef path,
                                               ArrayRef<std::string> names) {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(path, &errorMessage);
  if (!file) {
    error() << errorMessage << "\n";
    return failure();
  }
  StringRef bytes = file->getBuffer();
  if (memopt::isUnrecognizedBinary(bytes)) {
    error() << path
            << ": not a TFLite, ONNX or MLIR model (binary content that is "
               "neither a TFLite flatbuffer nor an ONNX protobuf)\n";
    return failure();
  }
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module;
  // Ops of imported models carry node names: errors at them print as
  // `<model>:<node>: error: ...`.
  std::string modelName = memopt::getModelNameFromPath(path);
  {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    memopt::NamedLocationDiagnosticHandler namedLocHandler(&context, modelName);
    // A TFLite or ONNX model is imported (the importers' defaults, as
    // mem-opt-import); their diagnostics say why one does not import.
    std::optional<OwningOpRef<ModuleOp>> imported =
        memopt::importModel(bytes, path, &context);
    if (imported) {
      if (!*imported)
        return failure();
      module = std::move(*imported);
    } else {
      sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
      module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    }
  }
  if (!module) {
    error() << "cannot parse " << path << "\n";
    return failure();
  }

  CompiledModule compiled;
  compiled.path = path.str();
  SmallVector<std::string> selected(names.begin(), names.end());
  if (selected.empty())
    for (auto func : module->getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        selected.push_back(func.getName().str());
  if (selected.empty()) {
    error() << "no public function with a body in " << path << "\n";
    return failure();
  }
  for (const std::string &name : selected) {
    FailureOr<EntrySignature> sig = getSignature(*module, name, path);
    if (failed(sig))
      return failure();
    compiled.signatures.push_back(std::move(*sig));
  }

  // Only the entries stay public; symbol-dce drops whatever they do not use,
  // so that an unrelated function cannot break the lowering.
  for (auto func : module->getOps<func::FuncOp>()) {
    bool isEntry = llvm::is_contained(selected, func.getName().str());
    if (!func.isExternal())
      func.setVisibility(isEntry ? SymbolTable::Visibility::Public
                                 : SymbolTable::Visibility::Private);
  }

  PassManager pm(&context);
  if (printTiming)
    pm.enableTiming();
  // TOSA validation in the lowering accepts only what the module's target
  // allows; without a declared target, allow every profile and extension
  // (e.g. DOUBLE_ROUND rescales of int8 models) at any level.
  if (!(*module)->hasAttr("tosa.target_env") &&
      failed(parsePassPipeline(kFullTosaTarget, pm, llvm::errs()))) {
    error() << "cannot build the TOSA target pass\n";
    return failure();
  }
  pm.addPass(createSymbolDCEPass());
  if (failed(parsePassPipeline(kHostPipeline, pm, llvm::errs()))) {
    error() << "cannot build the host lowering pipeline\n";
    return failure();
  }
  {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    memopt::NamedLocationDiagnosticHandler namedLocHandler(&context, modelName);
    if (failed(pm.run(*module))) {
      error() << "lowering " << path << " to the LLVM dialect failed\n";
      return failure();
    }
  }

  if (printLowered)
    module->print(llvm::errs());

  SmallVector<StringRef> libs;
  static constexpr const char *kCRunnerUtils =
      "/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so";
  if (llvm::sys::fs::exists(kCRunnerUtils))
    libs.push_back(kCRunnerUtils);
  ExecutionEngineOptions options;
  options.sharedLibPaths = libs;
  // Test functions are small: fast code generation matters more than fast
  // code.
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::None;
  options.enableGDBNotificationListener = false;
  options.enablePerfNotificationListener = false;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine) {
    error() << "JIT compilation of " << path
            << " failed: " << llvm::toString(engine.takeError()) << "\n";
    return failure();
  }
  compiled.engine = std::move(*engine);
  return compiled;
}

/// Fills \p buffers with the random arguments of \p sig for \p seedValue.
static SmallVector<AlignedBuffer> makeRandomInputs(const EntrySignature &sig,
                                                   uint64_t seedValue) {
  SmallVector<AlignedBuffer> buffers;
  SplitMix64 rng(seedValue);
  for (const TensorSlot &slot : sig.args) {
    AlignedBuffer buffer(slot.bytes());
    Type elementType = slot.type.getElementType();
    char *data = buffer.data();
    for (int64_t i = 0; i < slot.numElements; ++i) {
      uint64_t bits = rng.next();
      if (elementType.isF32()) {
        // 24 random bits: k / 2^23 - 1 is exact in f32 and lies in [-1, 1).
        float value = static_cast<float>(bits >> 40) / 8388608.0f - 1.0f;
        std::memcpy(data + 4 * i, &value, 4);
      } else if (elementType.isF64()) {
        double value =
            static_cast<double>(bits >> 11) / 4503599627370496.0 - 1.0;
        std::memcpy(data + 8 * i, &value, 8);
      } else if (elementType.isInteger(1)) {
        data[i] = static_cast<char>(bits & 1);
      } else {
        // Little-endian low bytes: uniform over the integer's range.
        for (unsigned b = 0; b < slot.elementBytes; ++b)
          data[i * slot.elementBytes + b] = static_cast<char>(bits >> (8 * b));
      }
    }
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

/// Runs entry \p sig of \p compiled on copies of \p inputs and returns the
/// results.
static FailureOr<SmallVector<AlignedBuffer>>
runEntry(CompiledModule &compiled, const EntrySignature &sig,
         ArrayRef<AlignedBuffer> inputs) {
  // The lowered function may write into its arguments: give it copies.
  SmallVector<AlignedBuffer> args(inputs.begin(), inputs.end());
  SmallVector<AlignedBuffer> results;
  for (const TensorSlot &slot : sig.results)
    results.emplace_back(slot.bytes());
  SmallVector<void *> pointers;
  for (AlignedBuffer &buffer : args)
    pointers.push_back(buffer.data());
  for (AlignedBuffer &buffer : results)
    pointers.push_back(buffer.data());
  SmallVector<void *> packed;
  for (void *&pointer : pointers)
    packed.push_back(&pointer);
  if (llvm::Error err = compiled.engine->invokePacked(sig.name, packed)) {
    error() << "cannot call @" << sig.name << " in " << compiled.path << ": "
            << llvm::toString(std::move(err)) << "\n";
    return failure();
  }
  return results;
}

//===----------------------------------------------------------------------===//
// Printing and comparing elements
//===----------------------------------------------------------------------===//

/// Reads element \p i of a buffer of \p slot as a double (exact for every
/// supported type but i64 beyond 2^53, which is compared bitwise anyway).
static double readAsDouble(const TensorSlot &slot, const char *data,
                           int64_t i) {
  Type elementType = slot.type.getElementType();
  const char *p = data + i * slot.elementBytes;
  if (elementType.isF32()) {
    float value;
    std::memcpy(&value, p, 4);
    return value;
  }
  if (elementType.isF64()) {
    double value;
    std::memcpy(&value, p, 8);
    return value;
  }
  if (elementType.isInteger(1))
    return *p & 1;
  switch (slot.elementBytes) {
  case 1:
    return static_cast<int8_t>(*p);
  case 2: {
    int16_t value;
    std::memcpy(&value, p, 2);
    return value;
  }
  case 4: {
    int32_t value;
    std::memcpy(&value, p, 4);
    return value;
  }
  default: {
    int64_t value;
    std::memcpy(&value, p, 8);
    return static_cast<double>(value);
  }
  }
}

/// Prints element \p i of a buffer of \p slot.
static void printElement(llvm::raw_ostream &os, const TensorSlot &slot,
                         const char *data, int64_t i) {
  Type elementType = slot.type.getElementType();
  if (elementType.isF32()) {
    os << llvm::format("%.9g", readAsDouble(slot, data, i));
    return;
  }
  if (elementType.isF64()) {
    os << llvm::format("%.17g", readAsDouble(slot, data, i));
    return;
  }
  if (slot.elementBytes == 8 && !elementType.isInteger(1)) {
    int64_t value;
    std::memcpy(&value, data + 8 * i, 8);
    os << value;
    return;
  }
  os << static_cast<int64_t>(readAsDouble(slot, data, i));
}

/// Formats the multi-index of flat element \p flat of \p type.
static std::string formatIndex(RankedTensorType type, int64_t flat) {
  SmallVector<int64_t> index(type.getRank());
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    int64_t size = type.getDimSize(d);
    index[d] = size ? flat % size : 0;
    flat = size ? flat / size : 0;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(index, os);
  os << "]";
  return text;
}

/// Prints \p results as text: a header per result, then one line per row of
/// the innermost dimension.
static void printBuffers(llvm::raw_ostream &os, const EntrySignature &sig,
                         ArrayRef<AlignedBuffer> results) {
  for (auto [i, slot] : llvm::enumerate(sig.results)) {
    os << "@" << sig.name << " result #" << i << ": " << slot.type << "\n";
    int64_t rowLength =
        slot.type.getRank() ? slot.type.getDimSize(slot.type.getRank() - 1) : 1;
    for (int64_t e = 0; e < slot.numElements; ++e) {
      os << (e % std::max<int64_t>(rowLength, 1) == 0 ? "  " : " ");
      printElement(os, slot, results[i].data(), e);
      if ((e + 1) % std::max<int64_t>(rowLength, 1) == 0 ||
          e + 1 == slot.numElements)
        os << "\n";
    }
  }
}

/// Writes \p buffers to \p path back to back.
static LogicalResult writeBuffers(StringRef path,
                                  ArrayRef<AlignedBuffer> buffers) {
  std::string errorMessage;
  auto output = mlir::openOutputFile(path, &errorMessage);
  if (!output) {
    error() << errorMessage << "\n";
    return failure();
  }
  for (const AlignedBuffer &buffer : buffers)
    output->os().write(buffer.data(), buffer.size);
  output->keep();
  return success();
}

/// Reads the arguments of \p sig from \p path.
static FailureOr<SmallVector<AlignedBuffer>>
readInputs(StringRef path, const EntrySignature &sig) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    error() << "cannot read " << path << ": " << file.getError().message()
            << "\n";
    return failure();
  }
  int64_t expected = sig.argBytes();
  int64_t actual = (*file)->getBufferSize();
  if (actual != expected) {
    error() << path << " holds " << actual << " bytes but the arguments of @"
            << sig.name << " take " << expected << " bytes (";
    llvm::interleave(
        sig.args, llvm::errs(),
        [](const TensorSlot &slot) {
          llvm::errs() << slot.type << ": " << slot.bytes();
        },
        ", ");
    llvm::errs() << ")\n";
    return failure();
  }
  SmallVector<AlignedBuffer> buffers;
  const char *cursor = (*file)->getBufferStart();
  for (const TensorSlot &slot : sig.args) {
    AlignedBuffer buffer(slot.bytes());
    std::memcpy(buffer.data(), cursor, slot.bytes());
    cursor += slot.bytes();
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

//===----------------------------------------------------------------------===//
// Modes
//===----------------------------------------------------------------------===//

/// `mem-opt-run model.mlir --entry=NAME ...`.
static int runMode(MLIRContext &context) {
  if (inputFiles.size() != 1) {
    error() << "expected one model file (use --compare for two)\n";
    return 2;
  }
  if (entries.size() != 1) {
    error() << "expected exactly one --entry=NAME\n";
    return 2;
  }
  if (!inputsPath.empty() && !writeInputsPath.empty()) {
    error() << "--inputs and --write-inputs are exclusive\n";
    return 2;
  }
  FailureOr<CompiledModule> compiled =
      compileModule(context, inputFiles[0], entries);
  if (failed(compiled))
    return 2;
  const EntrySignature &sig = compiled->signatures.front();

  SmallVector<AlignedBuffer> inputs;
  if (!inputsPath.empty()) {
    FailureOr<SmallVector<AlignedBuffer>> read = readInputs(inputsPath, sig);
    if (failed(read))
      return 2;
    inputs = std::move(*read);
  } else {
    inputs = makeRandomInputs(sig, seed);
  }
  if (!writeInputsPath.empty() && failed(writeBuffers(writeInputsPath, inputs)))
    return 2;

  FailureOr<SmallVector<AlignedBuffer>> results =
      runEntry(*compiled, sig, inputs);
  if (failed(results))
    return 2;
  if (!outputsPath.empty() && failed(writeBuffers(outputsPath, *results)))
    return 2;
  if (printResults)
    printBuffers(llvm::outs(), sig, *results);
  return 0;
}

/// `mem-opt-run --compare a.mlir b.mlir ...`.
static int runCompare(MLIRContext &context) {
  if (inputFiles.size() != 2) {
    error() << "--compare expects two model files\n";
    return 2;
  }
  if (!inputsPath.empty() || !writeInputsPath.empty() || !outputsPath.empty()) {
    error() << "--inputs, --write-inputs and --outputs do not apply to "
               "--compare\n";
    return 2;
  }
  if (numSeeds == 0) {
    error() << "--seeds must be at least 1\n";
    return 2;
  }
  FailureOr<CompiledModule> a = compileModule(context, inputFiles[0], entries);
  if (failed(a))
    return 2;
  SmallVector<std::string> names;
  for (const EntrySignature &sig : a->signatures)
    names.push_back(sig.name);
  FailureOr<CompiledModule> b = compileModule(context, inputFiles[1], names);
  if (failed(b))
    return 2;

  bool mismatch = false;
  for (const EntrySignature &sigA : a->signatures) {
    const EntrySignature &sigB = *b->find(sigA.name);
    auto sameTypes = [](ArrayRef<TensorSlot> x, ArrayRef<TensorSlot> y) {
      return x.size() == y.size() &&
             llvm::all_of(llvm::zip(x, y), [](auto pair) {
               return std::get<0>(pair).type == std::get<1>(pair).type;
             });
    };
    if (!sameTypes(sigA.args, sigB.args) ||
        !sameTypes(sigA.results, sigB.results)) {
      error() << "@" << sigA.name << " has different signatures in " << a->path
              << " and " << b->path << "\n";
      return 2;
    }

    SmallVector<double> maxAbs(sigA.results.size(), 0.0);
    SmallVector<double> maxRel(sigA.results.size(), 0.0);
    bool entryMismatch = false;
    for (unsigned s = 0; s < numSeeds && !entryMismatch; ++s) {
      uint64_t seedValue = seed + s;
      SmallVector<AlignedBuffer> inputs = makeRandomInputs(sigA, seedValue);
      FailureOr<SmallVector<AlignedBuffer>> outA = runEntry(*a, sigA, inputs);
      FailureOr<SmallVector<AlignedBuffer>> outB = runEntry(*b, sigB, inputs);
      if (failed(outA) || failed(outB))
        return 2;
      for (auto [r, slot] : llvm::enumerate(sigA.results)) {
        const char *dataA = (*outA)[r].data();
        const char *dataB = (*outB)[r].data();
        bool isFloat = isa<FloatType>(slot.type.getElementType());
        for (int64_t e = 0; e < slot.numElements; ++e) {
          bool equal;
          double valueA = readAsDouble(slot, dataA, e);
          double valueB = readAsDouble(slot, dataB, e);
          double diff = 0.0;
          if (!isFloat) {
            equal = std::memcmp(dataA + e * slot.elementBytes,
                                dataB + e * slot.elementBytes,
                                slot.elementBytes) == 0;
            diff = std::fabs(valueA - valueB);
          } else if (std::isnan(valueA) || std::isnan(valueB)) {
            equal = std::isnan(valueA) && std::isnan(valueB);
          } else {
            diff = std::fabs(valueA - valueB);
            equal =
                valueA == valueB || diff <= absTol + relTol * std::fabs(valueB);
            if (valueA != valueB) {
              maxAbs[r] = std::max(maxAbs[r], diff);
              if (valueB != 0.0)
                maxRel[r] = std::max(maxRel[r], diff / std::fabs(valueB));
            }
          }
          if (!isFloat && !equal)
            maxAbs[r] = std::max(maxAbs[r], diff);
          if (equal)
            continue;
          llvm::outs() << "MISMATCH @" << sigA.name << " result #" << r << " ("
                       << slot.type << "), seed " << seedValue
                       << ", first differing element "
                       << formatIndex(slot.type, e) << ": ";
          printElement(llvm::outs(), slot, dataA, e);
          llvm::outs() << " in " << a->path << " vs ";
          printElement(llvm::outs(), slot, dataB, e);
          llvm::outs() << " in " << b->path;
          if (isFloat)
            llvm::outs() << llvm::format(
                " (|diff| %.3g > atol %.3g + rtol %.3g * |b|)", diff,
                absTol.getValue(), relTol.getValue());
          else
            llvm::outs() << " (integers must be bit-exact)";
          llvm::outs() << "\n";
          entryMismatch = true;
          break;
        }
        if (entryMismatch)
          break;
      }
    }
    mismatch |= entryMismatch;
    if (entryMismatch)
      continue;
    for (auto [r, slot] : llvm::enumerate(sigA.results)) {
      llvm::outs() << "@" << sigA.name << " result #" << r << " (" << slot.type
                   << "): " << numSeeds << " seeds, ";
      if (isa<FloatType>(slot.type.getElementType()))
        llvm::outs() << llvm::format("max abs err %.3g, max rel err %.3g",
                                     maxAbs[r], maxRel[r]);
      else
        llvm::outs() << "bit-exact";
      llvm::outs() << "\n";
    }
  }
  llvm::outs() << (mismatch ? "FAIL" : "OK") << ": " << a->signatures.size()
               << " function(s), " << numSeeds << " seed(s) each\n";
  return mismatch ? 1 : 0;
}

int main(int argc, char **argv) {
  mlir::memopt::registerVersionPrinter();
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::registerAllPasses();
  mlir::memopt::registerAllPasses();

  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mem-opt-run: run TOSA functions on the host (JIT) and compare two "
      "modules on seeded random inputs\n\nA module is MLIR, or a TFLite or "
      "ONNX model (imported as mem-opt-import does; the format is recognized "
      "from the content).\n");

  DialectRegistry registry;
  memopt::registerAllDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();

  return compareMode ? runCompare(context) : runMode(context);
}
