//===- StorageSize.cpp - The one byte-size rule of mem-opt ----------------===//
//
// Part of the mem-opt project.
//
//===----------------------------------------------------------------------===//

#include "MemOpt/Utils/StorageSize.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;

std::optional<int64_t>
mlir::memopt::getElementStorageBytes(Type elementType,
                                     const DataLayout &layout) {
  if (auto quantType = dyn_cast<quant::QuantizedType>(elementType))
    elementType = quantType.getStorageType();
  Type scalar = elementType;
  if (auto complex = dyn_cast<ComplexType>(elementType))
    scalar = complex.getElementType();
  if (!isa<IntegerType, FloatType, IndexType>(scalar))
    return std::nullopt;
  auto bytes =
      static_cast<int64_t>(layout.getTypeSize(elementType).getFixedValue());
  auto align = static_cast<int64_t>(layout.getTypeABIAlignment(elementType));
  if (align > 1)
    bytes = static_cast<int64_t>(llvm::alignTo(bytes, align));
  return bytes;
}

std::optional<int64_t>
mlir::memopt::getElementStorageAlignment(Type elementType,
                                         const DataLayout &layout) {
  if (!getElementStorageBytes(elementType, layout))
    return std::nullopt;
  if (auto quantType = dyn_cast<quant::QuantizedType>(elementType))
    elementType = quantType.getStorageType();
  return std::max<int64_t>(
      static_cast<int64_t>(layout.getTypeABIAlignment(elementType)), 1);
}

std::optional<int64_t> mlir::memopt::getStorageBytes(Type type,
                                                     const DataLayout &layout) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> bytes =
      getElementStorageBytes(shaped.getElementType(), layout);
  if (!bytes)
    return std::nullopt;
  for (int64_t dim : shaped.getShape())
    if (llvm::MulOverflow(*bytes, dim, *bytes))
      return std::nullopt;
  return bytes;
}
