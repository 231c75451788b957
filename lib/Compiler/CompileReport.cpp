//===- CompileReport.cpp - What a compile built ---------------------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// The report of the compile driver: its data, gathered from the scheduled
// TOSA functions (CompileLayers.cpp), the lowered module and the object's
// sections, and its text, JSON and CSV forms.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Compiler/CompileReport.h"

#include "CompilerInternal.h"
#include "MemOpt/Support/Version.h"
#include "MemOpt/CostModel/States.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::memopt;

llvm::Expected<ObjectSizes>
mlir::memopt::getObjectSizes(llvm::MemoryBufferRef object) {
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::object::ObjectFile::createObjectFile(object);
  if (!file)
    return file.takeError();
  if (!isa<llvm::object::ELFObjectFileBase>(file->get()))
    return llvm::createStringError("the object is not an ELF file");
  ObjectSizes sizes;
  for (llvm::object::ELFSectionRef section : (*file)->sections()) {
    uint64_t flags = section.getFlags();
    if (!(flags & llvm::ELF::SHF_ALLOC))
      continue;
    auto bytes = static_cast<int64_t>(section.getSize());
    if (section.getType() == llvm::ELF::SHT_ARM_EXIDX)
      sizes.unwindIndexBytes += bytes;
    else if (flags & llvm::ELF::SHF_EXECINSTR)
      sizes.codeBytes += bytes;
    else if (!(flags & llvm::ELF::SHF_WRITE))
      sizes.constantBytes += bytes;
    else if (section.getType() == llvm::ELF::SHT_NOBITS)
      sizes.bssBytes += bytes;
    else
      sizes.dataBytes += bytes;
  }
  return sizes;
}

/// Returns "arena" or "caller".
static StringRef stringifyIO(IOPlacement io) {
  return io == IOPlacement::Arena ? "arena" : "caller";
}

/// Prints \p value, or "n/a".
static std::string orNA(std::optional<int64_t> value) {
  return value ? std::to_string(*value) : std::string("n/a");
}

/// Prints the label of a row of the text report.
static raw_ostream &row(raw_ostream &os, StringRef label) {
  return os << "  " << llvm::left_justify(label, 26);
}

/// Returns the estimated instructions of \p fn: the sum over its layers.
static int64_t getInstructions(const FunctionReport &fn) {
  int64_t sum = 0;
  for (const LayerReport &layer : fn.layers)
    sum += layer.instructions;
  return sum;
}

/// Returns the TOSA ops of \p layer, short: `depthwise_conv2d rescale`.
static std::string getShortOps(const LayerReport &layer) {
  std::string text;
  for (const std::string &op : layer.tosaOps) {
    if (!text.empty())
      text += ' ';
    text += StringRef(op).starts_with("tosa.") ? op.substr(5) : op;
  }
  return text;
}

/// Prints the layer table of \p fn.
static void printLayerTable(raw_ostream &os, const FunctionReport &fn) {
  row(os, "Instructions (estimate)") << getInstructions(fn) << "\n";
  os << "\n  " << llvm::right_justify("layer", 5) << " "
     << llvm::right_justify("steps", 7) << " "
     << llvm::right_justify("live bytes", 10) << " "
     << llvm::right_justify("weights", 8) << " "
     << llvm::right_justify("MACs", 10) << " "
     << llvm::right_justify("instr", 10) << "  "
     << llvm::left_justify("kind", 21) << " name [TOSA ops]\n";
  for (auto [index, layer] : llvm::enumerate(fn.layers)) {
    std::string steps = std::to_string(layer.firstStep);
    if (layer.steps > 1)
      steps += "+" + std::to_string(layer.steps - 1);
    os << "  " << llvm::right_justify(std::to_string(index), 5) << " "
       << llvm::right_justify(steps, 7) << " "
       << llvm::right_justify(std::to_string(layer.liveBytes), 10) << " "
       << llvm::right_justify(std::to_string(layer.weightBytes), 8) << " "
       << llvm::right_justify(std::to_string(layer.macs), 10) << " "
       << llvm::right_justify(std::to_string(layer.instructions), 10) << "  "
       << llvm::left_justify(layer.kind, 21) << " " << layer.name << " ["
       << getShortOps(layer) << "]"
       << (index == fn.peakLayer ? "  <- peak" : "") << "\n";
  }
}

