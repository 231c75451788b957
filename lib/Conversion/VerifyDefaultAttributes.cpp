//===- VerifyDefaultAttributes.cpp - verify-default-attributes pass -------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//
//
// Reports ops whose default-valued inherent attributes are empty: the parser
// drops a value of the wrong kind without a diagnostic, and upstream patterns
// that read the attribute dereference null.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Conversion/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace memopt {
#define GEN_PASS_DEF_VERIFYDEFAULTATTRIBUTESPASS
#include "MemOpt/Conversion/Passes.h.inc"
} // namespace memopt
} // namespace mlir

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// The default-valued inherent attributes of one op name, as (name, default)
/// pairs: those a freshly created op of that name holds without being given
/// them.
using DefaultAttrs = SmallVector<NamedAttribute, 2>;

/// Returns the default-valued inherent attributes of `name`, found by
/// creating an op of that name with nothing but its name and reading its
/// properties.
DefaultAttrs getDefaultAttrs(OperationName name, Location loc) {
  DefaultAttrs defaults;
  if (!name.isRegistered() || name.getOpPropertyByteSize() == 0)
    return defaults;
  OperationState state(loc, name);
  Operation *fresh = Operation::create(state);
  if (auto dict =
          dyn_cast_or_null<DictionaryAttr>(fresh->getPropertiesAsAttribute()))
    for (NamedAttribute attr : dict)
      if (attr.getValue())
        defaults.push_back(attr);
  fresh->destroy();
  return defaults;
}

struct VerifyDefaultAttributesPass
    : memopt::impl::VerifyDefaultAttributesPassBase<
          VerifyDefaultAttributesPass> {
  using VerifyDefaultAttributesPassBase::VerifyDefaultAttributesPassBase;

  void runOnOperation() override {
    llvm::DenseMap<OperationName, DefaultAttrs> cache;
    bool failed = false;
    getOperation()->walk([&](Operation *op) {
      auto [it, inserted] = cache.try_emplace(op->getName());
      if (inserted)
        it->second = getDefaultAttrs(op->getName(), op->getLoc());
      for (NamedAttribute attr : it->second) {
        std::optional<Attribute> value = op->getInherentAttr(attr.getName());
        if (value && *value)
          continue;
        op->emitOpError("has no valid '")
            << attr.getName().getValue()
            << "' attribute: the parser drops a value of the wrong kind; "
               "write it as the op prints it, e.g. "
            << attr.getName().getValue() << " = " << attr.getValue()
            << " (its default)";
        failed = true;
      }
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
