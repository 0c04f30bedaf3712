//===- GpuKernels.cpp - One gpu.func per outlined kernel ------------------===//
//
// The kernel ABI: one flat, static, 16-byte aligned buffer per argument,
// the kernel's inputs then its outputs (the artifact's launch-argument
// order), passed as bare pointers. Unsigned and boolean elements are stored
// as signless integers of their width (booleans one byte each).
//
//===----------------------------------------------------------------------===//
#include "bwc/Target/CUDA/CudaTarget.h"

#include "KernelEmitters.h"
#include "bwc/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::bwc;
using namespace mlir::bwc::cuda;

namespace {

/// memref<N x T> (T signless) holding a tensor of `type` in row-major order.
MemRefType flatBuffer(Type type) {
  auto t = cast<ShapedType>(type);
  Type e = t.getElementType();
  if (auto i = dyn_cast<IntegerType>(e))
    e = IntegerType::get(type.getContext(), i.getWidth());
  return MemRefType::get({t.getNumElements()}, e);
}

using Driver = LogicalResult (*)(OpBuilder &, KernelContext &);

/// The driver of each `emitter` a kernel's bwc.config may name.
Driver lookupDriver(StringRef emitter) {
  return llvm::StringSwitch<Driver>(emitter)
      .Case("loop", emitLoopKernel)
      .Case("row_reduction", emitRowReductionKernel)
      .Case("column_reduction", emitColumnReductionKernel)
      .Case("transpose_tiled", emitTransposeTiledKernel)
      .Case("contraction_tiled", emitContractionTiledKernel)
      .Case("contraction_thread", emitContractionThreadKernel)
      .Case("thread_per_output", emitThreadPerOutputKernel)
      .Default(nullptr);
}

LogicalResult buildKernel(OpBuilder &b, func::FuncOp kernel, StringRef suffix) {
  auto config = kernel->getAttrOfType<DictionaryAttr>(kKernelConfigAttrName);
  auto emitter = config ? config.getAs<StringAttr>("emitter") : StringAttr();
  if (!emitter)
    return kernel.emitError() << "expects a bwc.config with an emitter (from "
                                 "bwc-configure-kernels) but got "
                              << (config ? Attribute(config) : Attribute());
  Driver driver = lookupDriver(emitter.getValue());
  if (!driver)
    return kernel.emitError() << "expects emitter loop, row_reduction, "
                                 "column_reduction, transpose_tiled, "
                                 "contraction_tiled, contraction_thread or "
                                 "thread_per_output "
                                 "but got "
                              << emitter;
  SmallVector<Type> args;
  for (Type t : kernel.getArgumentTypes())
    args.push_back(flatBuffer(t));
  for (Type t : kernel.getResultTypes())
    args.push_back(flatBuffer(t));
  auto func = gpu::GPUFuncOp::create(b, kernel.getLoc(),
                                     (kernel.getName() + suffix).str(),
                                     b.getFunctionType(args, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(kKernelConfigAttrName, config);
  for (unsigned i = 0; i < args.size(); ++i)
    func.setArgAttr(i, "llvm.align", b.getI64IntegerAttr(16));

  FailureOr<int64_t> block = configField(kernel, config, "block");
  if (failed(block) || failed(configField(kernel, config, "grid")))
    return failure();
  if (*block > 1024)
    return kernel.emitError() << "expects at most 1024 threads per block but "
                                 "got "
                              << *block;
  func->setAttr("known_block_size",
                b.getDenseI32ArrayAttr({int32_t(*block), 1, 1}));

  Block &body = func.getBody().front();
  unsigned numInputs = kernel.getNumArguments();
  ElementalEmitter elements(kernel, body.getArguments().take_front(numInputs));
  KernelContext context{
      kernel, func, elements,
      SmallVector<Value>(body.getArguments().drop_front(numInputs)), config};
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&body);
  if (failed(driver(b, context)))
    return failure();
  // Shared arrays 16-byte aligned: LLVM merges their loads into 16-byte
  // vectors, but NVPTX declares an array at its element type's alignment
  // unless told otherwise.
  for (unsigned i = 0; i < func.getNumWorkgroupAttributions(); ++i)
    func.setWorkgroupAttributionAttr(i, "llvm.align", b.getI64IntegerAttr(16));
  gpu::ReturnOp::create(b, kernel.getLoc());
  return success();
}

} // namespace

LogicalResult mlir::bwc::buildGpuKernels(ModuleOp module, StringRef suffix) {
  MLIRContext *ctx = module.getContext();
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(ctx));
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "bwc_kernels");
  b.setInsertionPointToStart(gpuModule.getBody());
  SmallVector<func::FuncOp> kernels;
  for (auto f : module.getOps<func::FuncOp>())
    if (f->hasAttr(kKernelAttrName))
      kernels.push_back(f);
  for (func::FuncOp kernel : kernels) {
    if (kernel.isExternal())
      return kernel.emitError() << "expects a kernel with a body";
    if (failed(buildKernel(b, kernel, suffix)))
      return failure();
  }
  for (func::FuncOp kernel : kernels)
    kernel.erase();
  return success();
}
