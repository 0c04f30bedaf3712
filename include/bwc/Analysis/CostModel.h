//===- CostModel.h - Bytes moved and flops of kernels -----------*- C++ -*-===//
//
// The bandwidth cost model every pass uses. A kernel reads each distinct
// input tensor once from DRAM and writes each result once; values inside a
// kernel (a fusion region) never touch DRAM. Weights count like any input;
// a broadcast operand counts its real (unbroadcast) size. Flops are the
// arithmetic a kernel performs (data movement performs none).
//
//===----------------------------------------------------------------------===//
#ifndef BWC_ANALYSIS_COSTMODEL_H
#define BWC_ANALYSIS_COSTMODEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::bwc {

class FusionOp;

/// The measured H200 device-to-device copy bandwidth (DESIGN.md), GB/s: the
/// default peak for time estimates.
constexpr double kDefaultPeakGBps = 4282.0;

/// Constants up to this many elements are compiled into kernels as
/// literals (bwc-outline-kernels' default), so they cost no DRAM bytes.
constexpr int64_t kInlineConstantElements = 16;

/// True for a value the kernel does not read from memory: a constant of at
/// most kInlineConstantElements elements.
bool isInlinedConstant(Value v);

/// Bytes of a ranked tensor value (bools count one byte).
uint64_t tensorBytes(Type type);

/// Floating-point (or integer) operations one bwc op performs.
uint64_t opFlops(Operation *op);

struct KernelCost {
  std::string name; ///< kernel or op name, for reports
  std::string ops;  ///< the bwc ops it computes, comma-separated
  uint64_t bytesRead = 0, bytesWritten = 0, flops = 0;
  uint64_t bytes() const { return bytesRead + bytesWritten; }
  /// Flops per DRAM byte.
  double intensity() const { return bytes() ? double(flops) / bytes() : 0; }
};

/// Cost of a kernel reading `inputs` (each distinct value once), writing
/// `outputs` and computing `ops`.
KernelCost kernelCost(ValueRange inputs, ValueRange outputs,
                      ArrayRef<Operation *> ops);
/// Cost of one op run as its own kernel, or of a fusion region.
KernelCost kernelCost(Operation *op);
/// Cost of an outlined kernel function (arguments in, returned values out).
KernelCost kernelCost(func::FuncOp kernel);

struct ProgramCost {
  std::vector<KernelCost> kernels;
  uint64_t bytesRead = 0, bytesWritten = 0, flops = 0;
  /// Bytes of the tensors written by one kernel and read by another
  /// (what fusion removes).
  uint64_t intermediateBytes = 0;
  uint64_t bytes() const { return bytesRead + bytesWritten; }
  /// Time to move bytes() at `peakGBps`, seconds.
  double estimatedSeconds(double peakGBps = kDefaultPeakGBps) const {
    return bytes() / (peakGBps * 1e9);
  }
};

/// Cost of a program function before outlining: every op other than a
/// constant (a plain op or a bwc.fusion) is one kernel.
ProgramCost programCost(func::FuncOp program);

} // namespace mlir::bwc

#endif // BWC_ANALYSIS_COSTMODEL_H
