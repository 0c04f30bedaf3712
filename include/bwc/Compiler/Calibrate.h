//===- Calibrate.h - Value ranges from sample inputs -------------*- C++ -*-===//
//
// --calibrate=CASE_DIR: runs the fp32 program on sample inputs (the CPU
// target, in process) and records the range of every f32 value of the
// program function as an IR attribute, which bwc-mixed-precision reads to
// keep in f32 what would overflow or underflow in fp16/bf16
// (docs/passes/bwc-mixed-precision.md "Calibration").
//
//===----------------------------------------------------------------------===//
#ifndef BWC_COMPILER_CALIBRATE_H
#define BWC_COMPILER_CALIBRATE_H

#include "bwc/Compiler/Compiler.h"

#include <string>
#include <vector>

namespace mlir::bwc {

/// What a calibration run observed (the report's "calibration" section).
struct CalibrationSummary {
  int64_t dataSets = 0;
  /// f32 values observed (op results and program arguments).
  int64_t values = 0;
  /// The validation search: programs compiled and run in fp16/bf16, its
  /// tolerance (relative L2 per output against the fp32 program) and the
  /// worst error of the program it chose.
  int64_t trials = 0;
  double tolerance = 0, worstError = 0;
  /// A step with a dynamic loss scale: the scale bwc-grad starts it from
  /// and the one calibration chose (settleLossScale in Calibrate.cpp; 0
  /// without one), and why the scale was left when it was.
  double initialLossScale = 0, lossScale = 0;
  /// The search's other objective: the static DRAM bytes (CPU target, as
  /// the trials are compiled) with every candidate f32 and of the chosen
  /// program.
  double bytesAllKept = 0, bytesChosen = 0;
  /// Each trial of the search, in order: how many candidates it gave the
  /// low type, its worst output error, its static bytes, whether it was
  /// accepted.
  struct Trial {
    int64_t low;
    double error, bytes;
    bool accepted;
  };
  std::vector<Trial> log;
  std::string lossScaleNote;
};

/// Runs `main` of `module` (bwc dialect, f32, before bwc-mixed-precision) on
/// every data set of `caseDirs` and sets, on each op of `main` with f32
/// results, `bwc.range` = one dictionary per result ({max, median}: the
/// largest finite |x| and the median of the nonzero |x|, over all data sets:
/// the largest max, the smallest median; an empty dictionary for results
/// that are not f32 tensors), and the same dictionary as the `bwc.range`
/// attribute of each f32 argument. A case folder is an ONNX test case (its
/// `test_data_set_*` folders) or one data set (`input_K.pb` files); inputs
/// match by tensor name, else by position. `options` are the compile's:
/// the sample program is compiled with them for the CPU target, in fp32,
/// without a memory budget. Errors name the folder or file.
///
/// Then the validation search (an optimizer step compared by its state's
/// change, as a stateless function; ONNX's
/// auto_convert_mixed_precision, over the ops bwc-mixed-precision computes
/// in the low type with f32 sums: matmuls and convolutions): starting from
/// all of them in f32, it tries to give a run of them the low type, compiles
/// and runs the program on the data sets, and accepts the run when the
/// program's static DRAM bytes do not grow and every
/// f32 output stays within `options.calibrateTolerance` (relative L2,
/// against the fp32 program; 0 means a quarter of the conformance limit: 2.5e-3
/// for fp16, 7.5e-3 for bf16, docs/passes/bwc-mixed-precision.md), else halves the run, so that only ops that
/// break the tolerance on their own stay f32. Those get `bwc.keep_f32` with
/// the reason; at most `options.calibrateTrials` programs are tried (what
/// is left untried stays f32, and says so). A training step's backward
/// contractions are tried before the forward ones. A step with a dynamic
/// loss scale first gets the initial scale the sample data settles to.
LogicalResult calibrate(ModuleOp module, const std::vector<std::string> &caseDirs,
                        const CompileOptions &options,
                        CalibrationSummary &summary);


} // namespace mlir::bwc

#endif // BWC_COMPILER_CALIBRATE_H
