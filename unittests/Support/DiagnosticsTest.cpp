//===- DiagnosticsTest.cpp - Tests of the named-location diagnostics ------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Checks the prefixes of diagnostics at model node names (NameLoc without a
// source position) and that diagnostics at source positions are left to the
// next handler.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Support/Diagnostics.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// Builds locations in one context.
class NamedLocationTest : public ::testing::Test {
protected:
  /// Returns NameLoc \p name with \p child.
  Location name(StringRef name, Location child) {
    return NameLoc::get(StringAttr::get(&context, name), child);
  }
  /// Returns NameLoc \p name without a child.
  Location name(StringRef name) {
    return NameLoc::get(StringAttr::get(&context, name));
  }
  /// Returns file:line:col.
  Location file(StringRef path, unsigned line, unsigned col) {
    return FileLineColLoc::get(&context, path, line, col);
  }

  MLIRContext context;
};

TEST_F(NamedLocationTest, ModelNameIsTheStem) {
  EXPECT_EQ(getModelNameFromPath("models/person_detect.tflite"),
            "person_detect");
  EXPECT_EQ(getModelNameFromPath("person_detect.mlir"), "person_detect");
  EXPECT_EQ(getModelNameFromPath("-"), "");
  EXPECT_EQ(getModelNameFromPath(""), "");
}

TEST_F(NamedLocationTest, Prefixes) {
  // TFLite importer: a bare NameLoc; the model comes from the input file.
  EXPECT_EQ(getNamedLocationPrefix(name("Conv2d_1"), "person_detect"),
            "person_detect:Conv2d_1");
  // ONNX importer: the NameLoc holds the model file at line 0.
  EXPECT_EQ(getNamedLocationPrefix(name("relu", file("dir/mnv2.onnx", 0, 0)),
                                   "other"),
            "mnv2:relu");
  // No model name: just the node.
  EXPECT_EQ(getNamedLocationPrefix(name("Conv2d_1"), ""), "Conv2d_1");
  // The first name of a fused location (ONNX conv + batch norm).
  EXPECT_EQ(getNamedLocationPrefix(
                FusedLoc::get(&context, {name("conv"), name("bn")}), "m"),
            "m:conv");
  // A source position wins: SourceMgr prints it with the line.
  EXPECT_EQ(getNamedLocationPrefix(name("x", file("a.mlir", 3, 4)), "m"),
            std::nullopt);
  EXPECT_EQ(getNamedLocationPrefix(file("a.mlir", 3, 4), "m"), std::nullopt);
  // Nothing to name (an empty name is no name).
  EXPECT_EQ(getNamedLocationPrefix(name("", file("m.onnx", 0, 0)), "m"),
            std::nullopt);
  EXPECT_EQ(getNamedLocationPrefix(UnknownLoc::get(&context), "m"),
            std::nullopt);
  EXPECT_EQ(getNamedLocationPrefix(file("m.tflite", 0, 0), "m"), std::nullopt);
}

TEST_F(NamedLocationTest, HandlerPrintsNamesAndPassesTheRest) {
  std::string printed, passedOn;
  llvm::raw_string_ostream os(printed);
  // Registered first, so it runs after the named-location handler.
  context.getDiagEngine().registerHandler([&](Diagnostic &diag) {
    passedOn += diag.str() + "\n";
    return success();
  });
  {
    NamedLocationDiagnosticHandler handler(&context, "person_detect", os);
    emitError(name("Conv2d_1")) << "too big";
    InFlightDiagnostic diag = emitWarning(name("Relu_1")) << "odd";
    diag.attachNote(file("a.mlir", 7, 2)) << "defined here";
    diag.report();
    emitError(file("a.mlir", 3, 4)) << "at a line";
  }
  // Out of scope: back to the next handler.
  emitError(name("Conv2d_1")) << "after";
  EXPECT_EQ(printed, "person_detect:Conv2d_1: error: too big\n"
                     "person_detect:Relu_1: warning: odd\n"
                     "a.mlir:7:2: note: defined here\n");
  EXPECT_EQ(passedOn, "at a line\nafter\n");
}

} // namespace