void CompileReport::printText(raw_ostream &os) const {
  for (const FunctionReport &fn : functions) {
    // The one-line summary first (scripts read its key=value fields).
    os << fn.name << ": predicted_peak=" << fn.getDeviceBytes().value_or(0)
       << " schedule_peak=" << orNA(fn.schedulePeak)
       << " schedule_lower_bound=" << orNA(fn.scheduleLowerBound)
       << " arena=" << orNA(fn.arenaBytes)
       << " liveness_lower_bound=" << orNA(fn.livenessLowerBound)
       << " caller_io=" << fn.callerIOBytes;
    if (!fn.states.empty())
      os << " state=" << fn.stateBytes;
    os << "\n";
  }
  auto row = [&](StringRef label) -> raw_ostream & { return ::row(os, label); };
  for (const FunctionReport &fn : functions) {
    os << "\nFunction " << fn.name << " (" << cpu << ", io=" << stringifyIO(io)
       << ")\n";
    row("SRAM") << orNA(fn.getDeviceBytes()) << " bytes: arena "
                << orNA(fn.arenaBytes) << " + caller-owned I/O "
                << fn.callerIOBytes << "\n";
    row("Arena") << orNA(fn.arenaBytes) << " bytes, aligned to "
                 << fn.arenaAlignment << "\n";
    auto printIO = [&](ArrayRef<TensorReport> tensors, StringRef kind) {
      for (auto [i, tensor] : llvm::enumerate(tensors)) {
        row((kind + " " + Twine(i)).str())
            << tensor.bytes << " bytes, " << tensor.shape << " " << tensor.cType
            << ", ";
        if (tensor.stateOffset)
          os << "state offset " << *tensor.stateOffset << "\n";
        else if (tensor.arenaOffset)
          os << "arena offset " << *tensor.arenaOffset << "\n";
        else
          os << "caller-owned\n";
      }
    };
    printIO(fn.inputs, "Input");
    printIO(fn.outputs, "Output");
    if (!fn.states.empty())
      row("State") << fn.stateBytes << " bytes in " << fn.states.size()
                   << " states: caller-owned, kept from call to call, "
                      "outside the arena and the SRAM above\n";
    printIO(fn.states, "State");
    row("Peak (schedule)") << orNA(fn.schedulePeak) << " bytes";
    if (!fn.layers.empty()) {
      const LayerReport &peak = fn.layers[fn.peakLayer];
      os << " at step " << fn.peakStep << " of " << fn.steps << ", layer "
         << fn.peakLayer << ", " << peak.kind << " '" << peak.name << "'";
    }
    os << "\n";
    row("Lower bound") << orNA(fn.scheduleLowerBound) << " bytes, "
                       << (fn.optimal ? "proven optimal" : "not proven");
    if (!fn.stoppedBy.empty())
      os << " (search stopped by the "
         << (fn.stoppedBy == "states" ? "state budget" : "clock") << ")";
    os << "\n";
    row("Liveness bound (lowered)")
        << orNA(fn.livenessLowerBound) << " bytes\n";
    row("MACs") << fn.macs << "\n";
    if (fn.patches) {
      row("Patches");
      fn.patches->print(os);
      os << "\n";
    }
    for (const std::string &line : fn.patchBlocks)
      row("Block in bands") << line << "\n";
    row("Weights (TOSA constants)") << fn.weightBytes << " bytes\n";
    printLayerTable(os, fn);
  }
  if (object) {
    os << "\nObject (" << cpu << ")\n";
    row("Flash") << object->getFlashBytes() << " bytes: code "
                 << object->codeBytes << " + constant data "
                 << object->constantBytes << " + data " << object->dataBytes
                 << "\n";
    row("Unwind index") << object->unwindIndexBytes
                        << " bytes (.ARM.exidx, merged by the linker)\n";
    row("Static RAM") << object->dataBytes + object->bssBytes << " bytes: data "
                      << object->dataBytes << " + bss " << object->bssBytes
                      << " (besides the arena)\n";
  }
  if (candidates)
    candidates->printText(os);
}

/// Returns \p value as JSON, or null.
static llvm::json::Value toJSONOrNull(std::optional<int64_t> value) {
  if (value)
    return *value;
  return nullptr;
}

/// Returns the JSON array of \p tensors.
static llvm::json::Array getTensorsJSON(ArrayRef<TensorReport> tensors) {
  llvm::json::Array array;
  for (const TensorReport &tensor : tensors)
    array.push_back(llvm::json::Object{
        {"shape", tensor.shape},
        {"c_type", tensor.cType},
        {"bytes", tensor.bytes},
        {"placement", tensor.stateOffset  ? "state"
                      : tensor.arenaOffset ? "arena"
                                           : "caller"},
        {"arena_offset", toJSONOrNull(tensor.arenaOffset)},
        {"state_offset", toJSONOrNull(tensor.stateOffset)},
    });
  return array;
}

