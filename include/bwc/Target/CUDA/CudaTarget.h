//===- CudaTarget.h - Kernels to PTX and cubin for NVIDIA GPUs --*- C++ -*-===//
//
// The CUDA code generator: outlined, configured kernels (bwc ops on
// tensors, `bwc.config` from bwc-configure-kernels) become one gpu.module of
// gpu.func kernels, lowered through NVVM and LLVM's NVPTX back end to the
// PTX of one module; ptxas, when installed, assembles it for sm_90.
// docs/targets/cuda.md describes the pipeline and the kernel ABI.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_TARGET_CUDA_CUDATARGET_H
#define BWC_TARGET_CUDA_CUDATARGET_H

#include "bwc/Runtime/Artifact.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir {
class PassManager;
} // namespace mlir

namespace mlir::bwc {

/// The architecture every PTX module targets.
constexpr llvm::StringLiteral kCudaArch = "sm_90";

struct CudaOptions {
  /// Streaming multiprocessors the grids are sized for (H100 SXM: 132).
  int64_t smCount = 132;
  /// ptxas to run; empty: $BWC_PTXAS, then PATH, then /usr/local/cuda/bin.
  std::string ptxas;
  /// Whether to run ptxas at all (no cubin when false).
  bool cubin = true;
  /// Whether bwc-tile refines the default configurations with the access
  /// model (bwc-compile --tile=default|none).
  bool tile = true;
  /// The emitters bwc-tile may choose (empty: the pass's default list).
  std::string tileEmitters;
  /// Direct convolutions with groups 1 as implicit GEMMs (bwc-compile
  /// --conv-kernels=gemm, default) or one thread per output (direct).
  bool convGemm = true;
  /// Implicit GEMMs only where their tiles fill the SMs (bwc-compile
  /// --conv-kernels=auto, default); false: every groups-1 convolution
  /// (gemm).
  bool convGemmFill = true;
  /// f16/bf16 contractions on the tensor cores (bwc-compile
  /// --tensor-cores=on, default) or the f32 tiling (off).
  bool tensorCores = true;
  /// A tuning cache (bwc-compile --tuning-cache) that bwc-apply-tuning
  /// reads after bwc-tile, and the GPU whose entries to use (empty: the
  /// cache's only GPU).
  std::string tuningCache, tuneGpu;
  /// Whether the artifact also carries the kernels lowered for the host
  /// (cuda-sim; bwc-compile --cuda-sim=on, default).
  bool sim = true;
  /// A gpu.module file (as --emit=gpu prints it, possibly edited) that
  /// replaces the generated kernels (bwc-compile --gpu-module): kernel
  /// debugging, and the sanitizers' negative controls. Every kernel the
  /// program launches must be in it.
  std::string gpuModuleFile;
  /// When set, receives the host module of the cuda-sim lowering as MLIR
  /// text (bwc-compile --emit=sim).
  std::string *simModule = nullptr;
};

/// The operands of a tensor-core `mma.sync.m16n8k16` with 16-bit (f16,
/// bf16) operands and f32 accumulation: A is [m][k] 16x16, B [n][k] 8x16
/// (the column-major K x N operand), C the [m][n] 16x8 accumulator.
enum class MmaOperand { A, B, C };
/// (lane, value) -> (row, column) of `operand`'s fragment: value v of lane
/// l sits at map(l, v) of the operand (for A and B, values 2r and 2r+1 are
/// the two halves of register r). Upstream nvgpu's layout, which the
/// contraction_tiled driver addresses its shared tiles with.
FailureOr<AffineMap> mmaFragmentMap(MLIRContext *ctx, MmaOperand operand);

/// Registers and loads the dialects and translations the CUDA target uses.
void loadCudaDialects(MLIRContext &ctx);

/// Replaces every `bwc.kernel` function of `module` (configured by
/// bwc-configure-kernels) with a `gpu.func` kernel of the same name plus
/// `suffix` in one `gpu.module @bwc_kernels`: arguments are flat static
/// memrefs, inputs then outputs.
LogicalResult buildGpuKernels(ModuleOp module, StringRef suffix);

/// Rewrites the gpu.module's transcendental math into arithmetic
/// (polynomial approximations, f16/bf16 in f32); fails naming an op with no
/// GPU lowering that needs no libdevice. Idempotent.
LogicalResult expandGpuMath(ModuleOp module);

/// SCF to CF, then gpu/arith/cf/memref/vector/math to NVVM and LLVM with
/// bare-pointer kernel arguments, reconciled, canonicalized and CSE'd: the
/// form both the NVPTX back end and the cuda-sim host lowering start from.
LogicalResult lowerGpuModuleToNVVM(ModuleOp module);

/// cuda-sim: lowers a copy of `module`'s gpu.module (math already
/// expanded) to NVVM like the PTX path, then for the host
/// (bwc-cuda-sim-host), and compiles it into a shared object. The result
/// has one SimKernel per `artifact.kernels` entry. With `hostModule`, the
/// host module's MLIR text is written there too.
FailureOr<::bwc::rt::SimCode>
lowerGpuKernelsForSim(ModuleOp module, const ::bwc::rt::Artifact &artifact,
                      std::string *hostModule = nullptr);

/// Lowers the gpu.module to NVVM/LLVM and returns its PTX text. Fails with
/// an error naming the kernel when an op has no GPU lowering without
/// libdevice.
FailureOr<std::string> lowerGpuKernelsToPtx(ModuleOp module);

/// The ptxas to use, or empty when none is installed.
std::string findPtxas(const CudaOptions &options);

/// Assembles `ptx` for sm_90 with `ptxas -O3`; a ptxas error is reported at
/// `loc` with ptxas's messages and the kernel they point into.
FailureOr<std::string> assemblePtx(Location loc, StringRef ptx,
                                   StringRef ptxas);

/// The passes that decide each outlined kernel's configuration, as
/// emitCudaCode runs them: bwc-configure-kernels, bwc-tile (options.tile)
/// and bwc-apply-tuning (options.tuningCache). The report's coalescing
/// figures come from the same configuration, whatever the target.
void addKernelConfigurationPasses(PassManager &pm, const CudaOptions &options);

/// The whole CUDA code generation of bwc-compile: configures the kernels,
/// records each launch configuration in `artifact.kernels`, builds and
/// lowers the kernels, fills `artifact.code` (PTX), `artifact.cubin` (when
/// ptxas is found) and `artifact.gpuArch`. With `gpuModule`, also prints
/// the gpu.module before lowering into it.
LogicalResult emitCudaCode(ModuleOp module, ::bwc::rt::Artifact &artifact,
                           const CudaOptions &options,
                           std::string *gpuModule = nullptr);

} // namespace mlir::bwc

#endif // BWC_TARGET_CUDA_CUDATARGET_H
