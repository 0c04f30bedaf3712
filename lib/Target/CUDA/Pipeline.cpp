//===- Pipeline.cpp - gpu.module to PTX and cubin -------------------------===//
//
// Math first becomes arithmetic (polynomial approximations, f16/bf16
// computed in f32), so that no libdevice call is ever needed: CI machines
// have no CUDA toolkit. Then scf to cf, one conversion of gpu, arith, cf,
// memref, vector and the remaining math to NVVM/LLVM with bare-pointer
// kernel arguments, and LLVM's NVPTX back end (gpu-module-to-binary,
// format=isa) for sm_90 / PTX ISA 8.0 (CUDA 12.0 and later). ptxas, when
// installed, turns the PTX into the sm_90 cubin.
//
//===----------------------------------------------------------------------===//
#include "bwc/Target/CUDA/CudaTarget.h"

#include "bwc/Target/CPU/SharedObject.h"
#include "bwc/Target/CUDA/Passes.h"
#include "bwc/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::bwc;

void mlir::bwc::loadCudaDialects(MLIRContext &ctx) {
  DialectRegistry registry;
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect, vector::VectorDialect,
                  nvgpu::NVGPUDialect, LLVM::LLVMDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadDialect<gpu::GPUDialect, NVVM::NVVMDialect, vector::VectorDialect,
                  nvgpu::NVGPUDialect, LLVM::LLVMDialect>();
}

namespace {

/// Math ops the NVPTX back end selects natively (after math-to-llvm).
bool hasNativeLowering(Operation *op) {
  return isa<math::SqrtOp, math::RsqrtOp, math::AbsFOp, math::AbsIOp,
             math::FmaOp, math::FloorOp, math::CeilOp, math::TruncOp,
             math::RoundEvenOp, math::RoundOp, math::CopySignOp, math::IsNaNOp,
             math::IsInfOp, math::IsFiniteOp, math::CountLeadingZerosOp,
             math::CountTrailingZerosOp, math::CtPopOp>(op);
}

/// Integer power (ONNX Pow on integers) as branch-free square-and-multiply
/// over every bit of the exponent; a negative exponent gives what the CPU
/// target's convert-math-to-funcs gives: 1 for base 1, +-1 for base -1,
/// otherwise 0.
struct ExpandIPowI : OpRewritePattern<math::IPowIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IPowIOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    auto intType = dyn_cast<IntegerType>(getElementTypeOrSelf(type));
    if (!intType || isa<ShapedType>(type))
      return rewriter.notifyMatchFailure(op, "expects a scalar integer");
    Location loc = op.getLoc();
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(rewriter, loc, type,
                                       rewriter.getIntegerAttr(type, v));
    };
    Value base = op.getLhs(), exp = op.getRhs();
    Value result = c(1), one = c(1), zero = c(0);
    Value square = base, bits = exp;
    for (unsigned i = 0; i < intType.getWidth(); ++i) {
      Value odd = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ne,
          arith::AndIOp::create(rewriter, loc, bits, one), zero);
      result = arith::SelectOp::create(
          rewriter, loc, odd,
          arith::MulIOp::create(rewriter, loc, result, square), result);
      square = arith::MulIOp::create(rewriter, loc, square, square);
      bits = arith::ShRUIOp::create(rewriter, loc, bits, one);
    }
    Value negative = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::slt, exp, zero);
    Value isOne = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        base, one);
    Value isMinusOne = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, base, c(-1));
    Value oddExp = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(rewriter, loc, exp, one), zero);
    Value inverse = arith::SelectOp::create(
        rewriter, loc, isOne, one,
        arith::SelectOp::create(
            rewriter, loc, isMinusOne,
            arith::SelectOp::create(rewriter, loc, oddExp, c(-1), one), zero));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, negative, inverse, result);
    return success();
  }
};

