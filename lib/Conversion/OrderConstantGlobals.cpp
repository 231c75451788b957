//===- OrderConstantGlobals.cpp - order-constant-globals pass -------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Gives the constant globals that one-shot bufferization creates names and a
// module order that depend only on the input: their first use in module
// order. Bufferization visits functions that do not call each other in an
// order of its own, so without this the same model can give two objects.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_ORDERCONSTANTGLOBALSPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

/// The name bufferization gives the first constant global of \p type:
/// `__constant_` followed by the shape and the element type, `4x8xi8`.
static std::string getBaseName(MemRefType type) {
  std::string name = "__constant_";
  llvm::raw_string_ostream os(name);
  for (int64_t dim : type.getShape())
    os << dim << 'x';
  os << type.getElementType();
  return name;
}

/// Whether \p name is \p base or \p base followed by `_<digits>`.
static bool isNamedAfter(StringRef name, StringRef base) {
  if (!name.consume_front(base))
    return false;
  if (name.empty())
    return true;
  return name.consume_front("_") && !name.empty() &&
         llvm::all_of(name, llvm::isDigit);
}

namespace {
/// Renames and reorders the bufferization constants of a module.
struct OrderConstantGlobalsPass
    : memopt::impl::OrderConstantGlobalsPassBase<OrderConstantGlobalsPass> {
  using OrderConstantGlobalsPassBase::OrderConstantGlobalsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The globals to order, by name, with their base name.
    llvm::StringMap<std::pair<memref::GlobalOp, std::string>> candidates;
    SmallVector<memref::GlobalOp> inModuleOrder;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      std::string base = getBaseName(global.getType());
      if (!global.isPrivate() || !global.getConstant() ||
          !isNamedAfter(global.getSymName(), base))
        continue;
      candidates[global.getSymName()] = {global, std::move(base)};
      inModuleOrder.push_back(global);
    }
    if (candidates.empty())
      return;

    // First uses in module order.
    llvm::MapVector<Operation *, StringRef> ordered;
    module.walk([&](memref::GetGlobalOp use) {
      auto it = candidates.find(use.getName());
      if (it != candidates.end())
        ordered.insert({it->second.first, it->second.second});
    });
    for (memref::GlobalOp global : inModuleOrder)
      if (!ordered.count(global))
        ordered.insert({global, candidates[global.getSymName()].second});

    // New names: per base name, the plain name first, then _0, _1, ...
    llvm::StringMap<unsigned> countPerBase;
    llvm::StringMap<StringAttr> renamed;
    MLIRContext *context = module.getContext();
    for (auto [op, base] : ordered) {
      auto global = cast<memref::GlobalOp>(op);
      unsigned count = countPerBase[base]++;
      std::string name =
          count == 0 ? base.str() : (base + "_" + Twine(count - 1)).str();
      renamed[global.getSymName()] = StringAttr::get(context, name);
    }
    module.walk([&](memref::GetGlobalOp use) {
      auto it = renamed.find(use.getName());
      if (it != renamed.end())
        use.setName(it->second.getValue());
    });
    // Move to the start of the module, in first-use order.
    Block *body = module.getBody();
    Operation *insertionPoint = &body->front();
    for (auto [op, base] : ordered) {
      auto global = cast<memref::GlobalOp>(op);
      global.setSymName(renamed[global.getSymName()].getValue());
      if (op == insertionPoint)
        insertionPoint = op->getNextNode();
      else
        op->moveBefore(insertionPoint);
    }
  }
};
} // namespace