/// Returns the JSON object of \p work.
static llvm::json::Object getWorkJSON(const KernelWork &work) {
  return llvm::json::Object{
      {"conv_macs", work.convMacs},
      {"narrow_conv_macs", work.narrowConvMacs},
      {"depthwise_macs", work.depthwiseMacs},
      {"strided_depthwise_macs", work.stridedDepthwiseMacs},
      {"fully_connected_macs", work.fullyConnectedMacs},
      {"float_macs", work.floatMacs},
      {"accumulators", work.accumulators},
      {"elements", work.elements},
      {"window_elements", work.windowElements},
  };
}

llvm::json::Value CompileReport::toJSON() const {
  llvm::json::Array fns;
  for (const FunctionReport &fn : functions) {
    llvm::json::Array layers;
    for (auto [row, layer] : llvm::enumerate(fn.layers)) {
      llvm::json::Array ops;
      for (const std::string &op : layer.tosaOps)
        ops.push_back(op);
      layers.push_back(llvm::json::Object{
          {"layer", static_cast<int64_t>(row)},
          {"name", layer.name},
          {"kind", layer.kind},
          {"source_index", toJSONOrNull(layer.sourceIndex)},
          {"tosa_ops", std::move(ops)},
          {"first_step", static_cast<int64_t>(layer.firstStep)},
          {"steps", static_cast<int64_t>(layer.steps)},
          {"live_bytes", layer.liveBytes},
          {"weight_bytes", layer.weightBytes},
          {"macs", layer.macs},
          {"instructions", layer.instructions},
          {"work", getWorkJSON(layer.work)},
      });
    }
    llvm::json::Value peakOp = nullptr;
    if (!fn.layers.empty())
      peakOp = llvm::json::Object{
          {"step", static_cast<int64_t>(fn.peakStep)},
          {"layer", static_cast<int64_t>(fn.peakLayer)},
          {"name", fn.layers[fn.peakLayer].name},
          {"kind", fn.layers[fn.peakLayer].kind},
      };
    fns.push_back(llvm::json::Object{
        {"name", fn.name},
        {"sram_bytes", toJSONOrNull(fn.getDeviceBytes())},
        {"arena_bytes", toJSONOrNull(fn.arenaBytes)},
        {"arena_alignment", fn.arenaAlignment},
        {"caller_io_bytes", fn.callerIOBytes},
        {"inputs", getTensorsJSON(fn.inputs)},
        {"outputs", getTensorsJSON(fn.outputs)},
        {"state_bytes", fn.stateBytes},
        {"states", getTensorsJSON(fn.states)},
        {"schedule",
         llvm::json::Object{
             {"peak_bytes", toJSONOrNull(fn.schedulePeak)},
             {"lower_bound_bytes", toJSONOrNull(fn.scheduleLowerBound)},
             {"optimal", fn.optimal},
             {"stopped_by", fn.stoppedBy.empty()
                                ? llvm::json::Value(nullptr)
                                : llvm::json::Value(fn.stoppedBy)},
         }},
        {"liveness_lower_bound_bytes", toJSONOrNull(fn.livenessLowerBound)},
        {"profile_peak_bytes", fn.profilePeak},
        {"steps", static_cast<int64_t>(fn.steps)},
        {"peak_step", static_cast<int64_t>(fn.peakStep)},
        {"peak_op", std::move(peakOp)},
        {"instructions", getInstructions(fn)},
        {"macs", fn.macs},
        {"weight_bytes", fn.weightBytes},
        {"patches", fn.patches ? llvm::json::Value(fn.patches->toJSON())
                               : llvm::json::Value(nullptr)},
        {"patch_blocks", llvm::json::Array(fn.patchBlocks)},
        {"layers", std::move(layers)},
    });
  }
  llvm::json::Value objectJSON = nullptr;
  if (object)
    objectJSON = llvm::json::Object{
        {"flash_bytes", object->getFlashBytes()},
        {"code_bytes", object->codeBytes},
        {"constant_bytes", object->constantBytes},
        {"data_bytes", object->dataBytes},
        {"bss_bytes", object->bssBytes},
        {"unwind_index_bytes", object->unwindIndexBytes},
    };
  llvm::json::Object result{
      {"format_version", kCompileReportFormatVersion},
      {"mem_opt_version", MEMOPT_VERSION},
      {"cpu", cpu},
      {"io", stringifyIO(io)},
      {"object", std::move(objectJSON)},
      {"functions", std::move(fns)},
  };
  if (candidates)
    result["candidates"] = candidates->toJSON();
  return result;
}