/// Rewrites transcendental math into arithmetic; every other math op left
/// must have a native lowering.
LogicalResult expandMath(gpu::GPUModuleOp gpuModule) {
  RewritePatternSet patterns(gpuModule.getContext());
  patterns.add<ExpandIPowI>(gpuModule.getContext());
  math::populateExpansionPatterns(patterns, {"powf", "fpowi", "sinh", "cosh",
                                             "asinh", "acosh", "atanh", "tan",
                                             "exp2", "round", "ctlz"});
  populateMathF32ExpansionPatterns(patterns, [](StringRef) { return true; });
  populateMathPolynomialApproximationPatterns(patterns,
                                              [](StringRef) { return true; });
  if (failed(applyPatternsGreedily(gpuModule, std::move(patterns))))
    return gpuModule.emitError() << "expects math rewrites to converge";
  WalkResult left = gpuModule.walk([](Operation *op) {
    if (op->getDialect() &&
        op->getDialect()->getNamespace() ==
            math::MathDialect::getDialectNamespace() &&
        !hasNativeLowering(op)) {
      auto kernel = op->getParentOfType<gpu::GPUFuncOp>();
      op->emitError() << "expects math ops with a GPU lowering that needs no "
                         "libdevice but got '"
                      << op->getName() << "' on " << op->getOperand(0).getType()
                      << " in kernel "
                      << (kernel ? kernel.getName() : StringRef("?"));
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(left.wasInterrupted());
}

/// gpu/arith/cf/memref/vector/math to NVVM and LLVM, bare-pointer kernel
/// arguments, and no libdevice patterns.
LogicalResult convertToNVVM(gpu::GPUModuleOp gpuModule) {
  MLIRContext *ctx = gpuModule.getContext();
  LowerToLLVMOptions options(ctx);
  options.useBarePtrCallConv = true;
  LLVMTypeConverter converter(ctx, options);
  configureGpuToNVVMTypeConverter(converter);
  RewritePatternSet patterns(ctx);
  populateGpuToNVVMConversionPatterns(converter, patterns);
  // The contraction kernel's cp.async and ldmatrix (nvgpu ops on memrefs).
  populateNVGPUToNVVMConversionPatterns(converter, patterns);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
  populateVectorToLLVMConversionPatterns(converter, patterns);
  populateMathToLLVMConversionPatterns(converter, patterns);
  ub::populateUBToLLVMConversionPatterns(converter, patterns);
  LLVMConversionTarget target(*ctx);
  target.addLegalDialect<NVVM::NVVMDialect>();
  target.addIllegalDialect<gpu::GPUDialect, nvgpu::NVGPUDialect>();
  target.addLegalOp<gpu::GPUModuleOp>();
  target.addIllegalOp<LLVM::ExpOp, LLVM::LogOp, LLVM::PowOp, LLVM::SinOp,
                      LLVM::CosOp>();
  return applyPartialConversion(gpuModule, target, std::move(patterns));
}

/// The kernel (`.entry`) of `ptx` that line `line` (1-based) is in.
std::string kernelAtLine(StringRef ptx, int64_t line) {
  std::string kernel;
  llvm::Regex entry("\\.entry[ \t]+([A-Za-z0-9_$]+)");
  SmallVector<StringRef> lines;
  ptx.split(lines, '\n');
  for (int64_t i = 0; i < line && i < (int64_t)lines.size(); ++i) {
    SmallVector<StringRef> m;
    if (entry.match(lines[i], &m))
      kernel = m[1].str();
  }
  return kernel;
}

/// Replaces the generated gpu.module @bwc_kernels with the one in `path`.
LogicalResult replaceGpuModule(ModuleOp module,
                               const ::bwc::rt::Artifact &artifact,
                               StringRef path) {
  std::string error;
  auto file = openInputFile(path, &error);
  if (!file)
    return module.emitError()
           << "cannot read --gpu-module " << path << ": " << error;
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> parsed =
      parseSourceFile<ModuleOp>(sources, module.getContext());
  if (!parsed)
    return failure();
  auto replacement = parsed->lookupSymbol<gpu::GPUModuleOp>("bwc_kernels");
  if (!replacement)
    return module.emitError()
           << "expects a gpu.module @bwc_kernels in " << path;
  for (const ::bwc::rt::Kernel &k : artifact.kernels)
    if (!replacement.lookupSymbol<gpu::GPUFuncOp>(k.name))
      return module.emitError()
             << "expects kernel @" << k.name << " in " << path;
  module.lookupSymbol<gpu::GPUModuleOp>("bwc_kernels").erase();
  replacement->remove();
  module.getBody()->push_back(replacement);
  return success();
}

} // namespace

LogicalResult mlir::bwc::expandGpuMath(ModuleOp module) {
  auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("bwc_kernels");
  if (!gpuModule)
    return module.emitError() << "expects a gpu.module @bwc_kernels";
  return expandMath(gpuModule);
}

LogicalResult mlir::bwc::lowerGpuModuleToNVVM(ModuleOp module) {
  auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("bwc_kernels");
  if (!gpuModule)
    return module.emitError() << "expects a gpu.module @bwc_kernels";
  PassManager pm(module.getContext());
  pm.nest<gpu::GPUModuleOp>().addPass(createSCFToControlFlowPass());
  if (failed(pm.run(module)) || failed(convertToNVVM(gpuModule)))
    return failure();
  PassManager finish(module.getContext());
  finish.addPass(createReconcileUnrealizedCastsPass());
  finish.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  finish.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  return finish.run(module);
}

FailureOr<std::string> mlir::bwc::lowerGpuKernelsToPtx(ModuleOp module) {
  if (failed(expandGpuMath(module)) || failed(lowerGpuModuleToNVVM(module)))
    return failure();
  auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("bwc_kernels");
  PassManager finish(module.getContext());
  GpuNVVMAttachTargetOptions attach;
  attach.chip = kCudaArch.str();
  attach.features = "+ptx80";
  attach.optLevel = 3;
  finish.addPass(createGpuNVVMAttachTarget(attach));
  if (failed(finish.run(module)))
    return failure();
  // Defense in depth: a libdevice or libm call would be an unresolved
  // symbol for ptxas and the driver.
  for (auto f : gpuModule.getOps<LLVM::LLVMFuncOp>())
    if (f.isExternal())
      return f.emitError() << "expects no calls to external functions (no "
                              "libdevice) but got @"
                           << f.getName(),
             failure();

  PassManager serialize(module.getContext());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  serialize.addPass(createGpuModuleToBinaryPass(binary));
  if (failed(serialize.run(module)))
    return failure();
  auto bin = module.lookupSymbol<gpu::BinaryOp>("bwc_kernels");
  if (!bin || bin.getObjects().size() != 1)
    return module.emitError() << "expects one PTX object for bwc_kernels",
           failure();
  return cast<gpu::ObjectAttr>(bin.getObjects()[0]).getObject().str();
}

std::string mlir::bwc::findPtxas(const CudaOptions &options) {
  if (!options.ptxas.empty())
    return options.ptxas == "none" ? "" : options.ptxas;
  if (const char *env = std::getenv("BWC_PTXAS"); env && *env)
    return StringRef(env) == "none" ? "" : env;
  if (auto p = llvm::sys::findProgramByName("ptxas"))
    return *p;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  return "";
}

FailureOr<std::string> mlir::bwc::assemblePtx(Location loc, StringRef ptx,
                                              StringRef ptxas) {
  SmallString<128> in, out, err;
  if (llvm::sys::fs::createTemporaryFile("bwc", "ptx", in) ||
      llvm::sys::fs::createTemporaryFile("bwc", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("bwc", "log", err))
    return emitError(loc) << "expects a writable temporary directory",
           failure();
  auto cleanup = llvm::make_scope_exit([&] {
    llvm::sys::fs::remove(in);
    llvm::sys::fs::remove(out);
    llvm::sys::fs::remove(err);
  });
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    if (ec)
      return emitError(loc) << "cannot write " << in << ": " << ec.message(),
             failure();
    os << ptx;
  }
  std::string arch = ("-arch=" + kCudaArch).str();
  SmallVector<StringRef> argv = {ptxas, arch, "-O3", in, "-o", out};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(err),
                                          StringRef(err)};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, argv, std::nullopt, redirects, 0, 0,
                                     &execError);
  if (rc != 0) {
    auto log = llvm::MemoryBuffer::getFile(err);
    std::string text = log ? (*log)->getBuffer().trim().str() : execError;
    std::string kernel;
    SmallVector<StringRef> m;
    if (llvm::Regex("line ([0-9]+)").match(text, &m))
      kernel = kernelAtLine(ptx, std::stoll(m[1].str()));
    return emitError(loc) << "expects ptxas (" << ptxas << ") to assemble the "
                          << "PTX" << (kernel.empty() ? "" : " of kernel ")
                          << kernel << " but it failed (exit " << rc
                          << "): " << text,
           failure();
  }
  auto cubin = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  if (!cubin)
    return emitError(loc) << "cannot read the cubin ptxas wrote", failure();
  return (*cubin)->getBuffer().str();
}

