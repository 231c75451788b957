//===- CompilerTest.cpp - Tests of the compile driver library -------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Calls MemOptCompiler on a small TOSA module and checks its outputs against
// each other and against the ELF format: the header states the arena the
// report gives, and the object is a 32-bit little-endian ARM ELF file that
// defines the model's function. Bytes that are no model fail with a
// diagnostic on the context.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Compiler/Compiler.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// Two f32 adds of 16x16 tensors (1024 bytes each).
constexpr StringLiteral kTinyModel = R"mlir(
func.func @main(%a: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = tosa.add %a, %a : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = tosa.add %0, %0 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %1 : tensor<16x16xf32>
}
)mlir";

/// A context with the compiler's dialects, in a process set up for it.
class CompilerTest : public ::testing::Test {
protected:
  CompilerTest() : context(getRegistry()) {
    context.loadAllAvailableDialects();
  }

  /// Returns the registry of the compiler, after initializing it once.
  static DialectRegistry getRegistry() {
    static bool initialized = [] {
      initializeCompiler();
      return true;
    }();
    (void)initialized;
    DialectRegistry registry;
    registerCompilerDialects(registry);
    return registry;
  }

  /// Returns the value of `#define <name> <value>` in \p header, or -1.
  static int64_t getDefine(StringRef header, StringRef name) {
    std::string key = ("#define " + name + " ").str();
    size_t at = header.find(key);
    if (at == StringRef::npos)
      return -1;
    int64_t value = -1;
    if (header.drop_front(at + key.size())
            .take_until([](char c) { return c == '\n'; })
            .getAsInteger(10, value))
      return -1;
    return value;
  }

  MLIRContext context;
};

TEST_F(CompilerTest, HeaderReportAndObjectAgree) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kTinyModel, &context);
  ASSERT_TRUE(module);
  CompileOptions options;
  options.modelPath = "models/tiny.mlir";
  options.cpu = CortexMCpu::CortexM7;
  options.report = ReportFormat::JSON;
  FailureOr<CompileResult> result = compileModule(*module, options);
  ASSERT_TRUE(succeeded(result));

  // The one public function takes the model file's stem as its name.
  ASSERT_TRUE(result->report.has_value());
  ASSERT_EQ(result->report->functions.size(), 1u);
  const FunctionReport &fn = result->report->functions.front();
  EXPECT_EQ(fn.name, "tiny");
  ASSERT_TRUE(fn.arenaBytes.has_value());
  // At least the model's input (1024 bytes) lives in the arena (io=arena).
  EXPECT_GE(*fn.arenaBytes, 1024);
  EXPECT_EQ(getDefine(result->header, "TINY_ARENA_SIZE"), *fn.arenaBytes);
  EXPECT_EQ(getDefine(result->header, "TINY_PREDICTED_PEAK"),
            fn.getDeviceBytes().value_or(-1));
  EXPECT_NE(StringRef(result->header).find("void tiny(void *arena);"),
            StringRef::npos);
  EXPECT_NE(StringRef(result->reportText)
                .find("\"arena_bytes\": " + std::to_string(*fn.arenaBytes)),
            StringRef::npos);

  // The object: a relocatable 32-bit little-endian ARM ELF file that defines
  // `tiny` as a function, with as much code as the report says.
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> object =
      llvm::object::ObjectFile::createObjectFile(
          llvm::MemoryBufferRef(result->object, "tiny.o"));
  ASSERT_TRUE(static_cast<bool>(object)) << toString(object.takeError());
  auto *elf = dyn_cast<llvm::object::ELF32LEObjectFile>(object->get());
  ASSERT_NE(elf, nullptr);
  EXPECT_EQ(elf->getELFFile().getHeader().e_machine, llvm::ELF::EM_ARM);
  EXPECT_EQ(elf->getELFFile().getHeader().e_type, llvm::ELF::ET_REL);
  bool defined = false;
  for (const llvm::object::ELFSymbolRef &symbol : elf->symbols()) {
    llvm::Expected<StringRef> name = symbol.getName();
    llvm::Expected<llvm::object::SymbolRef::Type> type = symbol.getType();
    ASSERT_TRUE(name && type);
    if (*name == "tiny" && *type == llvm::object::SymbolRef::ST_Function &&
        symbol.getBinding() == llvm::ELF::STB_GLOBAL && symbol.getSection() &&
        *symbol.getSection() != elf->section_end())
      defined = true;
  }
  EXPECT_TRUE(defined);
  ASSERT_TRUE(result->report->object.has_value());
  EXPECT_GT(result->report->object->codeBytes, 0);
}

TEST_F(CompilerTest, BytesAreDetectedAndNamed) {
  CompileOptions options;
  options.functionName = "net";
  options.emitObject = false;
  FailureOr<CompileResult> result = compileModel(kTinyModel, &context, options);
  ASSERT_TRUE(succeeded(result));
  EXPECT_TRUE(result->object.empty());
  EXPECT_FALSE(result->report.has_value());
  EXPECT_GT(getDefine(result->header, "NET_ARENA_SIZE"), 0);
  EXPECT_NE(StringRef(result->header).find("#ifndef MODEL_H"), StringRef::npos);
}

TEST_F(CompilerTest, BinaryBytesFailWithADiagnostic) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  CompileOptions options;
  options.modelPath = "noise.bin";
  FailureOr<CompileResult> result =
      compileModel(StringRef("ab\0\xff garbage", 12), &context, options);
  EXPECT_TRUE(failed(result));
  EXPECT_EQ(message, "noise.bin: not a TFLite, ONNX or MLIR model (binary "
                     "content that is neither a TFLite flatbuffer nor an "
                     "ONNX protobuf)");
}

} // namespace