/// Returns \p field quoted for CSV when it needs it (RFC 4180).
static std::string quoteCSV(StringRef field) {
  if (!field.contains(',') && !field.contains('"') && !field.contains('\n'))
    return field.str();
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"')
      quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

void CompileReport::printCSV(raw_ostream &os) const {
  os << "function,layer,name,kind,source_index,tosa_ops,first_step,steps,"
        "live_bytes,weight_bytes,macs,instructions,peak\n";
  for (const FunctionReport &fn : functions)
    for (auto [index, layer] : llvm::enumerate(fn.layers)) {
      std::string ops;
      for (const std::string &op : layer.tosaOps)
        ops += (ops.empty() ? "" : " ") + op;
      os << quoteCSV(fn.name) << "," << index << "," << quoteCSV(layer.name)
         << "," << quoteCSV(layer.kind) << ","
         << (layer.sourceIndex ? std::to_string(*layer.sourceIndex) : "") << ","
         << quoteCSV(ops) << "," << layer.firstStep << "," << layer.steps << ","
         << layer.liveBytes << "," << layer.weightBytes << "," << layer.macs
         << "," << layer.instructions << "," << (index == fn.peakLayer ? 1 : 0)
         << "\n";
    }
}

//===----------------------------------------------------------------------===//
// Gathering the report
//===----------------------------------------------------------------------===//

/// Returns the report of the inputs or outputs \p types; \p offsets are
/// their places in the arena if \p inArena.
static SmallVector<TensorReport>
getTensorReports(ArrayRef<RankedTensorType> types, ArrayRef<int64_t> offsets,
                 bool inArena) {
  SmallVector<TensorReport> tensors;
  for (auto [i, type] : llvm::enumerate(types)) {
    TensorReport tensor;
    tensor.shape = getShapeString(type);
    tensor.cType = getCType(type.getElementType()).str();
    tensor.bytes = getCallerBytes(type);
    if (inArena && i < offsets.size())
      tensor.arenaOffset = offsets[i];
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

FailureOr<CompileReport>
mlir::memopt::buildCompileReport(ModuleOp module, ArrayRef<FunctionInfo> infos,
                                 llvm::StringMap<FunctionReport> &reports,
                                 StringRef object,
                                 const CompileOptions &options) {
  CompileReport report;
  report.cpu = stringifyCortexMCpu(options.cpu).str();
  report.io = options.io;
  llvm::Expected<ObjectSizes> sizes =
      getObjectSizes(llvm::MemoryBufferRef(object, ""));
  if (!sizes)
    return emitError(UnknownLoc::get(module.getContext()))
           << "cannot read the emitted object: "
           << llvm::toString(sizes.takeError());
  report.object = *sizes;
  for (const FunctionInfo &info : infos) {
    auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(info.name);
    FunctionReport fn;
    auto it = reports.find(info.name);
    if (it != reports.end()) {
      fn = std::move(it->second);
      reports.erase(it);
    }
    fn.name = info.name;
    MemoryFigures figures = getMemoryFigures(func, info, options.io);
    fn.arenaBytes = figures.arena;
    fn.callerIOBytes = figures.callerIO;
    fn.livenessLowerBound = figures.livenessBound;
    fn.arenaAlignment = getIntAttr(func, "memplan.arena_alignment")
                            .value_or(static_cast<int64_t>(options.alignment));
    bool inArena = func && func->hasAttr("memplan.io_in_arena");
    fn.inputs = getTensorReports(
        info.inputs, getOffsets(func, "memplan.input_offsets"), inArena);
    fn.outputs = getTensorReports(
        info.outputs, getOffsets(func, "memplan.output_offsets"), inArena);
    fn.states = getTensorReports(info.states, {}, false);
    for (auto [state, offset] : llvm::zip(
             fn.states, getOffsets(func, kStateOffsetsAttrName)))
      state.stateOffset = offset;
    fn.stateBytes = func ? getIntAttr(func, kStateSizeAttrName).value_or(0) : 0;
    // One number: the profile the report shows is the scheduler's.
    if (fn.schedulePeak && !fn.layers.empty() &&
        fn.profilePeak != *fn.schedulePeak)
      emitWarning(UnknownLoc::get(module.getContext()))
          << "@" << fn.name << ": the per-layer profile peaks at "
          << fn.profilePeak << " bytes, memopt.peak_bytes is "
          << *fn.schedulePeak;
    report.functions.push_back(std::move(fn));
  }
  return report;
}
