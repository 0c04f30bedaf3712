//===- FuzzCompile.h - The compiler fuzz targets' shared body ---*- C++ -*-===//
//
// What every compiler-side fuzz target does with its input: compile it for
// the CPU, all the way to the artifact, through the compiler API
// (bwc/Compiler/Compiler.h), and check the two rules a user relies on:
//
//  - a refusal is an error diagnostic ("error: ..."), never silence;
//  - an accepted model gives an artifact that validates and round-trips
//    (serialize, deserialize), as bwc-run will load it.
//
// A crash, a sanitizer report, a hang (-timeout) or memory over the limit
// (-rss_limit_mb) is a finding of libFuzzer's own.
//
//===----------------------------------------------------------------------===//
#ifndef BWC_TEST_FUZZ_FUZZCOMPILE_H
#define BWC_TEST_FUZZ_FUZZCOMPILE_H

#include "bwc/Compiler/Compiler.h"

#include <cstddef>
#include <cstdint>

namespace mlir::bwc::fuzz {

/// Compiles `data` as a model of `format`. The options are picked from the
/// input's length (size % 5), so that one corpus reaches the default
/// pipeline, --fusion=none, --precision=fp16, --codegen=elemental and
/// --train=grad or (odd size / 5) --train=sgd:0.1, and replaying an input
/// always picks the same ones. One input in eight ((size / 10) % 8 == 0)
/// is compiled to the artifact, which must validate and round-trip; the
/// others stop at the kernels' verified LLVM IR (--emit=llvm).
/// External data resolves in a private temporary folder holding one file,
/// `w.bin` (4 KiB), so the reading path is exercised and nothing else on the
/// machine can be reached. Aborts when a rule above is broken.
void compileInput(const uint8_t *data, size_t size,
                  mlir::bwc::ModelSource::Format format);

} // namespace mlir::bwc::fuzz

#endif // BWC_TEST_FUZZ_FUZZCOMPILE_H