void mlir::bwc::addKernelConfigurationPasses(PassManager &pm,
                                             const CudaOptions &options) {
  ConfigureKernelsPassOptions config;
  config.smCount = options.smCount;
  config.convGemm = options.convGemm;
  config.convGemmFill = options.convGemmFill;
  config.tensorCores = options.tensorCores;
  pm.addPass(createConfigureKernelsPass(config));
  if (options.tile) {
    TilePassOptions tile;
    tile.smCount = options.smCount;
    tile.convGemm = options.convGemm;
    tile.convGemmFill = options.convGemmFill;
    tile.tensorCores = options.tensorCores;
    if (!options.tileEmitters.empty())
      tile.emitters = options.tileEmitters;
    pm.addPass(createTilePass(tile));
  }
  if (!options.tuningCache.empty()) {
    ApplyTuningPassOptions tuning;
    tuning.cache = options.tuningCache;
    tuning.gpu = options.tuneGpu;
    pm.addPass(createApplyTuningPass(tuning));
  }
}

LogicalResult mlir::bwc::emitCudaCode(ModuleOp module,
                                      ::bwc::rt::Artifact &artifact,
                                      const CudaOptions &options,
                                      std::string *gpuModule) {
  MLIRContext &ctx = *module.getContext();
  loadCudaDialects(ctx);
  PassManager configure(&ctx);
  addKernelConfigurationPasses(configure, options);
  if (failed(configure.run(module)))
    return failure();

  // Launch configuration of every kernel the program launches.
  for (::bwc::rt::Kernel &k : artifact.kernels) {
    StringRef name = StringRef(k.name).drop_back(kPackedSuffix.size());
    auto kernel = module.lookupSymbol<func::FuncOp>(name);
    auto dict =
        kernel ? kernel->getAttrOfType<DictionaryAttr>(kKernelConfigAttrName)
               : DictionaryAttr();
    if (!dict)
      return module.emitError() << "expects a configured kernel @" << name,
             failure();
    auto get = [&](StringRef f) {
      auto a = dict.getAs<IntegerAttr>(f);
      return a ? uint32_t(a.getInt()) : 0u;
    };
    k.grid[0] = get("grid");
    k.block[0] = get("block");
    k.grid[1] = k.grid[2] = k.block[1] = k.block[2] = 1;
    k.sharedBytes = 0; // shared memory is static (workgroup attributions)
    llvm::raw_string_ostream os(k.config);
    for (NamedAttribute a : dict) {
      os << (k.config.empty() ? "" : " ") << a.getName().getValue() << "=";
      if (auto s = dyn_cast<StringAttr>(a.getValue()))
        os << s.getValue();
      else if (auto i = dyn_cast<IntegerAttr>(a.getValue()))
        os << i.getInt();
    }
  }

  if (failed(buildGpuKernels(module, kPackedSuffix)))
    return failure();
  if (!options.gpuModuleFile.empty() &&
      failed(replaceGpuModule(module, artifact, options.gpuModuleFile)))
    return failure();
  {
    PassManager vectorize(&ctx);
    vectorize.addPass(createVectorizeGpuLoadsPass());
    if (failed(vectorize.run(module)))
      return failure();
  }
  if (gpuModule) {
    llvm::raw_string_ostream os(*gpuModule);
    module.print(os);
  }
  // cuda-sim lowers a copy of the same kernels, after the same math
  // expansion, for the host.
  artifact.sim = ::bwc::rt::SimCode();
  if (options.sim) {
    if (failed(expandGpuMath(module)))
      return failure();
    FailureOr<::bwc::rt::SimCode> sim =
        lowerGpuKernelsForSim(module, artifact, options.simModule);
    if (failed(sim))
      return failure();
    artifact.sim = std::move(*sim);
  }
  FailureOr<std::string> ptx = lowerGpuKernelsToPtx(module);
  if (failed(ptx))
    return failure();
  artifact.code = *ptx;
  artifact.gpuArch = kCudaArch.str();
  artifact.cubin.clear();
  if (!options.cubin)
    return success();
  std::string ptxas = findPtxas(options);
  if (ptxas.empty())
    return success();
  FailureOr<std::string> cubin = assemblePtx(module.getLoc(), *ptx, ptxas);
  if (failed(cubin))
    return failure();
  artifact.cubin = std::move(*cubin);
  return success();
}
